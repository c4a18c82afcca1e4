package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport/transporttest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveWorkerBinary()
	os.Exit(code)
}

// seed creates orgs with the given zones, all scheduled at 08:00 local, and
// returns a pool on the test database.
func seed(t *testing.T, url string, zones ...string) *pgxpool.Pool {
	t.Helper()
	db, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	for i, zone := range zones {
		_, err := db.Exec(t.Context(), `
			WITH o AS (INSERT INTO orgs (slug, name) VALUES ($1, $1) RETURNING id)
			INSERT INTO org_module_configs (org_id, module, config_json)
			SELECT id, 'fieldforce', jsonb_build_object('briefing', jsonb_build_object('timezone', $2::text, 'schedule_local_time', '08:00')) FROM o`,
			fmt.Sprintf("org-%d", i), zone)
		require.NoError(t, err)
	}
	return db
}

func workerCmd(t testing.TB, ctx context.Context, url string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, testutil.WorkerBinary(t), args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+url)
	return cmd
}

// killedMidSend is what a worker killed mid-send leaves: orgs due today and
// on no other day (a worker's own ticks on the real clock fire nothing
// more, even past midnight), sent however late in the day (send_within
// 24h: docs/guarantees.md, "Late briefings"), by email to
// dispatch@<slug>.test and, when hook is set, by webhook to hook/<slug>; a
// -once worker at concurrency was killed (SIGKILL) while every task slot
// held an email the SMTP server had not answered. The server accepts again;
// nothing held was accepted.
type killedMidSend struct {
	url  string
	db   *pgxpool.Pool
	sink *transporttest.SMTPServer
	env  []string // what every worker of the test runs with
	now  time.Time
}

func killMidSend(t *testing.T, ctx context.Context, orgs, concurrency int, hook string) killedMidSend {
	t.Helper()
	k := killedMidSend{url: testdb.URL(t), now: time.Now().UTC()}
	var err error
	k.db, err = pgxpool.New(ctx, k.url)
	require.NoError(t, err)
	t.Cleanup(k.db.Close)
	k.sink = transporttest.NewSMTPServer(t)
	k.sink.Hold()
	_, err = k.db.Exec(ctx, `
		WITH o AS (INSERT INTO orgs (slug, name) SELECT 'org-' || g, 'Org ' || g FROM generate_series(1, $1::int) g RETURNING id, slug)
		INSERT INTO org_module_configs (org_id, module, config_json)
		SELECT id, 'fieldforce', jsonb_build_object(
		         'briefing', jsonb_build_object('timezone', 'Etc/UTC', 'schedule_local_time', '00:00', 'days', jsonb_build_array($2::text)),
		         'delivery', jsonb_strip_nulls(jsonb_build_object(
		                       'email', jsonb_build_object('to', jsonb_build_array('dispatch@' || slug || '.test')),
		                       'webhook', CASE WHEN $3::text <> '' THEN jsonb_build_object('url', $3::text || '/' || slug) END,
		                       'send_within', '24h')))
		  FROM o`, orgs, strings.ToLower(k.now.Weekday().String()[:3]), hook)
	require.NoError(t, err)
	k.env = []string{"SMTP_URL=" + k.sink.URL, "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true"}

	first := workerCmd(t, ctx, k.url, "-once", "-now", k.now.Format(time.RFC3339), "-concurrency", strconv.Itoa(concurrency))
	first.Env = append(first.Env, k.env...)
	first.Stdout = t.Output()
	require.NoError(t, first.Start())
	require.Eventually(t, func() bool { return k.sink.Attempts() >= concurrency }, testutil.Settle, 20*time.Millisecond)
	require.NoError(t, first.Process.Kill())
	_ = first.Wait() // killed: its exit status says so
	k.sink.Release() // the killed worker's connections are gone: nothing held is accepted
	require.Empty(t, k.sink.Messages())
	return k
}

func TestOnce(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	// At 12:30Z, 08:00 has passed in New York (EDT) and London, not in Los Angeles.
	db := seed(t, url, "America/New_York", "Europe/London", "America/Los_Angeles", "Asia/Kolkata")

	start := time.Now()
	out, err := workerCmd(t, t.Context(), url, "-once", "-now", "2026-03-09T12:30:00Z").CombinedOutput()
	require.NoError(t, err, string(out))
	t.Logf("-once -now wall time: %v", time.Since(start)) // measured, not asserted

	require.Equal(t, []string{
		"org-0 2026-03-09 ready 12:30",
		"org-1 2026-03-09 ready 12:30",
		"org-3 2026-03-09 ready 12:30",
	}, briefingRows(t, db))
	require.Contains(t, string(out), `"msg":"briefing tick"`)
}

// briefingRows lists "slug date status HH:MM" (fired_at in UTC) by slug.
func briefingRows(t *testing.T, db *pgxpool.Pool) []string {
	t.Helper()
	rows, err := db.Query(t.Context(), `
		SELECT o.slug, b.briefing_date, b.status, b.fired_at
		  FROM ff_briefings b JOIN orgs o ON o.id = b.org_id ORDER BY o.slug, b.briefing_date`)
	require.NoError(t, err)
	var got []string
	for rows.Next() {
		var slug, status string
		var date, firedAt time.Time
		require.NoError(t, rows.Scan(&slug, &date, &status, &firedAt))
		got = append(got, fmt.Sprintf("%s %s %s %s", slug, date.Format(time.DateOnly), status, firedAt.UTC().Format("15:04")))
	}
	require.NoError(t, rows.Err())
	return got
}

// TestOnceRunsJobsLeftBehind: a "generate now" request (or a retry, or a
// stopped worker's job) waiting in the queue is run by -once even when its
// tick has nothing to enqueue.
func TestOnceRunsJobsLeftBehind(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	db := seed(t, url, "Asia/Kolkata")
	var orgID int64
	require.NoError(t, db.QueryRow(t.Context(), `SELECT id FROM orgs WHERE slug = 'org-0'`).Scan(&orgID))
	// 02:00Z is 07:30 in Kolkata: before the 08:00 schedule, so only the manual request exists.
	requested := time.Date(2026, 3, 9, 2, 0, 0, 0, time.UTC)
	store, err := briefing.NewStore(db)
	require.NoError(t, err)
	_, err = store.GenerateNow(t.Context(), orgID, requested, audit.Actor{Email: "admin@example.com"})
	require.NoError(t, err)
	require.Equal(t, []string{"org-0 2026-03-09 pending 02:00"}, briefingRows(t, db))

	out, err := workerCmd(t, t.Context(), url, "-once", "-now", "2026-03-09T02:01:00Z").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), `"enqueued":0`)
	require.Equal(t, []string{"org-0 2026-03-09 ready 02:00"}, briefingRows(t, db))
}

// TestOnceReplicas runs three replicas at the same instant: one briefing per
// due org, every one generated, every replica exiting 0.
func TestOnceReplicas(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	zones := []string{"Etc/UTC", "Europe/Berlin", "America/New_York", "America/Chicago", "Pacific/Apia", "America/Sao_Paulo"}
	var all []string
	for range 5 {
		all = append(all, zones...)
	}
	db := seed(t, url, all...)

	var wg sync.WaitGroup
	outs := make([][]byte, 3)
	errs := make([]error, 3)
	for i := range 3 {
		wg.Go(func() {
			outs[i], errs[i] = workerCmd(t, t.Context(), url, "-once", "-now", "2026-03-09T20:00:00Z", "-concurrency", "2").CombinedOutput()
		})
	}
	wg.Wait()
	for i := range 3 {
		require.NoError(t, errs[i], string(outs[i]))
	}
	var briefings, ready, orgs int
	require.NoError(t, db.QueryRow(t.Context(), `
		SELECT count(*), count(*) FILTER (WHERE status = 'ready'), count(DISTINCT org_id) FROM ff_briefings`).
		Scan(&briefings, &ready, &orgs))
	// At 20:00Z, 08:00 has passed on the local date of now in every one of these zones.
	require.Equal(t, len(all), briefings)
	require.Equal(t, len(all), ready)
	require.Equal(t, len(all), orgs)
}

// TestBadFlags: a command-line mistake is a usage error (exit 2) with the
// usage on stderr, found before any database is opened.
func TestBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-now", "2026-03-09T20:00:00Z"}, {"-once", "-now", "tomorrow"}, {"-concurrency", "0"},
		{"-no-such-flag"}, {"-concurrency", "four"}, {"-once", "extra"}, {"-once", "-wait", "-1s"},
		{"-job-retention", "0s"}, {"-workers", "0"}, {"-workers", "65"}, {"-workers", "-3"},
	} {
		var stdout, stderr strings.Builder
		err := run(t.Context(), args, func(string) string { return "postgres://invalid" }, &stdout, &stderr)
		require.ErrorAs(t, err, new(*usageError), args)
		require.Contains(t, stderr.String(), "Usage: worker", args)
		require.Contains(t, stderr.String(), "-shutdown-timeout", args)
		require.Empty(t, stdout.String(), args)
	}
}

// TestExitCodes runs the binary: 2 for a command-line mistake, 0 for -h, 1
// when the database cannot be reached.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	unreachable := "postgres://postgres@127.0.0.1:1/fieldbrief?sslmode=disable&connect_timeout=5"
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-concurrency", "0"}, 2},
		{[]string{"-no-such-flag"}, 2},
		{[]string{"-h"}, 0},
		{[]string{"-once"}, 1},
	} {
		out, err := workerCmd(t, t.Context(), unreachable, tc.args...).CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err, tc.args)
		}
		require.Equal(t, tc.code, code, "%v: %s", tc.args, out)
		if tc.code != 1 {
			require.Contains(t, string(out), "Usage: worker", tc.args)
		}
	}
}

// TestServeShutdown starts the long-running worker and stops it with SIGTERM.
func TestServeShutdown(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	cmd := workerCmd(t, t.Context(), url, "-metrics-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	var metricsAddr string
	for lines.Scan() && !strings.Contains(lines.Text(), `"msg":"worker started"`) {
		var entry struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &entry) == nil && entry.Msg == "metrics listening" {
			metricsAddr = entry.Addr
		}
	}
	require.NotEmpty(t, metricsAddr)
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(body), "fieldbrief_briefing_enqueued_total")
	require.Contains(t, string(body), "fieldbrief_briefing_tick_duration_seconds")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
	}
	require.NoError(t, cmd.Wait())
	require.Contains(t, rest.String(), `"msg":"worker stopped"`)
	require.Contains(t, rest.String(), `"msg":"River client stopped"`)
	require.Contains(t, rest.String(), `"grace":"30s"`)
}

// TestOnceWaitsOnlyWithinWait: a generation failing again and again makes
// -once wait for the retries due within -wait, then exit 0 naming what is
// still pending in its last line.
func TestOnceWaitsOnlyWithinWait(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	db := seed(t, url, "Etc/UTC")
	// The revision the scheduled run will produce exists already: every attempt fails.
	_, err := db.Exec(t.Context(), `
		WITH b AS (INSERT INTO ff_briefings (org_id, briefing_date, timezone, trigger, status, revision, requested_revision)
		           SELECT id, '2026-03-09', 'Etc/UTC', 'manual', 'ready', 0, 0 FROM orgs RETURNING id, org_id)
		INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at)
		SELECT org_id, id, 1, 'manual', '{}', now() FROM b`)
	require.NoError(t, err)

	out, err := workerCmd(t, t.Context(), url, "-once", "-now", "2026-03-09T09:00:00Z", "-wait", "5s").CombinedOutput()
	require.NoError(t, err, string(out))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var last struct {
		Msg     string
		Pending map[string]int
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last), lines[len(lines)-1])
	require.Equal(t, "worker -once done", last.Msg)
	require.Equal(t, map[string]int{"generate_briefing/retryable": 1}, last.Pending)
	var runs int
	require.NoError(t, db.QueryRow(t.Context(), `SELECT count(*) FROM ff_briefing_runs WHERE outcome = 'retry'`).Scan(&runs))
	require.Equal(t, 2, runs, "attempt 1 and its retry a second later; the third is ~16 s away, beyond -wait")
}

// TestWorkersFlag: -workers (or its older name -concurrency) sets the jobs
// run at once and sizes the pool; WORKERS gives the default; a value out of
// 1..64 or not a number is a usage error naming the limits.
func TestWorkersFlag(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", nil, `"workers":16,"pool_max_conns":21`},
		{"3", nil, `"workers":3,"pool_max_conns":8`},
		{"3", []string{"-workers", "5"}, `"workers":5,"pool_max_conns":10`},
		{"", []string{"-concurrency", "2"}, `"workers":2,"pool_max_conns":7`},
	} {
		cmd := workerCmd(t, t.Context(), url, append([]string{"-once", "-now", "2026-03-09T12:30:00Z"}, tc.args...)...)
		cmd.Env = append(cmd.Env, "WORKERS="+tc.env)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), tc.want, "WORKERS=%s %v", tc.env, tc.args)
	}
	for _, env := range []string{"abc", "0", "65"} {
		var stdout, stderr strings.Builder
		err := run(t.Context(), nil, func(k string) string { return map[string]string{"WORKERS": env}[k] }, &stdout, &stderr)
		require.ErrorAs(t, err, new(*usageError), env)
		require.Contains(t, err.Error(), "WORKERS", env)
		require.Contains(t, stderr.String(), "-workers", env)
	}
}

// TestPoolSize: the pool holds every job's connection plus the tick's and
// River's own, unless DATABASE_URL sets pool_max_conns.
func TestPoolSize(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	concurrency := runtime.NumCPU() + 4 // more than pgxpool's default gives
	for _, tc := range []struct {
		url  string
		want int32
	}{
		{url, int32(concurrency) + 5},
		{url + "&pool_max_conns=2", 2},
	} {
		pool, err := database.Connect(t.Context(), tc.url, poolSize(concurrency))
		require.NoError(t, err, tc.url)
		require.Equal(t, tc.want, pool.Config().MaxConns, tc.url)
		pool.Close()
	}
}

// TestKilledDuringDelivery: a worker killed without a graceful stop while
// its emails are in flight (the SMTP server stalls them); once a fresh
// worker runs, every delivery is sent and each recipient has exactly one
// message.
func TestKilledDuringDelivery(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hookIDs := map[string]map[string]bool{} // path → webhook-ids received
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if hookIDs[r.URL.Path] == nil {
			hookIDs[r.URL.Path] = map[string]bool{}
		}
		hookIDs[r.URL.Path][r.Header.Get("webhook-id")] = true
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	const orgs, concurrency = 6, 4
	k := killMidSend(t, t.Context(), orgs, concurrency, hook.URL)
	url, db, env := k.url, k.db, k.env

	// The passage of time, simulated: River's rescuer takes back a job still
	// running only rescueStuckJobsAfter (75 s) after it was attempted, and
	// the rescuer runs on the leader, whose dead term lasts 15 s more.
	tag, err := db.Exec(t.Context(), `UPDATE river_job SET attempted_at = now() - interval '1 hour' WHERE state = 'running'`)
	require.NoError(t, err)
	require.GreaterOrEqual(t, tag.RowsAffected(), int64(concurrency), "jobs in flight when killed")
	_, err = db.Exec(t.Context(), `DELETE FROM river_leader`)
	require.NoError(t, err)

	fresh := workerCmd(t, t.Context(), url, "-concurrency", strconv.Itoa(concurrency))
	fresh.Env = append(fresh.Env, env...)
	fresh.Stdout = t.Output()
	require.NoError(t, fresh.Start())
	states := func() string {
		var s string
		require.NoError(t, db.QueryRow(t.Context(), `
			SELECT coalesce(string_agg(state || ' ' || n, ', ' ORDER BY state), '')
			  FROM (SELECT state, count(*) n FROM ff_deliveries GROUP BY state) s`).Scan(&s))
		return s
	}
	want := fmt.Sprintf("sent %d", 2*orgs)
	require.Eventually(t, func() bool { return states() == want }, testutil.Settle, 100*time.Millisecond, "deliveries: %s", states())
	require.NoError(t, fresh.Process.Signal(syscall.SIGTERM))
	require.NoError(t, fresh.Wait())

	k.sink.RequireOneEach(t, orgs)
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i <= orgs; i++ {
		// A webhook answered as the worker died is sent again: at least
		// once, always with the same webhook-id.
		require.Len(t, hookIDs[fmt.Sprintf("/org-%d", i)], 1, i)
	}
	require.Len(t, hookIDs, orgs)
}

// onceLastLine is the last log line of a -once run.
type onceLastLine struct {
	Level    string
	Msg      string
	AllDone  bool `json:"all_done"`
	Pending  map[string]int
	Enqueued int
	Waiting  []struct {
		ID       int64  `json:"id"`
		Kind     string `json:"kind"`
		State    string `json:"state"`
		WaitsFor string `json:"waits_for"`
		Until    time.Time
	}
}

func lastLine(t *testing.T, out []byte) onceLastLine {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var last onceLastLine
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last), lines[len(lines)-1])
	return last
}

// TestOnceAfterKill: a -once killed (SIGKILL) while its emails are in
// flight leaves their jobs running. The next -once with a -wait shorter than
// their rescue does not call its run clean: its last line is a warning
// naming each job as waiting for River's rescue. Once the rescue is due
// (time simulated in SQL, as in TestKilledDuringDelivery), a -once works
// them and everything is sent, each message once.
func TestOnceAfterKill(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const orgs, concurrency = 3, 2
	k := killMidSend(t, ctx, orgs, concurrency, "")
	url, db, env, now := k.url, k.db, k.env, k.now
	// This test is about River's rescue: the killed worker's heartbeat is
	// made to look fresh, so no lifeline takes its tasks back first
	// (TestKilledWorkerRescuedByLifeline covers that).
	_, err := db.Exec(ctx, `UPDATE ff_worker_heartbeats SET seen_at = now() + interval '1 hour'`)
	require.NoError(t, err)

	// Rescue is a minute or two away: not waited for, and not clean.
	second := workerCmd(t, ctx, url, "-once", "-now", now.Format(time.RFC3339), "-wait", "5s")
	second.Env = append(second.Env, env...)
	out, err := second.CombinedOutput()
	require.NoError(t, err, string(out))
	last := lastLine(t, out)
	require.Equal(t, "worker -once done", last.Msg)
	require.Equal(t, "WARN", last.Level)
	require.False(t, last.AllDone)
	require.Equal(t, concurrency, last.Pending["send_briefing_email/running"], "%+v", last.Pending)
	rescues := 0
	for _, j := range last.Waiting {
		if j.State == "running" {
			require.Equal(t, "rescue", j.WaitsFor)
			require.True(t, j.Until.After(time.Now()), "its rescue is still ahead")
			rescues++
		}
	}
	require.Equal(t, concurrency, rescues)

	// The passage of time, simulated: the rescue is due, and the killed
	// worker's leadership (if it was the leader) is over.
	tag, err := db.Exec(ctx, `UPDATE river_job SET attempted_at = now() - interval '1 hour' WHERE state = 'running'`)
	require.NoError(t, err)
	require.Equal(t, int64(concurrency), tag.RowsAffected())
	_, err = db.Exec(ctx, `DELETE FROM river_leader`)
	require.NoError(t, err)

	// Its -wait is a bound for a slow machine, not the time it takes: the
	// rescued jobs are due now, and -once ends when they are done.
	third := workerCmd(t, ctx, url, "-once", "-now", now.Format(time.RFC3339), "-wait", testutil.Settle.String())
	third.Env = append(third.Env, env...)
	out, err = third.CombinedOutput()
	require.NoError(t, err, string(out))
	last = lastLine(t, out)
	require.Equal(t, "INFO", last.Level, string(out))
	require.True(t, last.AllDone)
	require.Empty(t, last.Pending)
	k.sink.RequireOneEach(t, orgs)
}
