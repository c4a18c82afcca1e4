-- The tick's hint write again costs what 00019 left it (docs/benchmarks.md,
-- "The tick", re-measured 2026-11-28): 00031 indexed every foreign key,
-- org_module_configs.updated_by too, and a hint write cannot be a HOT
-- update (next_fire_at and hint_from are indexed), so each stored hint put
-- an entry in that index as well: a random leaf page, and after a
-- checkpoint a full-page image, per hint (equal keys are kept in heap
-- order, so even the NULLs of configs no admin saved land on random
-- leaves). At a million orgs that was ~450 of a steady tick's ~1,300
-- full-page images. The index served only deleting a user (an operator's
-- rare act, which now reads the table to set its configs' updated_by to
-- NULL); TestCitusReady lists this key as the one left without an index.
--
-- A plain DROP INDEX, not CONCURRENTLY: it holds the table for the
-- instant of the drop, and runs the same on Citus, where the table is
-- distributed.

-- +goose Up
DROP INDEX IF EXISTS org_module_configs_updated_by_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS org_module_configs_updated_by_idx ON org_module_configs (updated_by);
