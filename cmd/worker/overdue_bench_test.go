package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// BenchmarkOverdueBriefing measures one org's briefing with
// BENCH_OVERDUE_JOBS overdue jobs (default 50,000; docs/benchmarks.md, "A
// briefing with 50,000 overdue jobs"): a whole `worker -once` (start, the
// tick, the generation, the dispatcher's and ten technicians' emails kept
// in the outbox, exit) with GOMAXPROCS=2. It reports the worker's peak RSS,
// the stored revision's size (its JSON as PostgreSQL prints it) and the
// largest email's (text and HTML parts). BENCH_OVERDUE_TECHNICIANS=0 mails
// the dispatcher only.
//
//	go test -run '^$' -bench BenchmarkOverdueBriefing -benchtime 1x ./cmd/worker/
func BenchmarkOverdueBriefing(b *testing.B) {
	n := envInt(b, "BENCH_OVERDUE_JOBS", 50000)
	b.Run(fmt.Sprintf("overdue=%d", n), func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			ctx := b.Context()
			dbURL := testdb.URL(b)
			db, err := pgxpool.New(ctx, dbURL)
			require.NoError(b, err)
			// 06:30 in Chicago on Tue 10 Mar 2026 (CDT) is 11:30 UTC.
			at := time.Date(2026, 3, 10, 11, 31, 0, 0, time.UTC)
			dayStart := time.Date(2026, 3, 10, 5, 0, 0, 0, time.UTC)
			seeded := time.Now()
			seedOverdue(b, db, n, dayStart, envInt(b, "BENCH_OVERDUE_TECHNICIANS", 1) != 0)
			b.Logf("seeded %d overdue jobs in %v", n, time.Since(seeded).Round(time.Millisecond))

			b.StartTimer()
			start := time.Now()
			once := startProc(b, dbURL, []string{"GOMAXPROCS=2", "SMTP_URL="}, "-once", "-now", at.Format(time.RFC3339), "-wait", "30s")
			require.NoError(b, once.wait(), once.String())
			b.StopTimer()
			rss := once.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024

			var revision, email, emails int64
			var generation float64
			require.NoError(b, db.QueryRow(ctx, `SELECT coalesce(max(octet_length(content::text)), 0) FROM ff_briefing_revisions`).Scan(&revision))
			require.NoError(b, db.QueryRow(ctx, `SELECT coalesce(max(extract(epoch FROM finished_at - started_at)), 0) FROM ff_briefing_runs`).Scan(&generation))
			require.NoError(b, db.QueryRow(ctx, `SELECT coalesce(max(octet_length(text_body) + octet_length(html_body)), 0), count(*) FROM mail_outbox`).Scan(&email, &emails))
			db.Close()
			b.Logf("worker -once: %v wall, peak RSS %.0f MiB; generation %.0f ms; revision %d bytes; %d emails, the largest %d bytes",
				time.Since(start).Round(time.Millisecond), mib(rss), generation*1000, revision, emails, email)
			b.ReportMetric(mib(rss), "peak-MiB")
			b.ReportMetric(float64(revision), "revision-B")
			b.ReportMetric(float64(email), "email-B")
			b.ReportMetric(generation*1000, "generation-ms")
		}
	})
}

// seedOverdue creates the org "big" (Chicago, 06:30, mailing its dispatcher
// and, when techMail, its technicians), ten technicians with eight jobs each
// on the day, and n overdue jobs.
func seedOverdue(b *testing.B, db *pgxpool.Pool, n int, dayStart time.Time, techMail bool) {
	ctx := b.Context()
	var org int64
	require.NoError(b, db.QueryRow(ctx, `INSERT INTO orgs (slug, name) VALUES ('big', 'Big Plumbing') RETURNING id`).Scan(&org))
	_, err := db.Exec(ctx, `INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)`, org,
		fmt.Sprintf(`{"briefing": {"timezone": "America/Chicago", "schedule_local_time": "06:30"},
		  "delivery": {"email": {"to": ["dispatch@big.test"], "technicians": %t}}}`, techMail))
	require.NoError(b, err)
	rows, err := db.Query(ctx, `
		INSERT INTO technicians (org_id, name, phone, email, active)
		SELECT $1, 'Technician ' || k, '+1 512 555 01' || lpad(k::text, 2, '0'), 'tech-' || k || '@big.test', true
		  FROM generate_series(1, 10) k RETURNING id`, org)
	require.NoError(b, err)
	var techs []int64
	for rows.Next() {
		var id int64
		require.NoError(b, rows.Scan(&id))
		techs = append(techs, id)
	}
	require.NoError(b, rows.Err())
	_, err = db.Exec(ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, address, arrival_start, arrival_end, status, job_type)
		SELECT $1, t, 'Today ' || t || '-' || k, k || ' Congress Avenue, Austin, TX 78701',
		       $3::timestamptz + (7 + k) * interval '1 hour', $3::timestamptz + (9 + k) * interval '1 hour', 'scheduled', 'Inspection'
		  FROM unnest($2::bigint[]) t, generate_series(1, 8) k`, org, techs, dayStart)
	require.NoError(b, err)
	require.NoError(b, testutil.InsertOverdueJobs(ctx, db, org, techs, n, dayStart))
}
