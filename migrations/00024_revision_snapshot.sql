-- Updates after dispatch, without a gap at the generation
-- (docs/worker.md, "Updates after dispatch"): a job change committed
-- while the date's scheduled generation runs is in the email if the
-- generation's snapshot saw it, and is told as an update if not. The
-- outbox rows carry their transaction's id already (ff_job_changes.xact);
-- each revision now records the snapshot its content was read with, so the
-- fold can tell the two apart: pg_visible_in_snapshot(xact, read_snapshot).

-- +goose Up
-- read_snapshot: pg_current_snapshot() of the repeatable-read transaction
-- that read the day and stored this revision. NULL for revisions made
-- before it was kept: the fold then keeps every change, as before.
ALTER TABLE ff_briefing_revisions ADD COLUMN read_snapshot pg_snapshot;

-- +goose Down
ALTER TABLE ff_briefing_revisions DROP COLUMN read_snapshot;
