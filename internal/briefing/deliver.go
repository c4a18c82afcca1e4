package briefing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/unsubscribe"
)

// Delivery channels, audiences and states, as stored in ff_deliveries.
const (
	ChannelEmail   = "email"
	ChannelWebhook = "webhook"

	AudienceDispatcher = "dispatcher"
	AudienceTechnician = "technician"
	AudienceWebhook    = "webhook"
	AudienceTest       = "test"

	DeliveryPending = "pending"
	DeliverySent    = "sent"
	DeliveryFailed  = "failed"
)

// Outcomes of a delivery attempt, as stored in ff_delivery_attempts.outcome.
const (
	AttemptSent   = "sent"
	AttemptRetry  = "retry"
	AttemptFailed = "failed"
)

// SendBriefingEmailArgs sends one delivery row's email: a dispatcher's whole
// briefing or a technician's own day.
type SendBriefingEmailArgs struct {
	OrgID      int64 `json:"org_id"`
	BriefingID int64 `json:"briefing_id"`
	DeliveryID int64 `json:"delivery_id"`
}

// Kind names the job kind in River.
func (SendBriefingEmailArgs) Kind() string { return "send_briefing_email" }

// InsertOpts: SMTP servers greylist and defer for minutes; with River's
// backoff (attempt⁴ s) eight attempts span about an hour and a half, which
// still lands the briefing within the working morning.
func (SendBriefingEmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: emailMaxAttempts}
}

// CallWebhookArgs posts one delivery row's webhook.
type CallWebhookArgs struct {
	OrgID      int64 `json:"org_id"`
	BriefingID int64 `json:"briefing_id"`
	DeliveryID int64 `json:"delivery_id"`
}

// Kind names the job kind in River.
func (CallWebhookArgs) Kind() string { return "call_webhook" }

// InsertOpts: a receiver that is down gets about an hour and a half of
// retries too; Retry-After from a 429/503 is honoured within maxRetryAfter.
func (CallWebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: webhookMaxAttempts}
}

const (
	emailMaxAttempts   = 8
	webhookMaxAttempts = 8
	// sendTimeout bounds one attempt of either kind: the SMTP client gives
	// up after 30 s and the webhook client after 10 s.
	sendTimeout = 45 * time.Second
	// maxRetryAfter caps how long a receiver's Retry-After may push a retry.
	maxRetryAfter = time.Hour
)

// deliveryKey is a delivery's idempotency key: the same revision to the same
// recipient always has the same key, so the email's Message-ID and the
// webhook-id stay the same across retries and re-sends. It is hashed so the
// key (and so the Message-ID) does not reveal the address.
func deliveryKey(briefingID int64, revision int, channel, recipient string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "briefing/%d/r%d/%s/%s", briefingID, revision, channel, strings.ToLower(recipient)))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// recipient is one delivery to create.
type recipient struct {
	channel, audience, address string
	technicianID               int64
}

// deliveryReads are what the scheduled generation needs to know who gets
// the briefing, read in the transaction that stores the revision (queued
// with its other reads: docs/architecture.md, "Burst"), so the recipients
// are the ones configured when the briefing was made.
type deliveryReads struct {
	config     []byte // the module config; nil without one
	suppressed map[string]bool
}

func queueDeliveryReads(b *pgx.Batch, orgID int64) *deliveryReads {
	dr := &deliveryReads{}
	b.Queue(`SELECT config_json FROM org_module_configs WHERE org_id = $1 AND module = $2`, orgID, schedule.Module).
		QueryRow(func(row pgx.Row) error {
			if err := row.Scan(&dr.config); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("read delivery config: %w", err)
			}
			return nil
		})
	dr.suppressed = unsubscribe.QueueSuppressed(b, orgID)
	return dr
}

// recipients lists who gets snap; emails are the active technicians with an
// address, by id.
func (dr *deliveryReads) recipients(orgID int64, snap Snapshot, emails []technicianEmail) []recipient {
	if dr == nil || dr.config == nil {
		return nil
	}
	cfg, _, err := schedule.ParseConfig(dr.config)
	if err != nil || cfg.Delivery == nil {
		// An invalid config was already the tick's business; nothing to send.
		return nil
	}
	return recipientsOf(cfg.Delivery, snap, emails, dr.suppressed)
}

// queueDeliveries queues creating the deliveries of a scheduled revision,
// inside the transaction that stores the revision: a briefing is never ready
// without them, and a generation that runs again inserts none twice
// (ff_deliveries_once). It then records that the date's scheduled firing
// has delivered. Once the batch is closed, jobs holds the River job of each
// delivery created, for the caller to insert in the same transaction.
func queueDeliveries(b *pgx.Batch, a GenerateBriefingArgs, recipients []recipient, dueAt time.Time, jobs *[]river.InsertManyParams) {
	if len(recipients) > 0 {
		channels, audiences, addresses, keys := make([]string, len(recipients)), make([]string, len(recipients)), make([]string, len(recipients)), make([]string, len(recipients))
		techIDs := make([]*int64, len(recipients))
		for i, r := range recipients {
			channels[i], audiences[i], addresses[i] = r.channel, r.audience, r.address
			keys[i] = deliveryKey(a.BriefingID, a.Revision, r.channel, r.address)
			if r.technicianID != 0 {
				techIDs[i] = &recipients[i].technicianID
			}
		}
		b.Queue(`
			INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, due_at)
			SELECT $1, $2, $3, t.channel, t.audience, t.recipient, t.technician_id, t.key, $9
			  FROM unnest($4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[])
			       AS t(channel, audience, recipient, technician_id, key)
			ON CONFLICT DO NOTHING
			RETURNING id, channel`,
			a.OrgID, a.BriefingID, a.Revision, channels, audiences, addresses, techIDs, keys, dueAt).
			Query(func(rows pgx.Rows) error {
				var id int64
				var channel string
				_, err := pgx.ForEachRow(rows, []any{&id, &channel}, func() error {
					*jobs = append(*jobs, river.InsertManyParams{Args: deliveryArgs(channel, a.OrgID, a.BriefingID, id)})
					return nil
				})
				return wrap(err, "insert deliveries")
			})
	}
	b.Queue(`UPDATE ff_briefings SET delivered_revision = $3 WHERE id = $1 AND org_id = $2`,
		a.BriefingID, a.OrgID, a.Revision)
}

// deliveryArgs is the job that works a delivery row of channel.
func deliveryArgs(channel string, orgID, briefingID, deliveryID int64) river.JobArgs {
	if channel == ChannelWebhook {
		return CallWebhookArgs{OrgID: orgID, BriefingID: briefingID, DeliveryID: deliveryID}
	}
	return SendBriefingEmailArgs{OrgID: orgID, BriefingID: briefingID, DeliveryID: deliveryID}
}

// recipientsOf lists who gets the briefing: every configured address, each
// technician with an email address (emails, by id) and work that day (when
// technicians is on) — an address that unsubscribed excepted — and the
// webhook.
func recipientsOf(d *schedule.DeliveryConfig, snap Snapshot, emails []technicianEmail, suppressed map[string]bool) []recipient {
	var out []recipient
	seen := map[string]bool{}
	add := func(r recipient) {
		key := r.channel + " " + strings.ToLower(r.address)
		if !seen[key] && (r.channel != ChannelEmail || !suppressed[strings.ToLower(r.address)]) {
			seen[key] = true
			out = append(out, r)
		}
	}
	if d.Email != nil {
		for _, to := range d.Email.To {
			add(recipient{channel: ChannelEmail, audience: AudienceDispatcher, address: to})
		}
		if d.Email.Technicians {
			working := map[int64]bool{}
			for _, t := range snap.Technicians {
				if len(t.Jobs) > 0 {
					working[t.ID] = true
				}
			}
			for _, t := range emails {
				if working[t.id] {
					add(recipient{channel: ChannelEmail, audience: AudienceTechnician, address: t.email, technicianID: t.id})
				}
			}
		}
	}
	if d.Webhook != nil && d.Webhook.URL != "" {
		add(recipient{channel: ChannelWebhook, audience: AudienceWebhook, address: d.Webhook.URL})
	}
	return out
}

// deliveryRow is a delivery as its job reads it, locked.
type deliveryRow struct {
	ID, OrgID, BriefingID, TechnicianID int64
	Revision                            int
	Channel, Audience, Recipient, Key   string
	State                               string
	Attempts                            int
	DueAt                               time.Time
}

// lockDelivery reads a delivery and locks it for the attempt: a job that
// River's rescuer runs again while the first run still sends waits here,
// then finds it sent.
func lockDelivery(ctx context.Context, tx pgx.Tx, orgID, id int64) (deliveryRow, error) {
	return scanDeliveryRow(tx.QueryRow(ctx, deliveryRowSQL+` FOR UPDATE`, id, orgID), id)
}

// readDelivery reads a delivery without locking it.
func readDelivery(ctx context.Context, q database.Querier, orgID, id int64) (deliveryRow, error) {
	return scanDeliveryRow(q.QueryRow(ctx, deliveryRowSQL, id, orgID), id)
}

const deliveryRowSQL = `
	SELECT id, org_id, briefing_id, technician_id, revision, channel, audience, recipient, key, state, attempts, due_at
	  FROM ff_deliveries WHERE id = $1 AND org_id = $2`

func scanDeliveryRow(row pgx.Row, id int64) (deliveryRow, error) {
	var d deliveryRow
	var techID *int64
	err := row.
		Scan(&d.ID, &d.OrgID, &d.BriefingID, &techID, &d.Revision, &d.Channel, &d.Audience, &d.Recipient, &d.Key,
			&d.State, &d.Attempts, &d.DueAt)
	if err != nil {
		return d, fmt.Errorf("read delivery %d: %w", id, err)
	}
	if techID != nil {
		d.TechnicianID = *techID
	}
	return d, nil
}

// attemptResult is how one send ended, as recorded.
type attemptResult struct {
	outcome, code, detail string
	duration              time.Duration
	at                    time.Time
}

// classify turns a send's error into the attempt's outcome. final says the
// job has no attempt left, so a temporary failure is the last word too.
func classify(err error, final bool) (outcome, code, detail string) {
	if err == nil {
		return AttemptSent, "", ""
	}
	var de *delivery.Error
	if errors.As(err, &de) {
		code, detail = de.Code, de.Detail
	} else {
		detail = clipDetail(err.Error())
	}
	if delivery.IsPermanent(err) || final {
		return AttemptFailed, code, detail
	}
	return AttemptRetry, code, detail
}

func clipDetail(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}

// recordAttempt appends the attempt and moves the delivery to its new state,
// in the transaction that locked it.
func recordAttempt(ctx context.Context, tx pgx.Tx, d deliveryRow, r attemptResult, worker string) error {
	state := DeliveryPending
	var sentAt *time.Time
	switch r.outcome {
	case AttemptSent:
		state, sentAt = DeliverySent, &r.at
	case AttemptFailed:
		state = DeliveryFailed
	}
	_, err := tx.Exec(ctx, `
		WITH a AS (
		    INSERT INTO ff_delivery_attempts (org_id, delivery_id, attempted_at, outcome, code, detail, duration_ms, worker)
		    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		)
		UPDATE ff_deliveries
		   SET state = $9, attempts = attempts + 1, last_code = $5, last_detail = $6,
		       sent_at = coalesce($10, sent_at), updated_at = $3
		 WHERE id = $2 AND org_id = $1`,
		d.OrgID, d.ID, r.at, r.outcome, r.code, r.detail, r.duration.Milliseconds(), worker, state, sentAt)
	if err != nil {
		return fmt.Errorf("record attempt of delivery %d: %w", d.ID, err)
	}
	return nil
}

// riverResult is what a delivery job returns to River after the attempt was
// recorded: nothing when sent; JobCancel for a permanent failure, so River
// does not retry it; a snooze for a receiver's Retry-After; else the error,
// which River retries with backoff.
func riverResult(sendErr error, outcome string) error {
	switch {
	case sendErr == nil:
		return nil
	case outcome == AttemptFailed:
		return river.JobCancel(sendErr)
	}
	if ra := delivery.RetryAfter(sendErr); ra > 0 {
		return river.JobSnooze(min(ra, maxRetryAfter))
	}
	return sendErr
}
