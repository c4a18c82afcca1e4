package delivery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/transport"
)

// Store reads deliveries for the web and takes re-sends and test sends.
// Every query is scoped by org id, so another org's id reads as not found.
type Store struct {
	DB    *pgxpool.Pool
	tasks *river.Client[pgx.Tx] // inserts the re-sends' tasks
}

// NewStore returns a Store with the process's insert-only River client.
func NewStore(db *pgxpool.Pool) (*Store, error) {
	tasks, err := database.InsertClient()
	if err != nil {
		return nil, err
	}
	return &Store{DB: db, tasks: tasks}, nil
}

// Delivery is one recipient of one revision of a briefing, with its
// attempts when read for the briefing page.
type Delivery struct {
	ID         int64
	BriefingID int64
	Revision   int
	Channel    string // ChannelEmail or ChannelWebhook
	Audience   string // AudienceDispatcher, AudienceTechnician, AudienceWebhook or AudienceTest
	Recipient  string // an email address or the webhook URL
	State      string // DeliveryPending, DeliverySent, DeliveryFailed or DeliverySkipped
	Attempts   int
	LastCode   string // SMTP reply or HTTP status of the last attempt
	LastDetail string // what went wrong, for admins
	Date       schedule.Date
	UpdateID   int64 // 0: the briefing itself; else the technician's update it sends (docs/delivery.md, "Updates")
	UpdateJobs int   // the jobs that update lists
	DueAt      time.Time
	SentAt     time.Time // zero until sent
	UpdatedAt  time.Time
	History    []DeliveryAttempt // oldest first; filled by Deliveries only
	// Fired is its briefing's scheduled firing (zero At: none recorded), so
	// pages can say a late delivery's LastDetail in the reader's words.
	Fired Firing
}

// DeliveryAttempt is one try at a delivery.
type DeliveryAttempt struct {
	At       time.Time
	Outcome  string // AttemptSent, AttemptRetry or AttemptFailed
	Code     string
	Detail   string
	Duration time.Duration
	Worker   string
}

const deliveryColumns = `d.id, d.briefing_id, d.revision, d.channel, d.audience, d.recipient, d.state, d.attempts,
	d.last_code, d.last_detail, b.briefing_date, d.due_at, d.sent_at, d.updated_at, coalesce(d.update_id, 0),
	coalesce((SELECT u.jobs FROM ff_briefing_updates u WHERE u.org_id = d.org_id AND u.id = d.update_id), 0),
	b.scheduled_at, b.scheduled_for, b.timezone`

func scanDelivery(row pgx.CollectableRow) (Delivery, error) {
	var d Delivery
	var date time.Time
	var sentAt, firedAt, firedFor *time.Time
	var zone string
	err := row.Scan(&d.ID, &d.BriefingID, &d.Revision, &d.Channel, &d.Audience, &d.Recipient, &d.State, &d.Attempts,
		&d.LastCode, &d.LastDetail, &date, &d.DueAt, &sentAt, &d.UpdatedAt, &d.UpdateID, &d.UpdateJobs, &firedAt, &firedFor, &zone)
	d.Date = schedule.DateOf(date)
	if sentAt != nil {
		d.SentAt = *sentAt
	}
	if firedAt != nil && firedFor != nil {
		d.Fired = Firing{At: *firedAt, For: *firedFor, Loc: time.UTC}
		if z, zerr := schedule.LoadZone(zone); zerr == nil {
			d.Fired.Loc = z.Loc
		}
	}
	return d, err
}

// Deliveries returns a briefing's deliveries, each with its attempts:
// the scheduled run's recipients, the technicians' updates after it (after
// their revision's, oldest first) and the test sends of its revisions.
func (s *Store) Deliveries(ctx context.Context, orgID, briefingID int64) ([]Delivery, error) {
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `SELECT `+deliveryColumns+`
		  FROM ff_deliveries d JOIN ff_briefings b ON b.id = d.briefing_id AND b.org_id = d.org_id
		 WHERE d.org_id = $1 AND d.briefing_id = $2
		 ORDER BY d.revision DESC, d.update_id IS NOT NULL, d.created_at, d.update_id, d.channel, d.audience, d.recipient, d.id`,
		orgID, briefingID) // by created_at: update ids carry no order (docs/security.md, "Ids and ETags")
	if err != nil {
		return nil, fmt.Errorf("deliveries of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("deliveries of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	index := make(map[int64]int, len(out))
	for i, d := range out {
		index[d.ID] = i
	}
	rows, err = database.Reader(ctx, s.DB).Query(ctx, `
		SELECT a.delivery_id, a.attempted_at, a.outcome, a.code, a.detail, a.duration_ms, a.worker
		  FROM ff_delivery_attempts a JOIN ff_deliveries d ON d.id = a.delivery_id AND d.org_id = a.org_id
		 WHERE a.org_id = $1 AND d.briefing_id = $2
		 ORDER BY a.id`, orgID, briefingID)
	if err != nil {
		return nil, fmt.Errorf("delivery attempts of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	var id int64
	var a DeliveryAttempt
	var ms int
	_, err = pgx.ForEachRow(rows, []any{&id, &a.At, &a.Outcome, &a.Code, &a.Detail, &ms, &a.Worker}, func() error {
		a.Duration = time.Duration(ms) * time.Millisecond
		if i, ok := index[id]; ok {
			out[i].History = append(out[i].History, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("delivery attempts of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	return out, nil
}

// InsertTest records, in tx, a test delivery of revision of the org's
// briefing to one address or webhook: a test send (briefing.Store.SendTest
// generates the revision in the same transaction, and counts it in the
// org's allowance of briefings on request). An org sends one test at a
// time: while one is in flight another is apperr TooMany.
func InsertTest(ctx context.Context, tx pgx.Tx, orgID, briefingID int64, revision int, channel, to string, now time.Time) (int64, error) {
	var since *time.Time
	err := tx.QueryRow(ctx, `
		SELECT min(created_at) FROM ff_deliveries
		 WHERE org_id = $1 AND audience = 'test' AND state = 'pending' AND created_at > $2`,
		orgID, now.Add(-2*sendTimeout)).Scan(&since)
	if err != nil {
		return 0, fmt.Errorf("test deliveries of org %d: %w", orgID, err)
	}
	if since != nil {
		return 0, apperr.Refuse(apperr.TooMany, "test_in_flight", nil).After(since.Add(2 * sendTimeout).Sub(now))
	}
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	var id int64
	err = tx.QueryRow(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, due_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, 'test', $5, $6, $7, $7, $7) RETURNING id`,
		orgID, briefingID, revision, channel, to, "msg_test_"+hex.EncodeToString(nonce), now).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record test delivery for org %d: %w", orgID, err)
	}
	return id, nil
}

// TestEmailMessageID is the Message-ID the org's test email id was sent
// with from the address from (transport.MessageIDFor): how its admins find
// it in the outbox. Anything but one of the org's test emails is
// NotFound.
func (s *Store) TestEmailMessageID(ctx context.Context, orgID, id int64, from string) (string, error) {
	var key string
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `
		SELECT key FROM ff_deliveries WHERE id = $1 AND org_id = $2 AND audience = 'test' AND channel = 'email'`,
		id, orgID).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", apperr.Refuse(apperr.NotFound, "test_not_found", nil)
	}
	if err != nil {
		return "", fmt.Errorf("test email %d of org %d: %w", id, orgID, err)
	}
	return transport.MessageIDFor(key, from)
}

// maxRecentDeliveries bounds the settings page's delivery log.
const maxRecentDeliveries = 50

// RecentDeliveries returns the org's newest deliveries, test sends
// included, for the settings page's log (without attempts).
func (s *Store) RecentDeliveries(ctx context.Context, orgID int64, limit int) ([]Delivery, error) {
	limit = min(max(limit, 1), maxRecentDeliveries)
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `SELECT `+deliveryColumns+`
		  FROM ff_deliveries d JOIN ff_briefings b ON b.id = d.briefing_id AND b.org_id = d.org_id
		 WHERE d.org_id = $1
		 ORDER BY d.created_at DESC, d.id DESC
		 LIMIT $2`, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("recent deliveries of org %d: %w", orgID, err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("recent deliveries of org %d: %w", orgID, err)
	}
	return out, nil
}

// Resend sends a failed delivery again: the same row, so the same
// Message-ID or webhook-id (receivers drop a duplicate), through a new task.
// Only failed scheduled deliveries can be re-sent (a test is simply sent
// again); anything else is apperr Conflict, another org's id NotFound.
func (s *Store) Resend(ctx context.Context, orgID, deliveryID int64, actor audit.Actor, now time.Time) error {
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var briefingID int64
		var channel, state, audience, recipient string
		err := tx.QueryRow(ctx, `SELECT briefing_id, channel, state, audience, recipient FROM ff_deliveries
			 WHERE id = $1 AND org_id = $2 FOR UPDATE`, deliveryID, orgID).Scan(&briefingID, &channel, &state, &audience, &recipient)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Refuse(apperr.NotFound, "delivery_not_found", nil)
		}
		if err != nil {
			return err
		}
		if state != DeliveryFailed || audience == AudienceTest {
			return apperr.Refuse(apperr.Conflict, "delivery_not_failed", apperr.Args{"State": state})
		}
		if _, err := tx.Exec(ctx, `UPDATE ff_deliveries SET state = 'pending', updated_at = $3 WHERE id = $1 AND org_id = $2`,
			deliveryID, orgID, now); err != nil {
			return err
		}
		if _, err := s.tasks.InsertTx(ctx, tx, deliveryArgs(channel, orgID, briefingID, deliveryID), nil); err != nil {
			return fmt.Errorf("insert re-send task: %w", err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "delivery.resend",
			Target: channel + " " + recipient, Old: map[string]string{"state": state}, New: map[string]string{"state": DeliveryPending}})
	})
	if err != nil {
		if apperr.Code(err) != apperr.Internal {
			return err
		}
		return fmt.Errorf("re-send delivery %d of org %d: %w", deliveryID, orgID, err)
	}
	return nil
}

// SendTest sends the test delivery id (InsertTest) once, now, and returns
// it with its outcome. It waits for the answer (the settings page shows it
// inline), bounded by the sender's timeouts and ctx. It is recorded like
// any delivery, so the delivery log shows it.
func (s *Store) SendTest(ctx context.Context, sender *Sender, orgID, id int64) (Delivery, error) {
	// One attempt, no retry: the admin is looking at the answer. A failed
	// send is recorded as such; only a failure to record it is an error.
	if outcome, err := sender.attemptOnce(ctx, orgID, id); outcome == "" {
		return Delivery{}, fmt.Errorf("test delivery for org %d: %w", orgID, err)
	}
	row, err := s.DB.Query(ctx, `SELECT `+deliveryColumns+`
		  FROM ff_deliveries d JOIN ff_briefings b ON b.id = d.briefing_id AND b.org_id = d.org_id
		 WHERE d.org_id = $1 AND d.id = $2`, orgID, id)
	if err != nil {
		return Delivery{}, fmt.Errorf("read test delivery %d: %w", id, err)
	}
	d, err := pgx.CollectExactlyOneRow(row, scanDelivery)
	if err != nil {
		return Delivery{}, fmt.Errorf("read test delivery %d: %w", id, err)
	}
	return d, nil
}

// TestSent says whether the org ever sent a test email or webhook that
// arrived: the last step of its first setup (docs/web.md, "First setup").
func (s *Store) TestSent(ctx context.Context, orgID int64) (bool, error) {
	var sent bool
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `
		SELECT EXISTS (SELECT FROM ff_deliveries WHERE org_id = $1 AND audience = $2 AND state = $3)`,
		orgID, AudienceTest, DeliverySent).Scan(&sent)
	if err != nil {
		return false, fmt.Errorf("test sends of org %d: %w", orgID, err)
	}
	return sent, nil
}
