package tick

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// adrQuery is the plain form of the candidate query the tick pattern
// started from (docs/scheduling.md, "The tick"): a plain LEFT JOIN (an org with briefings on two days in the window comes
// back twice) and current_date.
const adrQuery = `
SELECT om.org_id, om.config_json,
       b.briefing_date AS today_briefing_date
FROM org_module_configs om
JOIN admin_feature_flags af ON af.key = 'fieldforce.briefing' AND af.is_enabled = true
LEFT JOIN org_feature_flags of ON of.org_id = om.org_id AND of.key = 'fieldforce.briefing'
LEFT JOIN ff_briefings b ON b.org_id = om.org_id
     AND b.briefing_date BETWEEN (current_date - 1) AND (current_date + 1)
WHERE om.module = 'fieldforce'
  AND (of.is_enabled IS NULL OR of.is_enabled = true)`

// atTimeZoneQuery is the rejected form: the decision itself in SQL
// (docs/scheduling.md, "Why this shape"), behind the same flag filters.
// It reads config_json->'briefing'->>'timezone': the fields sit under
// "briefing", and config_json->>'timezone' would silently match no org.
const atTimeZoneQuery = `
SELECT om.org_id
FROM org_module_configs om
JOIN admin_feature_flags af ON af.key = 'fieldforce.briefing' AND af.is_enabled = true
LEFT JOIN org_feature_flags of ON of.org_id = om.org_id AND of.key = 'fieldforce.briefing'
WHERE om.module = 'fieldforce'
  AND (of.is_enabled IS NULL OR of.is_enabled = true)
  AND (now() AT TIME ZONE (config_json->'briefing'->>'timezone'))::time
      >= (config_json->'briefing'->>'schedule_local_time')::time
  AND (now() AT TIME ZONE (config_json->'briefing'->>'timezone'))::date
      NOT IN (SELECT briefing_date FROM ff_briefings WHERE org_id = om.org_id)`

// countRows runs a query and reads every row, as the tick would.
func countRows(b *testing.B, db *pgxpool.Pool, sql string) int {
	rows, err := db.Query(b.Context(), sql)
	require.NoError(b, err)
	n := 0
	for rows.Next() {
		_ = rows.RawValues()
		n++
	}
	require.NoError(b, rows.Err())
	return n
}

// BenchmarkTick measures the tick at 10k, 100k and 1M orgs (BENCH_1M=0 or
// -short skips 1M) over 50 zones, schedule times spread over the day,
// weekdays on a third of the orgs, 1% switched off, two days of history on
// half, and in the same run the plain candidate query (adrQuery) and the rejected AT TIME
// ZONE query on the same data (docs/scheduling.md, "The next-fire
// hint"). A tick here is the scan, the decisions and the hint write, not
// the enqueue (generation's cost): the due orgs' briefing rows are
// inserted between the two, untimed, as the enqueue would.
//
//   - worst:     every hint NULL (a fresh deployment): reads, decides and
//     writes a hint for every org; measured once.
//   - steady/op: hints filled, one tick per b.Loop iteration at successive
//     minutes: reads only the orgs whose minute came.
//   - full:      the safety net (full and hinted scan on one snapshot,
//     decide, compare), warm parse memo; full-cold: a fresh process's memo.
//
// Compare the ratios, not the absolute times:
//
//	go test -run '^$' -bench BenchmarkTick -benchtime 20x ./internal/tick/
func BenchmarkTick(b *testing.B) {
	sizes := []int{10_000, 100_000, 1_000_000}
	if testing.Short() || os.Getenv("BENCH_1M") == "0" {
		sizes = sizes[:2]
	}
	for _, orgs := range sizes {
		b.Run(fmt.Sprintf("orgs=%d", orgs), func(b *testing.B) {
			ctx := b.Context()
			// The worker's session settings (database.Open): JIT off.
			db, err := database.Connect(ctx, testdb.URL(b), database.NoJIT())
			require.NoError(b, err)
			defer db.Close()
			now := benchNow(b)
			seedTickBench(b, db, orgs, now, false)
			quiet := slog.New(slog.DiscardHandler)

			tick := func(tk *Ticker, now time.Time, full bool) (scan, total time.Duration, cands, due_, written int) {
				return benchTick(b, db, tk, now, full)
			}

			worstScan, worst, worstCands, _, worstWritten := tick(&Ticker{Log: quiet, DB: db}, now, false)
			require.Equal(b, worstCands, worstWritten)
			_, err = db.Exec(ctx, `VACUUM ANALYZE org_module_configs`) // as autovacuum would after so many updates
			require.NoError(b, err)
			b.Logf("hinted scan in the steady state:\n%s", explain(b, db, hintedScanSQL, now.Add(time.Minute)))

			var fullCold, full, adr, attz time.Duration
			const reps = 3
			for range reps {
				_, d, _, _, _ := tick(&Ticker{Log: quiet, DB: db}, now, true)
				fullCold += d
			}
			warm := &Ticker{Log: quiet, DB: db}
			tick(warm, now, true)
			var fullCands int
			for range reps {
				_, d, c, _, _ := tick(warm, now, true)
				full += d
				fullCands = c
			}
			var adrRows, attzRows int
			for range reps {
				start := time.Now()
				adrRows = countRows(b, db, adrQuery)
				adr += time.Since(start)
				start = time.Now()
				attzRows = countRows(b, db, atTimeZoneQuery)
				attz += time.Since(start)
			}

			tk := &Ticker{Log: quiet, DB: db}
			tick(tk, now, false)
			var steady, steadySQL time.Duration
			var cands, due, i int
			for b.Loop() {
				i++
				scan, total, c, d, _ := tick(tk, now.Add(time.Duration(i)*time.Minute), false)
				steady += total
				steadySQL += scan
				cands += c
				due += d
			}
			n := float64(i)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(steady)/n, "steady-ms/op")
			b.ReportMetric(ms(steadySQL)/n, "steady-sql-ms/op")
			b.ReportMetric(float64(cands)/n, "steady-candidates/op")
			b.ReportMetric(float64(due)/n, "due/op")
			b.ReportMetric(ms(worst), "worst-ms")
			b.ReportMetric(ms(worstScan), "worst-scan-ms")
			b.ReportMetric(ms(full)/reps, "full-ms")
			b.ReportMetric(ms(fullCold)/reps, "full-cold-ms")
			b.ReportMetric(float64(fullCands), "full-candidates")
			b.ReportMetric(ms(adr)/reps, "adr-ms")
			b.ReportMetric(ms(attz)/reps, "attz-ms")
			b.ReportMetric(float64(adrRows), "adr-rows")
			b.ReportMetric(float64(attzRows), "attz-rows")
			b.ReportMetric(float64(adr)/reps/(float64(steady)/n), "adr/steady")
			b.ReportMetric(float64(attz)/reps/(float64(steady)/n), "attz/steady")
			b.ReportMetric(float64(adr)/float64(full), "adr/full")
			b.ReportMetric(float64(adr)/float64(fullCold), "adr/full-cold")
			b.ReportMetric(float64(attz)/float64(full), "attz/full")
		})
	}
}

// benchTick is the hinted or full tick without the lock and the enqueue:
// the scan and the decisions (scan), then the hint write (total is both);
// the due orgs' firings are recorded between the two, untimed, as the
// enqueue would.
func benchTick(b testing.TB, db *pgxpool.Pool, tk *Ticker, now time.Time, full bool) (scan, total time.Duration, cands, dueOrgs, written int) {
	ctx := b.Context()
	start := time.Now()
	res := &Result{Skipped: map[schedule.Reason]int{}}
	d, err := tk.scanAndDecide(ctx, now, full, res)
	require.NoError(b, err)
	scan = time.Since(start)  // scans and decisions: they overlap
	fire(b, db, now, d.items) // what enqueue records, not timed
	tk.decided(d)             // as the tick does once its firings are recorded
	start = time.Now()
	written, err = d.storeHints(ctx)
	require.NoError(b, err)
	return scan, scan + time.Since(start), res.Candidates, len(d.items), written
}

// fire records the due orgs' scheduled firings as the tick's enqueue does
// (without the generation jobs), so later ticks see them fired.
func fire(b testing.TB, db *pgxpool.Pool, now time.Time, items []due) {
	if len(items) == 0 {
		return
	}
	ids := make([]int64, len(items))
	dates := make([]time.Time, len(items))
	for i, it := range items {
		ids[i], dates[i] = it.OrgID, it.Date.Time()
	}
	err := pgx.BeginFunc(b.Context(), db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(b.Context(), tickHintWriterSQL); err != nil {
			return err
		}
		_, err := tx.Exec(b.Context(), `
			INSERT INTO ff_briefings (org_id, briefing_date, fired_at, scheduled_at)
			SELECT o, d, $3, $3 FROM unnest($1::bigint[], $2::date[]) AS f(o, d)
			ON CONFLICT DO NOTHING`, ids, dates, now)
		return err
	})
	require.NoError(b, err)
}

// explain runs the hinted scan of now's minute, as the tick a minute
// after the last would, and returns its plan with its times and buffers.
func explain(b *testing.B, db *pgxpool.Pool, sql string, now time.Time) string {
	from, to := scanWindow(now)
	rows, err := db.Query(b.Context(), "EXPLAIN (ANALYZE, BUFFERS) "+sql, schedule.Module, schedule.FlagKey, from.Time(), to.Time(), now,
		firingMinutes(now.Add(-time.Minute), now))
	require.NoError(b, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(b, err)
	return strings.Join(lines, "\n")
}

// benchNow is the instant BenchmarkTick starts at: now, or BENCH_NOW
// (RFC 3339) to put the steady ticks across a UTC midnight, when the scan's
// window moves a day (BENCH_NOW=2026-03-09T23:55:00Z).
func benchNow(b *testing.B) time.Time {
	if v := os.Getenv("BENCH_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		require.NoError(b, err, "BENCH_NOW")
		return t.UTC().Truncate(time.Minute)
	}
	return time.Now().UTC().Truncate(time.Minute)
}

// seedTickBench creates orgs over 50 zones with schedule times spread over
// the day (weekdays on every third org), 1% switched off, and the
// scheduled briefings of the two UTC days before now on even orgs; with
// allFired, every org has its briefing for the UTC dates around now
// instead, so none is due. Rows are made by generate_series, with the hint
// triggers off while they are (the hints start NULL).
func seedTickBench(b testing.TB, db *pgxpool.Pool, orgs int, now time.Time, allFired bool) {
	ctx := b.Context()
	var zones []string
	all := schedule.Zones()
	for i := range 50 {
		zones = append(zones, all[i*len(all)/50].Name)
	}
	today := schedule.DateOf(now).Time()
	history := `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, fired_at, scheduled_at, generated_at, content)
		SELECT g, $2::date - d, 'UTC', 'ready', $2::date - d, $2::date - d, $2::date - d, '{}'
		  FROM generate_series(2, $1::int, 2) g, generate_series(1, 2) d`
	if allFired {
		history = `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, fired_at, scheduled_at, generated_at, content)
		SELECT g, $2::date + d, 'UTC', 'ready', $2::date, $2::date, $2::date, '{}'
		  FROM generate_series(1, $1::int) g, generate_series(-1, 1) d`
	}
	start := time.Now()
	for _, step := range []struct {
		sql  string
		args []any
	}{
		{`ALTER TABLE org_module_configs DISABLE TRIGGER USER`, nil},
		{`ALTER TABLE ff_briefings DISABLE TRIGGER USER`, nil},
		{`ALTER TABLE org_feature_flags DISABLE TRIGGER USER`, nil},
		{`INSERT INTO orgs (id, slug, name) SELECT g, 'org-' || g, 'Org ' || g FROM generate_series(1, $1::int) g`,
			[]any{orgs}},
		{`INSERT INTO org_module_configs (org_id, module, config_json)
		  SELECT g, 'fieldforce', jsonb_build_object('briefing', jsonb_build_object(
		             'timezone', ($2::text[])[1 + g % cardinality($2::text[])],
		             'schedule_local_time', lpad((g * 37 % 1440 / 60)::text, 2, '0') || ':' || lpad((g * 37 % 60)::text, 2, '0'))
		             || CASE WHEN g % 3 = 0 THEN '{"days": ["mon","tue","wed","thu","fri"]}'::jsonb ELSE '{}' END)
		    FROM generate_series(1, $1::int) g`,
			[]any{orgs, zones}},
		{`INSERT INTO org_feature_flags (org_id, key, is_enabled)
		  SELECT g, 'fieldforce.briefing', false FROM generate_series(1, $1::int, 100) g`,
			[]any{orgs}},
		{history, []any{orgs, today}},
		{`ALTER TABLE org_module_configs ENABLE TRIGGER USER`, nil},
		{`ALTER TABLE ff_briefings ENABLE TRIGGER USER`, nil},
		{`ALTER TABLE org_feature_flags ENABLE TRIGGER USER`, nil},
		// What the override trigger would have done: an org switched off
		// by its override can't fire, its hint is 'infinity' (00013).
		{`UPDATE org_module_configs SET next_fire_at = ff_hint_unknown(org_id)
		   WHERE org_id IN (SELECT org_id FROM org_feature_flags WHERE NOT is_enabled)`, nil},
		{`VACUUM ANALYZE org_module_configs, ff_briefings, org_feature_flags, orgs`, nil},
	} {
		_, err := db.Exec(ctx, step.sql, step.args...)
		require.NoError(b, err)
	}
	b.Logf("seeded %d orgs over %d zones in %v", orgs, len(zones), time.Since(start))
}

// BenchmarkWorkerOnceColdStart is the cold start: a whole `worker -once`
// process (start, migrations checked, River started, a full scan of 100k
// orgs with no hints yet, the hints written, exit) when none is due,
// against the plain candidate query (adrQuery) alone run by psql on the same data.
//
//	go test -run '^$' -bench BenchmarkWorkerOnceColdStart -benchtime 3x ./internal/tick/
func BenchmarkWorkerOnceColdStart(b *testing.B) {
	const orgs = 100_000
	ctx := b.Context()
	url := testdb.URL(b)
	db, err := pgxpool.New(ctx, url)
	require.NoError(b, err)
	defer db.Close()
	now := time.Now().UTC().Truncate(time.Minute)
	seedTickBench(b, db, orgs, now, true)
	bin := testutil.WorkerBinary(b)

	var once, psql time.Duration
	var hints int
	for b.Loop() {
		b.StopTimer()
		_, err := db.Exec(ctx, `UPDATE org_module_configs SET next_fire_at = NULL, hint_from = NULL`)
		require.NoError(b, err)
		_, err = db.Exec(ctx, `VACUUM ANALYZE org_module_configs`)
		require.NoError(b, err)
		b.StartTimer()

		start := time.Now()
		cmd := exec.CommandContext(ctx, bin, "-once", "-now", now.Format(time.RFC3339), "-wait", "0s")
		cmd.Env = append(os.Environ(), "DATABASE_URL="+url)
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, "%s", out)
		once += time.Since(start)
		require.Contains(b, string(out), `"enqueued":0`)

		start = time.Now()
		out, err = exec.CommandContext(ctx, "psql", url, "-Atc", adrQuery, "-o", "/dev/null").CombinedOutput()
		require.NoError(b, err, "%s", out)
		psql += time.Since(start)
	}
	require.NoError(b, db.QueryRow(ctx, `SELECT count(*) FROM org_module_configs WHERE next_fire_at IS NOT NULL`).Scan(&hints))
	b.ReportMetric(float64(once.Milliseconds())/float64(b.N), "once-ms")
	b.ReportMetric(float64(psql.Milliseconds())/float64(b.N), "psql-adr-ms")
	b.ReportMetric(float64(once)/float64(psql), "once/psql-adr")
	b.ReportMetric(float64(hints), "hints-written")
}
