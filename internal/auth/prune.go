package auth

import (
	"context"
	"fmt"
	"time"

	"fieldbrief/internal/database"
)

// Retention of rows that no longer decide anything.
const (
	// sessionRetention keeps a session row this long after sign-in. Load
	// refuses a session once it is older than the absolute timeout (7 days
	// by default), so a month is well past any sensible setting: pruning
	// never signs anyone out, it only drops rows that are already dead. A
	// SESSION_ABSOLUTE_TIMEOUT above this would be cut short here.
	sessionRetention = 30 * 24 * time.Hour
	// revokedRetention keeps a signed-out session a day: a revoked row
	// refuses its cookie no better than a missing one, and a day is enough
	// to look into a recent sign-out.
	revokedRetention = 24 * time.Hour
	// failureRetention keeps failed sign-ins a day, well past the hour the
	// throttle counts (throttleWindow), so a burst can still be looked into.
	failureRetention = 24 * time.Hour
)

// Prune deletes the session and failed sign-in rows that are past their
// retention at now, and returns how many of each it deleted. It is
// idempotent, so every worker replica may run it.
func Prune(ctx context.Context, db database.Querier, now time.Time) (sessions, failures int64, err error) {
	tag, err := db.Exec(ctx, `DELETE FROM sessions WHERE revoked_at < $1 OR created_at < $2`,
		now.Add(-revokedRetention), now.Add(-sessionRetention))
	if err != nil {
		return 0, 0, fmt.Errorf("prune sessions: %w", err)
	}
	sessions = tag.RowsAffected()
	tag, err = db.Exec(ctx, `DELETE FROM login_failures WHERE failed_at < $1`, now.Add(-failureRetention))
	if err != nil {
		return sessions, 0, fmt.Errorf("prune failed sign-ins: %w", err)
	}
	failures = tag.RowsAffected()
	// A client's row only takes turns among its attempts of the last hour.
	if _, err := db.Exec(ctx, `DELETE FROM login_clients WHERE last_try < $1`, now.Add(-failureRetention)); err != nil {
		return sessions, failures, fmt.Errorf("prune sign-in clients: %w", err)
	}
	return sessions, failures, nil
}
