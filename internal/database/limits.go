package database

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Limits bound how long one statement of a transaction may wait for a lock
// and run (docs/worker.md, "No wait without bound"). The web puts
// them on every request's context (WithLimits); BeginFunc and the read
// transactions set them on each transaction they begin, with SET LOCAL in
// the same round trip as BEGIN: transaction-scoped, so they hold behind
// PgBouncer in transaction mode too, where a session setting or a startup
// parameter would not. Workers carry none and wait as their tasks need.
type Limits struct {
	Lock      time.Duration // lock_timeout
	Statement time.Duration // statement_timeout
}

type limitsKey struct{}

// WithLimits returns a context whose transactions (BeginFunc, ReadTx) run
// under l.
func WithLimits(ctx context.Context, l Limits) context.Context {
	return context.WithValue(ctx, limitsKey{}, l)
}

func limitsOf(ctx context.Context) (Limits, bool) {
	l, ok := ctx.Value(limitsKey{}).(Limits)
	return l, ok && (l.Lock > 0 || l.Statement > 0)
}

// txOptions is opts with the context's limits set at BEGIN, if it has any.
func txOptions(ctx context.Context, opts pgx.TxOptions) pgx.TxOptions {
	l, ok := limitsOf(ctx)
	if !ok {
		return opts
	}
	var b strings.Builder
	b.WriteString("BEGIN")
	if opts.IsoLevel != "" {
		b.WriteString(" ISOLATION LEVEL " + string(opts.IsoLevel))
	}
	if opts.AccessMode != "" {
		b.WriteString(" " + string(opts.AccessMode))
	}
	if opts.DeferrableMode != "" {
		b.WriteString(" " + string(opts.DeferrableMode))
	}
	// Whole milliseconds from our own durations: nothing of a client's
	// reaches this text. On Citus the settings reach the workers' shards
	// only when SET commands are propagated; on plain PostgreSQL the
	// citus.* setting is an unused placeholder.
	b.WriteString("; SET LOCAL citus.propagate_set_commands = 'local'")
	if l.Lock > 0 {
		fmt.Fprintf(&b, "; SET LOCAL lock_timeout = %d", l.Lock.Milliseconds())
	}
	if l.Statement > 0 {
		fmt.Fprintf(&b, "; SET LOCAL statement_timeout = %d", l.Statement.Milliseconds())
	}
	opts.BeginQuery = b.String()
	return opts
}

// TxBeginner is a pool or a connection: what a transaction begins on.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// BeginFunc runs fn in a transaction on db, committed when fn returns nil
// and rolled back otherwise, under the context's limits (WithLimits).
// Every transaction the web can open begins here or in ReadTx.
func BeginFunc(ctx context.Context, db TxBeginner, fn func(pgx.Tx) error) error {
	return BeginTxFunc(ctx, db, pgx.TxOptions{}, fn)
}

// BeginTxFunc is BeginFunc with opts (an isolation level, read only).
func BeginTxFunc(ctx context.Context, db TxBeginner, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, db, txOptions(ctx, opts), fn)
}

// Begin begins a transaction on db under the context's limits; the caller
// commits or rolls back.
func Begin(ctx context.Context, db TxBeginner) (pgx.Tx, error) {
	return db.BeginTx(ctx, txOptions(ctx, pgx.TxOptions{}))
}

// IsTimeout reports whether err is a wait that ran out: a lock_timeout
// (55P03), a statement_timeout or a cancelled statement (57014), or a
// deadline of the context that ran the query.
func IsTimeout(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "55P03" || pgErr.Code == "57014"
	}
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}
