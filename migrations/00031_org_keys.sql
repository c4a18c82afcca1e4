-- Keys that carry the tenant (docs/scaling.md, "Step 4 — Citus, distributed
-- by org_id"): Citus enforces a primary key or unique constraint of a
-- distributed table only when it includes the distribution column, and a
-- foreign key between two distributed tables only when it maps org_id to
-- org_id. Every primary key, unique key and foreign key between org-scoped
-- tables therefore gains org_id; migrations/citus_test.go checks the whole
-- schema against the table of kinds in docs/scaling.md.
--
-- Expand/contract: no query of ours or of the previous release names a key
-- changed here (their ON CONFLICT targets are (org_id, briefing_date),
-- (org_id, external_ref), … which stay; ff_deliveries' insert has no target),
-- and no error is matched by the name of one. Lookups by id alone or by
-- token_hash alone still find one row through the new keys' indexes
-- ((token_hash, org_id) leads with the hash); ids stay unique by identity.
--
-- Every foreign key has an index whose leading columns are its own, so a
-- cascade from the referenced row is an index scan.

-- +goose Up

-- 1. Foreign keys onto the keys that change go first.
ALTER TABLE ff_briefing_requests  DROP CONSTRAINT ff_briefing_requests_briefing_id_fkey;
ALTER TABLE ff_briefing_revisions DROP CONSTRAINT ff_briefing_revisions_briefing_id_fkey;
ALTER TABLE ff_briefing_runs      DROP CONSTRAINT ff_briefing_runs_briefing_id_fkey;
ALTER TABLE ff_briefing_updates   DROP CONSTRAINT ff_briefing_updates_briefing_id_fkey,
                                  DROP CONSTRAINT ff_briefing_updates_org_id_technician_id_fkey;
ALTER TABLE ff_deliveries         DROP CONSTRAINT ff_deliveries_briefing_id_fkey,
                                  DROP CONSTRAINT ff_deliveries_update_id_fkey;
ALTER TABLE ff_delivery_attempts  DROP CONSTRAINT ff_delivery_attempts_delivery_id_fkey;
ALTER TABLE ff_job_changes        DROP CONSTRAINT ff_job_changes_job_id_fkey,
                                  DROP CONSTRAINT ff_job_changes_update_id_fkey,
                                  DROP CONSTRAINT ff_job_changes_announced_in_fkey,
                                  DROP CONSTRAINT ff_job_changes_org_id_technician_id_fkey;
ALTER TABLE jobs                  DROP CONSTRAINT jobs_org_id_technician_id_fkey;
ALTER TABLE technician_day_links  DROP CONSTRAINT technician_day_links_org_id_technician_id_fkey;
ALTER TABLE technician_import_baselines DROP CONSTRAINT technician_import_baselines_org_id_technician_id_fkey;

-- 2. Primary and unique keys with org_id. technicians had both PRIMARY KEY
-- (id) and UNIQUE (org_id, id) for the foreign keys: one key is left.
ALTER TABLE technicians DROP CONSTRAINT technicians_pkey,
                        DROP CONSTRAINT technicians_org_id_id_key,
                        ADD CONSTRAINT technicians_pkey PRIMARY KEY (org_id, id);
ALTER TABLE jobs                 DROP CONSTRAINT jobs_pkey, ADD CONSTRAINT jobs_pkey PRIMARY KEY (org_id, id);
ALTER TABLE ff_briefings         DROP CONSTRAINT ff_briefings_pkey, ADD CONSTRAINT ff_briefings_pkey PRIMARY KEY (org_id, id);
ALTER TABLE ff_briefing_updates  DROP CONSTRAINT ff_briefing_updates_pkey, ADD CONSTRAINT ff_briefing_updates_pkey PRIMARY KEY (org_id, id);
ALTER TABLE ff_job_changes       DROP CONSTRAINT ff_job_changes_pkey, ADD CONSTRAINT ff_job_changes_pkey PRIMARY KEY (org_id, id);
ALTER TABLE ff_briefing_requests DROP CONSTRAINT ff_briefing_requests_pkey, ADD CONSTRAINT ff_briefing_requests_pkey PRIMARY KEY (org_id, id);
ALTER TABLE api_tokens           DROP CONSTRAINT api_tokens_pkey, ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (org_id, id);
ALTER TABLE csv_uploads          DROP CONSTRAINT csv_uploads_pkey, ADD CONSTRAINT csv_uploads_pkey PRIMARY KEY (org_id, id);
ALTER TABLE invites              DROP CONSTRAINT invites_pkey, ADD CONSTRAINT invites_pkey PRIMARY KEY (org_id, id);
ALTER TABLE technician_day_links DROP CONSTRAINT technician_day_links_pkey, ADD CONSTRAINT technician_day_links_pkey PRIMARY KEY (org_id, id);
ALTER TABLE ff_briefing_revisions DROP CONSTRAINT ff_briefing_revisions_pkey,
                                  ADD CONSTRAINT ff_briefing_revisions_pkey PRIMARY KEY (org_id, briefing_id, revision);
ALTER TABLE ff_briefing_runs     DROP CONSTRAINT ff_briefing_runs_pkey, ADD CONSTRAINT ff_briefing_runs_pkey PRIMARY KEY (org_id, id);
ALTER TABLE ff_deliveries        DROP CONSTRAINT ff_deliveries_pkey, ADD CONSTRAINT ff_deliveries_pkey PRIMARY KEY (org_id, id),
                                 DROP CONSTRAINT ff_deliveries_key_key, ADD CONSTRAINT ff_deliveries_org_id_key_key UNIQUE (org_id, key);
ALTER TABLE ff_delivery_attempts DROP CONSTRAINT ff_delivery_attempts_pkey, ADD CONSTRAINT ff_delivery_attempts_pkey PRIMARY KEY (org_id, id);

DROP INDEX ff_deliveries_once;
CREATE UNIQUE INDEX ff_deliveries_once ON ff_deliveries (org_id, briefing_id, revision, channel, lower(recipient))
    WHERE audience <> 'test' AND update_id IS NULL;

-- A token is looked up by its hash before its org is known: the hash leads.
DROP INDEX api_tokens_hash_key;
CREATE UNIQUE INDEX api_tokens_hash_key ON api_tokens (token_hash, org_id);
DROP INDEX invites_hash_key;
CREATE UNIQUE INDEX invites_hash_key ON invites (token_hash, org_id);
DROP INDEX technician_day_links_hash_key;
CREATE UNIQUE INDEX technician_day_links_hash_key ON technician_day_links (token_hash, org_id);

-- 3. The foreign keys again, each carrying org_id.
ALTER TABLE ff_briefing_requests ADD CONSTRAINT ff_briefing_requests_org_id_briefing_id_fkey
    FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_revisions ADD CONSTRAINT ff_briefing_revisions_org_id_briefing_id_fkey
    FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_runs ADD CONSTRAINT ff_briefing_runs_org_id_briefing_id_fkey
    FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_updates
    ADD CONSTRAINT ff_briefing_updates_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_briefing_updates_org_id_technician_id_fkey
        FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
ALTER TABLE ff_deliveries
    ADD CONSTRAINT ff_deliveries_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_deliveries_org_id_update_id_fkey
        FOREIGN KEY (org_id, update_id) REFERENCES ff_briefing_updates (org_id, id) ON DELETE CASCADE;
ALTER TABLE ff_delivery_attempts ADD CONSTRAINT ff_delivery_attempts_org_id_delivery_id_fkey
    FOREIGN KEY (org_id, delivery_id) REFERENCES ff_deliveries (org_id, id) ON DELETE CASCADE;
-- A change goes with the update that announced it (updates go only with
-- their briefing, that is with their org). Not SET NULL (announced_in):
-- Citus refuses SET NULL on a key that includes the distribution column.
ALTER TABLE ff_job_changes
    ADD CONSTRAINT ff_job_changes_org_id_job_id_fkey
        FOREIGN KEY (org_id, job_id) REFERENCES jobs (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_job_changes_org_id_update_id_fkey
        FOREIGN KEY (org_id, update_id) REFERENCES ff_briefing_updates (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_job_changes_org_id_announced_in_fkey
        FOREIGN KEY (org_id, announced_in) REFERENCES ff_briefing_updates (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_job_changes_org_id_technician_id_fkey
        FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
ALTER TABLE jobs ADD CONSTRAINT jobs_org_id_technician_id_fkey
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id);
ALTER TABLE technician_day_links ADD CONSTRAINT technician_day_links_org_id_technician_id_fkey
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
ALTER TABLE technician_import_baselines ADD CONSTRAINT technician_import_baselines_org_id_technician_id_fkey
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;

-- 4. Indexes for the foreign keys that had none leading with their columns.
CREATE INDEX ff_briefing_requests_briefing_idx ON ff_briefing_requests (org_id, briefing_id);
CREATE INDEX ff_deliveries_update_idx ON ff_deliveries (org_id, update_id);
CREATE INDEX ff_job_changes_announced_idx ON ff_job_changes (org_id, announced_in);
-- Deleting a technician cascades to these three (internal/field).
CREATE INDEX ff_briefing_updates_technician_idx ON ff_briefing_updates (org_id, technician_id);
CREATE INDEX ff_job_changes_technician_idx ON ff_job_changes (org_id, technician_id);
CREATE INDEX technician_day_links_technician_idx ON technician_day_links (org_id, technician_id);
-- Deleting a user (an operator's act; users is a reference table, so under
-- Citus the cascade runs on every shard) sets these NULL or deletes.
CREATE INDEX admin_feature_flags_updated_by_idx ON admin_feature_flags (updated_by);
CREATE INDEX org_feature_flags_updated_by_idx ON org_feature_flags (updated_by);
CREATE INDEX org_module_configs_updated_by_idx ON org_module_configs (updated_by);
CREATE INDEX api_tokens_created_by_idx ON api_tokens (created_by);
CREATE INDEX csv_uploads_user_idx ON csv_uploads (user_id);
CREATE INDEX invites_invited_by_idx ON invites (invited_by);
CREATE INDEX invites_accepted_by_idx ON invites (accepted_by);

-- +goose Down
DROP INDEX invites_accepted_by_idx;
DROP INDEX invites_invited_by_idx;
DROP INDEX csv_uploads_user_idx;
DROP INDEX api_tokens_created_by_idx;
DROP INDEX org_module_configs_updated_by_idx;
DROP INDEX org_feature_flags_updated_by_idx;
DROP INDEX admin_feature_flags_updated_by_idx;
DROP INDEX technician_day_links_technician_idx;
DROP INDEX ff_job_changes_technician_idx;
DROP INDEX ff_briefing_updates_technician_idx;
DROP INDEX ff_job_changes_announced_idx;
DROP INDEX ff_deliveries_update_idx;
DROP INDEX ff_briefing_requests_briefing_idx;

ALTER TABLE ff_briefing_requests  DROP CONSTRAINT ff_briefing_requests_org_id_briefing_id_fkey;
ALTER TABLE ff_briefing_revisions DROP CONSTRAINT ff_briefing_revisions_org_id_briefing_id_fkey;
ALTER TABLE ff_briefing_runs      DROP CONSTRAINT ff_briefing_runs_org_id_briefing_id_fkey;
ALTER TABLE ff_briefing_updates   DROP CONSTRAINT ff_briefing_updates_org_id_briefing_id_fkey,
                                  DROP CONSTRAINT ff_briefing_updates_org_id_technician_id_fkey;
ALTER TABLE ff_deliveries         DROP CONSTRAINT ff_deliveries_org_id_briefing_id_fkey,
                                  DROP CONSTRAINT ff_deliveries_org_id_update_id_fkey;
ALTER TABLE ff_delivery_attempts  DROP CONSTRAINT ff_delivery_attempts_org_id_delivery_id_fkey;
ALTER TABLE ff_job_changes        DROP CONSTRAINT ff_job_changes_org_id_job_id_fkey,
                                  DROP CONSTRAINT ff_job_changes_org_id_update_id_fkey,
                                  DROP CONSTRAINT ff_job_changes_org_id_announced_in_fkey,
                                  DROP CONSTRAINT ff_job_changes_org_id_technician_id_fkey;
ALTER TABLE jobs                  DROP CONSTRAINT jobs_org_id_technician_id_fkey;
ALTER TABLE technician_day_links  DROP CONSTRAINT technician_day_links_org_id_technician_id_fkey;
ALTER TABLE technician_import_baselines DROP CONSTRAINT technician_import_baselines_org_id_technician_id_fkey;

DROP INDEX technician_day_links_hash_key;
CREATE UNIQUE INDEX technician_day_links_hash_key ON technician_day_links (token_hash);
DROP INDEX invites_hash_key;
CREATE UNIQUE INDEX invites_hash_key ON invites (token_hash);
DROP INDEX api_tokens_hash_key;
CREATE UNIQUE INDEX api_tokens_hash_key ON api_tokens (token_hash);

DROP INDEX ff_deliveries_once;
CREATE UNIQUE INDEX ff_deliveries_once ON ff_deliveries (briefing_id, revision, channel, lower(recipient))
    WHERE audience <> 'test' AND update_id IS NULL;

ALTER TABLE ff_delivery_attempts DROP CONSTRAINT ff_delivery_attempts_pkey, ADD CONSTRAINT ff_delivery_attempts_pkey PRIMARY KEY (id);
ALTER TABLE ff_deliveries        DROP CONSTRAINT ff_deliveries_org_id_key_key, ADD CONSTRAINT ff_deliveries_key_key UNIQUE (key),
                                 DROP CONSTRAINT ff_deliveries_pkey, ADD CONSTRAINT ff_deliveries_pkey PRIMARY KEY (id);
ALTER TABLE ff_briefing_runs     DROP CONSTRAINT ff_briefing_runs_pkey, ADD CONSTRAINT ff_briefing_runs_pkey PRIMARY KEY (id);
ALTER TABLE ff_briefing_revisions DROP CONSTRAINT ff_briefing_revisions_pkey,
                                  ADD CONSTRAINT ff_briefing_revisions_pkey PRIMARY KEY (briefing_id, revision);
ALTER TABLE technician_day_links DROP CONSTRAINT technician_day_links_pkey, ADD CONSTRAINT technician_day_links_pkey PRIMARY KEY (id);
ALTER TABLE invites              DROP CONSTRAINT invites_pkey, ADD CONSTRAINT invites_pkey PRIMARY KEY (id);
ALTER TABLE csv_uploads          DROP CONSTRAINT csv_uploads_pkey, ADD CONSTRAINT csv_uploads_pkey PRIMARY KEY (id);
ALTER TABLE api_tokens           DROP CONSTRAINT api_tokens_pkey, ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (id);
ALTER TABLE ff_briefing_requests DROP CONSTRAINT ff_briefing_requests_pkey, ADD CONSTRAINT ff_briefing_requests_pkey PRIMARY KEY (id);
ALTER TABLE ff_job_changes       DROP CONSTRAINT ff_job_changes_pkey, ADD CONSTRAINT ff_job_changes_pkey PRIMARY KEY (id);
ALTER TABLE ff_briefing_updates  DROP CONSTRAINT ff_briefing_updates_pkey, ADD CONSTRAINT ff_briefing_updates_pkey PRIMARY KEY (id);
ALTER TABLE ff_briefings         DROP CONSTRAINT ff_briefings_pkey, ADD CONSTRAINT ff_briefings_pkey PRIMARY KEY (id);
ALTER TABLE jobs                 DROP CONSTRAINT jobs_pkey, ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);
ALTER TABLE technicians DROP CONSTRAINT technicians_pkey,
                        ADD CONSTRAINT technicians_pkey PRIMARY KEY (id),
                        ADD CONSTRAINT technicians_org_id_id_key UNIQUE (org_id, id);

ALTER TABLE ff_briefing_requests ADD CONSTRAINT ff_briefing_requests_briefing_id_fkey
    FOREIGN KEY (briefing_id) REFERENCES ff_briefings (id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_revisions ADD CONSTRAINT ff_briefing_revisions_briefing_id_fkey
    FOREIGN KEY (briefing_id) REFERENCES ff_briefings (id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_runs ADD CONSTRAINT ff_briefing_runs_briefing_id_fkey
    FOREIGN KEY (briefing_id) REFERENCES ff_briefings (id) ON DELETE CASCADE;
ALTER TABLE ff_briefing_updates
    ADD CONSTRAINT ff_briefing_updates_briefing_id_fkey
        FOREIGN KEY (briefing_id) REFERENCES ff_briefings (id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_briefing_updates_org_id_technician_id_fkey
        FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
ALTER TABLE ff_deliveries
    ADD CONSTRAINT ff_deliveries_briefing_id_fkey
        FOREIGN KEY (briefing_id) REFERENCES ff_briefings (id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_deliveries_update_id_fkey
        FOREIGN KEY (update_id) REFERENCES ff_briefing_updates (id) ON DELETE CASCADE;
ALTER TABLE ff_delivery_attempts ADD CONSTRAINT ff_delivery_attempts_delivery_id_fkey
    FOREIGN KEY (delivery_id) REFERENCES ff_deliveries (id) ON DELETE CASCADE;
ALTER TABLE ff_job_changes
    ADD CONSTRAINT ff_job_changes_job_id_fkey
        FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_job_changes_update_id_fkey
        FOREIGN KEY (update_id) REFERENCES ff_briefing_updates (id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_job_changes_announced_in_fkey
        FOREIGN KEY (announced_in) REFERENCES ff_briefing_updates (id) ON DELETE SET NULL,
    ADD CONSTRAINT ff_job_changes_org_id_technician_id_fkey
        FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
ALTER TABLE jobs ADD CONSTRAINT jobs_org_id_technician_id_fkey
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id);
ALTER TABLE technician_day_links ADD CONSTRAINT technician_day_links_org_id_technician_id_fkey
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
ALTER TABLE technician_import_baselines ADD CONSTRAINT technician_import_baselines_org_id_technician_id_fkey
    FOREIGN KEY (org_id, technician_id) REFERENCES technicians (org_id, id) ON DELETE CASCADE;
