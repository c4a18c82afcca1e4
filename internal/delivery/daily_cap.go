package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// SkippedDailyCap is the last_code of an email delivery skipped because
// its org had sent its day's cap of emails (docs/delivery.md, "Daily
// cap").
const SkippedDailyCap = "daily_cap"

// capped reports whether the email delivery d is over its org's daily cap,
// counting it once against the org-local date otherwise. It runs in a
// short transaction of its own before the send: the counter row's lock is
// held for the count, not through the SMTP conversation, so an org's
// emails still go out side by side; and the count is exact whatever the
// number of workers, since the counter row is raised by one statement that
// refuses to pass the cap. Over the cap, the same transaction records the
// delivery as skipped (SkippedDailyCap), never to be attempted. A delivery
// counted once (counted_on) is not counted again by a retry or a re-send.
// Test sends are not counted: they go to the admin who asks, bounded apart.
func (s *Sender) capped(ctx context.Context, d deliveryRow) (bool, error) {
	if d.Channel != ChannelEmail || d.Audience == AudienceTest {
		return false, nil
	}
	limit, zone, err := s.dailyCap(ctx, d)
	if err != nil {
		return false, err
	}
	over := false
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var state string
		var counted *time.Time
		err := tx.QueryRow(ctx, `SELECT state, counted_on FROM ff_deliveries WHERE id = $1 AND org_id = $2 FOR UPDATE`,
			d.ID, d.OrgID).Scan(&state, &counted)
		if err != nil || state != DeliveryPending || counted != nil {
			return err
		}
		now := s.now()
		day := schedule.DateOf(now.In(zone.Loc))
		var n int
		err = tx.QueryRow(ctx, `
			INSERT INTO org_daily_emails AS e (org_id, local_date, emails) VALUES ($1, $2, 1)
			ON CONFLICT (org_id, local_date) DO UPDATE SET emails = e.emails + 1 WHERE e.emails < $3::bigint
			RETURNING e.emails`, d.OrgID, day.Time(), limit).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			over = true
			_, err = tx.Exec(ctx, `
				UPDATE ff_deliveries SET state = $3, last_code = $4, last_detail = $5, updated_at = $6
				 WHERE id = $1 AND org_id = $2`, d.ID, d.OrgID, DeliverySkipped, SkippedDailyCap,
				fmt.Sprintf("the org's daily cap of %d emails on %s was reached — not sent", limit, day), now)
			return err
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE ff_deliveries SET counted_on = $3 WHERE id = $1 AND org_id = $2`, d.ID, d.OrgID, day.Time())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("daily email cap of org %d, delivery %d: %w", d.OrgID, d.ID, err)
	}
	return over, nil
}

// dailyCap is d's org's cap (Sender.Cap of the addresses it sends to: its
// active technicians with an email and its configured recipients) and the
// zone whose dates it counts by, the briefing's.
func (s *Sender) dailyCap(ctx context.Context, d deliveryRow) (int, schedule.Zone, error) {
	var zoneName string
	var config []byte
	err := s.DB.QueryRow(ctx, `
		SELECT b.timezone,
		       (SELECT c.config_json FROM org_module_configs c WHERE c.org_id = b.org_id AND c.module = $3)
		  FROM ff_briefings b WHERE b.org_id = $1 AND b.id = $2`,
		d.OrgID, d.BriefingID, schedule.Module).Scan(&zoneName, &config)
	if err != nil {
		return 0, schedule.Zone{}, fmt.Errorf("briefing %d of delivery %d: %w", d.BriefingID, d.ID, err)
	}
	technicians, err := field.Reachable(ctx, s.DB, d.OrgID)
	if err != nil {
		return 0, schedule.Zone{}, fmt.Errorf("cap of delivery %d: %w", d.ID, err)
	}
	zone, err := schedule.LoadZone(zoneName)
	if err != nil {
		return 0, zone, err
	}
	recipients := 0
	if cfg, _, err := schedule.ParseConfig(config); err == nil && cfg.Delivery != nil && cfg.Delivery.Email != nil {
		recipients = len(cfg.Delivery.Email.To)
	}
	return s.Cap.Of(technicians + recipients), zone, nil
}
