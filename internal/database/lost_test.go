package database_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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
