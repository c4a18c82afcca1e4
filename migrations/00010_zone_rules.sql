-- Which tz database decided each briefing (docs/scheduling.md, "Zone
-- rules"): replicas decide with the rules TZ_SOURCE chose, and a briefing
-- says which release and source that was, so a fire instant that differs
-- between hosts can be explained.

-- +goose Up
-- On ff_briefings: the rules that decided the row's date (and, for the
-- scheduled firing, its instant), written when the row is created and when
-- the date's scheduled firing happens. On ff_briefing_revisions: the rules
-- that built that revision's content (the day's bounds, its local times).
-- '' = recorded before this migration.
ALTER TABLE ff_briefings
    ADD COLUMN tzdata_version text NOT NULL DEFAULT ''
        CONSTRAINT ff_briefings_tzdata_version_length CHECK (length(tzdata_version) <= 32),
    ADD COLUMN tzdata_source text NOT NULL DEFAULT ''
        CONSTRAINT ff_briefings_tzdata_source CHECK (tzdata_source IN ('', 'embedded', 'host'));
ALTER TABLE ff_briefing_revisions
    ADD COLUMN tzdata_version text NOT NULL DEFAULT ''
        CONSTRAINT ff_briefing_revisions_tzdata_version_length CHECK (length(tzdata_version) <= 32),
    ADD COLUMN tzdata_source text NOT NULL DEFAULT ''
        CONSTRAINT ff_briefing_revisions_tzdata_source CHECK (tzdata_source IN ('', 'embedded', 'host'));

-- +goose Down
ALTER TABLE ff_briefing_revisions
    DROP COLUMN tzdata_source,
    DROP COLUMN tzdata_version;
ALTER TABLE ff_briefings
    DROP COLUMN tzdata_source,
    DROP COLUMN tzdata_version;
