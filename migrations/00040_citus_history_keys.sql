-- Citus (docs/scaling.md, "What the real cluster refused"): the history
-- tables, partitioned by month, lose their foreign keys to orgs.
--
-- On PostgreSQL 15 a foreign key cannot be added to a partitioned table
-- as NOT VALID, which is how Citus adds one to a distributed table; and
-- while such a key exists, create_reference_table('orgs') turns the table
-- into a Citus local table (it converts every table in orgs' foreign-key
-- graph), which fails on our partitions' CHECK constraints ("child table
-- is missing constraint …") and could not become distributed afterwards
-- anyway. So a partitioned org-scoped table references only distributed
-- tables (TestCitusReady checks it). Nothing is lost for three of them:
-- revisions, runs and deliveries go with their briefing
-- ((org_id, briefing_id) → ff_briefings ON DELETE CASCADE), which goes
-- with its org. A delivery attempt goes with its month (history
-- retention); no code deletes orgs.

-- +goose Up
ALTER TABLE ff_briefing_revisions DROP CONSTRAINT ff_briefing_revisions_org_id_fkey;
ALTER TABLE ff_briefing_runs DROP CONSTRAINT ff_briefing_runs_org_id_fkey;
ALTER TABLE ff_deliveries DROP CONSTRAINT ff_deliveries_org_id_fkey;
ALTER TABLE ff_delivery_attempts DROP CONSTRAINT ff_delivery_attempts_org_id_fkey;

-- +goose Down
ALTER TABLE ff_briefing_revisions
    ADD CONSTRAINT ff_briefing_revisions_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_runs
    ADD CONSTRAINT ff_briefing_runs_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
ALTER TABLE ff_deliveries
    ADD CONSTRAINT ff_deliveries_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
ALTER TABLE ff_delivery_attempts
    ADD CONSTRAINT ff_delivery_attempts_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
