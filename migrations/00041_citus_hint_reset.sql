-- Citus (docs/scaling.md, "What the real cluster refused"): the hint reset
-- the briefing and flag triggers call (00013), and the flag lookup it and
-- the config trigger make, become PL/pgSQL; the reset goes one org at a
-- time, with its values computed before the UPDATE. On a distributed
-- org_module_configs the trigger runs on a worker, in the shard's
-- transaction, and Citus refuses the SQL function's form twice: a SQL
-- function whose parameter reaches a distributed table ("could not create
-- distributed plan"), and a volatile function (nextval) in an UPDATE of a
-- distributed table. Same rows, same values on plain PostgreSQL: one
-- config row per org (its key is (org_id, module)), orgs in id order.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ff_hint_unknown(p_org_id bigint) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN CASE WHEN EXISTS (SELECT FROM org_feature_flags f
                              WHERE f.org_id = p_org_id AND f.key = 'fieldforce.briefing' AND NOT f.is_enabled)
                THEN 'infinity'::timestamptz END;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ff_hint_reset(p_org_ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    o bigint;
    v_hint timestamptz;
    v_version bigint;
BEGIN
    FOR o IN SELECT DISTINCT x FROM unnest(p_org_ids) x WHERE x IS NOT NULL ORDER BY x LOOP
        v_hint := ff_hint_unknown(o);
        v_version := nextval('org_module_configs_hint_version_seq');
        UPDATE org_module_configs
           SET next_fire_at = v_hint, hint_from = NULL, hint_version = v_version
         WHERE module = 'fieldforce' AND org_id = o;
    END LOOP;
END;
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION ff_hint_reset(bigint[]);
DROP FUNCTION ff_hint_unknown(bigint);
-- +goose StatementBegin
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
