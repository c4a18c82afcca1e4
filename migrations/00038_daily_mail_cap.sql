-- The daily cap on the emails an org sends to addresses it chose
-- (docs/delivery.md, "Daily cap"): one counter row per org and org-local
-- date, raised by INSERT … ON CONFLICT … DO UPDATE in the transaction that
-- claims a delivery's place under the cap, so concurrent workers count
-- exactly; and on each email delivery the date whose count it took, so a
-- retry or a re-send does not count it again. The previous release neither
-- reads nor writes either.

-- +goose Up
CREATE TABLE org_daily_emails (
    org_id     bigint  NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    local_date date    NOT NULL,
    emails     integer NOT NULL CHECK (emails >= 0),
    PRIMARY KEY (org_id, local_date)
);
ALTER TABLE ff_deliveries ADD COLUMN counted_on date;

-- +goose Down
ALTER TABLE ff_deliveries DROP COLUMN counted_on;
DROP TABLE org_daily_emails;
