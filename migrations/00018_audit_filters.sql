-- The staff audit log's filters and keyset pagination (docs/audit.md):
-- newest first by (at, id),
-- within an org, within an action, and a trigram index for the
-- case-insensitive search when pg_trgm is available.

-- +goose Up
CREATE INDEX audit_log_at_id_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_org_at_id_idx ON audit_log (org_id, at DESC, id DESC);
CREATE INDEX audit_log_action_at_id_idx ON audit_log (action, at DESC, id DESC);
-- Superseded by the two above (same leading columns, id added).
DROP INDEX audit_log_at_idx;
DROP INDEX audit_log_org_idx;

-- The search runs ILIKE over target, reason and the old and new values
-- (orgs.auditText). A trigram index serves it where the pg_trgm extension
-- ships with the server and this role may create it; without it the search
-- still works, scanning newest first until a page is full.
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
        RAISE NOTICE 'pg_trgm not available: audit search without a trigram index';
        RETURN;
    END IF;
    BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'may not create pg_trgm: audit search without a trigram index';
        RETURN;
    END;
    EXECUTE $i$CREATE INDEX audit_log_text_trgm_idx ON audit_log USING gin (
        (target || ' ' || reason || ' ' || coalesce(old_value::text, '') || ' ' || coalesce(new_value::text, '')) gin_trgm_ops)$i$;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX IF EXISTS audit_log_text_trgm_idx;
CREATE INDEX audit_log_at_idx ON audit_log (at DESC);
CREATE INDEX audit_log_org_idx ON audit_log (org_id, at DESC);
DROP INDEX audit_log_action_at_id_idx;
DROP INDEX audit_log_org_at_id_idx;
DROP INDEX audit_log_at_id_idx;
