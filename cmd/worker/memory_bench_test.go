package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

// BenchmarkWorkerMemory measures the worker's peak memory over
// BENCH_MEMORY_ORGS orgs (0, the default, skips it; `make bench-burst`
// runs 1,000,000): orgs spread over 50 zones and every minute of the day
// (72,000 distinct configs, about 700 due a minute), each already briefed
// for its local date when its minute had passed, so only the minute's orgs
// are due — a steady state, no history beyond that. It reports the peak
// RSS (VmHWM) of a whole `worker -once` (start, full scan, the ~700 due
// generated, exit) and of a long-running `worker` after each of
// BENCH_MEMORY_TICKS real minute ticks (default 2), with GOMAXPROCS=2.
// Other environment (GOMEMLIMIT, WORKERS) passes through to the worker.
//
//	BENCH_MEMORY_ORGS=1000000 go test -run '^$' -bench BenchmarkWorkerMemory -benchtime 1x -timeout 30m ./cmd/worker/
func BenchmarkWorkerMemory(b *testing.B) {
	orgs := envInt(b, "BENCH_MEMORY_ORGS", 0)
	if orgs <= 0 {
		b.Skip("BENCH_MEMORY_ORGS unset or 0")
	}
	ticks := envInt(b, "BENCH_MEMORY_TICKS", 2)
	b.Run(fmt.Sprintf("orgs=%d", orgs), func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			ctx := b.Context()
			dbURL := testdb.URL(b)
			db, err := pgxpool.New(ctx, dbURL)
			require.NoError(b, err)
			// The steady state at the next minutes of the real clock, which
			// the long-running worker ticks at.
			at := time.Now().UTC().Truncate(time.Minute).Add(time.Minute)
			seeded := time.Now()
			briefed := seedMemory(b, db, orgs, at)
			b.Logf("seeded %d orgs in %v, %d of them briefed before %s", orgs, time.Since(seeded).Round(time.Millisecond), briefed, at.Format(time.RFC3339))
			db.Close()
			env := []string{"GOMAXPROCS=2"}

			b.StartTimer()
			start := time.Now()
			once := startProc(b, dbURL, env, "-once", "-now", at.Format(time.RFC3339), "-wait", "30s")
			require.NoError(b, once.wait(), once.String())
			b.StopTimer()
			onceRSS := once.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
			tick := once.waitFor(b, `"msg":"briefing tick"`, time.Second)
			b.Logf("worker -once: %v wall, peak RSS %.0f MiB; %s", time.Since(start).Round(time.Millisecond), mib(onceRSS), tick)
			b.ReportMetric(mib(onceRSS), "once-peak-MiB")
			b.ReportMetric(time.Since(start).Seconds(), "once-s")

			serve := startProc(b, dbURL, env)
			var peak int64
			for i := range ticks + 1 {
				// The first tick line is the one at start-up's minute, maybe
				// partial: count from the next.
				line := serve.waitForNth(b, `"msg":"briefing tick"`, i+1, 3*time.Minute)
				hwm, rss := procMemory(b, serve.cmd.Process.Pid)
				peak = max(peak, hwm)
				b.Logf("worker, tick %d: VmHWM %.0f MiB, VmRSS %.0f MiB; %s", i+1, mib(hwm), mib(rss), line)
			}
			serve.stop(b)
			b.ReportMetric(mib(peak), "serve-peak-MiB")
		}
	})
}

// memoryZones: 50 zones, the offsets of the world's populous places.
var memoryZones = []string{
	"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Phoenix",
	"America/Anchorage", "Pacific/Honolulu", "America/Toronto", "America/Vancouver", "America/Mexico_City",
	"America/Bogota", "America/Lima", "America/Santiago", "America/Sao_Paulo", "America/Argentina/Buenos_Aires",
	"America/Caracas", "America/Halifax", "America/St_Johns", "Atlantic/Azores", "Europe/London",
	"Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Madrid",
	"Europe/Rome", "Europe/Warsaw", "Europe/Athens", "Europe/Helsinki", "Europe/Istanbul",
	"Europe/Moscow", "Africa/Cairo", "Africa/Lagos", "Africa/Johannesburg", "Africa/Nairobi",
	"Asia/Dubai", "Asia/Tehran", "Asia/Karachi", "Asia/Kolkata", "Asia/Kathmandu",
	"Asia/Dhaka", "Asia/Bangkok", "Asia/Singapore", "Asia/Shanghai", "Asia/Tokyo",
	"Asia/Seoul", "Australia/Adelaide", "Australia/Sydney", "Pacific/Auckland", "Pacific/Chatham",
}

// seedMemory creates n orgs — org g in zone g mod 50 at minute (g div 50)
// mod 1440 of the day — and, for each org whose minute had passed at at
// (local), its briefing for that local date, as the ticks before at would
// have left it. PostgreSQL's own zone arithmetic places that history: this
// is test data, not the scheduling SQL (which has none). Returns the
// number of orgs briefed.
func seedMemory(b *testing.B, db *pgxpool.Pool, n int, at time.Time) int {
	ctx := b.Context()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO orgs (id, slug, name) SELECT g, 'mem-' || g, 'Mem ' || g FROM generate_series(1, $1::int) g`, []any{n}},
		{`INSERT INTO org_module_configs (org_id, module, config_json)
		  SELECT g, 'fieldforce', jsonb_build_object('briefing', jsonb_build_object(
		           'timezone', ($2::text[])[1 + g % 50],
		           'schedule_local_time', lpad((((g / 50) % 1440) / 60)::text, 2, '0') || ':' || lpad((((g / 50) % 1440) % 60)::text, 2, '0')))
		    FROM generate_series(1, $1::int) g`, []any{n, memoryZones}},
		{`INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, status,
		                            requested_revision, revision, created_at, updated_at)
		  SELECT g, (($2::timestamptz) AT TIME ZONE z)::date, z, $2, $2, 'schedule', 'ready', 1, 1, $2, $2
		    FROM (SELECT g, ($3::text[])[1 + g % 50] AS z, ((g / 50) % 1440) AS m FROM generate_series(1, $1::int) g) o
		   WHERE m < extract(hour FROM ($2::timestamptz) AT TIME ZONE z) * 60 + extract(minute FROM ($2::timestamptz) AT TIME ZONE z)`,
			[]any{n, at, memoryZones}},
		{`ANALYZE`, nil},
	} {
		_, err := db.Exec(ctx, q.sql, q.args...)
		require.NoError(b, err, q.sql)
	}
	var briefed int
	require.NoError(b, db.QueryRow(ctx, `SELECT count(*) FROM ff_briefings`).Scan(&briefed))
	return briefed
}

// waitForNth returns the nth line of the process's log containing s.
func (p *proc) waitForNth(b *testing.B, s string, nth int, timeout time.Duration) string {
	deadline := time.Now().Add(timeout * time.Duration(nth))
	for {
		p.mu.Lock()
		var found []string
		for _, l := range p.log {
			if strings.Contains(l, s) {
				found = append(found, l)
			}
		}
		p.mu.Unlock()
		if len(found) >= nth {
			return found[nth-1]
		}
		select {
		case <-p.read:
			b.Fatalf("worker exited before logging %s %d times:\n%s", s, nth, p)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatalf("no %s %d times:\n%s", s, nth, p)
		}
	}
}

// procMemory reads a running process's peak and current resident memory
// (VmHWM, VmRSS) from /proc, in bytes.
func procMemory(b *testing.B, pid int) (hwm, rss int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "VmHWM:":
			hwm = kb * 1024
		case "VmRSS:":
			rss = kb * 1024
		}
	}
	require.NoError(b, sc.Err())
	return hwm, rss
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
