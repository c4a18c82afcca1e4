package worker

import (
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/auth"
	"fieldbrief/internal/transport/transporttest"
)

// TestLifelineStalledWorkerSendsOnce: a worker alive but silent (its
// heartbeats stopped while its emails wait on the SMTP server) is taken for
// dead; its tasks are given back and a second worker runs them while the
// first still sends. The second waits on the delivery rows' locks and finds
// them sent: one email per recipient, one revision per briefing
// (docs/worker.md, "Crashes and shutdown").
func TestLifelineStalledWorkerSendsOnce(t *testing.T) {
	const orgs = 2
	f, sink, stalled, stalledDone := sendsOnTheirWay(t, orgs)
	now := sendsAt

	// Its heartbeats stop and lapse; the process and its sends go on.
	stalled.stopLifeline()
	<-stalled.lifelineDone
	tag, err := f.DB.Exec(f.Ctx, `UPDATE ff_worker_heartbeats SET seen_at = now() - interval '1 hour' WHERE client_id = $1`, stalled.clientID)
	require.NoError(t, err)
	require.Equal(t, int64(1), tag.RowsAffected())

	second := f.deliveringWorker(sink.URL, nil)
	second.clientID = "second"
	longStreak(t, f, "second")
	conn, err := pgx.ConnectConfig(f.Ctx, f.DB.Config().ConnConfig.Copy())
	require.NoError(t, err)
	defer conn.Close(f.Ctx)
	require.NoError(t, second.reapDead(f.Ctx, conn))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'send_briefing_email' AND state = 'available'
	                                   AND errors[cardinality(errors)]->>'error' = $1`, lifelineError+stalled.clientID))
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE client_id = $1`, stalled.clientID))

	// The second run takes them while the first still holds the rows.
	secondDone := make(chan error, 1)
	go func() { _, err := second.RunOnce(f.Ctx, now, time.Minute); secondDone <- err }()
	require.Eventually(t, func() bool {
		return f.Count(`SELECT count(*) FROM river_job WHERE kind = 'send_briefing_email' AND state = 'running'
		                  AND attempted_by[cardinality(attempted_by)] = 'second'`) == orgs
	}, settle, 10*time.Millisecond)
	sink.Release()
	require.NoError(t, <-stalledDone)
	require.NoError(t, <-secondDone)

	sink.RequireOneEach(t, orgs)
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_briefing_revisions`))
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job WHERE state NOT IN ('completed')`))
}

// TestLifelineGivesBackOnlyTheDeadOnes: the lifeline takes back the running
// tasks whose last attempt is a silent process's, as River's rescuer would
// (the attempt counted: discarded on the last one, cancelled when asked),
// and leaves a live process's alone, even one a dead process attempted
// before.
func TestLifelineGivesBackOnlyTheDeadOnes(t *testing.T) {
	f := setup(t)
	_, err := f.DB.Exec(f.Ctx, `INSERT INTO ff_worker_heartbeats (client_id, seen_at, streak_since) VALUES
		('dead', now() - interval '1 minute', now() - interval '2 minutes'), ('alive', now(), now()),
		('looker', now(), now() - interval '1 minute')`)
	require.NoError(t, err)
	running := func(attemptedBy []string, attempt int, metadata string) int64 {
		id := f.insertTask(auth.PruneArgs{}).Job.ID
		_, err := f.DB.Exec(f.Ctx, `UPDATE river_job SET state = 'running', attempted_at = now(), attempted_by = $2,
		                                   scheduled_at = now() - interval '2 hours',
		                                   attempt = $3, max_attempts = 3, metadata = $4::jsonb WHERE id = $1`,
			id, attemptedBy, attempt, metadata)
		require.NoError(t, err)
		return id
	}
	retried := running([]string{"dead"}, 1, `{}`)
	last := running([]string{"dead"}, 3, `{}`)
	cancelled := running([]string{"dead"}, 1, `{"cancel_attempted_at": "2026-11-26T10:00:00Z"}`)
	live := running([]string{"dead", "alive"}, 2, `{}`)

	w := &Worker{DB: f.DB, Log: slog.New(slog.DiscardHandler), clientID: "looker", Metrics: NewMetrics()}
	conn, err := pgx.ConnectConfig(f.Ctx, f.DB.Config().ConnConfig.Copy())
	require.NoError(t, err)
	defer conn.Close(f.Ctx)
	require.NoError(t, w.reapDead(f.Ctx, conn))

	state := func(id int64) string {
		var s string
		require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT state || ' ' || attempt || ' ' || coalesce(errors[cardinality(errors)]->>'error', '-')
		                                           FROM river_job WHERE id = $1`, id).Scan(&s))
		return s
	}
	require.Equal(t, "available 1 "+lifelineError+"dead", state(retried))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE id = $1 AND scheduled_at < now() - interval '1 hour'`, retried),
		"a task given back keeps its place in the queue")
	require.Equal(t, "discarded 3 "+lifelineError+"dead", state(last))
	require.Equal(t, "cancelled 1 "+lifelineError+"dead", state(cancelled))
	require.Equal(t, "running 2 -", state(live))
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM ff_worker_heartbeats`))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE client_id = 'alive'`))
	require.Contains(t, scrape(t, w.Metrics), `fieldbrief_tasks_rescued_total{kind="prune_auth",state="available"} 1`)

	// A second look finds nobody dead and changes nothing.
	require.NoError(t, w.reapDead(f.Ctx, conn))
	require.Equal(t, "available 1 "+lifelineError+"dead", state(retried))
}

// longStreak gives client a heartbeat row that has beaten without a break
// for an hour: a process that may take others for dead.
func longStreak(t *testing.T, f *fixture, client string) {
	t.Helper()
	_, err := f.DB.Exec(f.Ctx, `INSERT INTO ff_worker_heartbeats (client_id, seen_at, streak_since) VALUES ($1, now(), now() - interval '1 hour')
		ON CONFLICT (client_id) DO UPDATE SET seen_at = now(), streak_since = now() - interval '1 hour'`, client)
	require.NoError(t, err)
}

// TestLifelineAfterAnOutageTakesNobodyForDead: the database was away for
// longer than lifelineSilence (a restart, a failover), so every process's
// heartbeats lapsed together, and the outage ended the transactions — and
// the delivery row locks — of a live worker whose emails are still on
// their way to the SMTP server. The first process back must not give that
// worker's tasks to a second run, which would find the rows pending and
// unlocked and send again: a process reaps only after an unbroken run of
// its own heartbeats (docs/worker.md, "Crashes and shutdown").
func TestLifelineAfterAnOutageTakesNobodyForDead(t *testing.T) {
	const orgs = 2
	f, sink, first, firstDone := sendsOnTheirWay(t, orgs)
	now := sendsAt

	// The outage: the sends' transactions end, every heartbeat is old.
	first.stopLifeline()
	<-first.lifelineDone
	_, err := f.DB.Exec(f.Ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	   WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `INSERT INTO ff_worker_heartbeats (client_id, seen_at, streak_since)
		VALUES ('second', now() - interval '11 seconds', now() - interval '1 hour')`)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_worker_heartbeats SET seen_at = now() - interval '11 seconds'`)
	require.NoError(t, err)

	// The second process is back first: its heartbeat starts a new run, and
	// its look gives nothing back.
	second := f.deliveringWorker(sink.URL, nil)
	second.clientID = "second"
	conn, err := pgx.ConnectConfig(f.Ctx, f.DB.Config().ConnConfig.Copy())
	require.NoError(t, err)
	defer conn.Close(f.Ctx)
	require.NoError(t, second.heartbeat(f.Ctx, conn))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE client_id = 'second' AND streak_since > now() - interval '1 minute'`))
	require.NoError(t, second.reapDead(f.Ctx, conn))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE client_id = $1`, first.clientID))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'send_briefing_email' AND state = 'running'
	                                   AND attempted_by[cardinality(attempted_by)] = $1`, first.clientID))

	secondDone := make(chan error, 1)
	go func() { _, err := second.RunOnce(f.Ctx, now, 5*time.Second); secondDone <- err }()
	sink.Release()
	require.NoError(t, <-firstDone)
	<-secondDone
	sink.RequireOneEach(t, orgs)
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`))
}

// TestHeartbeatStreak: a heartbeat within streakGap of the previous one
// continues the run; a later one starts it again.
func TestHeartbeatStreak(t *testing.T) {
	f := setup(t)
	w := &Worker{DB: f.DB, Log: slog.New(slog.DiscardHandler), clientID: "beater", Metrics: NewMetrics()}
	require.NoError(t, w.heartbeat(f.Ctx, f.DB))
	_, err := f.DB.Exec(f.Ctx, `UPDATE ff_worker_heartbeats SET streak_since = now() - interval '1 minute', seen_at = now() - interval '2 seconds'`)
	require.NoError(t, err)
	require.NoError(t, w.heartbeat(f.Ctx, f.DB))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE streak_since < now() - interval '50 seconds'`), "run continued")
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_worker_heartbeats SET seen_at = now() - make_interval(secs => $1)`, streakGap.Seconds()+1)
	require.NoError(t, err)
	require.NoError(t, w.heartbeat(f.Ctx, f.DB))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE streak_since > now() - interval '1 second'`), "run started again")
	conn, err := pgx.ConnectConfig(f.Ctx, f.DB.Config().ConnConfig.Copy())
	require.NoError(t, err)
	defer conn.Close(f.Ctx)
	var may bool
	require.NoError(t, conn.QueryRow(f.Ctx, mayReapSQL, "beater", reapAfterStreak.Seconds()).Scan(&may))
	require.False(t, may)
	require.NoError(t, conn.QueryRow(f.Ctx, mayReapSQL, "nobody", reapAfterStreak.Seconds()).Scan(&may))
	require.False(t, may)
}

// sendsAt is when sendsOnTheirWay's orgs fire.
var sendsAt = utc("2026-03-10T07:00:00Z")

// sendsOnTheirWay sets up orgs orgs due at sendsAt, one dispatcher each,
// and a worker running them (RunOnce) whose emails have reached the SMTP
// server, which holds them: the worker is mid-send, holding the delivery
// rows' locks. done gets RunOnce's error.
func sendsOnTheirWay(t *testing.T, orgs int) (f *fixture, sink *transporttest.SMTPServer, w *Worker, done chan error) {
	t.Helper()
	f = setup(t)
	sink = transporttest.NewSMTPServer(t)
	sink.Hold()
	for i := range orgs {
		f.Org("org-"+strconv.Itoa(i), deliveryConfig("Etc/UTC", "07:00", []string{"dispatch-" + strconv.Itoa(i) + "@acme.test"}, false, ""))
	}
	w = f.deliveringWorker(sink.URL, nil)
	w.Concurrency = orgs
	done = make(chan error, 1)
	go func() { _, err := w.RunOnce(f.Ctx, sendsAt, time.Minute); done <- err }()
	require.Eventually(t, func() bool { return sink.Attempts() >= orgs }, settle, 10*time.Millisecond)
	return f, sink, w, done
}

// TestGivenBackGenerationsSendsKeepItsPlace: a generation given back by the
// lifeline runs again (attempt 2) with its old scheduled_at; the emails it
// queues take that place at the head of the queue, not the back behind the
// rest of the burst. A first attempt's emails keep River's own order.
func TestGivenBackGenerationsSendsKeepItsPlace(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	given := f.Org("given-back", deliveryConfig("Etc/UTC", "07:00", []string{"a@acme.test", "b@acme.test"}, false, ""))
	first := f.Org("first-try", deliveryConfig("Etc/UTC", "07:00", []string{"c@acme.test"}, false, ""))
	require.Equal(t, 2, f.tick(sendsAt).Enqueued)

	// The generation of "given-back" was running on a worker that died: the
	// lifeline made it available again, its attempt counted, its place kept.
	var place time.Time
	require.NoError(t, f.DB.QueryRow(f.Ctx, `
		UPDATE river_job SET attempt = 1, attempted_at = now() - interval '20 seconds', attempted_by = '{dead}',
		       scheduled_at = now() - interval '1 hour',
		       errors = ARRAY[jsonb_build_object('at', now(), 'attempt', 1, 'error', $2::text || 'dead', 'trace', '')]
		 WHERE kind = 'generate_briefing' AND (args->>'org_id')::bigint = $1
		RETURNING scheduled_at`, given, lifelineError).Scan(&place))

	f.runOnceWith(f.deliveringWorker(sink.URL, nil), sendsAt)
	require.Len(t, sink.Messages(), 3)

	sends := func(org int64) []time.Time {
		rows, err := f.DB.Query(f.Ctx, `SELECT scheduled_at FROM river_job
			WHERE kind = 'send_briefing_email' AND (args->>'org_id')::bigint = $1`, org)
		require.NoError(t, err)
		at, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
		require.NoError(t, err)
		return at
	}
	givenSends := sends(given)
	require.Len(t, givenSends, 2)
	for _, at := range givenSends {
		require.True(t, at.Equal(place), "the given-back generation's emails take its place %v, not %v", place, at)
	}
	firstSends := sends(first)
	require.Len(t, firstSends, 1)
	require.True(t, firstSends[0].After(place.Add(30*time.Minute)), "a first attempt's emails are queued as River queues them: %v", firstSends[0])
}
