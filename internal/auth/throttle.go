package auth

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fieldbrief/internal/database"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// throttleWindow is how far back failed sign-ins count.
const throttleWindow = time.Hour

// Delays once a limit is reached: the first attempt over it waits
// firstDelay after the latest failure, each further one twice as long, up
// to maxDelay.
const (
	firstDelay = time.Second
	maxDelay   = 15 * time.Minute
)

// Throttle slows password guessing without locking anyone out. Failures
// count per account and client (email and client IP together) and per
// client; past PerAccount failures of one account from one client in the
// last hour, or PerClient from one client, each further attempt from that
// client must wait (1 s, 2 s, 4 s … up to 15 min after the latest failure).
// The real user, signing in from their own address, is never held back by
// an attacker elsewhere.
//
// Counting is exact under concurrency: Admit locks the client's own row
// (login_clients, upserted), counts, and records the attempt as a failure
// before the password is checked; Succeeded takes the record back. Both
// counts are of one client, so attempts of one client take turns on its
// row and see each other, and no more than the limit are ever checked. No
// lock is named by what the client typed.
type Throttle struct {
	DB         *pgxpool.Pool
	PerAccount int
	PerClient  int
}

// Throttled refuses an attempt: wait RetryAfter before the next one.
type Throttled struct {
	RetryAfter time.Duration
	PerClient  bool // the client's limit, over every account, rather than one account's
}

func (e *Throttled) Error() string {
	return fmt.Sprintf("sign-in throttled for %s", e.RetryAfter)
}

// Seconds is RetryAfter in whole seconds, rounded up (for Retry-After).
func (e *Throttled) Seconds() int { return int((e.RetryAfter + time.Second - 1) / time.Second) }

// Message is what the sign-in form says.
func (e *Throttled) Message() string {
	if e.PerClient {
		return fmt.Sprintf("Too many failed sign-ins from your network. Try again in %d seconds.", e.Seconds())
	}
	return fmt.Sprintf("Too many failed sign-ins for this account. Try again in %d seconds.", e.Seconds())
}

// Attempt is an admitted sign-in attempt, counted as a failure until
// Succeeded takes it back.
type Attempt struct{ failureID int64 }

// Admit lets an attempt at now check its password, counting it as a
// failure, or refuses it with *Throttled without counting it.
func (t *Throttle) Admit(ctx context.Context, email, clientIP string, now time.Time) (Attempt, error) {
	email = normalize(email)
	var a Attempt
	err := database.BeginFunc(ctx, t.DB, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO login_clients (client_ip, last_try) VALUES ($1, $2)
			ON CONFLICT (client_ip) DO UPDATE SET last_try = greatest(login_clients.last_try, excluded.last_try)`,
			clientIP, now); err != nil {
			return fmt.Errorf("lock sign-in throttle of the client: %w", err)
		}
		var account, client int
		var accountLast, clientLast *time.Time
		err := tx.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE lower(email) = $1), max(failed_at) FILTER (WHERE lower(email) = $1),
			       count(*), max(failed_at)
			FROM login_failures
			WHERE client_ip = $2 AND failed_at > $3 AND failed_at <= $4`,
			email, clientIP, now.Add(-throttleWindow), now).Scan(&account, &accountLast, &client, &clientLast)
		if err != nil {
			return fmt.Errorf("count failed sign-ins: %w", err)
		}
		if wait := waitFor(account, t.PerAccount, accountLast, now); wait > 0 {
			return &Throttled{RetryAfter: wait}
		}
		if wait := waitFor(client, t.PerClient, clientLast, now); wait > 0 {
			return &Throttled{RetryAfter: wait, PerClient: true}
		}
		if err := tx.QueryRow(ctx, `INSERT INTO login_failures (email, client_ip, failed_at) VALUES ($1, $2, $3) RETURNING id`,
			email, clientIP, now).Scan(&a.failureID); err != nil {
			return fmt.Errorf("record sign-in attempt: %w", err)
		}
		return nil
	})
	return a, err
}

// Succeeded takes back an admitted attempt whose password was right.
func (t *Throttle) Succeeded(ctx context.Context, a Attempt) error {
	if _, err := t.DB.Exec(ctx, `DELETE FROM login_failures WHERE id = $1`, a.failureID); err != nil {
		return fmt.Errorf("take back sign-in attempt: %w", err)
	}
	return nil
}

// waitFor is how long an attempt at now must still wait, given failures in
// the window (the latest at last) and the limit: nothing below the limit,
// then firstDelay after the latest failure, doubling with each failure
// over the limit, capped at maxDelay.
func waitFor(failures, limit int, last *time.Time, now time.Time) time.Duration {
	if failures < limit || last == nil {
		return 0
	}
	delay := maxDelay
	if over := failures - limit; over < 20 { // 2^20 s is far past the cap
		delay = min(firstDelay<<over, maxDelay)
	}
	return max(last.Add(delay).Sub(now), 0)
}

func normalize(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
