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
// retryBudget is an infrastructure failure.
const (
	retryFirstDelay = 100 * time.Millisecond
	retryMaxDelay   = 5 * time.Second
	retryBudget     = time.Minute
)

// retryLostConnection runs step, and again while it fails on a lost
// connection, within retryBudget and ctx. step must be safe to run again
// after a failure: a read, or a whole transaction.
func retryLostConnection(ctx context.Context, log *slog.Logger, what string, step func() error) error {
	giveUp := time.Now().Add(retryBudget)
	delay := retryFirstDelay
	for {
		err := step()
		if err == nil || ctx.Err() != nil || !connectionLost(err) || time.Now().Add(delay).After(giveUp) {
			return err
		}
		log.Warn("database connection lost, retrying", "step", what, "delay", delay.String(), "error", err)
		if sleep(ctx, delay) != nil {
			return err
		}
		delay = min(2*delay, retryMaxDelay)
	}
}

// connectionLost reports whether err is the connection going away rather
// than the statement failing: then the same step on a new connection may
// succeed.
func connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 57P01 admin_shutdown (pg_terminate_backend, a fast shutdown),
		// 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up),
		// class 08: connection exception.
		return strings.HasPrefix(pgErr.Code, "57P0") || strings.HasPrefix(pgErr.Code, "08")
	}
	var netErr net.Error
	var connectErr *pgconn.ConnectError
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.As(err, &netErr) || errors.As(err, &connectErr)
}
