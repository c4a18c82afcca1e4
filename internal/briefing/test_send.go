package briefing

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
)

// testSendSQL asks today's briefing for the revision a test send makes,
// creating it as a look (no scheduled firing) when there is none; an
// existing one keeps its date, zone and scheduled firing.
const testSendSQL = `
INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, trigger, status, requested_revision, created_at, updated_at,
                          tzdata_version, tzdata_source)
VALUES ($1, $2, $3, $4, 'manual', 'pending', 1, $4, $4, $5, $6)
ON CONFLICT (org_id, briefing_date) DO UPDATE
   SET requested_revision = ff_briefings.requested_revision + 1, updated_at = $4
RETURNING id, requested_revision, timezone`

// SendTest is the settings page's "send a test": a fresh look at today's
// briefing, sent now, once, to one email address (the admin's own) or to
// the configured webhook. Like "generate now" it makes a new revision of
// today's briefing (today in the org's zone at now) and never touches the
// day's scheduled firing; unlike it, the revision is made here, at once,
// in one repeatable-read transaction with the test delivery, so the send
// shows what the data is now. It counts in the org's allowance of
// briefings on request (MaxRequestsPerHour; apperr TooMany saying when it
// can send again) and one test is sent at a time. It waits for the answer
// (delivery.Store.SendTest) and returns the delivery with its outcome.
func (s *Store) SendTest(ctx context.Context, deliver *delivery.Store, sender *delivery.Sender, orgID int64, channel, to string, now time.Time) (delivery.Delivery, error) {
	sch, err := s.schedule(ctx, orgID)
	if err != nil {
		return delivery.Delivery{}, err
	}
	date := schedule.DateOf(now.In(sch.Zone.Loc))
	rules := schedule.CurrentZoneRules()
	var deliveryID int64
	err = s.requestTx(ctx, func(tx pgx.Tx) error {
		var id int64
		var revision int
		var zoneName string
		var err error
		if err := tx.QueryRow(ctx, testSendSQL, orgID, date.Time(), sch.Zone.Name, now, rules.Version, rules.Source).
			Scan(&id, &revision, &zoneName); err != nil {
			return err
		}
		if err := checkRequests(ctx, tx, orgID, now, "test_too_many"); err != nil {
			return err
		}
		deliveryID, err = delivery.InsertTest(ctx, tx, orgID, id, revision, channel, to, now)
		if err != nil {
			return err
		}
		zone, err := rules.LoadZone(zoneName) // the briefing's own, which may differ from today's config
		if err != nil {
			return err
		}
		day, err := snapshot.ReadDay(ctx, tx, orgID, zone, date)
		if err != nil {
			return err
		}
		snap := day.Snapshot()
		snap.GeneratedAt = now
		content, _, err := snapshot.Encode(snap)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		queueRevision(b, GenerateBriefingArgs{OrgID: orgID, BriefingID: id, Revision: revision, Trigger: TriggerManual}, content, now, rules)
		// The run history says the web made it, for a test.
		b.Queue(`
			INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, river_job_id, attempt, trigger,
			                              started_at, finished_at, outcome, error, worker)
			VALUES ($1, $2, $3, NULL, 1, $4, $5, $5, $6, '', 'web (test send)')`,
			orgID, id, revision, TriggerManual, now, RunCompleted)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("store revision %d of briefing %d: %w", revision, id, err)
		}
		return recordRequest(ctx, tx, orgID, id, RequestTest, now)
	})
	if err != nil {
		if apperr.Code(err) != apperr.Internal {
			return delivery.Delivery{}, err
		}
		return delivery.Delivery{}, fmt.Errorf("test send of briefing %s for org %d: %w", date, orgID, err)
	}
	return deliver.SendTest(ctx, sender, orgID, deliveryID)
}
