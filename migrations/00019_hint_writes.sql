-- The tick's hint writes at scale (docs/scheduling.md, "The next-fire
-- hint"; docs/scaling.md).
--
-- Every index on org_module_configs costs each hint write a random page:
-- (module, org_id) served no query the primary key (org_id, module) and a
-- sequential scan don't serve better, so it goes (concurrently: no lock
-- that would stop the tick or an admin's save on a large table).
--
-- A hint write leaves the old entry in the next_fire_at index until a
-- vacuum; the hinted scan steps over such entries once an index scan has
-- marked them dead, but they still take index pages. The default (20% of
-- the table) let ~200,000 of them pile up at a million orgs, several hours
-- of ticks; 1% keeps it to minutes of them, and vacuuming only touches the
-- pages that changed plus the indexes.

-- +goose NO TRANSACTION
-- +goose Up
DROP INDEX CONCURRENTLY IF EXISTS org_module_configs_module_idx;
ALTER TABLE org_module_configs SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
                                    autovacuum_analyze_scale_factor = 0.02);

-- +goose Down
ALTER TABLE org_module_configs RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
                                      autovacuum_analyze_scale_factor);
CREATE INDEX CONCURRENTLY IF NOT EXISTS org_module_configs_module_idx ON org_module_configs (module, org_id);
