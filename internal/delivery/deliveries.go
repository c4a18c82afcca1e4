package delivery

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
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
	DeliverySkipped = "skipped" // never attempted: last_code says why (SkippedLate)
)

// Outcomes of a delivery attempt, as stored in ff_delivery_attempts.outcome.
const (
	AttemptSent   = "sent"
	AttemptRetry  = "retry"
	AttemptFailed = "failed"
)

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
	// stoppedAt: a technician who asked not to receive their day sheets
	// since then; their delivery is recorded as skipped, never sent.
	stoppedAt *time.Time
}

// SkippedStopped is the last_code of a technician's email skipped because
// they asked not to receive their day sheets (docs/delivery.md, "Stopping
// day sheets"); last_detail is StoppedDetail of when.
const SkippedStopped = "stopped"

// StoppedDetail is a stopped delivery's last_detail: when the technician
// asked, RFC 3339 in UTC, which the pages show in the org's zone.
func StoppedDetail(at time.Time) string { return at.UTC().Format(time.RFC3339) }

// Reads are what the scheduled generation needs to know who gets the
// briefing, read in the transaction that stores the revision (queued with
// its other reads: docs/scheduling.md, "Burst"), so the recipients are
// the ones configured when the briefing was made.
type Reads struct {
	config     []byte // the module config; nil without one
	suppressed map[string]bool
}

// QueueReads queues the reads of the org's delivery settings on b.
func QueueReads(b *pgx.Batch, orgID int64) *Reads {
	dr := &Reads{}
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

// delivery is the org's delivery settings; nil when there are none or the
// config is invalid (already the tick's business: nothing to send).
func (dr *Reads) delivery() *schedule.DeliveryConfig {
	if dr.config == nil {
		return nil
	}
	cfg, _, err := schedule.ParseConfig(dr.config)
	if err != nil {
		return nil
	}
	return cfg.Delivery
}

// Revision names the revision of a briefing deliveries are for.
type Revision struct {
	OrgID, BriefingID int64
	Revision          int
}

// QueueDeliveries queues creating the deliveries of a scheduled revision a,
// whose content is snap, to the recipients the reads found, inside the
// transaction that stores the revision: a briefing is never ready without
// them, and a generation that runs again inserts none twice
// (ff_deliveries_once). It then records that the date's scheduled firing
// has delivered. technicians are the day's active ones. Once the batch is
// closed, tasks holds the River task of each delivery created, for the
// caller to insert in the same transaction.
//
// A firing more than delivery.send_within after its scheduled minute is
// late (docs/guarantees.md, "Late briefings"): its deliveries are recorded
// as skipped, with the reason, and get no task; QueueDeliveries reports it.
func (dr *Reads) QueueDeliveries(b *pgx.Batch, a Revision, snap snapshot.Snapshot, technicians []field.Technician, fired Firing,
	dueAt time.Time, tasks *[]river.InsertManyParams) (late bool) {
	d := dr.delivery()
	late = fired.Late(d.Within())
	var recipients []recipient
	if d != nil {
		recipients = recipientsOf(d, snap, technicians, dr.suppressed)
	}
	if len(recipients) > 0 {
		n := len(recipients)
		channels, audiences, addresses, keys := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		states, codes, details := make([]string, n), make([]string, n), make([]string, n)
		techIDs := make([]*int64, n)
		for i, r := range recipients {
			channels[i], audiences[i], addresses[i] = r.channel, r.audience, r.address
			keys[i] = deliveryKey(a.BriefingID, a.Revision, r.channel, r.address)
			if r.technicianID != 0 {
				techIDs[i] = &recipients[i].technicianID
			}
			states[i] = DeliveryPending
			switch {
			case late:
				states[i], codes[i], details[i] = DeliverySkipped, SkippedLate, fired.LateDetail()
			case r.stoppedAt != nil:
				states[i], codes[i], details[i] = DeliverySkipped, SkippedStopped, StoppedDetail(*r.stoppedAt)
			}
		}
		b.Queue(`
			INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, due_at,
			                           state, last_code, last_detail)
			SELECT $1, $2, $3, t.channel, t.audience, t.recipient, t.technician_id, t.key, $9, t.state, t.code, t.detail
			  FROM unnest($4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $10::text[], $11::text[], $12::text[])
			       AS t(channel, audience, recipient, technician_id, key, state, code, detail)
			ON CONFLICT DO NOTHING
			RETURNING id, channel, state`,
			a.OrgID, a.BriefingID, a.Revision, channels, audiences, addresses, techIDs, keys, dueAt, states, codes, details).
			Query(func(rows pgx.Rows) error {
				var id int64
				var channel, state string
				_, err := pgx.ForEachRow(rows, []any{&id, &channel, &state}, func() error {
					if state == DeliveryPending { // a skipped delivery is never attempted
						*tasks = append(*tasks, river.InsertManyParams{Args: deliveryArgs(channel, a.OrgID, a.BriefingID, id)})
					}
					return nil
				})
				if err != nil {
					return fmt.Errorf("insert deliveries: %w", err)
				}
				return nil
			})
	}
	b.Queue(`UPDATE ff_briefings SET delivered_revision = $3 WHERE id = $1 AND org_id = $2`,
		a.BriefingID, a.OrgID, a.Revision)
	return late
}

// deliveryArgs is the task that works a delivery row of channel.
func deliveryArgs(channel string, orgID, briefingID, deliveryID int64) river.JobArgs {
	if channel == ChannelWebhook {
		return CallWebhookArgs{OrgID: orgID, BriefingID: briefingID, DeliveryID: deliveryID}
	}
	return SendBriefingEmailArgs{OrgID: orgID, BriefingID: briefingID, DeliveryID: deliveryID}
}

// recipientsOf lists who gets the briefing: every configured address (one
// that unsubscribed excepted), each technician with an email address and
// work that day (when technicians is on), by technician id — one who asked
// not to receive day sheets is listed with when, to be recorded as
// skipped, so the office sees it —, and the webhook.
func recipientsOf(d *schedule.DeliveryConfig, snap snapshot.Snapshot, technicians []field.Technician, suppressed map[string]bool) []recipient {
	var out []recipient
	seen := map[string]bool{}
	add := func(r recipient) {
		key := r.channel + " " + strings.ToLower(r.address)
		if !seen[key] && (r.audience != AudienceDispatcher || !suppressed[strings.ToLower(r.address)]) {
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
				if t.HasWork() {
					working[t.ID] = true
				}
			}
			// Oldest first (ids carry no order: docs/security.md, "Ids and ETags").
			byAge := slices.SortedFunc(slices.Values(technicians), func(a, b field.Technician) int {
				return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
			})
			for _, t := range byAge {
				if working[t.ID] && t.Email != "" {
					add(recipient{channel: ChannelEmail, audience: AudienceTechnician, address: t.Email, technicianID: t.ID, stoppedAt: t.DaySheetsStoppedAt})
				}
			}
		}
	}
	if d.Webhook != nil && d.Webhook.URL != "" {
		add(recipient{channel: ChannelWebhook, audience: AudienceWebhook, address: d.Webhook.URL})
	}
	return out
}
