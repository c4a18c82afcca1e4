package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/database"
	"fieldbrief/internal/transport"
)

// MaxAttempts is how many times a delivery is tried before it fails for
// good: with River's default backoff (attempt⁴ seconds) about 70 minutes
// of retries, as the briefing's webhook gets.
const MaxAttempts = 8

// ownRetryFor is how long a delivery waiting for its task's retry belongs
// to that task: past it (the task lost), any task of its stream takes it.
const ownRetryFor = 2 * time.Hour

// maxRetryAfter bounds a receiver's Retry-After.
const maxRetryAfter = time.Hour

// DeliverArgs sends an endpoint's pending deliveries of one record, oldest
// change first.
type DeliverArgs struct {
	OrgID      int64  `json:"org_id"`
	EndpointID int64  `json:"endpoint_id"`
	RecordKind string `json:"record_kind"`
	RecordID   int64  `json:"record_id"`
}

// Kind names the task in River; stored with every task, it never changes.
func (DeliverArgs) Kind() string { return "deliver_webhook_event" }

// InsertOpts: River retries a failed send with its backoff.
func (DeliverArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: MaxAttempts} }

// DeliverHandler runs DeliverArgs tasks.
type DeliverHandler struct {
	river.WorkerDefaults[DeliverArgs]
	DB     *pgxpool.Pool
	Client *transport.WebhookClient
	Log    *slog.Logger
	Now    func() time.Time
}

// Timeout: a send is bounded by 10 s; a task sends a record's pending
// events one after another, at most a few.
func (h *DeliverHandler) Timeout(*river.Job[DeliverArgs]) time.Duration { return 2 * time.Minute }

func (h *DeliverHandler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

// Work sends the stream's deliveries in order. Each is sent holding its
// row's lock, and a task only ever takes the stream's oldest pending one,
// so two tasks of one stream (a second event while the first is sent)
// take turns, and a later event never goes before an earlier one. A
// temporary failure stops the stream until this task's retry; a delivery
// that fails for good (a permanent answer, or MaxAttempts used) lets the
// next go.
func (h *DeliverHandler) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	start := time.Now()
	for {
		done, err := h.next(ctx, job)
		if err != nil || done {
			return err
		}
		if time.Since(start) > workFor {
			// A long stream (an import that changed one record many times)
			// goes on in a new task rather than run into the timeout.
			return h.continueStream(ctx, job.Args)
		}
	}
}

// workFor is how long a task sends before a new task takes the rest of
// its stream; a send takes at most 10 s, so the task stays well within
// its Timeout.
const workFor = time.Minute

// continueStream inserts a task for the rest of a stream.
func (h *DeliverHandler) continueStream(ctx context.Context, a DeliverArgs) error {
	inserter, err := database.InsertClient()
	if err != nil {
		return err
	}
	return database.BeginFunc(ctx, h.DB, func(tx pgx.Tx) error {
		if _, err := inserter.InsertTx(ctx, tx, a, nil); err != nil {
			return fmt.Errorf("continue deliveries of %s %d to endpoint %d: %w", a.RecordKind, a.RecordID, a.EndpointID, err)
		}
		return nil
	})
}

// head is a stream's oldest pending delivery with what sending it needs.
type head struct {
	ID, EventID      int64
	Attempts         int
	RetryTask        *int64
	RetryUntil       *time.Time
	UID, URL, Secret string
	Payload          []byte
}

// next sends the stream's oldest pending delivery; done when there is none
// or it belongs to another task's retry.
func (h *DeliverHandler) next(ctx context.Context, job *river.Job[DeliverArgs]) (done bool, err error) {
	a := job.Args
	tx, err := database.Begin(ctx, h.DB)
	if err != nil {
		return false, fmt.Errorf("begin delivery of %s %d to endpoint %d: %w", a.RecordKind, a.RecordID, a.EndpointID, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var d head
	err = tx.QueryRow(ctx, `
		SELECT d.id, d.event_id, d.attempts, d.retry_task, d.retry_until, e.uid, ep.url, ep.secret, e.payload
		  FROM webhook_deliveries d
		  JOIN webhook_events e ON e.org_id = d.org_id AND e.id = d.event_id
		  JOIN webhook_endpoints ep ON ep.org_id = d.org_id AND ep.id = d.endpoint_id
		 WHERE d.org_id = $1 AND d.endpoint_id = $2 AND d.record_kind = $3 AND d.record_id = $4 AND d.state = 'pending'
		 ORDER BY d.seq
		 LIMIT 1
		   FOR UPDATE OF d`, a.OrgID, a.EndpointID, a.RecordKind, a.RecordID).
		Scan(&d.ID, &d.EventID, &d.Attempts, &d.RetryTask, &d.RetryUntil, &d.UID, &d.URL, &d.Secret, &d.Payload)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("next delivery of %s %d to endpoint %d: %w", a.RecordKind, a.RecordID, a.EndpointID, err)
	}
	now := h.now()
	if d.RetryTask != nil && *d.RetryTask != job.ID && d.RetryUntil != nil && now.Before(*d.RetryUntil) {
		return true, nil // its own task retries it, after River's backoff
	}
	res, sendErr := h.Client.Post(ctx, transport.Webhook{URL: d.URL, ID: d.UID, Payload: d.Payload, Secret: d.Secret})
	code, detail := outcome(res, sendErr)
	attempts := d.Attempts + 1
	attrs := []any{"task_id", job.ID, "org_id", a.OrgID, "endpoint_id", a.EndpointID, "event", d.UID, "attempt", attempts}
	var perm bool
	if sendErr != nil {
		perm = !retriable(sendErr)
	}
	state, retry := "pending", sendErr
	switch {
	case sendErr == nil:
		state, retry = "delivered", nil
	case perm || attempts >= MaxAttempts:
		state, retry = "failed", nil
	}
	var retryTask *int64
	var retryUntil *time.Time
	if state == "pending" {
		owner := job.ID
		if job.Attempt >= job.MaxAttempts {
			// This task has no attempt left for the delivery's next
			// ones: a new task takes the stream over.
			inserter, err := database.InsertClient()
			if err != nil {
				return false, err
			}
			res, err := inserter.InsertTx(ctx, tx, a, &river.InsertOpts{ScheduledAt: now.Add(time.Minute)})
			if err != nil {
				return false, fmt.Errorf("hand over delivery %d: %w", d.ID, err)
			}
			owner, retry = res.Job.ID, nil
		}
		until := now.Add(ownRetryFor)
		retryTask, retryUntil = &owner, &until
	}
	var finished *time.Time
	if state != "pending" {
		finished = &now
	}
	if _, err := tx.Exec(ctx, `
		UPDATE webhook_deliveries
		   SET state = $3, attempts = $4, last_attempt_at = $5, last_code = $6, last_detail = $7,
		       retry_task = $8, retry_until = $9, finished_at = $10
		 WHERE org_id = $1 AND id = $2`,
		a.OrgID, d.ID, state, attempts, now, code, detail, retryTask, retryUntil, finished); err != nil {
		return false, fmt.Errorf("record delivery %d: %w", d.ID, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("record delivery %d: %w", d.ID, err)
	}
	switch state {
	case "delivered":
		h.Log.Info("webhook event delivered", attrs...)
	case "failed":
		h.Log.Warn("webhook event failed for good", append(attrs, "error", sendErr)...)
	default:
		h.Log.Warn("webhook event attempt failed; retried later", append(attrs, "error", sendErr)...)
	}
	if retry == nil {
		return state == "pending", nil // pending here: handed over to a new task
	}
	if ra := transport.RetryAfter(retry); ra > 0 {
		return false, river.JobSnooze(min(ra, maxRetryAfter))
	}
	return false, retry
}

// retriable reports whether trying again can help: a temporary
// *transport.Error, or any other error (a database's, say).
func retriable(err error) bool {
	var e *transport.Error
	return !errors.As(err, &e) || !e.Permanent
}

// outcome is what the delivery log shows of an attempt.
func outcome(res transport.Result, err error) (code, detail string) {
	if res.Status != 0 {
		code = fmt.Sprint(res.Status)
	}
	var e *transport.Error
	switch {
	case err == nil:
		return code, ""
	case errors.As(err, &e):
		return e.Code, e.Detail
	}
	return code, "error"
}
