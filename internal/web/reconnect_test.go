package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
)

// killConnections ends every other session on the fixture's database, as a
// failover, a PostgreSQL restart or an idle-connection reaper would: the
// pool's connections all go bad at once while the server stays up.
func (f *fixture) killConnections() int {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Settle)
	defer cancel()
	conn, err := pgx.Connect(ctx, f.db.Config().ConnConfig.ConnString())
	require.NoError(f.t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(f.t, conn.QueryRow(ctx, `
		SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n))
	return n
}

// warmPool holds n connections at once and gives them back, so the pool
// has n idle connections for killConnections to break.
func (f *fixture) warmPool(n int) {
	f.t.Helper()
	ctx := context.Background()
	var held []interface{ Release() }
	for range n {
		c, err := f.db.Acquire(ctx)
		require.NoError(f.t, err)
		held = append(held, c)
	}
	for _, c := range held {
		c.Release()
	}
}

// The first request after the database connections were killed
// got a 500. An idempotent read is retried once on a fresh connection, and
// /readyz says the database is there when it is.
func TestReadsSurviveKilledConnections(t *testing.T) {
	f := setup(t)
	admin := f.as(&f.adminA)
	require.Equal(t, http.StatusOK, admin.get("/orgs/acme/briefings").Code)

	for round := range 3 {
		f.warmPool(4)
		require.Positive(t, f.killConnections(), "round %d: no session was ended", round)
		r := admin.get("/orgs/acme/briefings")
		require.Equal(t, http.StatusOK, r.Code, "round %d: a read right after the kill: %s", round, r.Body)

		f.warmPool(4)
		f.killConnections()
		r = f.anon().get("/readyz")
		require.Equal(t, http.StatusOK, r.Code, "round %d: /readyz right after the kill: %s", round, r.Body)
	}
}

// /readyz answers 503 while the database is really gone.
func TestReadyzSaysWhenTheDatabaseIsGone(t *testing.T) {
	f := setup(t)
	f.db.Close()
	r := f.anon().get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, r.Code)
}
