-- Bounded history (docs/operations.md, "History retention"): the five
-- day-keyed history tables become partitioned by UTC month on a timestamp
-- every release already sets (or defaults), so retention drops whole
-- months (internal/history) instead of deleting rows.
--
--   ff_briefing_revisions  by generated_at
--   ff_briefing_runs       by started_at
--   ff_deliveries          by created_at (DEFAULT now(): one revision's
--                          deliveries, inserted in one transaction, share it)
--   ff_delivery_attempts   by attempted_at
--   audit_log              by at
--
-- Same names, columns, defaults and CHECKs, so the previous release reads
-- and writes them unchanged. What changes:
--   * every primary key and unique key ends with the partition column
--     (PostgreSQL requires it): uniqueness holds within a month; across
--     months the writers' own guards hold it (docs/operations.md,
--     "History retention", "Keys"), and for revisions a trigger too
--     (ff_briefing_revisions_unique, below).
--   * id columns draw from a sequence (a partitioned table has no identity
--     column in PostgreSQL 15), set to continue after the old identity.
--   * the foreign key ff_delivery_attempts → ff_deliveries is gone: the
--     deliveries' unique key now includes created_at, which an attempt does
--     not carry. Org deletion still cascades through org_id → orgs, and
--     a delivery's attempts are dropped with their month.
--   * no DEFAULT partition (it would forbid DETACH … CONCURRENTLY): months
--     from the oldest row's through three ahead are made here, and
--     history.EnsurePartitions keeps three months ahead at every migrate
--     and daily in the worker.
--
-- The copy runs in this one transaction, fine for the sizes this
-- migration meets; docs/operations.md, "History retention", says how a big
-- production table would be moved online, in batches.

-- +goose Up
CREATE TABLE ff_briefing_revisions_part (LIKE ff_briefing_revisions INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (generated_at);
CREATE TABLE ff_briefing_runs_part (LIKE ff_briefing_runs INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (started_at);
CREATE TABLE ff_deliveries_part (LIKE ff_deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (created_at);
CREATE TABLE ff_delivery_attempts_part (LIKE ff_delivery_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (attempted_at);
CREATE TABLE audit_log_part (LIKE audit_log INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (at);

-- +goose StatementBegin
DO $$
DECLARE
    t record;
    first_month timestamptz;
    last_month timestamptz := date_trunc('month', now(), 'UTC') + interval '3 months';
    m timestamptz;
    seq text;
    v bigint;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('ff_briefing_revisions', 'generated_at', false),
        ('ff_briefing_runs', 'started_at', true),
        ('ff_deliveries', 'created_at', true),
        ('ff_delivery_attempts', 'attempted_at', true),
        ('audit_log', 'at', true)) AS x(name, col, has_id)
    LOOP
        -- Monthly partitions (UTC) from the oldest row's month through three ahead.
        EXECUTE format('SELECT date_trunc(''month'', min(%I), ''UTC'') FROM %I', t.col, t.name) INTO first_month;
        m := least(coalesce(first_month, date_trunc('month', now(), 'UTC')), date_trunc('month', now(), 'UTC'));
        WHILE m <= last_month LOOP
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                t.name || '_p' || to_char(m AT TIME ZONE 'UTC', 'YYYYMM'), t.name || '_part',
                m, m + interval '1 month');
            m := m + interval '1 month';
        END LOOP;
        EXECUTE format('INSERT INTO %I SELECT * FROM %I', t.name || '_part', t.name);
        IF t.has_id THEN
            -- The new sequence continues after both the old identity and the rows.
            seq := pg_get_serial_sequence(t.name, 'id');
            EXECUTE format('SELECT greatest((SELECT coalesce(max(id), 0) FROM %I),
                                            (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM %s))',
                t.name, seq) INTO v;
            EXECUTE format('CREATE SEQUENCE %I AS bigint', t.name || '_part_id_seq');
            IF v > 0 THEN
                PERFORM setval(quote_ident(t.name || '_part_id_seq'), v);
            END IF;
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd

DROP TABLE ff_delivery_attempts;
DROP TABLE ff_deliveries;
DROP TABLE ff_briefing_runs;
DROP TABLE ff_briefing_revisions;
DROP TABLE audit_log;

ALTER TABLE ff_briefing_revisions_part RENAME TO ff_briefing_revisions;
ALTER TABLE ff_briefing_runs_part RENAME TO ff_briefing_runs;
ALTER TABLE ff_deliveries_part RENAME TO ff_deliveries;
ALTER TABLE ff_delivery_attempts_part RENAME TO ff_delivery_attempts;
ALTER TABLE audit_log_part RENAME TO audit_log;

ALTER SEQUENCE ff_briefing_runs_part_id_seq RENAME TO ff_briefing_runs_id_seq;
ALTER SEQUENCE ff_deliveries_part_id_seq RENAME TO ff_deliveries_id_seq;
ALTER SEQUENCE ff_delivery_attempts_part_id_seq RENAME TO ff_delivery_attempts_id_seq;
ALTER SEQUENCE audit_log_part_id_seq RENAME TO audit_log_id_seq;
ALTER SEQUENCE ff_briefing_runs_id_seq OWNED BY ff_briefing_runs.id;
ALTER SEQUENCE ff_deliveries_id_seq OWNED BY ff_deliveries.id;
ALTER SEQUENCE ff_delivery_attempts_id_seq OWNED BY ff_delivery_attempts.id;
ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id;
ALTER TABLE ff_briefing_runs ALTER COLUMN id SET DEFAULT nextval('ff_briefing_runs_id_seq');
ALTER TABLE ff_deliveries ALTER COLUMN id SET DEFAULT nextval('ff_deliveries_id_seq');
ALTER TABLE ff_delivery_attempts ALTER COLUMN id SET DEFAULT nextval('ff_delivery_attempts_id_seq');
ALTER TABLE audit_log ALTER COLUMN id SET DEFAULT nextval('audit_log_id_seq');

ALTER TABLE ff_briefing_revisions
    ADD CONSTRAINT ff_briefing_revisions_pkey PRIMARY KEY (org_id, briefing_id, revision, generated_at),
    ADD CONSTRAINT ff_briefing_revisions_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_briefing_revisions_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;

-- A revision number stays unique per briefing across months, as the old
-- key kept it: a second row of (org_id, briefing_id, revision) is refused
-- like a key violation, whatever its generated_at. (Two inserts of one
-- revision at once are already kept apart by the generation's lock on its
-- briefing row.)
-- +goose StatementBegin
CREATE FUNCTION ff_briefing_revisions_unique() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM ff_briefing_revisions
                WHERE org_id = NEW.org_id AND briefing_id = NEW.briefing_id AND revision = NEW.revision) THEN
        RAISE EXCEPTION 'duplicate key value violates unique constraint "ff_briefing_revisions_pkey"'
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'ff_briefing_revisions_pkey',
                  DETAIL = format('Key (org_id, briefing_id, revision)=(%s, %s, %s) already exists.',
                                  NEW.org_id, NEW.briefing_id, NEW.revision);
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER ff_briefing_revisions_unique BEFORE INSERT ON ff_briefing_revisions
    FOR EACH ROW EXECUTE FUNCTION ff_briefing_revisions_unique();

ALTER TABLE ff_briefing_runs
    ADD CONSTRAINT ff_briefing_runs_pkey PRIMARY KEY (org_id, id, started_at),
    ADD CONSTRAINT ff_briefing_runs_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_briefing_runs_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
CREATE INDEX ff_briefing_runs_briefing_idx ON ff_briefing_runs (org_id, briefing_id, id);

ALTER TABLE ff_deliveries
    ADD CONSTRAINT ff_deliveries_pkey PRIMARY KEY (org_id, id, created_at),
    ADD CONSTRAINT ff_deliveries_org_id_key_key UNIQUE (org_id, key, created_at),
    ADD CONSTRAINT ff_deliveries_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_deliveries_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_deliveries_org_id_update_id_fkey
        FOREIGN KEY (org_id, update_id) REFERENCES ff_briefing_updates (org_id, id) ON DELETE CASCADE;
CREATE UNIQUE INDEX ff_deliveries_once ON ff_deliveries (org_id, briefing_id, revision, channel, lower(recipient), created_at)
    WHERE audience <> 'test' AND update_id IS NULL;
CREATE INDEX ff_deliveries_briefing_idx ON ff_deliveries (org_id, briefing_id, id);
CREATE INDEX ff_deliveries_org_recent_idx ON ff_deliveries (org_id, id DESC);
CREATE INDEX ff_deliveries_update_idx ON ff_deliveries (org_id, update_id);

ALTER TABLE ff_delivery_attempts
    ADD CONSTRAINT ff_delivery_attempts_pkey PRIMARY KEY (org_id, id, attempted_at),
    ADD CONSTRAINT ff_delivery_attempts_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
CREATE INDEX ff_delivery_attempts_delivery_idx ON ff_delivery_attempts (org_id, delivery_id, id);

ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id, at);
CREATE INDEX audit_log_action_at_id_idx ON audit_log (action, at DESC, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, at DESC);
CREATE INDEX audit_log_at_id_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_org_at_id_idx ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_text_trgm_idx ON audit_log USING gin (
    (target || ' ' || reason || ' ' || coalesce(old_value::text, '') || ' ' || coalesce(new_value::text, '')) gin_trgm_ops);
CREATE TRIGGER audit_log_no_rewrite BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

-- +goose Down
CREATE TABLE ff_briefing_revisions_plain (LIKE ff_briefing_revisions INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
CREATE TABLE ff_briefing_runs_plain (LIKE ff_briefing_runs INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
CREATE TABLE ff_deliveries_plain (LIKE ff_deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
CREATE TABLE ff_delivery_attempts_plain (LIKE ff_delivery_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
CREATE TABLE audit_log_plain (LIKE audit_log INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
INSERT INTO ff_briefing_revisions_plain SELECT * FROM ff_briefing_revisions;
INSERT INTO ff_briefing_runs_plain SELECT * FROM ff_briefing_runs;
INSERT INTO ff_deliveries_plain SELECT * FROM ff_deliveries;
INSERT INTO ff_delivery_attempts_plain SELECT * FROM ff_delivery_attempts;
INSERT INTO audit_log_plain SELECT * FROM audit_log;
-- Deliveries that are not unique without created_at (duplicates a later
-- month allowed) would stop the way down: the unique keys below say so.

-- +goose StatementBegin
DO $$
DECLARE
    t text;
    v bigint;
BEGIN
    FOREACH t IN ARRAY ARRAY['ff_briefing_runs', 'ff_deliveries', 'ff_delivery_attempts', 'audit_log'] LOOP
        EXECUTE format('SELECT greatest((SELECT coalesce(max(id), 0) FROM %I),
                                        (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM %I))',
            t, t || '_id_seq') INTO v;
        -- The copy's default (nextval of the sequence the partitioned table owns) goes first.
        EXECUTE format('ALTER TABLE %I ALTER COLUMN id DROP DEFAULT', t || '_plain');
        EXECUTE format('DROP TABLE %I', t);
        EXECUTE format('ALTER TABLE %I RENAME TO %I', t || '_plain', t);
        EXECUTE format('ALTER TABLE %I ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY', t);
        IF v > 0 THEN
            PERFORM setval(pg_get_serial_sequence(t, 'id'), v);
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP TABLE ff_briefing_revisions;
DROP FUNCTION ff_briefing_revisions_unique();
ALTER TABLE ff_briefing_revisions_plain RENAME TO ff_briefing_revisions;

ALTER TABLE ff_briefing_revisions
    ADD CONSTRAINT ff_briefing_revisions_pkey PRIMARY KEY (org_id, briefing_id, revision),
    ADD CONSTRAINT ff_briefing_revisions_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_briefing_revisions_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;

ALTER TABLE ff_briefing_runs
    ADD CONSTRAINT ff_briefing_runs_pkey PRIMARY KEY (org_id, id),
    ADD CONSTRAINT ff_briefing_runs_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_briefing_runs_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
CREATE INDEX ff_briefing_runs_briefing_idx ON ff_briefing_runs (org_id, briefing_id, id);

ALTER TABLE ff_deliveries
    ADD CONSTRAINT ff_deliveries_pkey PRIMARY KEY (org_id, id),
    ADD CONSTRAINT ff_deliveries_org_id_key_key UNIQUE (org_id, key),
    ADD CONSTRAINT ff_deliveries_org_id_briefing_id_fkey
        FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_deliveries_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_deliveries_org_id_update_id_fkey
        FOREIGN KEY (org_id, update_id) REFERENCES ff_briefing_updates (org_id, id) ON DELETE CASCADE;
CREATE UNIQUE INDEX ff_deliveries_once ON ff_deliveries (org_id, briefing_id, revision, channel, lower(recipient))
    WHERE audience <> 'test' AND update_id IS NULL;
CREATE INDEX ff_deliveries_briefing_idx ON ff_deliveries (org_id, briefing_id, id);
CREATE INDEX ff_deliveries_org_recent_idx ON ff_deliveries (org_id, id DESC);
CREATE INDEX ff_deliveries_update_idx ON ff_deliveries (org_id, update_id);

-- Attempts whose delivery is gone (dropped with an earlier month) cannot
-- come back under the foreign key.
DELETE FROM ff_delivery_attempts a
 WHERE NOT EXISTS (SELECT FROM ff_deliveries d WHERE d.org_id = a.org_id AND d.id = a.delivery_id);
ALTER TABLE ff_delivery_attempts
    ADD CONSTRAINT ff_delivery_attempts_pkey PRIMARY KEY (org_id, id),
    ADD CONSTRAINT ff_delivery_attempts_org_id_delivery_id_fkey
        FOREIGN KEY (org_id, delivery_id) REFERENCES ff_deliveries (org_id, id) ON DELETE CASCADE,
    ADD CONSTRAINT ff_delivery_attempts_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE;
CREATE INDEX ff_delivery_attempts_delivery_idx ON ff_delivery_attempts (org_id, delivery_id, id);

ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);
CREATE INDEX audit_log_action_at_id_idx ON audit_log (action, at DESC, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, at DESC);
CREATE INDEX audit_log_at_id_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_org_at_id_idx ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_text_trgm_idx ON audit_log USING gin (
    (target || ' ' || reason || ' ' || coalesce(old_value::text, '') || ' ' || coalesce(new_value::text, '')) gin_trgm_ops);
CREATE TRIGGER audit_log_no_rewrite BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
