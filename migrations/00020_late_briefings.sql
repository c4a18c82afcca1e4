-- Late briefings (docs/guarantees.md, "Late briefings"): the scheduled
-- minute a date's scheduled firing was for, and deliveries recorded as
-- skipped when it fired more than delivery.send_within after that minute.

-- +goose Up
-- scheduled_for: the scheduled minute (schedule.FireTime of the date) the
-- tick's firing was for, set with scheduled_at; NULL for rows fired before
-- it was kept and for dates only "generate now" looked at. A firing whose
-- scheduled_at is more than send_within after it delivers nothing.
ALTER TABLE ff_briefings ADD COLUMN scheduled_for timestamptz;

-- 'skipped': a delivery never attempted, for the reason in last_code
-- ('late') and last_detail ("made 21:35, 15 h after 06:30 — not sent").
ALTER TABLE ff_deliveries DROP CONSTRAINT ff_deliveries_state,
    ADD CONSTRAINT ff_deliveries_state CHECK (state IN ('pending', 'sent', 'failed', 'skipped'));

-- +goose Down
-- A skipped delivery has no place in the older states (it was neither sent
-- nor attempted), so it goes; its briefing keeps delivered_revision, so
-- nothing sends it later.
DELETE FROM ff_deliveries WHERE state = 'skipped';
ALTER TABLE ff_deliveries DROP CONSTRAINT ff_deliveries_state,
    ADD CONSTRAINT ff_deliveries_state CHECK (state IN ('pending', 'sent', 'failed'));
ALTER TABLE ff_briefings DROP COLUMN scheduled_for;
