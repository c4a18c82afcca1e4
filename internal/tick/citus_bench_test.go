//go:build citus

package tick

import (
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/citus"
	"fieldbrief/internal/database"
	"fieldbrief/internal/history"
	"fieldbrief/internal/pgtopo"
)

// BenchmarkCitusTick measures the tick on one node and on a Citus cluster
// in the same run, on the same data (BenchmarkTick's: seedTickBench at
// BENCH_CITUS_ORGS orgs, default 100k) and the same servers: one
// pgtopo.CitusCluster, whose coordinator holds both databases — one
// migrated and seeded only (one node: every table local), the other also
// distributed as `web citus-distribute` does (the rows moved into the
// workers' shards). Every node runs the harness's settings (shared_buffers
// 32 MB, fsync and full-page writes off), so the ratios, not the absolute
// times, are what to compare with BenchmarkTick's default server
// (docs/scaling.md, "The tick on Citus").
//
// For each: worst (every hint NULL), full (the safety net, in a fresh
// Ticker and warm), and steady (20 hinted ticks at successive minutes), as
// BenchmarkTick measures them.
//
//	make bench-tick-citus
func BenchmarkCitusTick(b *testing.B) {
	orgs := 100_000
	if v := os.Getenv("BENCH_CITUS_ORGS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err)
		orgs = n
	}
	c := pgtopo.CitusCluster(b)
	now := time.Now().UTC().Truncate(time.Minute)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	type figures struct{ steady, steadyScan, full, fullCold, worst float64 }
	var got [2]figures
	for i, distributed := range []bool{false, true} {
		name := map[bool]string{false: "node", true: "citus"}[distributed]
		url := c.Database(b)
		ctx := b.Context()
		db, err := database.Connect(ctx, url, database.NoJIT())
		require.NoError(b, err)
		quiet := slog.New(slog.DiscardHandler)
		require.NoError(b, database.Migrate(ctx, db, quiet))
		_, err = history.EnsureMonths(ctx, db, pgtopo.CitusMonthsFrom, pgtopo.CitusMonthsTo)
		require.NoError(b, err)
		seedTickBench(b, db, orgs, now, false)
		if distributed {
			start := time.Now()
			_, err := citus.Distribute(ctx, db, quiet)
			require.NoError(b, err)
			_, err = db.Exec(ctx, `VACUUM ANALYZE org_module_configs, ff_briefings, org_feature_flags`)
			require.NoError(b, err)
			b.Logf("distributed %d orgs in %v", orgs, time.Since(start))
		}

		_, worst, cands, _, written := benchTick(b, db, &Ticker{Log: quiet, DB: db}, now, false)
		// Every org read has its hint stored: on Citus, the enqueue's
		// hint_writer setting must reach the shards' triggers (enqueue.go).
		var unknown int
		require.NoError(b, db.QueryRow(ctx, `SELECT count(*) FROM org_module_configs WHERE next_fire_at IS NULL`).Scan(&unknown))
		b.Logf("%s: worst tick read %d orgs, stored %d hints; %d hints unknown after it", name, cands, written, unknown)
		_, err = db.Exec(ctx, `VACUUM ANALYZE org_module_configs`)
		require.NoError(b, err)
		var full, fullCold time.Duration
		const reps = 3
		for range reps {
			_, d, _, _, _ := benchTick(b, db, &Ticker{Log: quiet, DB: db}, now, true)
			fullCold += d
		}
		warm := &Ticker{Log: quiet, DB: db}
		benchTick(b, db, warm, now, true)
		for range reps {
			_, d, _, _, _ := benchTick(b, db, warm, now, true)
			full += d
		}
		tk := &Ticker{Log: quiet, DB: db}
		benchTick(b, db, tk, now, false)
		const ticks = 20
		var steady, steadyScan time.Duration
		var read, due int
		for m := 1; m <= ticks; m++ {
			scan, total, c, d, _ := benchTick(b, db, tk, now.Add(time.Duration(m)*time.Minute), false)
			steady, steadyScan, read, due = steady+total, steadyScan+scan, read+c, due+d
		}
		db.Close()
		got[i] = figures{steady: ms(steady) / ticks, steadyScan: ms(steadyScan) / ticks,
			full: ms(full) / reps, fullCold: ms(fullCold) / reps, worst: ms(worst)}
		b.ReportMetric(got[i].steady, name+"-steady-ms")
		b.ReportMetric(got[i].steadyScan, name+"-steady-scan-ms")
		b.ReportMetric(got[i].full, name+"-full-ms")
		b.ReportMetric(got[i].fullCold, name+"-full-cold-ms")
		b.ReportMetric(got[i].worst, name+"-worst-ms")
		b.Logf("%s: %d orgs, steady %.1f ms (scan %.1f) reading %.1f orgs a tick (%.1f due), full %.0f ms (%.0f cold), worst %.0f ms",
			name, orgs, got[i].steady, got[i].steadyScan, float64(read)/ticks, float64(due)/ticks, got[i].full, got[i].fullCold, got[i].worst)
	}
	b.ReportMetric(got[1].steady/got[0].steady, "citus/node-steady")
	b.ReportMetric(got[1].full/got[0].full, "citus/node-full")
	b.ReportMetric(got[1].worst/got[0].worst, "citus/node-worst")
}
