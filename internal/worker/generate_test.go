package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/history"
	"fieldbrief/internal/schedule"
)

var admin = audit.Actor{Email: "admin@example.com"}

// runOutcomes lists a briefing's runs as "revision/attempt/outcome", oldest first.
func (f *fixture) runOutcomes(orgID, briefingID int64) []string {
	f.T.Helper()
	runs, err := f.store.Runs(f.Ctx, orgID, briefingID)
	require.NoError(f.T, err)
	var out []string
	for _, r := range runs {
		out = append(out, jsonString(f.T, []any{r.Revision, r.Attempt, r.Trigger, r.Outcome}))
	}
	return out
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// revisionList lists a briefing's revisions, newest first, as "revision trigger".
func (f *fixture) revisionList(orgID, briefingID int64) []string {
	f.T.Helper()
	revs, err := f.store.Revisions(f.Ctx, orgID, briefingID)
	require.NoError(f.T, err)
	var out []string
	for _, r := range revs {
		out = append(out, jsonString(f.T, []any{r.Revision, r.Trigger}))
	}
	return out
}

func TestWorkerGenerates(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Europe/Paris", "07:00"))
	now := utc("2026-03-10T06:00:00Z")
	res := f.runOnce(now)
	require.Equal(t, 1, res.Tick.Enqueued)
	require.Empty(t, res.Pending)

	b, err := f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, briefing.StatusReady, b.Status)
	require.Equal(t, 1, b.Revision)
	require.True(t, b.GeneratedAt.Equal(now))
	require.True(t, b.ScheduledAt.Equal(now))
	require.Equal(t, "Europe/Paris", b.Content.Timezone)
	require.Equal(t, []string{`[1,1,"schedule","completed"]`}, f.runOutcomes(org, b.ID))
	require.Equal(t, []string{`[1,"schedule"]`}, f.revisionList(org, b.ID))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing' AND state = 'completed'`))
}

// TestGenerationIdempotent: the same revision's job running twice (River's
// rescuer may run a job again whose worker only looked dead) produces one
// revision; the second run records that it skipped.
func TestGenerationIdempotent(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "23:00"))
	now := utc("2026-03-10T06:00:00Z")
	id := f.Briefing(org, "2026-03-10", "Etc/UTC", true, now)
	args := briefing.GenerateBriefingArgs{OrgID: org, BriefingID: id, Revision: 1, Trigger: briefing.TriggerSchedule, Deliver: true}
	for range 2 {
		f.insertTask(args)
	}
	f.runOnce(now) // 23:00 is hours away: the tick adds nothing

	require.Equal(t, []string{`[1,"schedule"]`}, f.revisionList(org, id))
	outcomes := f.runOutcomes(org, id)
	require.ElementsMatch(t, []string{`[1,1,"schedule","completed"]`, `[1,1,"schedule","skipped"]`}, outcomes)
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM river_job WHERE state = 'completed'`))
}

// TestGenerationRetriesThenFails: a failing generation is retried with
// River's backoff and, after its last attempt, marks the briefing failed
// with the error; "generate now" then produces it.
func TestGenerationRetriesThenFails(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "00:00"))
	now := utc("2026-03-10T06:00:00Z")
	res, err := f.ticker().Tick(f.Ctx, now)
	require.NoError(t, err)
	id := res.BriefingIDs[0]
	// A zone that no longer loads makes every attempt fail.
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_briefings SET timezone = 'Nowhere/Atlantis' WHERE id = $1`, id)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `UPDATE river_job SET max_attempts = 2`)
	require.NoError(t, err)

	// Attempt 1 fails; River schedules its retry on the real clock, a second
	// later, which this -once may pick up too (it works every available job).
	f.runOnce(now)
	var state string
	var attempt int
	var retryAt time.Time
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT state, attempt, scheduled_at FROM river_job WHERE kind = 'generate_briefing'`).
		Scan(&state, &attempt, &retryAt))
	require.True(t, retryAt.After(time.Now().Add(-time.Minute)), "retries on the real clock, not the tick's")
	if attempt == 1 {
		require.Contains(t, []string{"retryable", "available"}, state, "River's scheduler makes a due retry available")
		b, err := f.store.Get(f.Ctx, org, date("2026-03-10"))
		require.NoError(t, err)
		require.Equal(t, briefing.StatusPending, b.Status)
		require.Contains(t, b.LastError, "Atlantis")
		_, err = f.DB.Exec(f.Ctx, `UPDATE river_job SET state = 'available', scheduled_at = now()`)
		require.NoError(t, err)
		f.runOnce(now) // attempt 2 of 2: discarded
	}
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE state = 'discarded'`))
	b, err := f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, briefing.StatusFailed, b.Status)
	require.Contains(t, b.LastError, "Atlantis")
	require.Nil(t, b.Content)
	require.Equal(t, []string{`[1,1,"schedule","retry"]`, `[1,2,"schedule","failed"]`}, f.runOutcomes(org, id))

	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_briefings SET timezone = 'Etc/UTC' WHERE id = $1`, id)
	require.NoError(t, err)
	_, err = f.store.GenerateNow(f.Ctx, org, now.Add(time.Hour), admin)
	require.NoError(t, err)
	f.runOnce(now.Add(time.Hour))
	b, err = f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, briefing.StatusReady, b.Status)
	require.Empty(t, b.LastError)
	require.Equal(t, []string{`[2,"manual"]`}, f.revisionList(org, id))
}

// TestGenerateNowThenScheduled: "generate now" at 06:00 is a look; the
// scheduled 08:00 run still fires, once, and produces revision 2.
func TestGenerateNowThenScheduled(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "08:00"))
	at := func(hhmm string) time.Time { return utc("2026-03-10T" + hhmm + ":00Z") }

	b, err := f.store.GenerateNow(f.Ctx, org, at("06:00"), admin)
	require.NoError(t, err)
	require.True(t, b.ScheduledAt.IsZero())
	require.Zero(t, f.runOnce(at("06:00")).Tick.Enqueued)
	b, err = f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, briefing.StatusReady, b.Status)
	require.Equal(t, 1, b.Revision)

	// Pressing again refreshes: a new revision, no conflict.
	_, err = f.store.GenerateNow(f.Ctx, org, at("06:30"), admin)
	require.NoError(t, err)
	f.runOnce(at("06:30"))

	tk := f.ticker()
	tickEvery := func(from, to time.Time) (enqueued int) {
		for now := from; !now.After(to); now = now.Add(time.Minute) {
			res, err := tk.Tick(f.Ctx, now)
			require.NoError(t, err)
			enqueued += res.Enqueued
		}
		return enqueued
	}
	require.Zero(t, tickEvery(at("07:00"), at("07:59")))
	require.Equal(t, 1, tickEvery(at("08:00"), at("09:00")))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE (args->>'deliver')::bool`))
	f.runOnce(at("09:00"))
	b, err = f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, briefing.StatusReady, b.Status)
	require.Equal(t, 3, b.Revision)
	require.True(t, b.ScheduledAt.Equal(at("08:00")))
	require.True(t, b.FiredAt.Equal(at("06:00")), "fired_at records when the row was created")
	require.Equal(t, []string{`[3,"schedule"]`, `[2,"manual"]`, `[1,"manual"]`}, f.revisionList(org, b.ID))

	// A look after the scheduled run is another revision, never a second firing.
	_, err = f.store.GenerateNow(f.Ctx, org, at("10:00"), admin)
	require.NoError(t, err)
	require.Zero(t, f.runOnce(at("10:00")).Tick.Enqueued)
	require.Equal(t, []string{`[4,"manual"]`, `[3,"schedule"]`, `[2,"manual"]`, `[1,"manual"]`}, f.revisionList(org, b.ID))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE (args->>'deliver')::bool`))
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.generate' AND old_value IS NOT NULL`, org))
}

// TestRunOnceRealClock: a -once at an instant far from the real clock
// decides with that instant but schedules nothing at it.
func TestRunOnceRealClock(t *testing.T) {
	f := setup(t)
	f.Org("future", config("Etc/UTC", "08:00"))
	f.Org("past", config("Asia/Tokyo", "08:00"))
	for _, now := range []time.Time{utc("2031-01-07T12:00:00Z"), utc("2019-06-03T12:00:00Z")} {
		// The history months of a clock outside every test database's
		// (docs/testing.md, "History partitions in tests").
		_, err := history.EnsureMonths(f.Ctx, f.DB, now, now)
		require.NoError(t, err)
		res := f.runOnce(now)
		require.Equal(t, 2, res.Tick.Enqueued, now)
		require.Empty(t, res.Pending, now)
	}
	require.Equal(t, 4, f.Count(`SELECT count(*) FROM river_job WHERE state = 'completed'`))
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job
		WHERE scheduled_at NOT BETWEEN now() - interval '10 minutes' AND now() + interval '1 minute'`))
	require.Equal(t, 4, f.Count(`SELECT count(*) FROM ff_briefings WHERE status = 'ready'`))
}

// TestRunOnceReportsPending: a job whose retry is further away than -wait is
// not waited for; the result says what is pending. A job left behind (a
// "generate now" no worker ran) is worked too.
func TestRunOnceReportsPending(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "08:00"))
	now := utc("2026-03-10T09:00:00Z")
	b, err := f.store.GenerateNow(f.Ctx, org, now.Add(-3*time.Hour), admin)
	require.NoError(t, err)
	// The scheduled run produces revision 2, which exists already: it fails.
	_, err = f.DB.Exec(f.Ctx, `INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at)
		VALUES ($1, $2, 2, 'manual', '{}', $3)`, org, b.ID, now)
	require.NoError(t, err)

	// Attempt 1 fails and retries at once; attempt 2 fails and waits an
	// hour, beyond -wait. (River's own backoff, 1 s then 16 s, with a
	// -wait of 5 s between them, asked a loaded machine to make both
	// attempts within 5 s, and one did not.)
	w := f.worker(nil)
	w.RetryPolicy = laterAfterFirstRetry{}
	res, err := w.RunOnce(f.Ctx, now, time.Minute)
	require.NoError(t, err)
	require.Equal(t, 1, res.Tick.Enqueued)
	require.Equal(t, map[string]int{"generate_briefing/retryable": 1}, res.Pending)
	outcomes := f.runOutcomes(org, b.ID)
	require.Contains(t, outcomes, `[1,1,"manual","completed"]`, "the job left behind was worked")
	require.Contains(t, outcomes, `[2,2,"schedule","retry"]`)
}

// TestWorkerStartStop runs the long-lived worker: it generates what
// "generate now" asks for, and a job still running when the grace period
// ends is cancelled, recorded as a failed attempt and made available again.
func TestWorkerStartStop(t *testing.T) {
	f := setup(t)
	// Not scheduled today: the worker's real-clock ticks add nothing.
	org := f.Org("acme", config("Etc/UTC", "08:00", strings.ToLower(time.Now().UTC().AddDate(0, 0, 3).Weekday().String()[:3])))
	var logs syncBuffer
	w := &Worker{DB: f.DB, Log: slog.New(slog.NewJSONHandler(&logs, nil)), Metrics: NewMetrics()}
	require.NoError(t, w.Start(f.Ctx))

	b, err := f.store.GenerateNow(f.Ctx, org, time.Now(), admin)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := f.store.Get(f.Ctx, org, b.Date)
		return err == nil && got.Status == briefing.StatusReady
	}, settle, 20*time.Millisecond)

	// The next generation blocks on its first technicians query while this lock lasts.
	lock, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer lock.Rollback(context.WithoutCancel(f.Ctx))
	_, err = lock.Exec(f.Ctx, `LOCK TABLE technicians IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	_, err = f.store.GenerateNow(f.Ctx, org, time.Now(), admin)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return f.Count(`SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'technicians'::regclass
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`) > 0
	}, settle, 10*time.Millisecond, "the job never started generating")

	stopCtx, cancel := context.WithTimeout(f.Ctx, 50*time.Millisecond)
	defer cancel()
	require.NoError(t, w.Stop(stopCtx))
	require.NoError(t, lock.Rollback(f.Ctx))
	require.Contains(t, logs.String(), "cancelling the running tasks, which River makes available again")
	// River puts a job cut off by its own shutdown back at once, without
	// counting the attempt; our history records it.
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE state = 'available' AND attempt = 0 AND (args->>'revision')::int = 2`))
	require.Contains(t, f.runOutcomes(org, b.ID), `[2,1,"manual","retry"]`)
	require.Contains(t, scrape(t, w.Metrics), `fieldbrief_jobs_total{kind="generate_briefing",outcome="completed"} 1`)
}

// TestGenerationOfDeletedBriefing: a job whose briefing is gone (its org
// was deleted) is cancelled, not retried.
func TestGenerationOfDeletedBriefing(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "23:00"))
	now := utc("2026-03-10T06:00:00Z")
	b, err := f.store.GenerateNow(f.Ctx, org, now, admin)
	require.NoError(t, err)
	_, err = f.DB.Exec(f.Ctx, `DELETE FROM ff_briefings WHERE id = $1`, b.ID)
	require.NoError(t, err)
	f.runOnce(now)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE state = 'cancelled'`))
}

// syncBuffer is a log sink River's goroutines may write to concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// scrape renders the metrics as Prometheus serves them.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.Collectors()...)
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// TestZoneRulesRecorded: a briefing records the tz database that decided its
// date and its scheduled firing, and each revision the one its content was
// built with.
func TestZoneRulesRecorded(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Europe/Berlin", "08:00"))
	embedded := briefing.ZoneRules{Version: schedule.EmbeddedZoneRules().Version, Source: schedule.SourceEmbedded}
	require.NotEmpty(t, embedded.Version)

	b, err := f.store.GenerateNow(f.Ctx, org, utc("2026-03-10T05:00:00Z"), admin)
	require.NoError(t, err)
	require.Equal(t, embedded, b.ZoneRules)
	require.Equal(t, "tzdata "+embedded.Version+" (embedded)", b.ZoneRules.String())
	f.runOnce(utc("2026-03-10T05:00:00Z"))

	// As if an older replica had made the look: the scheduled firing
	// records the rules that decided it.
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_briefings SET tzdata_version = '', tzdata_source = '' WHERE id = $1`, b.ID)
	require.NoError(t, err)
	b, err = f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, briefing.ZoneRules{}, b.ZoneRules)
	require.Empty(t, b.ZoneRules.String(), "not recorded")
	require.Equal(t, 1, f.runOnce(utc("2026-03-10T07:00:00Z")).Tick.Enqueued)

	b, err = f.store.Get(f.Ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, embedded, b.ZoneRules)
	revs, err := f.store.Revisions(f.Ctx, org, b.ID)
	require.NoError(t, err)
	require.Len(t, revs, 2)
	for _, r := range revs {
		require.Equal(t, embedded, r.ZoneRules, "revision %d", r.Revision)
	}
	var version, source string
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT tzdata_version, tzdata_source FROM ff_briefing_revisions WHERE briefing_id = $1 AND revision = 2`, b.ID).
		Scan(&version, &source))
	require.Equal(t, embedded, briefing.ZoneRules{Version: version, Source: source})
}
