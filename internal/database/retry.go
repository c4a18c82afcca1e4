package database

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A lost connection (an operator's pg_terminate_backend, a failover, a
// restart) is retried with a doubling delay; a database still away after
// retryBudget is an infrastructure failure (docs/worker.md, "Crashes
// and shutdown"). River retries its own loops (fetch, completion,
// leadership, maintenance) by itself; this covers our steps: the tick, the
// record of a sent delivery, and worker -once's start and polling.
const (
	retryFirstDelay = 100 * time.Millisecond
	retryMaxDelay   = 5 * time.Second
	retryBudget     = time.Minute
)

// ErrAway wraps the last error of a step that kept failing on a lost
// connection for the whole retry budget.
var ErrAway = errors.New("database unreachable")

// RetryTransient runs step, and again while it fails on a lost connection,
// with a doubling delay, for at most retryBudget from the first failure.
// Every attempt gets a context that ends with the budget, so a database
// that hangs instead of refusing is given up on too. step must be safe to
// run again after a failure: a read, or a whole transaction.
func RetryTransient(ctx context.Context, log *slog.Logger, what string, step func(ctx context.Context) error) error {
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
		if err == nil || ctx.Err() != nil || !Transient(err) {
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
			return errors.Join(ErrAway, err)
		}
		log.Warn("database connection lost, retrying", "step", what, "attempt", attempt, "delay", delay.String(), "error", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, retryMaxDelay)
	}
}

// Transient reports whether err is the connection going away rather than
// the statement failing (ConnectionLost), or an attempt that timed
// out against a database that hangs instead of refusing, or a Citus shard
// that moved under the statement (ShardMoved): then the same step on a new
// connection may succeed, and RetryTransient's budget bounds it.
func Transient(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	return ConnectionLost(err) || pgconn.Timeout(err) || ShardMoved(err)
}
