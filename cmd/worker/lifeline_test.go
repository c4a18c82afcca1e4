package main

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
)

// TestKilledWorkerRescuedByLifeline: a worker killed (SIGKILL) while its
// emails are in flight leaves their tasks running under its client ID. A
// fresh serving worker's lifeline finds the killed one silent and gives the
// tasks back at once — not River's rescuer, which would not take them before
// rescueStuckJobsAfter (75 s) and leaves its own error — and every briefing
// is ready once and every email sent once (docs/worker.md, "Crashes
// and shutdown"). No time is simulated.
func TestKilledWorkerRescuedByLifeline(t *testing.T) {
	t.Parallel()
	const orgs, concurrency = 4, 3
	k := killMidSend(t, t.Context(), orgs, concurrency, "")
	url, db, env := k.url, k.db, k.env

	// Its running tasks are in its name, and it had registered that name.
	var killed []string
	require.NoError(t, db.QueryRow(t.Context(), `
		SELECT coalesce(array_agg(DISTINCT attempted_by[cardinality(attempted_by)]), '{}')
		  FROM river_job WHERE state = 'running'`).Scan(&killed))
	require.Len(t, killed, 1, "one killed process")
	var registered bool
	require.NoError(t, db.QueryRow(t.Context(), `SELECT EXISTS (SELECT FROM ff_worker_heartbeats WHERE client_id = $1)`, killed[0]).Scan(&registered))
	require.True(t, registered)
	var running []int64
	require.NoError(t, db.QueryRow(t.Context(), `SELECT array_agg(id ORDER BY id) FROM river_job WHERE state = 'running'`).Scan(&running))
	require.GreaterOrEqual(t, len(running), concurrency)

	fresh := workerCmd(t, t.Context(), url)
	fresh.Env = append(fresh.Env, env...)
	fresh.Stdout = t.Output()
	require.NoError(t, fresh.Start())
	sent := func() int {
		var n int
		require.NoError(t, db.QueryRow(t.Context(), `SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`).Scan(&n))
		return n
	}
	require.Eventually(t, func() bool { return sent() == orgs }, testutil.Settle, 100*time.Millisecond, "sent: %d", sent())
	require.NoError(t, fresh.Process.Signal(syscall.SIGTERM))
	require.NoError(t, fresh.Wait())

	// The lifeline gave each task back (its error names the killed worker),
	// River's rescuer none; the killed worker's row is gone, and the fresh
	// one removed its own on SIGTERM.
	for _, id := range running {
		var errs []string
		var state string
		require.NoError(t, db.QueryRow(t.Context(), `
			SELECT state, coalesce(array_agg(e->>'error') FILTER (WHERE e IS NOT NULL), '{}')
			  FROM river_job LEFT JOIN LATERAL unnest(errors) e ON true WHERE id = $1 GROUP BY state`, id).Scan(&state, &errs))
		require.Equal(t, "completed", state, "task %d", id)
		require.Equal(t, []string{"task rescued by the lifeline: no heartbeat from worker " + killed[0]}, errs, "task %d", id)
	}
	var rows int
	require.NoError(t, db.QueryRow(t.Context(), `SELECT count(*) FROM ff_worker_heartbeats`).Scan(&rows))
	require.Zero(t, rows)

	// Exactly once: one revision per briefing, one email per recipient.
	var briefings, ready, revisions int
	require.NoError(t, db.QueryRow(t.Context(), `
		SELECT count(*), count(*) FILTER (WHERE status = 'ready'), (SELECT count(*) FROM ff_briefing_revisions) FROM ff_briefings`).
		Scan(&briefings, &ready, &revisions))
	require.Equal(t, []int{orgs, orgs, orgs}, []int{briefings, ready, revisions})
	k.sink.RequireOneEach(t, orgs)
}
