package database

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrBusy says a connection could not be had from the pool within the
// wait a request allows (WEB_POOL_WAIT, default AcquireWait): the web answers 503 with
// Retry-After rather than let requests queue for connections without end
// (docs/web.md, "Web under load").
var ErrBusy = errors.New("no database connection free")

// AcquireWait is the default bound on how long a request waits for a
// pooled connection (WEB_POOL_WAIT sets another). The web admits no more
// requests at once than the pool has connections, so a request waits only
// when something else holds them (the worker's own pool is separate), or
// while a new connection is made.
const AcquireWait = 2 * time.Second

// Acquire takes a connection from the pool, waiting at most wait (zero:
// AcquireWait) and no longer than ctx allows. Running out of wait is
// ErrBusy; the caller releases the connection.
func Acquire(ctx context.Context, pool *pgxpool.Pool, wait time.Duration) (*pgxpool.Conn, error) {
	wait = cmp.Or(wait, AcquireWait)
	actx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	conn, err := pool.Acquire(actx)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w within %s", ErrBusy, wait)
	}
	return conn, err
}

type readTxKey struct{}

// ReadTx is one request's read-only transaction: every store read of a
// page (the stores find it with Reader) runs in it, so a page costs one
// transaction for its data, however many queries it makes, and reads one
// consistent snapshot (REPEATABLE READ). It begins on the first query, so
// a request that reads nothing costs nothing, and holds one connection
// from then until End. Not for concurrent use: a request's handler reads
// one query at a time.
type ReadTx struct {
	pool *pgxpool.Pool // the stores' pool: Reader matches on it
	wait time.Duration
	// from, when set, is a read replica of pool to read from instead;
	// failed is told when no transaction could begin there (the read
	// then falls back to pool).
	from   *pgxpool.Pool
	failed func(error)

	mu   sync.Mutex
	conn *pgxpool.Conn
	tx   pgx.Tx
	err  error
}

// WithReadTx returns a context whose store reads on pool share one
// read-only transaction, begun on a connection that came within wait
// (zero: AcquireWait); the caller ends it with End.
func WithReadTx(ctx context.Context, pool *pgxpool.Pool, wait time.Duration) (context.Context, *ReadTx) {
	rt := &ReadTx{pool: pool, wait: wait}
	return context.WithValue(ctx, readTxKey{}, rt), rt
}

// WithReplicaReadTx is WithReadTx reading from replica, a streaming
// replica of pool, instead: store reads on pool (Reader) run there. When
// the transaction cannot begin on the replica, failed is told and it
// begins on pool, so a replica that went down since its last check costs
// a page nothing but the failed attempt.
func WithReplicaReadTx(ctx context.Context, pool, replica *pgxpool.Pool, wait time.Duration, failed func(error)) (context.Context, *ReadTx) {
	rt := &ReadTx{pool: pool, wait: wait, from: replica, failed: failed}
	return context.WithValue(ctx, readTxKey{}, rt), rt
}

// Reader is what a store's read method queries: the request's read-only
// transaction when ctx carries one on this pool, the pool otherwise
// (writes, workers, tests). Store methods that write never use it.
func Reader(ctx context.Context, pool *pgxpool.Pool) Querier {
	if rt, ok := ctx.Value(readTxKey{}).(*ReadTx); ok && rt.pool == pool {
		return rt
	}
	return pool
}

// begin starts the transaction on first use; a failure sticks, so every
// later query of the request reports it.
func (rt *ReadTx) begin(ctx context.Context) (pgx.Tx, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.tx != nil || rt.err != nil {
		return rt.tx, rt.err
	}
	if rt.from != nil {
		bctx, cancel := context.WithTimeout(ctx, replicaBeginTimeout)
		conn, tx, err := beginReadOnly(bctx, rt.from, rt.wait)
		cancel()
		if err == nil {
			rt.conn, rt.tx = conn, tx
			return tx, nil
		}
		if ctx.Err() != nil {
			rt.err = fmt.Errorf("read transaction on the replica: %w", err)
			return nil, rt.err
		}
		if rt.failed != nil {
			rt.failed(err)
		}
	}
	conn, tx, err := beginReadOnly(ctx, rt.pool, rt.wait)
	if err != nil {
		rt.err = err
		return nil, err
	}
	rt.conn, rt.tx = conn, tx
	return tx, nil
}

// beginReadOnly takes a connection from pool and begins the read-only
// snapshot transaction on it.
func beginReadOnly(ctx context.Context, pool *pgxpool.Pool, wait time.Duration) (*pgxpool.Conn, pgx.Tx, error) {
	conn, err := Acquire(ctx, pool, wait)
	if err != nil {
		return nil, nil, fmt.Errorf("read transaction: %w", err)
	}
	tx, err := conn.BeginTx(ctx, txOptions(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}))
	if err != nil {
		conn.Release()
		return nil, nil, fmt.Errorf("begin read transaction: %w", err)
	}
	return conn, tx, nil
}

// End finishes the transaction, if one began, and returns its connection.
// It runs even when the client went away: a read-only transaction ended
// cleanly leaves its connection usable, where a cancelled one is closed.
func (rt *ReadTx) End(ctx context.Context) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.tx == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = rt.tx.Rollback(ctx) // read only: nothing to commit; a failure closes the connection
	rt.conn.Release()
	rt.tx, rt.conn = nil, nil
	rt.err = errors.New("read transaction ended")
}

// Exec runs sql in the transaction.
func (rt *ReadTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tx, err := rt.begin(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return tx.Exec(ctx, sql, args...)
}

// Query runs sql in the transaction.
func (rt *ReadTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	tx, err := rt.begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Query(ctx, sql, args...)
}

// QueryRow runs sql in the transaction.
func (rt *ReadTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	tx, err := rt.begin(ctx)
	if err != nil {
		return errRow{err}
	}
	return tx.QueryRow(ctx, sql, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
