package auth

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
)

// throttleWindow is how far back failed sign-ins count.
const throttleWindow = time.Hour

// Throttle limits password guessing: at most PerAccount failed sign-ins per
// email and PerClient per client IP in the last hour. Over either limit the
// password is not even checked. The count is read before the attempt and
// written after it, so concurrent attempts may overshoot a limit by the
// number in flight; that is fine for throttling.
type Throttle struct {
	DB         *pgxpool.Pool
	PerAccount int
	PerClient  int
}

// Check returns a TooMany error when the email or the client is over its
// limit at now.
func (t *Throttle) Check(ctx context.Context, email, clientIP string, now time.Time) error {
	var account, client int
	err := t.DB.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE lower(email) = $1), count(*) FILTER (WHERE client_ip = $2)
		FROM login_failures
		WHERE failed_at > $3 AND failed_at <= $4 AND (lower(email) = $1 OR client_ip = $2)`,
		normalize(email), clientIP, now.Add(-throttleWindow), now).Scan(&account, &client)
	if err != nil {
		return fmt.Errorf("count failed sign-ins: %w", err)
	}
	switch {
	case account >= t.PerAccount:
		return apperr.Errorf(apperr.TooMany, "Too many failed sign-ins for this account. Wait an hour, then try again.")
	case client >= t.PerClient:
		return apperr.Errorf(apperr.TooMany, "Too many failed sign-ins from your network. Wait an hour, then try again.")
	}
	return nil
}

// Fail records a failed sign-in at now.
func (t *Throttle) Fail(ctx context.Context, email, clientIP string, now time.Time) error {
	if _, err := t.DB.Exec(ctx, `INSERT INTO login_failures (email, client_ip, failed_at) VALUES ($1, $2, $3)`,
		normalize(email), clientIP, now); err != nil {
		return fmt.Errorf("record failed sign-in: %w", err)
	}
	return nil
}

func normalize(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
