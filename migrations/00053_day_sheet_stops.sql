-- A technician's day sheets are their work, not a newsletter
-- (docs/delivery.md, "Stopping day sheets"): a technician who asks not to
-- receive them is marked on their own row, where the office sees it (the
-- technician's page, the board, the delivery log) and an admin can resume
-- them. Until now the one-click unsubscribe link in the technician's email
-- suppressed the address in email_suppressions, which stopped the day
-- sheets and told the office nothing.
--
-- Existing suppressions of a technician's address become such requests,
-- dated when the address was suppressed, so those technicians stay stopped
-- and the office now sees it. The suppressions stay: they still keep the
-- address off the dispatchers' briefing.

-- +goose Up
ALTER TABLE technicians ADD COLUMN day_sheets_stopped_at timestamptz;

UPDATE technicians t
   SET day_sheets_stopped_at = s.created_at
  FROM email_suppressions s
 WHERE s.org_id = t.org_id AND lower(s.email) = lower(t.email) AND t.email <> '';

-- +goose Down
ALTER TABLE technicians DROP COLUMN day_sheets_stopped_at;
