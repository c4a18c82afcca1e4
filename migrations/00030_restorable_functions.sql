-- A pg_dump of the database could not be restored (TestRestoreDrill,
-- docs/operations.md "Backup and restore"). pg_restore runs with an empty
-- search_path, and the generated columns of org_module_configs (00013) call
-- ff_briefing_member, whose string body called ff_briefing_shape_ok
-- unqualified: "function ff_briefing_shape_ok(jsonb) does not exist" while
-- creating the table and again for every row copied in.
--
-- The body becomes an SQL-standard one (RETURN …, PostgreSQL 14+): it is
-- parsed when the function is created, the function it calls is bound by
-- OID and recorded as a dependency, so pg_dump writes it qualified and in
-- order, whatever the search_path at restore. Same expression, still inlined
-- by the planner, so the stored columns keep their values.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ff_briefing_member(doc jsonb, VARIADIC path text[]) RETURNS text LANGUAGE sql IMMUTABLE
    RETURN CASE WHEN ff_briefing_shape_ok(doc) THEN (doc #> path)::text END;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ff_briefing_member(doc jsonb, VARIADIC path text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN ff_briefing_shape_ok(doc) THEN (doc #> path)::text END
$$;
-- +goose StatementEnd
