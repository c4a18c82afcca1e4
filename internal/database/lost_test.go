package database_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

func TestConnectionLostClassifies(t *testing.T) {
	for _, tc := range []struct {
		err  error
		lost bool
	}{
		{nil, false},
		{context.Canceled, false},
		{fmt.Errorf("load: %w", context.DeadlineExceeded), false},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "57P03"}, true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique violation: the statement's own failure
		{&pgconn.PgError{Code: "57014"}, false}, // query_canceled
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("x: %w", pgconn.ErrConnClosed), true},
		{errors.New("no rows"), false},
		{pgx.ErrNoRows, false},
	} {
		require.Equal(t, tc.lost, database.ConnectionLost(tc.err), "%v", tc.err)
	}
}

// The real thing: a session ended by the server is reported as lost.
func TestConnectionLostOnTerminatedSession(t *testing.T) {
	pool := testdb.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Settle)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	var pid int
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid))
	_, err = pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `SELECT 1`)
	require.Error(t, err)
	require.True(t, database.ConnectionLost(err), "%v", err)
	_, err = conn.Exec(ctx, `SELECT 1`)
	require.True(t, database.ConnectionLost(err), "a second use of the dead connection: %v", err)
}

// TestRetryTransientWaitsForAConnectionSlot: a server whose connection
// slots are all taken answers a new connection with 53300
// (too_many_connections); RetryTransient waits for a slot rather than
// failing (a crowded server during a burst is a passing state, not a fault).
func TestRetryTransientWaitsForAConnectionSlot(t *testing.T) {
	pool := testdb.New(t)
	ctx := t.Context()
	role := fmt.Sprintf("slots_%d", time.Now().UnixNano())
	admin, err := pgx.Connect(ctx, testdb.ServerURL(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(context.WithoutCancel(ctx)) })
	_, err = admin.Exec(ctx, `CREATE ROLE `+role+` LOGIN CONNECTION LIMIT 1`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.Exec(context.WithoutCancel(ctx), `DROP ROLE IF EXISTS `+role) })
	cfg := pool.Config().ConnConfig.Copy()
	cfg.User = role
	held, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)

	_, err = pgx.ConnectConfig(ctx, cfg)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "53300", pgErr.Code)

	connected := make(chan error, 1)
	var refused atomic.Int32
	go func() {
		connected <- database.RetryTransient(ctx, nil, "connect", func(ctx context.Context) error {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				if errors.As(err, new(*pgconn.PgError)) {
					refused.Add(1)
				}
				return err
			}
			return c.Close(ctx)
		})
	}()
	require.Eventually(t, func() bool { return refused.Load() >= 1 }, testutil.Settle, 10*time.Millisecond, "a refused attempt")
	require.NoError(t, held.Close(ctx))
	require.NoError(t, <-connected)
	require.GreaterOrEqual(t, refused.Load(), int32(1))
}
