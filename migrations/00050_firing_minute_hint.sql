-- The next-fire hint keyed by the daily firing minute (docs/scheduling.md,
-- "The next-fire hint"; the figures in docs/benchmarks.md, "The tick").
--
-- fire_minute   the UTC minute of the day (0–1439) on which every firing
--               of the org falls from hint_from until next_fire_at
--               (schedule.NextFiringMinute, computed in Go); NULL when it
--               never fires. A firing does not change it, so the steady
--               tick reads the orgs of the minutes since its last tick and
--               writes nothing: storing each fired org's next instant was
--               most of a steady tick at a million orgs (a random heap
--               page and four index entries per org, each a full-page
--               image after a checkpoint).
-- next_fire_at  keeps its name, its NULL (unknown) and 'infinity' (never),
--               and the triggers that reset it (00013, 00041); a computed
--               hint now holds the end of the minute's validity there: the
--               first firing at another minute (after a daylight-saving
--               change), at which the tick reads the org again. A hint
--               written before this migration (fire_minute NULL, the next
--               firing in next_fire_at) stays right: the org is read at
--               that firing and gets a minute then.
--
-- A reset leaves fire_minute as it was: it is read only with a hint_from,
-- which every reset clears. No trigger changes: the version trigger (00026)
-- does not run for hint columns.

-- +goose Up
ALTER TABLE org_module_configs ADD COLUMN fire_minute smallint;
CREATE INDEX org_module_configs_fire_minute_idx ON org_module_configs (module, fire_minute);

-- +goose Down
DROP INDEX org_module_configs_fire_minute_idx;
ALTER TABLE org_module_configs DROP COLUMN fire_minute;
