package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"fieldbrief/internal/database"
	"fieldbrief/internal/transport"
)

// deliveryRow is a delivery as its task reads it, locked.
type deliveryRow struct {
	ID, OrgID, BriefingID, TechnicianID int64
	UpdateID                            int64 // 0: the briefing itself; else the update it tells (update_send.go)
	Revision                            int
	Channel, Audience, Recipient, Key   string
	State                               string
	Attempts                            int
	DueAt                               time.Time
}

// lockDelivery reads a delivery and locks it for the attempt: a task that
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
	SELECT id, org_id, briefing_id, technician_id, revision, channel, audience, recipient, key, state, attempts, due_at,
	       coalesce(update_id, 0)
	  FROM ff_deliveries WHERE id = $1 AND org_id = $2`

func scanDeliveryRow(row pgx.Row, id int64) (deliveryRow, error) {
	var d deliveryRow
	var techID *int64
	err := row.
		Scan(&d.ID, &d.OrgID, &d.BriefingID, &techID, &d.Revision, &d.Channel, &d.Audience, &d.Recipient, &d.Key,
			&d.State, &d.Attempts, &d.DueAt, &d.UpdateID)
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
// task has no attempt left, so a temporary failure is the last word too.
func classify(err error, final bool) (outcome, code, detail string) {
	if err == nil {
		return AttemptSent, "", ""
	}
	var de *transport.Error
	if errors.As(err, &de) {
		code, detail = de.Code, de.Detail
	} else {
		detail = clipDetail(err.Error())
	}
	if transport.IsPermanent(err) || final {
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

// riverResult is what a delivery task returns to River after the attempt was
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
	if ra := transport.RetryAfter(sendErr); ra > 0 {
		return river.JobSnooze(min(ra, maxRetryAfter))
	}
	return sendErr
}
