package tick

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// hintBatch holds the next-fire hints a tick computed (docs/scheduling.md,
// "The next-fire hint"), each to store where its org's hint version is
// still the one the scan read: 24 bytes a hint, in fixed blocks. A fresh
// deployment's first full scan computes one for every org, and a slice
// grown by doubling would hold up to three times that while it copies
// (docs/benchmarks.md, "Figures that explained a choice in the code").
type hintBatch struct {
	blocks [][]hintRow
	n      int
}

type hintRow struct {
	orgID, version int64
	until          int64 // microseconds since the Unix epoch; hintNever: infinity
	minute         int16 // noMinute: never fires
}

// noMinute stands for a NULL fire_minute: the org never fires.
const noMinute = -1

const hintBlock = 8192

// hintNever stands for 'infinity': no firing until something changes.
const hintNever = math.MaxInt64

func (b *hintBatch) len() int { return b.n }

func (b *hintBatch) row(i int) *hintRow { return &b.blocks[i/hintBlock][i%hintBlock] }

// sort puts the batch in org id order. The full scan adds in table order
// (nearly sorted); the hinted one in index order.
func (b *hintBatch) sort() {
	if !sort.IsSorted((*byOrg)(b)) {
		sort.Sort((*byOrg)(b))
	}
}

type byOrg hintBatch

func (b *byOrg) Len() int { return b.n }
func (b *byOrg) Less(i, j int) bool {
	return (*hintBatch)(b).row(i).orgID < (*hintBatch)(b).row(j).orgID
}
func (b *byOrg) Swap(i, j int) {
	x, y := (*hintBatch)(b).row(i), (*hintBatch)(b).row(j)
	*x, *y = *y, *x
}

// add keeps the hint computed at now (fires false: it never fires) unless
// the stored one already says the same from an instant no later than now.
// Until is truncated to PostgreSQL's microseconds, downwards: a hint may
// end early, never late.
func (b *hintBatch) add(c *Candidate, now time.Time, h schedule.FiringMinute, fires bool) {
	row := hintRow{orgID: c.OrgID, version: c.Hint.Version, until: hintNever, minute: noMinute}
	if fires {
		row.minute = int16(h.Minute)
		if !h.Until.IsZero() {
			row.until = h.Until.UnixMicro() // floors
		}
	}
	stored := c.Hint
	if stored.NextFireAt.Valid && stored.From.Valid && !stored.From.Time.After(now) &&
		stored.Minute.Valid == (row.minute != noMinute) && (row.minute == noMinute || stored.Minute.Int16 == row.minute) {
		if stored.NextFireAt.InfinityModifier == pgtype.Infinity && row.until == hintNever ||
			stored.NextFireAt.InfinityModifier == pgtype.Finite && stored.NextFireAt.Time.UnixMicro() == row.until {
			return
		}
	}
	b.push(row)
}

func (b *hintBatch) push(h hintRow) {
	if b.n%hintBlock == 0 {
		b.blocks = append(b.blocks, make([]hintRow, hintBlock))
	}
	*b.row(b.n) = h
	b.n++
}

// writeHintsSQL stores the hints in one statement. A row whose version
// changed since the scan (a config edit, a flag or briefing change: the
// triggers of migration 00013) keeps its NULL. The rows are not locked
// first (FOR UPDATE SKIP LOCKED): locking cost each row a WAL record and,
// after a checkpoint, a full page image of its own, 4× the update's time
// at a million orgs (docs/scheduling.md, "The next-fire hint"). Without it, a row
// an admin's transaction holds is waited for, then checked again: its new
// version fails the version test and keeps its NULL — unless that
// transaction holds it for longer than hintLockTimeout (a stuck session, a
// forgotten psql BEGIN): then the chunk is written again skipping the
// locked rows (writeHintsSkipLockedSQL, the old form), so one held row can
// neither stall the tick nor cost the other orgs their hints. The same
// fallback answers a deadlock, which the batch's org id order
// (hintBatch.sort) makes unlikely but a multi-row invalidation taking its
// rows in another order could cause.
const writeHintsSQL = `
UPDATE org_module_configs om
   SET next_fire_at = h.next_fire_at, fire_minute = h.fire_minute, hint_from = $2
  FROM unnest($3::bigint[], $4::bigint[], $5::timestamptz[], $6::smallint[]) AS h(org_id, version, next_fire_at, fire_minute)
 WHERE om.module = $1
   AND om.org_id = ANY ($3) -- the primary key's index, however many rows unnest is guessed to give
   AND om.org_id = h.org_id
   AND om.hint_version = h.version`

// writeHintSkipLockedSQL is the fallback, one org at a time: a row locked
// elsewhere keeps the hint it has, which makes it a candidate again if it
// has come. One org per statement, so each is routed to the one shard of
// its org on Citus, which refuses a row lock across shards
// (docs/scaling.md, "What the real cluster refused").
const writeHintSkipLockedSQL = `
UPDATE org_module_configs om
   SET next_fire_at = $5, fire_minute = $6, hint_from = $2
 WHERE om.module = $1 AND om.org_id = $3 AND om.hint_version = $4
   AND om.org_id IN (SELECT l.org_id FROM org_module_configs l
                      WHERE l.module = $1 AND l.org_id = $3
                        FOR UPDATE SKIP LOCKED)`

// hintLockTimeout is how long a hint write waits for a row another
// transaction holds before it falls back to skipping locked rows.
const hintLockTimeout = "1s"

// defaultHintChunk bounds one hint write: a fresh deployment's first full
// scan stores a hint for every org, in statements of this many rows.
const defaultHintChunk = 10_000

// writeHints stores the hints computed at now, chunk to a statement, and
// returns how many it wrote. A hint is advisory, so its transaction commits without waiting
// for its WAL flush (synchronous_commit off): should the server crash
// first, the row keeps the hint it had, which was right when written or
// is NULL, and either only makes the org a candidate again.
func writeHints(ctx context.Context, db *pgxpool.Pool, now time.Time, hints hintBatch, chunk int) (int, error) {
	hints.sort()
	written := 0
	for start := 0; start < hints.len(); start += chunk {
		end := min(start+chunk, hints.len())
		orgIDs := make([]int64, 0, end-start)
		versions := make([]int64, 0, end-start)
		ats := make([]pgtype.Timestamptz, 0, end-start)
		minutes := make([]pgtype.Int2, 0, end-start)
		for i := start; i < end; i++ {
			h := hints.row(i)
			at := pgtype.Timestamptz{Valid: true, InfinityModifier: pgtype.Infinity}
			if h.until != hintNever {
				at = pgtype.Timestamptz{Valid: true, Time: time.UnixMicro(h.until)}
			}
			orgIDs, versions, ats = append(orgIDs, h.orgID), append(versions, h.version), append(ats, at)
			minutes = append(minutes, pgtype.Int2{Int16: h.minute, Valid: h.minute != noMinute})
		}
		args := []any{schedule.Module, now, orgIDs, versions, ats, minutes}
		n, err := writeHintChunk(ctx, db, writeHintsSQL, args)
		var pgErr *pgconn.PgError
		// lock_not_available (hintLockTimeout passed), deadlock_detected
		if errors.As(err, &pgErr) && (pgErr.Code == "55P03" || pgErr.Code == "40P01") {
			n, err = writeHintsSkippingLocked(ctx, db, args)
		}
		if err != nil {
			return written, fmt.Errorf("store next-fire hints: %w", err)
		}
		written += n
	}
	return written, nil
}

// writeHintsSkippingLocked writes a chunk's hints one org per statement,
// all in one round trip and one transaction, skipping rows held elsewhere.
func writeHintsSkippingLocked(ctx context.Context, db *pgxpool.Pool, args []any) (int, error) {
	orgIDs, versions, ats, minutes := args[2].([]int64), args[3].([]int64), args[4].([]pgtype.Timestamptz), args[5].([]pgtype.Int2)
	n := 0
	err := database.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('synchronous_commit', 'off', true)`); err != nil {
			return err
		}
		var b pgx.Batch
		for i := range orgIDs {
			b.Queue(writeHintSkipLockedSQL, args[0], args[1], orgIDs[i], versions[i], ats[i], minutes[i])
		}
		res := tx.SendBatch(ctx, &b)
		for range orgIDs {
			tag, err := res.Exec()
			if err != nil {
				_ = res.Close()
				return err
			}
			n += int(tag.RowsAffected())
		}
		return res.Close()
	})
	return n, err
}

// writeHintChunk runs one hint statement in its own transaction.
func writeHintChunk(ctx context.Context, db *pgxpool.Pool, sql string, args []any) (int, error) {
	var n int64
	err := database.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		// On Citus a SET LOCAL reaches the workers' shards only when
		// propagated; on plain PostgreSQL the citus.* setting is an
		// unused placeholder (docs/scaling.md, "What the real cluster refused").
		if _, err := tx.Exec(ctx, `SET LOCAL citus.propagate_set_commands = 'local'; SET LOCAL lock_timeout = '`+hintLockTimeout+`'`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT set_config('synchronous_commit', 'off', true)`); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, sql, args...)
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}
