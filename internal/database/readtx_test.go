package database_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
)

// A request's read transaction: begun at the first read, read only, one
// snapshot for every read, only for its own pool, unusable once ended.
func TestReadTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	other, err := pgxpool.New(ctx, pool.Config().ConnString())
	require.NoError(t, err)
	defer other.Close()

	require.Same(t, pool, database.Reader(ctx, pool), "without a read transaction: the pool")
	rctx, rt := database.WithReadTx(ctx, pool, 0)
	require.Same(t, other, database.Reader(rctx, other), "another pool's reads are not in it")
	q := database.Reader(rctx, pool)
	require.False(t, rt.Begun(), "nothing read yet, nothing begun")

	var first, second int64
	require.NoError(t, q.QueryRow(rctx, `SELECT txid_current_if_assigned() IS NULL, pg_backend_pid()`).Scan(new(bool), &first))
	require.True(t, rt.Begun())
	require.NoError(t, q.QueryRow(rctx, `SELECT pg_backend_pid()`).Scan(&second))
	require.Equal(t, first, second, "one connection for every read")
	var iso, ro string
	require.NoError(t, q.QueryRow(rctx, `SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')`).Scan(&iso, &ro))
	require.Equal(t, "repeatable read", iso)
	require.Equal(t, "on", ro)
	_, err = q.Exec(rctx, `CREATE TABLE written (id int)`)
	require.ErrorContains(t, err, "read-only transaction")

	rt.End(rctx)
	require.Error(t, q.QueryRow(rctx, `SELECT 1`).Scan(new(int)), "ended: no new transaction behind the caller's back")
	require.Equal(t, int32(0), pool.Stat().AcquiredConns(), "the connection went back to the pool")
}

// A read transaction waits the wait it was given for a pooled connection,
// then says ErrBusy and the wait. A request whose deadline comes first
// (here with zero, AcquireWait's 2 s) is over, not busy.
func TestReadTxWaitsItsWait(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(testdb.URL(t))
	require.NoError(t, err)
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer pool.Close()
	held, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer held.Release()

	rctx, rt := database.WithReadTx(ctx, pool, 150*time.Millisecond)
	defer rt.End(rctx)
	err = database.Reader(rctx, pool).QueryRow(rctx, `SELECT 1`).Scan(new(int))
	require.ErrorIs(t, err, database.ErrBusy)
	require.ErrorContains(t, err, "within 150ms")

	rctx2, rt2 := database.WithReadTx(ctx, pool, 0)
	defer rt2.End(rctx2)
	short, cancelShort := context.WithTimeout(rctx2, 50*time.Millisecond) // the request's deadline ends it first
	defer cancelShort()
	err = database.Reader(short, pool).QueryRow(short, `SELECT 1`).Scan(new(int))
	require.Error(t, err)
	require.NotErrorIs(t, err, database.ErrBusy, "a request that ends while waiting is not busy: it is over")
}
