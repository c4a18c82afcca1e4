package briefing

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A lost connection (an operator's pg_terminate_backend, a failover, a
// restart) is retried with a doubling delay; a database still away after
// retryBudget is an infrastructure failure (docs/architecture.md, "Crashes
// and shutdown"). River retries its own loops (fetch, completion,
// leadership, maintenance) by itself; this covers our steps: the tick, and
// -once's start and polling.
const (
	retryFirstDelay = 100 * time.Millisecond
	retryMaxDelay   = 5 * time.Second
	retryBudget     = time.Minute
)

// errDatabaseAway wraps the last error of a step that kept failing on a lost
// connection for the whole retry budget.
var errDatabaseAway = errors.New("database unreachable")

// retryTransient runs step, and again while it fails on a lost connection,
// with a doubling delay, for at most retryBudget from the first failure.
// Every attempt gets a context that ends with the budget, so a database
// that hangs instead of refusing is given up on too. step must be safe to
// run again after a failure: a read, or a whole transaction.
func retryTransient(ctx context.Context, log *slog.Logger, what string, step func(ctx context.Context) error) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var giveUp time.Time
	delay := retryFirstDelay
	for attempt := 1; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if !giveUp.IsZero() {
			actx, cancel = context.WithDeadline(ctx, giveUp)
		}
		err := step(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !transient(err) {
			if err == nil && attempt > 1 {
				log.Info("database connection back", "step", what, "attempts", attempt)
			}
			return err
		}
		if giveUp.IsZero() {
			giveUp = time.Now().Add(retryBudget)
		}
		if !time.Now().Add(delay).Before(giveUp) {
			log.Error("database unreachable, giving up", "step", what, "attempts", attempt, "budget", retryBudget.String(), "error", err)
			return errors.Join(errDatabaseAway, err)
		}
		log.Warn("database connection lost, retrying", "step", what, "attempt", attempt, "delay", delay.String(), "error", err)
		if sleep(ctx, delay) != nil {
			return err
		}
		delay = min(2*delay, retryMaxDelay)
	}
}

// transient reports whether err is the connection going away rather than
// the statement failing: then the same step on a new connection may
// succeed.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception. 57P01 admin_shutdown
		// (pg_terminate_backend, a fast shutdown), 57P02 crash_shutdown,
		// 57P03 cannot_connect_now (starting up or shutting down).
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03":
			return true
		}
		return false
	}
	var netErr net.Error
	var connectErr *pgconn.ConnectError
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.As(err, &netErr) || errors.As(err, &connectErr)
}
