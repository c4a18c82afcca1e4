package history_test

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/history"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/tick"
)

// BenchmarkDropMonth fills one month's partitions with HISTORY_BENCH_ORGS
// (default 100k) orgs' history, then times DropExpired removing that month
// while a tick loop runs against the same database, and the ticks'
// latency before, during and after (docs/benchmarks.md, "History
// retention"). make bench-history runs it; it is not part of make test.
//
// Per org and day: 1 briefing, 1 revision (about 1.7 kB of jsonb, eight
// jobs), 1 run, 4 deliveries, 4 attempts, 2 audit rows.
func BenchmarkDropMonth(b *testing.B) {
	orgs, _ := strconv.Atoi(cmp.Or(os.Getenv("HISTORY_BENCH_ORGS"), "100000"))
	ctx := b.Context()
	db, err := database.Connect(ctx, testdb.URL(b), database.NoJIT(), database.MaxConnsAtLeast(8))
	require.NoError(b, err)
	defer db.Close()
	now := time.Now().UTC().Truncate(time.Minute)
	old := history.Month(now).AddDate(0, -14, 0) // expired under the default 400 days
	_, err = history.EnsurePartitions(ctx, db, old)
	require.NoError(b, err)
	// The months before it (a test database has some) go first, untimed:
	// the drop timed below is of this month alone.
	_, err = history.DropExpired(ctx, db, slog.New(slog.DiscardHandler), old.Add(history.DefaultRetention), history.DefaultRetention)
	require.NoError(b, err)

	// The seeding sessions as the server's superuser when it lets us in
	// (a local trust server does): they skip the triggers.
	seeder := db
	if cfg, err := pgxpool.ParseConfig(db.Config().ConnString()); err == nil {
		cfg.ConnConfig.User, cfg.ConnConfig.Password = cmp.Or(os.Getenv("HISTORY_BENCH_SUPERUSER"), "postgres"), ""
		cfg.MaxConns = 8
		if p, err := pgxpool.NewWithConfig(ctx, cfg); err == nil && p.Ping(ctx) == nil {
			seeder = p
			defer p.Close()
		}
	}
	start := time.Now()
	seedOrgs(b, db, orgs)
	b.Logf("seeded %d orgs in %v", orgs, time.Since(start))
	start = time.Now()
	seedMonth(b, seeder, orgs, old)
	b.Logf("seeded the month %s in %v", old.Format("2006-01"), time.Since(start))
	var rows, bytes int64
	for _, t := range history.Tables {
		var n, size int64
		p := history.PartitionName(t.Name, old)
		require.NoError(b, db.QueryRow(ctx, fmt.Sprintf(`SELECT count(*), pg_total_relation_size('%s') FROM %s`, p, p)).Scan(&n, &size))
		b.Logf("%-34s %10d rows %8.0f MB", p, n, float64(size)/(1<<20))
		rows, bytes = rows+n, bytes+size
	}
	b.Logf("month total: %d rows, %.2f GB", rows, float64(bytes)/(1<<30))

	// The tick, a minute of tick time per call, back to back.
	type sample struct {
		at time.Time
		d  time.Duration
	}
	var mu sync.Mutex
	var samples []sample
	tctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := &tick.Ticker{DB: db, Log: slog.New(slog.DiscardHandler)}
		at := now
		for tctx.Err() == nil {
			t0 := time.Now()
			_, err := tk.Tick(tctx, at)
			if tctx.Err() != nil {
				return
			}
			require.NoError(b, err)
			mu.Lock()
			samples = append(samples, sample{t0, time.Since(t0)})
			mu.Unlock()
			at = at.Add(time.Minute)
		}
	}()
	time.Sleep(20 * time.Second) // the first (full) tick and a baseline
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dropStart := time.Now()
	dropped, err := history.DropExpired(ctx, db, log, now, history.DefaultRetention)
	dropEnd := time.Now()
	require.NoError(b, err)
	time.Sleep(10 * time.Second)
	stop()
	wg.Wait()
	require.Len(b, dropped, len(history.Tables))
	b.Logf("DropExpired: %d partitions (%.2f GB, %d rows) in %v", len(dropped), float64(bytes)/(1<<30), rows, dropEnd.Sub(dropStart))

	var before, during, after []time.Duration
	for i, s := range samples {
		switch {
		case i == 0: // the first tick is a full scan that writes every hint
		case s.at.Add(s.d).Before(dropStart):
			before = append(before, s.d)
		case s.at.After(dropEnd):
			after = append(after, s.d)
		default:
			during = append(during, s.d)
		}
	}
	b.Logf("first tick (full scan, hints written): %v", samples[0].d)
	for _, x := range []struct {
		name string
		ds   []time.Duration
	}{{"before", before}, {"during", during}, {"after", after}} {
		b.Logf("ticks %-6s the drop: %s", x.name, summary(x.ds))
	}
	b.ReportMetric(float64(dropEnd.Sub(dropStart).Milliseconds()), "drop-ms")
}

func summary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	slices.Sort(ds)
	return fmt.Sprintf("n=%d p50=%v p95=%v max=%v", len(ds), ds[len(ds)/2], ds[len(ds)*95/100], ds[len(ds)-1])
}

// seedOrgs makes orgs with a daily schedule spread over the day, as the
// tick's own benchmark does, hints left to the first tick.
func seedOrgs(b *testing.B, db *pgxpool.Pool, orgs int) {
	exec(b, db, `ALTER TABLE org_module_configs DISABLE TRIGGER USER`)
	exec(b, db, `INSERT INTO orgs (id, slug, name) SELECT g, 'org-' || g, 'Org ' || g FROM generate_series(1, $1::int) g`, orgs)
	exec(b, db, `SELECT setval(pg_get_serial_sequence('orgs', 'id'), $1)`, orgs)
	exec(b, db, `
		INSERT INTO org_module_configs (org_id, module, config_json)
		SELECT g, 'fieldforce', jsonb_build_object('briefing', jsonb_build_object('timezone', 'UTC',
		       'schedule_local_time', lpad((g * 37 % 1440 / 60)::text, 2, '0') || ':' || lpad((g * 37 % 60)::text, 2, '0')))
		  FROM generate_series(1, $1::int) g`, orgs)
	exec(b, db, `ALTER TABLE org_module_configs ENABLE TRIGGER USER`)
	exec(b, db, `VACUUM ANALYZE orgs, org_module_configs`)
}

// seedMonth fills the month starting at m, in three streams at once. The
// seeding sessions skip triggers (foreign keys included: the rows are
// made consistent).
func seedMonth(b *testing.B, db *pgxpool.Pool, orgs int, m time.Time) {
	end := m.AddDate(0, 1, 0)
	step := func(sqls ...string) func() error {
		return func() error {
			conn, err := db.Acquire(b.Context())
			if err != nil {
				return err
			}
			defer conn.Release()
			// Skipping triggers takes a superuser; without one the foreign
			// keys are checked, slower.
			if _, err := conn.Exec(b.Context(), `SET session_replication_role = replica`); err == nil {
				defer conn.Exec(context.WithoutCancel(b.Context()), `RESET session_replication_role`) //nolint:errcheck
			}
			for _, sql := range sqls {
				t0 := time.Now()
				var args []any
				if strings.Contains(sql, "$1") {
					args = []any{m, end}
				}
				if _, err := conn.Exec(b.Context(), sql, args...); err != nil {
					return fmt.Errorf("%s: %w", sql, err)
				}
				b.Logf("seed step %v: %.60s", time.Since(t0), sql)
			}
			return nil
		}
	}
	require.NoError(b, step(fmt.Sprintf(`
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, fired_at, scheduled_at, generated_at, revision, requested_revision, delivered_revision)
		SELECT g, d::date, 'UTC', 'ready', d + (g * 37 %% 1440) * interval '1 minute', d, d + (g * 37 %% 1440) * interval '1 minute', 1, 1, 1
		  FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 day', interval '1 day') d,
		       generate_series(1, %d) g`, orgs), `ANALYZE ff_briefings`)())
	brief := `FROM ff_briefings b WHERE b.briefing_date >= $1::date AND b.briefing_date < $2::date`
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, f := range []func() error{
		step(`
			INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at, tzdata_version, tzdata_source)
			SELECT b.org_id, b.id, 1, 'schedule',
			       jsonb_build_object('date', b.briefing_date, 'timezone', 'UTC', 'jobs', (
			           SELECT jsonb_agg(jsonb_build_object('id', b.id * 8 + j, 'customer', 'Customer ' || (b.id * j % 9973),
			                  'address', (b.id % 997) || ' Elm Street, Springfield', 'phone', '555 01' || lpad((j * 7)::text, 2, '0'),
			                  'start', lpad((7 + j)::text, 2, '0') || ':00', 'end', lpad((8 + j)::text, 2, '0') || ':30',
			                  'technician', 'Technician ' || (j % 3), 'status', 'scheduled',
			                  'notes', 'Gate code ' || (b.id % 9000 + 1000) || ', ring twice; parts in van ' || j))
			             FROM generate_series(1, 8) j),
			           'yesterday', jsonb_build_object('completed', 7, 'missed', 1)),
			       b.generated_at, '2025b', 'embedded' `+brief,
			`
			INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, river_job_id, attempt, trigger, started_at, finished_at, outcome, worker)
			SELECT b.org_id, b.id, 1, b.id, 1, 'schedule', b.generated_at, b.generated_at + interval '2 seconds', 'completed', 'worker-1' `+brief),
		step(`
			INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, attempts, due_at, sent_at, created_at, updated_at)
			SELECT b.org_id, b.id, 1, 'email', CASE WHEN r = 1 THEN 'dispatcher' ELSE 'technician' END,
			       'person' || r || '@org-' || b.org_id || '.example', 'msg_' || b.id || '_' || r, 'sent', 1,
			       b.generated_at, b.generated_at + interval '3 seconds', b.generated_at, b.generated_at + interval '3 seconds'
			  FROM ff_briefings b, generate_series(1, 4) r
			 WHERE b.briefing_date >= $1::date AND b.briefing_date < $2::date`,
			`
			INSERT INTO ff_delivery_attempts (org_id, delivery_id, attempted_at, outcome, code, detail, duration_ms, worker)
			SELECT d.org_id, d.id, d.sent_at, 'sent', '250', '250 2.0.0 OK queued', 180, 'worker-1'
			  FROM ff_deliveries d WHERE d.created_at >= $1 AND d.created_at < $2`),
		step(`
			INSERT INTO audit_log (at, actor_id, actor_email, org_id, action, target, old_value, new_value)
			SELECT b.generated_at - r * interval '1 hour', NULL, 'admin@org-' || b.org_id || '.example', b.org_id,
			       CASE WHEN r = 1 THEN 'briefing.generate' ELSE 'config.update' END, 'org:' || b.org_id,
			       CASE WHEN r = 2 THEN '{"schedule_local_time": "06:30"}'::jsonb END,
			       CASE WHEN r = 2 THEN '{"schedule_local_time": "06:45"}'::jsonb END
			  FROM ff_briefings b, generate_series(1, 2) r
			 WHERE b.briefing_date >= $1::date AND b.briefing_date < $2::date
			   AND b.generated_at - r * interval '1 hour' >= $1`),
	} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f() }()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(b, err)
	}
}

func exec(b *testing.B, db *pgxpool.Pool, sql string, args ...any) {
	b.Helper()
	_, err := db.Exec(b.Context(), sql, args...)
	require.NoError(b, err, sql)
}
