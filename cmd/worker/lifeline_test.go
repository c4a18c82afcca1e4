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

// TestSIGTERMLetsSendsInFlightFinish: a serving worker told to stop while
// its emails are in flight lets them finish within its grace period (30 s)
// and exits 0; every task completes and every email is accepted once.
// River stops hard when the context its client started with ends, and the
// worker's SIGTERM had ended it: the sends were cancelled at once, their
// tasks left for a retry, whatever the grace (docs/worker.md, "Crashes and
// shutdown").
func TestSIGTERMLetsSendsInFlightFinish(t *testing.T) {
	t.Parallel()
	const orgs, concurrency = 3, 3
	k := killMidSend(t, t.Context(), orgs, concurrency, "")

	// A fresh worker takes the killed one's sends back (its lifeline) and
	// is held in them by the SMTP server when the SIGTERM comes.
	k.sink.Hold()
	held := k.sink.Attempts()
	fresh := workerCmd(t, t.Context(), k.url)
	fresh.Env = append(fresh.Env, k.env...)
	fresh.Stdout = t.Output()
	require.NoError(t, fresh.Start())
	require.Eventually(t, func() bool { return k.sink.Attempts() >= held+orgs }, testutil.Settle, 20*time.Millisecond,
		"the fresh worker's sends reach the server")
	require.NoError(t, fresh.Process.Signal(syscall.SIGTERM))
	time.Sleep(time.Second) // the stop has begun; the sends are still held
	k.sink.Release()
	require.NoError(t, fresh.Wait(), "a clean stop within the grace period")

	var states []string
	require.NoError(t, k.db.QueryRow(t.Context(), `
		SELECT array_agg(state::text ORDER BY id) FROM river_job WHERE kind = 'send_briefing_email'`).Scan(&states))
	require.Equal(t, []string{"completed", "completed", "completed"}, states, "no send cancelled by the stop")
	k.sink.RequireOneEach(t, orgs)
}
