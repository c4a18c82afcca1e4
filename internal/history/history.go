// Package history keeps the day-keyed history tables bounded: they are
// partitioned by UTC month (migrations/00032_history_partitions.sql),
// EnsurePartitions makes the months ahead, DropExpired detaches and drops
// whole months older than the retention, Oldest says where kept history
// starts. docs/operations.md, "History retention", tells the whole story.
package history

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"fieldbrief/internal/pglock"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tables are the partitioned history tables and their partition columns.
var Tables = []Table{
	{"ff_briefing_revisions", "generated_at"},
	{"ff_briefing_runs", "started_at"},
	{"ff_deliveries", "created_at"},
	{"ff_delivery_attempts", "attempted_at"},
	{"audit_log", "at"},
}

// Table is a history table partitioned by month on Column.
type Table struct{ Name, Column string }

// Ahead is how many months after the current one EnsurePartitions makes:
// with no DEFAULT partition, a row of a month without a partition fails.
const Ahead = 3

// DefaultRetention is HISTORY_RETENTION's default: 400 days.
const DefaultRetention = 400 * 24 * time.Hour

// MinRetention is the shortest retention accepted: more than a month, so
// the current month and the one before are never dropped.
const MinRetention = 35 * 24 * time.Hour

// DB is what the functions here need: a pool (*pgxpool.Pool). DropExpired
// runs statements that cannot run in a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Pool is what dropping partitions needs: the statements, and a
// connection of its own to hold the lock that lets one process drop at a
// time.
type Pool interface {
	DB
	Acquire(ctx context.Context) (*pgxpool.Conn, error)
}

// DatabaseNow is the database's clock, what retention measures from: a
// host whose clock runs ahead must not drop a month still kept
// (docs/scheduling.md, "One clock").
func DatabaseNow(ctx context.Context, db Querier) (time.Time, error) {
	rows, err := db.Query(ctx, `SELECT now()`)
	if err != nil {
		return time.Time{}, fmt.Errorf("history: the database's clock: %w", err)
	}
	now, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[time.Time])
	if err != nil {
		return time.Time{}, fmt.Errorf("history: the database's clock: %w", err)
	}
	return now, nil
}

// Querier is what reading the partitions needs: a pool, a transaction, or
// a web request's read transaction (database.Reader), so that a page asks
// on the connection it already holds (behind a pooler, a second one may
// never come: docs/scaling.md).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// retentionLock serializes EnsurePartitions (the same purpose's
// transaction lock) and DropExpired (this session lock) across processes.
var retentionLock = pglock.SessionLockOf(pglock.LockHistory)

// Month is the first instant (UTC) of t's month.
func Month(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// PartitionName is the partition of table for the month starting at m.
func PartitionName(table string, m time.Time) string {
	return fmt.Sprintf("%s_p%s", table, m.UTC().Format("200601"))
}

// monthOf parses the month out of a partition's name; ok is false for a
// table not named by PartitionName.
func monthOf(table, name string) (time.Time, bool) {
	s, found := strings.CutPrefix(name, table+"_p")
	if !found || len(s) != 6 {
		return time.Time{}, false
	}
	if _, err := strconv.Atoi(s); err != nil {
		return time.Time{}, false
	}
	m, err := time.Parse("200601", s)
	if err != nil {
		return time.Time{}, false
	}
	return m, true
}

// EnsurePartitions makes the partitions of every history table for now's
// month and the Ahead months after it, those missing only. It is
// idempotent, and safe to run concurrently: one transaction-scoped
// advisory lock orders the callers. It returns the partitions it created.
func EnsurePartitions(ctx context.Context, db DB, now time.Time) (created []string, err error) {
	return EnsureMonths(ctx, db, Month(now), Month(now).AddDate(0, Ahead, 0))
}

// EnsureMonths makes the missing partitions of every history table for
// the months from's through to's, as EnsurePartitions does.
func EnsureMonths(ctx context.Context, db DB, from, to time.Time) (created []string, err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("history partitions: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// Creating a partition locks its parent briefly; never queue behind a
	// long query for long (the next run retries).
	if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '10s'`); err != nil {
		return nil, fmt.Errorf("history partitions: %w", err)
	}
	if err := pglock.XactLock(ctx, tx, pglock.LockHistory, 0); err != nil {
		return nil, fmt.Errorf("history partitions: take the lock: %w", err)
	}
	for _, t := range Tables {
		for m := Month(from); !m.After(Month(to)); m = m.AddDate(0, 1, 0) {
			name := PartitionName(t.Name, m)
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
				return nil, fmt.Errorf("history partitions: look up %s: %w", name, err)
			}
			if exists {
				continue
			}
			sql := fmt.Sprintf(`CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s)`,
				pgx.Identifier{name}.Sanitize(), pgx.Identifier{t.Name}.Sanitize(),
				literal(m), literal(m.AddDate(0, 1, 0)))
			if _, err := tx.Exec(ctx, sql); err != nil {
				return nil, fmt.Errorf("history partitions: create %s: %w", name, err)
			}
			created = append(created, name)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("history partitions: commit: %w", err)
	}
	return created, nil
}

// literal is a timestamptz literal for m, independent of the session's TimeZone.
func literal(m time.Time) string {
	return "'" + m.UTC().Format("2006-01-02 15:04:05") + "+00'"
}

// Dropped is one partition DropExpired removed.
type Dropped struct {
	Table, Partition string
	Month            time.Time // the first instant of its month
}

// partition is a month partition of a history table as the catalog has it.
type partition struct {
	table, name string
	month       time.Time
	attached    bool // false: detached (an earlier run stopped before DROP)
	pending     bool // a DETACH … CONCURRENTLY that did not finish
}

// partitions lists the month partitions of every history table, attached
// or left detached by an interrupted DropExpired, oldest first.
func partitions(ctx context.Context, db Querier) ([]partition, error) {
	names := make([]string, len(Tables))
	for i, t := range Tables {
		names[i] = t.Name
	}
	// One statement for every table: a briefing page asks this (Oldest).
	rows, err := db.Query(ctx, `
		SELECT t.name, c.relname, i.inhrelid IS NOT NULL, coalesce(i.inhdetachpending, false)
		  FROM unnest($1::text[]) t(name)
		  JOIN pg_class c ON c.relkind = 'r' AND c.relname LIKE replace(t.name, '_', '\_') || '\_p______'
		  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		  LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = to_regclass(t.name)
		 ORDER BY t.name, c.relname`, names)
	if err != nil {
		return nil, fmt.Errorf("list history partitions: %w", err)
	}
	defer rows.Close()
	var out []partition
	for rows.Next() {
		var p partition
		if err := rows.Scan(&p.table, &p.name, &p.attached, &p.pending); err != nil {
			return nil, fmt.Errorf("list history partitions: %w", err)
		}
		m, ok := monthOf(p.table, p.name)
		if !ok {
			continue
		}
		p.month = m
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list history partitions: %w", err)
	}
	return out, nil
}

// Expired reports whether the month starting at m ends before now −
// retention: every row it can hold is older than the retention.
func Expired(m, now time.Time, retention time.Duration) bool {
	return !m.AddDate(0, 1, 0).After(now.Add(-retention))
}

// DropExpired removes every month partition whose whole range ends before
// now − retention: ALTER TABLE … DETACH PARTITION … CONCURRENTLY (which
// waits for the queries using the table instead of blocking them), then
// DROP TABLE, each its own statement outside a transaction. It finishes
// what an interrupted earlier run left (a pending detach, a detached
// partition not dropped), logs each partition dropped and returns them.
// A retention under MinRetention is refused, nothing dropped.
func DropExpired(ctx context.Context, db Pool, log *slog.Logger, now time.Time, retention time.Duration) (_ []Dropped, err error) {
	if retention < MinRetention {
		return nil, fmt.Errorf("history retention %s is under the minimum %s", retention, MinRetention)
	}
	// One process drops at a time (the daily task on one replica, `web
	// history-retention` by hand): two detaching the same month at once
	// fail. DETACH … CONCURRENTLY cannot run in a transaction, so the lock
	// is a session lock, held on a connection of its own and given back at
	// the end (closing the connection if the unlock fails).
	lock, err := db.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("history retention: a connection for the lock: %w", err)
	}
	defer lock.Release()
	if err := retentionLock.Lock(ctx, lock); err != nil {
		return nil, fmt.Errorf("history retention: take the lock: %w", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if uerr := retentionLock.Unlock(uctx, lock); uerr != nil {
			_ = lock.Conn().Close(uctx) // the session, and its lock, end with it
		}
	}()
	ps, err := partitions(ctx, db)
	if err != nil {
		return nil, err
	}
	var dropped []Dropped
	for _, p := range ps {
		if !Expired(p.month, now, retention) {
			continue
		}
		parent, child := pgx.Identifier{p.table}.Sanitize(), pgx.Identifier{p.name}.Sanitize()
		start := time.Now()
		if p.attached {
			detach := `ALTER TABLE ` + parent + ` DETACH PARTITION ` + child + ` CONCURRENTLY`
			if p.pending {
				detach = `ALTER TABLE ` + parent + ` DETACH PARTITION ` + child + ` FINALIZE`
			}
			if _, err := db.Exec(ctx, detach); err != nil {
				return dropped, fmt.Errorf("detach %s from %s: %w", p.name, p.table, err)
			}
		}
		if _, err := db.Exec(ctx, `DROP TABLE `+child); err != nil {
			return dropped, fmt.Errorf("drop %s: %w", p.name, err)
		}
		d := Dropped{Table: p.table, Partition: p.name, Month: p.month}
		dropped = append(dropped, d)
		log.Info("history partition dropped", "table", p.table, "partition", p.name,
			"month", p.month.Format("2006-01"), "duration", time.Since(start))
	}
	return dropped, nil
}

// Oldest is the first instant of the oldest month still kept: the oldest
// attached partition of any history table. ok is false when there is
// none (a database before migration 00032).
func Oldest(ctx context.Context, db Querier) (time.Time, bool, error) {
	ps, err := partitions(ctx, db)
	if err != nil {
		return time.Time{}, false, err
	}
	var oldest time.Time
	for _, p := range ps {
		if p.attached && !p.pending && (oldest.IsZero() || p.month.Before(oldest)) {
			oldest = p.month
		}
	}
	return oldest, !oldest.IsZero(), nil
}

// ParseRetention reads a retention: a number of days ("400d") or a Go
// duration ("9600h"), at least MinRetention.
func ParseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 100*366 {
			return 0, fmt.Errorf("%q is not a number of days (e.g. 400d) or a duration (e.g. 9600h)", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%q is not a number of days (e.g. 400d) or a duration (e.g. 9600h)", s)
		}
	}
	if d < MinRetention {
		return 0, fmt.Errorf("%q is under the minimum of %d days: the current and the previous month are always kept", s, int(MinRetention/(24*time.Hour)))
	}
	return d, nil
}
