package database

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true}, // admin_shutdown: pg_terminate_backend
		{&pgconn.PgError{Code: "57P02"}, true},
		{&pgconn.PgError{Code: "57P03"}, true}, // cannot_connect_now: starting up
		{&pgconn.PgError{Code: "53300"}, true}, // too_many_connections
		{&pgconn.PgError{Code: "08006"}, true},
		{fmt.Errorf("tick: %w", &pgconn.PgError{Code: "08000"}), true},
		{io.EOF, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{&pgconn.ConnectError{}, true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique_violation: the statement, not the connection
		{&pgconn.PgError{Code: "40001"}, false},
		{&pgconn.PgError{Code: "57014"}, false}, // query_canceled
		{context.Canceled, false},
		{errors.New("boom"), false},
	} {
		require.Equal(t, tc.want, Transient(tc.err), "%v", tc.err)
	}
}
