package briefing

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
)

// adrQuery is the plain form of the candidate query the tick pattern
// started from (docs/architecture.md, "The tick"): a plain LEFT JOIN (an org with briefings on two days in the window comes
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
// (docs/architecture.md, "Why this shape"), behind the same flag filters.
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

// BenchmarkTick measures the tick's scan and decisions (no enqueue) at 10k
// and 100k orgs spread over every canonical zone, with 30 days of history,
// and in the same run the plain query and the rejected AT TIME ZONE query
// on the same data. Compare the ratios, not the absolute times.
//
//	go test -run '^$' -bench BenchmarkTick -benchtime 5x ./internal/briefing/
func BenchmarkTick(b *testing.B) {
	for _, orgs := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("orgs=%d", orgs), func(b *testing.B) {
			db := testdb.New(b)
			seedBench(b, db, orgs)
			ctx := b.Context()
			tk := &Ticker{DB: db, Log: slog.New(slog.DiscardHandler)}
			// tick is ours without the lock and the enqueue: the scan,
			// then the decisions.
			tick := func() (scan, total time.Duration, due int) {
				start, now := time.Now(), time.Now()
				cands, err := Candidates(ctx, db, now)
				require.NoError(b, err)
				scan = time.Since(start)
				items, _ := tk.decide(now, cands, &TickResult{Skipped: map[schedule.Reason]int{}})
				due = len(items)
				return scan, time.Since(start), due
			}
			// The first tick of a process parses every config.
			coldScan, cold, _ := tick()

			var ours, oursSQL, adr, attz time.Duration
			var due, adrRows, attzRows int
			for b.Loop() {
				scan, total, d := tick()
				oursSQL += scan
				ours += total
				due = d

				start := time.Now()
				adrRows = countRows(b, db, adrQuery)
				adr += time.Since(start)

				start = time.Now()
				attzRows = countRows(b, db, atTimeZoneQuery)
				attz += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(float64((cold-coldScan).Microseconds())/1000, "cold-decide-ms") // after b.Loop, which resets metrics
			b.ReportMetric(float64(ours.Microseconds())/1000/n, "ours-ms/op")
			b.ReportMetric(float64(oursSQL.Microseconds())/1000/n, "ours-sql-ms/op")
			b.ReportMetric(float64(adr.Microseconds())/1000/n, "adr-ms/op")
			b.ReportMetric(float64(attz.Microseconds())/1000/n, "attz-ms/op")
			b.ReportMetric(float64(ours)/float64(adr), "ours/adr")
			b.ReportMetric(float64(ours)/float64(attz), "ours/attz")
			b.ReportMetric(float64(oursSQL)/float64(adr), "ours-sql/adr")
			b.ReportMetric(float64(due), "due")
			b.ReportMetric(float64(adrRows), "adr-rows")
			b.ReportMetric(float64(attzRows), "attz-rows")
		})
	}
}

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

// seedBench creates orgs round-robin over every canonical zone with
// schedule times spread over the day, 1% switched off, and 30 days of
// briefings (up to today for even orgs, up to yesterday for odd ones).
func seedBench(b *testing.B, db *pgxpool.Pool, orgs int) {
	ctx := b.Context()
	var zones []string
	for _, z := range schedule.Zones() {
		zones = append(zones, z.Name)
	}
	start := time.Now()
	for _, step := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO orgs (id, slug, name) SELECT g, 'org-' || g, 'Org ' || g FROM generate_series(1, $1::int) g`,
			[]any{orgs}},
		{`INSERT INTO org_module_configs (org_id, module, config_json)
		  SELECT g, 'fieldforce', jsonb_build_object('briefing', jsonb_build_object(
		             'timezone', ($2::text[])[1 + g % cardinality($2::text[])],
		             'schedule_local_time', lpad((g % 24)::text, 2, '0') || ':' || lpad((g * 7 % 60)::text, 2, '0')))
		    FROM generate_series(1, $1::int) g`,
			[]any{orgs, zones}},
		{`INSERT INTO org_feature_flags (org_id, key, is_enabled)
		  SELECT g, 'fieldforce.briefing', false FROM generate_series(1, $1::int, 100) g`,
			[]any{orgs}},
		{`INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, generated_at, content)
		  SELECT g, current_date - d + (g % 2), ($2::text[])[1 + g % cardinality($2::text[])], 'ready', now(), '{}'
		    FROM generate_series(1, $1::int) g, generate_series(1, 30) d`,
			[]any{orgs, zones}},
		{`ANALYZE`, nil},
	} {
		_, err := db.Exec(ctx, step.sql, step.args...)
		require.NoError(b, err)
	}
	b.Logf("seeded %d orgs over %d zones with 30 days of briefings in %v", orgs, len(zones), time.Since(start))
}
