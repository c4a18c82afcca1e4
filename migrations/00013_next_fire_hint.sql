-- The next-fire hint (docs/scheduling.md, "The next-fire hint"): per org,
-- the earliest instant its briefing can be due, computed in Go by the tick
-- (schedule.NextFire) so that a tick reads only the orgs whose instant has
-- come. NULL = unknown = always a candidate.
--
-- next_fire_at  the hint; 'infinity' when the schedule never fires (paused,
--               invalid): any change to the config makes it NULL again.
-- hint_from     the tick instant the hint was computed at: it says nothing
--               about earlier instants, so a tick at an earlier now (a test
--               clock, worker -once -now in the past) reads the org.
-- hint_version  changes with every invalidation; the tick writes a hint only
--               where the version is still the one it read, so a change
--               between its read and its write leaves NULL, never a stale
--               hint. From a sequence, so a deleted and re-inserted config
--               never reuses a version.

-- +goose Up
CREATE SEQUENCE org_module_configs_hint_version_seq;

ALTER TABLE org_module_configs
    ADD COLUMN next_fire_at timestamptz,
    ADD COLUMN hint_from    timestamptz,
    ADD COLUMN hint_version bigint NOT NULL DEFAULT nextval('org_module_configs_hint_version_seq');

-- The candidate columns (docs/scheduling.md, "The candidate columns"),
-- computed when the document is written, not at every scan. The shape
-- check: the document is an object with no members but briefing and
-- delivery, and briefing an object with no members but the four known
-- ones. When it holds, the scan reads the briefing's members (and
-- delivery) as JSON text from the columns below, for Go to validate
-- (schedule.ParseMembers); else the whole document (ParseConfig). A
-- zone-free extraction, like every filter of the scan.
-- +goose StatementBegin
CREATE FUNCTION ff_briefing_shape_ok(doc jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(doc) = 'object' AND jsonb_typeof(doc -> 'briefing') = 'object'
                THEN doc - '{briefing,delivery}'::text[] = '{}'::jsonb
                     AND (doc -> 'briefing') - '{timezone,schedule_local_time,days,enabled}'::text[] = '{}'::jsonb
                ELSE false END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION ff_briefing_member(doc jsonb, VARIADIC path text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN ff_briefing_shape_ok(doc) THEN (doc #> path)::text END
$$;
-- +goose StatementEnd
ALTER TABLE org_module_configs
    ADD COLUMN briefing_shape_ok boolean NOT NULL GENERATED ALWAYS AS (ff_briefing_shape_ok(config_json)) STORED,
    ADD COLUMN briefing_timezone text GENERATED ALWAYS AS (ff_briefing_member(config_json, 'briefing', 'timezone')) STORED,
    ADD COLUMN briefing_time     text GENERATED ALWAYS AS (ff_briefing_member(config_json, 'briefing', 'schedule_local_time')) STORED,
    ADD COLUMN briefing_days     text GENERATED ALWAYS AS (ff_briefing_member(config_json, 'briefing', 'days')) STORED,
    ADD COLUMN briefing_enabled  text GENERATED ALWAYS AS (ff_briefing_member(config_json, 'briefing', 'enabled')) STORED,
    ADD COLUMN briefing_delivery text GENERATED ALWAYS AS (ff_briefing_member(config_json, 'delivery')) STORED;

-- The scan's dates: only scheduled firings count, and this index answers
-- with an index-only scan, without visiting each briefing row.
CREATE INDEX ff_briefings_scheduled_idx ON ff_briefings (org_id, briefing_date) WHERE scheduled_at IS NOT NULL;
-- The full scan's dates: one index-only pass over the window, grouped per org.
CREATE INDEX ff_briefings_scheduled_date_idx ON ff_briefings (briefing_date, org_id) WHERE scheduled_at IS NOT NULL;

-- The hinted candidate scan: (next_fire_at IS NULL OR next_fire_at <= $now
-- OR hint_from > $now), a bitmap OR over these two.
CREATE INDEX org_module_configs_next_fire_idx ON org_module_configs (module, next_fire_at);
CREATE INDEX org_module_configs_hint_from_idx ON org_module_configs (module, hint_from);

-- Invalidation, in the transaction that makes the change, so raw SQL is
-- covered too. A transaction that sets fieldbrief.hint_writer = 'tick'
-- (the tick's enqueue, transaction-local) does not invalidate the hints of
-- the briefings it fires: it writes their hints itself, computed with the
-- date it fired, guarded by the version it read.

-- +goose StatementBegin
-- An org whose own override is off can't fire until the override changes
-- (which comes back here): its hint is 'infinity', not NULL, so the hinted
-- scan's index leaves it out instead of reading it every minute only for
-- the override's join to drop it (at 1M orgs with 1% switched off, those
-- 10,000 rows were most of a steady tick). hint_from stays NULL: the Go side
-- never takes such a hint for one it computed.
CREATE FUNCTION ff_hint_unknown(p_org_id bigint) RETURNS timestamptz LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN EXISTS (SELECT FROM org_feature_flags f
                              WHERE f.org_id = p_org_id AND f.key = 'fieldforce.briefing' AND NOT f.is_enabled)
                THEN 'infinity'::timestamptz END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION ff_hint_reset(p_org_ids bigint[]) RETURNS void LANGUAGE sql AS $$
    UPDATE org_module_configs
       SET next_fire_at = ff_hint_unknown(org_id), hint_from = NULL,
           hint_version = nextval('org_module_configs_hint_version_seq')
     WHERE module = 'fieldforce' AND org_id = ANY (p_org_ids)
$$;
-- +goose StatementEnd

-- A new or changed config: NULL and a new version, in the row itself.
-- +goose StatementBegin
CREATE FUNCTION ff_hint_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.next_fire_at := ff_hint_unknown(NEW.org_id);
    NEW.hint_from := NULL;
    NEW.hint_version := nextval('org_module_configs_hint_version_seq');
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER org_module_configs_hint_insert BEFORE INSERT ON org_module_configs
    FOR EACH ROW EXECUTE FUNCTION ff_hint_config_changed();
CREATE TRIGGER org_module_configs_hint_update BEFORE UPDATE OF config_json, org_id, module ON org_module_configs
    FOR EACH ROW WHEN (OLD.config_json IS DISTINCT FROM NEW.config_json OR OLD.org_id <> NEW.org_id OR OLD.module <> NEW.module)
    EXECUTE FUNCTION ff_hint_config_changed();

-- An org's briefings in the window are an input of the decision: rows
-- inserted or deleted (statement-level, one UPDATE per statement), and a
-- row's org, date or scheduled firing changed.
-- +goose StatementBegin
CREATE FUNCTION ff_hint_briefings_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('fieldbrief.hint_writer', true), '') <> 'tick' THEN
        PERFORM ff_hint_reset(ARRAY(SELECT DISTINCT org_id FROM new_rows));
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION ff_hint_briefings_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ff_hint_reset(ARRAY(SELECT DISTINCT org_id FROM old_rows));
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION ff_hint_briefing_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('fieldbrief.hint_writer', true), '') <> 'tick' OR OLD.org_id <> NEW.org_id
       OR OLD.briefing_date <> NEW.briefing_date THEN
        PERFORM ff_hint_reset(ARRAY[OLD.org_id, NEW.org_id]);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER ff_briefings_hint_insert AFTER INSERT ON ff_briefings
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ff_hint_briefings_inserted();
CREATE TRIGGER ff_briefings_hint_delete AFTER DELETE ON ff_briefings
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ff_hint_briefings_deleted();
CREATE TRIGGER ff_briefings_hint_update AFTER UPDATE OF org_id, briefing_date, scheduled_at ON ff_briefings
    FOR EACH ROW WHEN (OLD.org_id <> NEW.org_id OR OLD.briefing_date <> NEW.briefing_date
                       OR OLD.scheduled_at IS DISTINCT FROM NEW.scheduled_at)
    EXECUTE FUNCTION ff_hint_briefing_updated();

-- An org's override of the briefing flag. The global switch has no
-- trigger: the hint does not depend on it (docs/architecture.md).
-- +goose StatementBegin
CREATE FUNCTION ff_hint_override_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.key = 'fieldforce.briefing' THEN
        PERFORM ff_hint_reset(ARRAY[OLD.org_id]);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.key = 'fieldforce.briefing' THEN
        PERFORM ff_hint_reset(ARRAY[NEW.org_id]);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER org_feature_flags_hint AFTER INSERT OR UPDATE OR DELETE ON org_feature_flags
    FOR EACH ROW EXECUTE FUNCTION ff_hint_override_changed();

-- +goose Down
DROP TRIGGER org_feature_flags_hint ON org_feature_flags;
DROP TRIGGER ff_briefings_hint_update ON ff_briefings;
DROP TRIGGER ff_briefings_hint_delete ON ff_briefings;
DROP TRIGGER ff_briefings_hint_insert ON ff_briefings;
DROP TRIGGER org_module_configs_hint_update ON org_module_configs;
DROP TRIGGER org_module_configs_hint_insert ON org_module_configs;
DROP FUNCTION ff_hint_override_changed();
DROP FUNCTION ff_hint_briefing_updated();
DROP FUNCTION ff_hint_briefings_deleted();
DROP FUNCTION ff_hint_briefings_inserted();
DROP FUNCTION ff_hint_config_changed();
DROP FUNCTION ff_hint_reset(bigint[]);
DROP FUNCTION ff_hint_unknown(bigint);
DROP INDEX org_module_configs_hint_from_idx;
DROP INDEX org_module_configs_next_fire_idx;
DROP INDEX ff_briefings_scheduled_date_idx;
DROP INDEX ff_briefings_scheduled_idx;
ALTER TABLE org_module_configs DROP COLUMN briefing_delivery, DROP COLUMN briefing_enabled, DROP COLUMN briefing_days,
    DROP COLUMN briefing_time, DROP COLUMN briefing_timezone, DROP COLUMN briefing_shape_ok;
DROP FUNCTION ff_briefing_member(jsonb, text[]);
DROP FUNCTION ff_briefing_shape_ok(jsonb);
ALTER TABLE org_module_configs DROP COLUMN hint_version, DROP COLUMN hint_from, DROP COLUMN next_fire_at;
DROP SEQUENCE org_module_configs_hint_version_seq;
