package database

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectionLost reports whether err says the connection to PostgreSQL
// went away (the server ended the session, restarted or failed over, or
// the network dropped it) rather than that the statement itself failed.
// A fresh connection may well succeed where this one did not, so callers
// retry such errors: idempotent reads at once, workers with backoff
// (docs/worker.md, "Lost connections").
//
// A context's own cancellation or deadline is never a lost connection:
// the caller gave up, and retrying would outlive it.
func ConnectionLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection_exception
			return true
		case pgErr.Code == "57P01", // admin_shutdown: pg_terminate_backend, smart/fast shutdown
			pgErr.Code == "57P02", // crash_shutdown
			pgErr.Code == "57P03", // cannot_connect_now: starting up or in recovery
			pgErr.Code == "53300": // too_many_connections: every slot (or the role's limit) taken, at connect
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, pgconn.ErrConnClosed)
}

// ShardMoved reports whether err is Citus's answer to a statement planned
// against a shard that a shard move or split (the rebalancer,
// isolate_tenant_to_new_shard) dropped as it ran: the same statement
// planned again finds the shard's new place, so callers retry it as they
// retry a lost connection (docs/scaling.md, "Growing while running").
// Citus gives the error no code of its own, hence the message.
func ShardMoved(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "XX000" &&
		strings.HasPrefix(pgErr.Message, "could not find valid entry for shard")
}
