package main

import (
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

// TestWorkerNeverReadsTheReplicaURL: the tick must see what it just fired,
// so the worker runs (a whole -once tick) with DATABASE_REPLICA_URL set to
// a replica that does not exist, and never asks for it (docs/scaling.md,
// step 3: only cmd/web serve reads it).
func TestWorkerNeverReadsTheReplicaURL(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"DATABASE_URL":         testdb.URL(t),
		"DATABASE_REPLICA_URL": "postgres://nobody@127.0.0.1:1/no_replica?sslmode=disable&connect_timeout=1",
	}
	var mu sync.Mutex
	asked := map[string]bool{}
	getenv := func(k string) string {
		mu.Lock()
		defer mu.Unlock()
		asked[k] = true
		return env[k]
	}
	err := run(t.Context(), []string{"-once", "-now", "2026-03-09T12:30:00Z"}, getenv, io.Discard, io.Discard)
	require.NoError(t, err)
	require.True(t, asked["DATABASE_URL"], "the recorder saw the worker's environment")
	require.False(t, asked["DATABASE_REPLICA_URL"], "the worker read DATABASE_REPLICA_URL")
}
