package briefing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Briefings on request — "generate now" and test sends, which generate one —
// are a look, and a bounded one (docs/guarantees.md, "Bounds"): each makes a
// revision of up to a megabyte, so an org gets at most MaxRequestsPerHour
// of them an hour, counted in ff_briefing_requests, which every web
// replica reads.
const (
	MaxRequestsPerHour = 6
	requestWindow      = time.Hour
	// pendingFor is how long a queued generation is taken to be on its way:
	// a press meanwhile shows it rather than queueing another. River's five
	// attempts span about six minutes (GenerateBriefingArgs.InsertOpts); a
	// generation still pending after this was lost (a worker that panicked
	// on its last attempt), and a press queues a new one.
	pendingFor = 15 * time.Minute
)

// Kinds of request, as stored in ff_briefing_requests.kind.
const (
	RequestGenerate = "generate"
	RequestTest     = "test"
)

// checkRequests refuses a request (apperr TooMany, with how long to wait)
// when the org has made MaxRequestsPerHour in the hour before now, with
// reason: generate_too_many or test_too_many.
func checkRequests(ctx context.Context, tx pgx.Tx, orgID int64, now time.Time, reason string) error {
	var n int
	var oldest *time.Time
	err := tx.QueryRow(ctx, `
		SELECT count(*), min(requested_at) FROM ff_briefing_requests
		 WHERE org_id = $1 AND requested_at > $2 AND requested_at <= $3`,
		orgID, now.Add(-requestWindow), now).Scan(&n, &oldest)
	if err != nil {
		return fmt.Errorf("briefing requests of org %d: %w", orgID, err)
	}
	if n < MaxRequestsPerHour {
		return nil
	}
	wait := oldest.Add(requestWindow).Sub(now)
	minutes := max(int((wait+time.Minute-1)/time.Minute), 1)
	return apperr.Refuse(apperr.TooMany, reason, apperr.Args{"Minutes": minutes, "Made": n}).After(wait)
}

// recordRequest counts a request of kind for the org's briefing, and
// forgets the org's requests that have left the window.
func recordRequest(ctx context.Context, tx pgx.Tx, orgID, briefingID int64, kind string, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM ff_briefing_requests WHERE org_id = $1 AND requested_at <= $2`, orgID, now.Add(-requestWindow))
	b.Queue(`INSERT INTO ff_briefing_requests (org_id, briefing_id, kind, requested_at) VALUES ($1, $2, $3, $4)`,
		orgID, briefingID, kind, now)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("record %s request of org %d: %w", kind, orgID, err)
	}
	return nil
}

// requestTx runs fn in a repeatable-read transaction whose first statement
// writes or locks today's briefing row: requests for the same briefing
// (presses, test sends, the tick's firing, a generation) are serialised
// there, and one that would have read data a concurrent one changed fails
// with a serialization error and starts again, so the allowance is counted
// exactly. After serializationRetries it is apperr Unavailable.
func (s *Store) requestTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for try := 1; try <= serializationRetries; try++ {
		err = database.BeginTxFunc(ctx, s.DB, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, fn)
		if !isSerializationFailure(err) {
			return err
		}
	}
	return &apperr.Error{Code: apperr.Unavailable, Reason: "briefing_busy", Detail: err.Error(), RetryAfter: time.Second}
}

// errNotFound says whether err is pgx's "no rows".
func errNotFound(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
