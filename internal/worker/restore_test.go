package worker

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/auth"
	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/tick"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

// laterRetries puts a failed task an hour away, so a delivery that met a
// temporary SMTP failure is still waiting in River's queue when the backup
// is taken (the restore drill moves it forward, as the hour passing would).
type laterRetries struct{}

func (laterRetries) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(time.Hour) }

// fakeClock is the workers' clock in the drill; the test moves it.
type fakeClock struct{ t atomic.Pointer[time.Time] }

func (c *fakeClock) set(t time.Time)  { c.t.Store(&t) }
func (c *fakeClock) now() time.Time   { return *c.t.Load() }
func newClock(t time.Time) *fakeClock { c := &fakeClock{}; c.set(t); return c }

// pgTool finds a PostgreSQL client program (pg_dump, pg_restore) that can
// handle the server: its own major version preferred, else the newest newer
// one (pg_dump refuses a server newer than itself). Missing tools fail the
// test, not skip it: scripts/need-postgres.sh installs the server package,
// which ships them, and a machine without them must not look as if the
// drill passed.
func pgTool(t *testing.T, ctx context.Context, db *pgxpool.Pool, name string) string {
	t.Helper()
	var num int
	require.NoError(t, db.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&num))
	major := num / 10000
	candidates := []string{fmt.Sprintf("/usr/lib/postgresql/%d/bin/%s", major, name)}
	for v := 30; v > major; v-- {
		candidates = append(candidates, fmt.Sprintf("/usr/lib/postgresql/%d/bin/%s", v, name))
	}
	if p, err := exec.LookPath(name); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		out, err := exec.CommandContext(ctx, c, "--version").Output()
		if err != nil {
			continue
		}
		var v int
		fields := strings.Fields(string(out)) // "pg_dump (PostgreSQL) 15.20 (Debian …)"
		if len(fields) >= 3 {
			_, _ = fmt.Sscanf(fields[2], "%d", &v)
		}
		if v >= major {
			return c
		}
	}
	t.Fatalf("restore drill: no %s for PostgreSQL %d or newer (looked at %s and $PATH); install the server package "+
		"(scripts/need-postgres.sh installs it) or postgresql-client-%d", name, major, candidates[0], major)
	return ""
}

// run runs a program and fails the test with its output if it fails.
func run(t *testing.T, ctx context.Context, name string, args ...string) {
	t.Helper()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
}

// newDatabase creates an empty database on the test server, dropped at
// cleanup, and returns its URL: the machine the backup is restored onto.
func newDatabase(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	server := testdb.ServerURL(t)
	admin, err := pgx.Connect(ctx, server)
	require.NoError(t, err)
	defer admin.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	_, _ = admin.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`)
	_, err = admin.Exec(ctx, `CREATE DATABASE `+ident)
	require.NoError(t, err)
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), server)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`)
	})
	u, err := url.Parse(server)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

// sentTo is how many messages the sink accepted for to, and their distinct
// Message-IDs.
func sentTo(t *testing.T, sink *transporttest.SMTPServer, to string) (n int, ids map[string]int) {
	t.Helper()
	ids = map[string]int{}
	for _, m := range sink.Messages() {
		if strings.Join(m.To, ",") != to {
			continue
		}
		parsed, err := m.Parse()
		require.NoError(t, err)
		n++
		ids[parsed.Header.Get("Message-Id")]++
	}
	return n, ids
}

// deliveryOf is the state/attempts of the org's email deliveries on db, one
// per briefing date: "2026-03-10 sent/1".
func deliveryOf(t *testing.T, ctx context.Context, db *pgxpool.Pool, org int64) []string {
	t.Helper()
	rows, err := db.Query(ctx, `
		SELECT b.briefing_date::text || ' ' || d.state || '/' || d.attempts
		  FROM ff_deliveries d JOIN ff_briefings b ON b.id = d.briefing_id AND b.org_id = d.org_id
		 WHERE d.org_id = $1 ORDER BY b.briefing_date, d.id`, org)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// TestRestoreDrill is docs/operations.md's backup-and-restore drill: a
// pg_dump of the live database (worker running) is restored into a new
// database, the old worker dies, a worker starts on the restored one and
// time runs through the next firings. Nothing the backup records as done is
// done again; everything it records as pending is done exactly once; the
// schedule goes on. What happened after the dump is not in the backup: such
// an email is sent again, with the same Message-ID (the at-least-once
// boundary docs/operations.md states).
func TestRestoreDrill(t *testing.T) {
	f := setup(t)
	ctx := f.Ctx
	pgDump := pgTool(t, ctx, f.DB, "pg_dump")
	pgRestore := pgTool(t, ctx, f.DB, "pg_restore")
	sink := transporttest.NewSMTPServer(t)
	log := slog.New(slog.DiscardHandler)

	day1, day2 := "2026-03-10", "2026-03-11"
	at := func(d, hm string) time.Time { return utc(d + "T" + hm + ":00Z") }
	type org struct {
		id       int64
		slug, to string
		hm       string
	}
	orgs := []*org{{slug: "alpha", hm: "07:00"}, {slug: "bravo", hm: "08:00"}, {slug: "delta", hm: "08:30"}, {slug: "charlie", hm: "09:00"}}
	for _, o := range orgs {
		o.to = "dispatch@" + o.slug + ".test"
		o.id = f.Org(o.slug, deliveryConfig("Etc/UTC", o.hm, []string{o.to}, false, ""))
		for _, d := range []string{day1, day2} {
			f.Job(o.id, 0, o.slug+" customer "+d, at(d, "13:00"), at(d, "15:00"), "scheduled")
		}
	}
	alpha, bravo, delta, charlie := orgs[0], orgs[1], orgs[2], orgs[3]

	clock := newClock(at(day1, "06:59")) // before any firing: the worker's own tick fires nothing ahead of ours
	start := func(db *pgxpool.Pool, retries river.ClientRetryPolicy) *Worker {
		mailer, err := transport.NewMailer(sink.URL, db)
		require.NoError(t, err)
		w := &Worker{DB: db, Log: log, Now: clock.now, RetryPolicy: retries,
			Sender: &delivery.Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: "https://app.fieldbrief.test"}}
		require.NoError(t, w.Start(ctx))
		return w
	}
	// fires moves the clock to now, ticks, and checks that the tick fired
	// want briefings: counted as rows, since the worker's own tick (every
	// real minute, at the same clock) may fire them instead of ours.
	fires := func(db *pgxpool.Pool, now time.Time, want int) {
		t.Helper()
		var before int
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM ff_briefings`).Scan(&before))
		clock.set(now)
		_, err := (&tick.Ticker{DB: db, Log: log}).Tick(ctx, now)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			var n int
			require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM ff_briefings`).Scan(&n))
			return n == before+want
		}, settle, 20*time.Millisecond, "at %v: want %d briefings fired", now, want)
	}
	waitDeliveries := func(db *pgxpool.Pool, o *org, want ...string) {
		t.Helper()
		require.Eventually(t, func() bool { return strings.Join(deliveryOf(t, ctx, db, o.id), ",") == strings.Join(want, ",") },
			settle, 50*time.Millisecond, "%s: %v, want %v", o.slug, deliveryOf(t, ctx, db, o.id), want)
	}

	// Before the backup: alpha's briefing is generated and emailed; bravo's
	// email meets a temporary failure and waits in River's queue for its
	// retry an hour later.
	old := start(f.DB, laterRetries{})
	oldStopped := false
	t.Cleanup(func() {
		if !oldStopped {
			_ = old.Stop(context.WithoutCancel(ctx))
		}
	})
	fires(f.DB, at(day1, "07:00"), 1)
	waitDeliveries(f.DB, alpha, day1+" sent/1")
	sink.Script(451)
	fires(f.DB, at(day1, "08:00"), 1)
	waitDeliveries(f.DB, bravo, day1+" pending/1")
	require.Eventually(t, func() bool {
		return f.Count(`SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'retryable'`, delivery.SendBriefingEmailArgs{}.Kind()) == 1
	}, settle, 50*time.Millisecond)
	// delta's email is in flight: the SMTP server holds its RCPT TO.
	sink.Hold()
	attempts := sink.Attempts()
	fires(f.DB, at(day1, "08:30"), 1)
	require.Eventually(t, func() bool { return sink.Attempts() > attempts }, settle, 50*time.Millisecond)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'running'`, delivery.SendBriefingEmailArgs{}.Kind()))

	// The backup, taken while the worker runs: pg_dump reads one snapshot
	// (a repeatable-read transaction), so the archive is consistent
	// whatever the worker commits meanwhile.
	dump := filepath.Join(t.TempDir(), "fieldbrief.dump")
	began := time.Now()
	// river_leader's row names the live worker's River client: process
	// state, not data. Restored, it would make the new worker wait out a
	// dead leader's term (up to River's 15 s TTL) before its scheduler and
	// rescuer run; so the runbook leaves its rows out.
	run(t, ctx, pgDump, "--format=custom", "--exclude-table-data=river_leader", "--file="+dump, "--dbname="+f.DB.Config().ConnString())
	t.Logf("pg_dump: %v", time.Since(began).Round(time.Millisecond))

	// After the backup, the held email goes through: delta's first-day
	// email is sent, but the backup has it in flight.
	sink.Release()
	waitDeliveries(f.DB, delta, day1+" sent/1")

	// Later, before the machine dies: charlie's briefing is
	// generated and emailed. None of it is in the backup.
	fires(f.DB, at(day1, "09:00"), 1)
	waitDeliveries(f.DB, charlie, day1+" sent/1")
	_, charlieBefore := sentTo(t, sink, charlie.to)

	// The machine dies: its worker stops for good, its database is gone
	// to us. (Stopped, not killed: a task left running would be rescued by
	// River after rescueStuckJobsAfter, which internal/chaos covers.)
	require.NoError(t, old.Stop(context.WithoutCancel(ctx)))
	oldStopped = true

	// Restore into a new database, as the runbook says: create it, restore
	// the archive (no owners: the new server's role runs everything),
	// then check the schema is current (what `web migrate` does).
	began = time.Now()
	restoredURL := newDatabase(t, ctx, fmt.Sprintf("fb_restore_%d", time.Now().UnixNano()))
	run(t, ctx, pgRestore, "--no-owner", "--exit-on-error", "--dbname="+restoredURL, dump)
	t.Logf("create + pg_restore: %v", time.Since(began).Round(time.Millisecond))
	restored, err := pgxpool.New(ctx, restoredURL)
	require.NoError(t, err)
	t.Cleanup(restored.Close)
	require.NoError(t, database.Migrate(ctx, restored, log))
	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, restored.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}

	// The backup's picture: alpha done, bravo waiting, charlie never fired.
	require.Equal(t, []string{day1 + " sent/1"}, deliveryOf(t, ctx, restored, alpha.id))
	require.Equal(t, []string{day1 + " pending/1"}, deliveryOf(t, ctx, restored, bravo.id))
	require.Zero(t, count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1`, charlie.id))
	require.Equal(t, []string{day1 + " pending/0"}, deliveryOf(t, ctx, restored, delta.id))
	require.Equal(t, 1, count(`SELECT count(*) FROM river_job WHERE state = 'retryable'`))
	require.Equal(t, 1, count(`SELECT count(*) FROM river_job WHERE state = 'running'`))

	// An hour passes for River (its queue runs on the database's clock,
	// not the test's): the retry falls due.
	_, err = restored.Exec(ctx, `UPDATE river_job SET scheduled_at = now() WHERE state = 'retryable'`)
	require.NoError(t, err)
	// The task the dead worker was running is taken back by River's
	// rescuer once its attempt is older than rescueStuckJobsAfter. A real
	// backup is that old by the time it is restored; this one is seconds
	// old, so its attempt is dated back instead of waiting 75 s.
	_, err = restored.Exec(ctx, `UPDATE river_job SET attempted_at = now() - $1::interval WHERE state = 'running'`,
		(rescueStuckJobsAfter + time.Minute).String())
	require.NoError(t, err)

	// A worker on the restored database, at 09:00 of the first day.
	// Its clock starts at 08:59, where everything due is in the backup, so
	// its own minute tick fires nothing before ours at 09:00; there charlie
	// fires again (its firing is not in the backup), alpha, bravo and
	// delta do not (theirs are).
	clock.set(at(day1, "08:59"))
	workerStarted := time.Now()
	w := start(restored, quickRetries{})
	t.Cleanup(func() { _ = w.Stop(context.WithoutCancel(ctx)) })
	fires(restored, at(day1, "09:00"), 1)
	require.Equal(t, 1, count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1`, charlie.id))
	waitDeliveries(restored, bravo, day1+" sent/2")
	waitDeliveries(restored, charlie, day1+" sent/1")
	require.Eventually(t, func() bool {
		return strings.Join(deliveryOf(t, ctx, restored, delta.id), ",") == day1+" sent/1"
	}, settle, 100*time.Millisecond, "delta: %v", deliveryOf(t, ctx, restored, delta.id))
	t.Logf("in-flight task rescued and sent %v after the worker started", time.Since(workerStarted).Round(time.Millisecond))
	fires(restored, at(day1, "09:05"), 0)

	// The next day fires once per org.
	for _, o := range orgs {
		fires(restored, at(day2, o.hm), 1)
		fires(restored, at(day2, o.hm).Add(time.Minute), 0)
	}
	for _, o := range orgs {
		want := []string{day1 + " sent/1", day2 + " sent/1"}
		if o == bravo {
			want[0] = day1 + " sent/2"
		}
		waitDeliveries(restored, o, want...)
	}
	// Let anything that might send twice do so before counting.
	time.Sleep(500 * time.Millisecond)

	// One briefing per (org, date), one revision each.
	for _, o := range orgs {
		rows, err := restored.Query(ctx, `
			SELECT b.briefing_date::text || ' ' || count(r.*)
			  FROM ff_briefings b LEFT JOIN ff_briefing_revisions r ON r.briefing_id = b.id AND r.org_id = b.org_id
			 WHERE b.org_id = $1 GROUP BY b.briefing_date ORDER BY b.briefing_date`, o.id)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		require.Equal(t, []string{day1 + " 1", day2 + " 1"}, got, o.slug)
	}

	// The emails. alpha's first-day email, sent before the backup, is not
	// sent again; bravo's, pending in the backup, is sent once; each org's
	// second-day email once.
	n, ids := sentTo(t, sink, alpha.to)
	require.Equal(t, 2, n, "alpha: %v", ids)
	require.Len(t, ids, 2)
	n, ids = sentTo(t, sink, bravo.to)
	require.Equal(t, 2, n, "bravo: %v", ids)
	require.Len(t, ids, 2)
	// charlie's first-day email was sent after the backup: the restored
	// database does not know it, so it is sent again. That is the
	// boundary: exactly once for what the backup holds, at least once for
	// what happened after it. Here the repeat carries the same Message-ID:
	// the delivery's key hashes the briefing's id, revision and recipient,
	// and the restored sequence hands charlie's briefing the same id again
	// because it is the only firing after the backup. With several firings
	// after the backup the ids may be drawn in another order, and then the
	// repeat's Message-ID differs (docs/operations.md says so).
	n, ids = sentTo(t, sink, charlie.to)
	require.Equal(t, 3, n, "charlie: %v", ids)
	require.Len(t, ids, 2, "charlie: the resent first-day email has the Message-ID of the first: %v", ids)
	for id := range charlieBefore {
		require.Equal(t, 2, ids[id], "charlie's first-day Message-ID %s, sent before the crash and again after the restore", id)
	}
	// delta's first-day email was in flight at the backup and sent just
	// after it: the restored task sends it again, from the delivery row the
	// backup holds, so with the first copy's Message-ID.
	n, ids = sentTo(t, sink, delta.to)
	require.Equal(t, 3, n, "delta: %v", ids)
	require.Len(t, ids, 2, "delta: the resent first-day email has the Message-ID of the first: %v", ids)
	var key string
	require.NoError(t, restored.QueryRow(ctx, `
		SELECT d.key FROM ff_deliveries d JOIN ff_briefings b ON b.id = d.briefing_id AND b.org_id = d.org_id
		 WHERE d.org_id = $1 AND b.briefing_date = $2`, charlie.id, day1).Scan(&key))
	want, err := transport.MessageIDFor(key, "briefings@fieldbrief.test")
	require.NoError(t, err)
	require.Contains(t, charlieBefore, "<"+want+">")

	// River's queue is empty of work: nothing left behind, nothing failed.
	require.Zero(t, count(`SELECT count(*) FROM river_job WHERE state <> 'completed' AND kind <> $1`, auth.PruneArgs{}.Kind()),
		"%v", strings.Join(func() []string {
			rows, _ := restored.Query(ctx, `SELECT kind || ' ' || state FROM river_job WHERE state <> 'completed'`)
			out, _ := pgx.CollectRows(rows, pgx.RowTo[string])
			return out
		}(), ", "))
	_ = os.Remove(dump)
}
