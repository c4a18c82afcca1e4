package history_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/history"
	"fieldbrief/internal/pglock"
	"fieldbrief/internal/testutil"
)

// month is the first instant of the month i months from now's.
func month(now time.Time, i int) time.Time { return history.Month(now).AddDate(0, i, 0) }

// fill inserts one row of every history table at instant at, for the
// org's briefing.
func fill(t *testing.T, f *testutil.Fixture, orgID, briefingID int64, rev int, at time.Time) {
	t.Helper()
	ctx := f.Ctx
	_, err := f.DB.Exec(ctx, `
		INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at)
		VALUES ($1, $2, $3, 'schedule', '{}', $4)`, orgID, briefingID, rev, at)
	require.NoError(t, err)
	_, err = f.DB.Exec(ctx, `
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, attempt, trigger, started_at, finished_at, outcome)
		VALUES ($1, $2, $3, 1, 'schedule', $4, $4, 'completed')`, orgID, briefingID, rev, at)
	require.NoError(t, err)
	var deliveryID int64
	require.NoError(t, f.DB.QueryRow(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, due_at, created_at)
		VALUES ($1, $2, $3, 'email', 'dispatcher', 'd@example.com', $5, $4, $4) RETURNING id`,
		orgID, briefingID, rev, at, fmt.Sprintf("k-%d-%d", briefingID, rev)).Scan(&deliveryID))
	_, err = f.DB.Exec(ctx, `
		INSERT INTO ff_delivery_attempts (org_id, delivery_id, attempted_at, outcome) VALUES ($1, $2, $3, 'sent')`,
		orgID, deliveryID, at)
	require.NoError(t, err)
	_, err = f.DB.Exec(ctx, `INSERT INTO audit_log (at, org_id, action) VALUES ($1, $2, 'test.fill')`, at, orgID)
	require.NoError(t, err)
}

// partitionOf is the partition each table's row of instant at is in.
func partitionsOf(t *testing.T, f *testutil.Fixture, at time.Time) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range history.Tables {
		var name string
		require.NoError(t, f.DB.QueryRow(f.Ctx,
			fmt.Sprintf(`SELECT tableoid::regclass::text FROM %s WHERE %s = $1`, tb.Name, tb.Column), at).Scan(&name), tb.Name)
		out[tb.Name] = name
	}
	return out
}

// partitionNames lists the attached partitions of table, by name.
func partitionNames(t *testing.T, f *testutil.Fixture, table string) []string {
	t.Helper()
	rows, err := f.DB.Query(f.Ctx, `
		SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = $1::regclass ORDER BY 1`, table)
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestPartitionsAfterMigrate(t *testing.T) {
	f := testutil.Setup(t)
	now := time.Now()
	for _, tb := range history.Tables {
		var kind string
		require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT relkind::text FROM pg_class WHERE oid = $1::regclass`, tb.Name).Scan(&kind))
		require.Equal(t, "p", kind, "%s is partitioned", tb.Name)
		names := partitionNames(t, f, tb.Name)
		for i := 0; i <= history.Ahead; i++ {
			require.Contains(t, names, history.PartitionName(tb.Name, month(now, i)))
		}
		var def int
		require.NoError(t, f.DB.QueryRow(f.Ctx, `
			SELECT count(*) FROM pg_partitioned_table WHERE partrelid = $1::regclass AND partdefid <> 0`, tb.Name).Scan(&def))
		require.Zero(t, def, "%s has no DEFAULT partition", tb.Name)
	}
}

func TestInsertsLandInTheirMonth(t *testing.T) {
	f := testutil.Setup(t)
	now := time.Now()
	org := f.Org("acme", "")
	b := f.Briefing(org, "2026-01-05", "UTC", true, now)
	for i := 0; i <= history.Ahead; i++ {
		// The last microsecond of the month and the first of the next are
		// a month apart.
		end := month(now, i).AddDate(0, 1, 0).Add(-time.Microsecond)
		fill(t, f, org, b, 2*i+1, end)
		for table, p := range partitionsOf(t, f, end) {
			require.Equal(t, history.PartitionName(table, month(now, i)), p)
		}
	}
	// Past the months made ahead there is no partition: the insert fails
	// rather than landing anywhere.
	far := time.Date(2035, 1, 1, 0, 0, 0, 0, time.UTC)
	require.True(t, far.After(month(now, history.Ahead+1)))
	_, err := f.DB.Exec(f.Ctx, `INSERT INTO audit_log (at, action) VALUES ($1, 'test.far')`, far)
	require.ErrorContains(t, err, "no partition")
}

func TestEnsurePartitionsIdempotentAndConcurrent(t *testing.T) {
	f := testutil.Setup(t)
	now := time.Now()
	created, err := history.EnsurePartitions(f.Ctx, f.DB, now)
	require.NoError(t, err)
	require.Empty(t, created, "migrate made them")

	// Months no test database has: four of each table, made once however
	// many callers.
	past := time.Date(2020, 3, 10, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	results := make([][]string, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = history.EnsurePartitions(f.Ctx, f.DB, past)
		}()
	}
	wg.Wait()
	var all []string
	for i := range results {
		require.NoError(t, errs[i])
		all = append(all, results[i]...)
	}
	require.Len(t, all, len(history.Tables)*(history.Ahead+1))
	slices.Sort(all)
	require.Len(t, slices.Compact(all), len(history.Tables)*(history.Ahead+1), "each made once")
	again, err := history.EnsurePartitions(f.Ctx, f.DB, past)
	require.NoError(t, err)
	require.Empty(t, again)
}

func TestDropExpired(t *testing.T) {
	f := testutil.Setup(t)
	log := slog.New(slog.DiscardHandler)
	now := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	if real := time.Now(); history.Month(real) != history.Month(now) {
		now = real // the months made at migrate are the real clock's
	}
	retention := 400 * 24 * time.Hour
	org := f.Org("acme", "")
	b := f.Briefing(org, "2026-01-05", "UTC", true, now)
	// Months −16 … −1 beside the current ones, a row in each mid-month.
	for _, back := range []int{-16, -12, -8, -4} {
		_, err := history.EnsurePartitions(f.Ctx, f.DB, month(now, back))
		require.NoError(t, err)
	}
	rev := 1
	for i := -16; i <= history.Ahead; i++ {
		fill(t, f, org, b, rev, month(now, i).Add(14*24*time.Hour))
		rev++
	}
	// Which months expire, of all there are: the first instant after the
	// month is at or before now − retention.
	cutoff := now.Add(-retention)
	var want []string
	all := 0
	for _, tb := range history.Tables {
		for _, p := range partitionNames(t, f, tb.Name) {
			m, err := time.Parse("200601", p[len(p)-6:])
			require.NoError(t, err, p)
			all++
			if !m.AddDate(0, 1, 0).After(cutoff) {
				want = append(want, p)
			}
		}
	}
	require.NotEmpty(t, want)
	require.Less(t, len(want), all, "some months are kept")

	// Meanwhile the org keeps writing this month and reading every month.
	ctx, stop := context.WithCancel(f.Ctx)
	var wg sync.WaitGroup
	var writes, reads int
	var bgErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if _, err := f.DB.Exec(ctx, `INSERT INTO audit_log (org_id, action) VALUES ($1, 'test.busy')`, org); err != nil && ctx.Err() == nil {
				bgErr = err
				return
			}
			writes++
			var n int
			if err := f.DB.QueryRow(ctx, `SELECT count(*) FROM ff_deliveries WHERE org_id = $1`, org).Scan(&n); err != nil && ctx.Err() == nil {
				bgErr = err
				return
			}
			reads++
		}
	}()
	dropped, err := history.DropExpired(f.Ctx, f.DB, log, now, retention)
	stop()
	wg.Wait()
	require.NoError(t, err)
	require.NoError(t, bgErr, "writes and reads went on during the drop")
	require.Positive(t, writes)
	require.Positive(t, reads)
	var got []string
	for _, d := range dropped {
		got = append(got, d.Partition)
	}
	slices.Sort(got)
	slices.Sort(want)
	require.Equal(t, want, got)

	// Kept months keep their rows, dropped ones are gone.
	for i := -16; i <= history.Ahead; i++ {
		at := month(now, i).Add(14 * 24 * time.Hour)
		expired := !month(now, i+1).After(cutoff)
		for _, tb := range history.Tables {
			var n int
			require.NoError(t, f.DB.QueryRow(f.Ctx,
				fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s = $1`, tb.Name, tb.Column), at).Scan(&n))
			if expired {
				require.Zero(t, n, "%s month %d", tb.Name, i)
			} else {
				require.Equal(t, 1, n, "%s month %d", tb.Name, i)
			}
			var exists bool
			require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT to_regclass($1) IS NOT NULL`,
				history.PartitionName(tb.Name, month(now, i))).Scan(&exists))
			require.Equal(t, !expired, exists)
		}
	}
	oldest, ok, err := history.Oldest(f.Ctx, f.DB)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, !history.Expired(oldest, now, retention) && history.Expired(oldest.AddDate(0, -1, 0), now, retention),
		"oldest kept %s is the first month not expired", oldest)

	again, err := history.DropExpired(f.Ctx, f.DB, log, now, retention)
	require.NoError(t, err)
	require.Empty(t, again, "nothing left to drop")
}

// A run stopped between DETACH and DROP leaves a detached table: the next
// run drops it.
func TestDropExpiredFinishesADetachedPartition(t *testing.T) {
	f := testutil.Setup(t)
	now := time.Now()
	_, err := history.EnsurePartitions(f.Ctx, f.DB, month(now, -20))
	require.NoError(t, err)
	name := history.PartitionName("audit_log", month(now, -20))
	_, err = f.DB.Exec(f.Ctx, `ALTER TABLE audit_log DETACH PARTITION `+name)
	require.NoError(t, err)
	dropped, err := history.DropExpired(f.Ctx, f.DB, slog.New(slog.DiscardHandler), now, history.DefaultRetention)
	require.NoError(t, err)
	require.Contains(t, dropped, history.Dropped{Table: "audit_log", Partition: name, Month: month(now, -20)})
	var exists bool
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists))
	require.False(t, exists)
}

func TestDropExpiredRefusesAShortRetention(t *testing.T) {
	f := testutil.Setup(t)
	before := partitionNames(t, f, "audit_log")
	_, err := history.DropExpired(f.Ctx, f.DB, slog.New(slog.DiscardHandler), time.Now(), 20*24*time.Hour)
	require.ErrorContains(t, err, "under the minimum")
	require.Equal(t, before, partitionNames(t, f, "audit_log"), "nothing dropped")
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"400d": 400 * 24 * time.Hour, "35d": 35 * 24 * time.Hour, "9600h": 9600 * time.Hour, " 60d ": 60 * 24 * time.Hour,
	} {
		got, err := history.ParseRetention(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "34d", "12h", "forever", "-400d", "400 days", "1.5d"} {
		_, err := history.ParseRetention(in)
		require.Error(t, err, in)
	}
}

// TestDropExpiredTakesTurns: while another process drops (it holds the
// retention lock), DropExpired waits for it rather than detaching the same
// months at once, and drops once the lock is given back.
func TestDropExpiredTakesTurns(t *testing.T) {
	f := testutil.Setup(t)
	now, err := history.DatabaseNow(f.Ctx, f.DB)
	require.NoError(t, err)
	// January to March 2025, before the test database's months: those
	// before March 2025 are expired.
	_, err = history.EnsureMonths(f.Ctx, f.DB, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	retention := now.Sub(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC))
	holder, err := f.DB.Acquire(f.Ctx)
	require.NoError(t, err)
	defer holder.Release()
	err = pglock.SessionLockOf(pglock.LockHistory).Lock(f.Ctx, holder)
	require.NoError(t, err)

	type result struct {
		dropped []history.Dropped
		err     error
	}
	done := make(chan result, 1)
	go func() {
		d, err := history.DropExpired(f.Ctx, f.DB, slog.New(slog.DiscardHandler), now, retention)
		done <- result{d, err}
	}()
	require.Eventually(t, func() bool {
		return f.Count(`SELECT count(*) FROM pg_stat_activity
		                 WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`) == 1
	}, testutil.Settle, 20*time.Millisecond, "DropExpired waits for the lock")
	select {
	case r := <-done:
		t.Fatalf("dropped %d partitions while another process held the lock (err %v)", len(r.dropped), r.err)
	default:
	}
	require.Contains(t, partitionNames(t, f, "audit_log"), "audit_log_p202501")

	err = pglock.SessionLockOf(pglock.LockHistory).Unlock(f.Ctx, holder)
	require.NoError(t, err)
	r := <-done
	require.NoError(t, r.err)
	require.Len(t, r.dropped, 2*len(history.Tables), "January and February 2025 of every table")
	require.NotContains(t, partitionNames(t, f, "audit_log"), "audit_log_p202501")
	require.Contains(t, partitionNames(t, f, "audit_log"), "audit_log_p202503")
}
