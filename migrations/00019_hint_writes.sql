-- The tick's hint writes at scale (docs/architecture.md, "The next-fire
-- hint"; docs/scaling.md).
--
-- Every index on org_module_configs costs each hint write a random page:
-- (module, org_id) served no query the primary key (org_id, module) and a
-- sequential scan don't serve better, so it goes.
--
-- A hint write leaves the old entry in the next_fire_at index until a
-- vacuum; the hinted scan's "next_fire_at <= now" range then visits every
-- old hint since the last one. The default (20% of the table) let that
-- grow to ~200,000 dead entries at a million orgs, several hours of ticks;
-- 1% keeps it to minutes of them, and vacuuming only touches the pages
-- that changed plus the indexes.

-- +goose Up
DROP INDEX org_module_configs_module_idx;
ALTER TABLE org_module_configs SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
                                    autovacuum_analyze_scale_factor = 0.02);

-- +goose Down
ALTER TABLE org_module_configs RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
                                      autovacuum_analyze_scale_factor);
CREATE INDEX org_module_configs_module_idx ON org_module_configs (module, org_id);
