package tick

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
	"fieldbrief/internal/pglock"
	"fieldbrief/internal/schedule"
)

// due is one briefing to create: the org-local date at the tick, in the zone
// that decided it, and the date's scheduled minute (Decision.FireAt).
type due struct {
	OrgID    int64
	Date     schedule.Date
	Timezone string
	FireAt   time.Time
}

// enqueueChunk bounds one transaction: large enough that 100k due orgs take
// 200 transactions, small enough that a transaction stays short.
const enqueueChunk = 500

// enqueueSQL records the scheduled firing of each date. A new date gets its
// row; a date that so far only had "generate now" looks (scheduled_at NULL)
// gets its scheduled firing now, as a new requested revision; a date whose
// scheduled firing happened already is left alone (the WHERE of DO UPDATE):
// the permanent unique key and scheduled_at make a second scheduled firing
// impossible, whatever the number of replicas. Only rows returned get a
// generation task.
// The date and zone of an existing row are never remapped. The zone rules
// that decided ($5, $6) and the scheduled minute the firing is for ($7:
// whether its deliveries are sent, docs/guarantees.md "Late briefings")
// are recorded with the scheduled firing.
const enqueueSQL = `
INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, scheduled_for, trigger, status,
                          requested_revision, created_at, updated_at, tzdata_version, tzdata_source)
SELECT org_id, briefing_date, timezone, $4, $4, scheduled_for, 'schedule', 'pending', 1, $4, $4, $5, $6
  FROM unnest($1::bigint[], $2::date[], $3::text[], $7::timestamptz[]) AS t(org_id, briefing_date, timezone, scheduled_for)
ON CONFLICT (org_id, briefing_date) DO UPDATE
   SET scheduled_at = EXCLUDED.scheduled_at, scheduled_for = EXCLUDED.scheduled_for,
       tzdata_version = EXCLUDED.tzdata_version, tzdata_source = EXCLUDED.tzdata_source,
       requested_revision = ff_briefings.requested_revision + 1,
       status = 'pending', last_error = '', updated_at = EXCLUDED.updated_at
 WHERE ff_briefings.scheduled_at IS NULL
RETURNING id, org_id, requested_revision, briefing_date, timezone`

// enqueue records the scheduled firing of items and inserts their generation
// tasks, one transaction per chunk, and returns the briefings it fired. Items
// must be sorted by org id so that concurrent replicas take the unique key's
// locks in the same order and never deadlock.
//
// Each transaction holds the firing lock of the orgs it fires
// (updates.HoldFirings): a job write in progress holds it shared, and a
// firing is recorded only once such a write has committed, so the write
// is in the generation's snapshot or has seen the firing and records its
// changes (docs/worker.md, "Updates after sending"). A chunk does
// not wait for one busy org: it fires the others, and each busy one then
// gets a transaction of its own that waits for its writes, up to lockWait.
func enqueue(ctx context.Context, db *pgxpool.Pool, firedAt time.Time, items []due, lockWait time.Duration) ([]int64, error) {
	tasks, err := database.InsertClient()
	if err != nil {
		return nil, err
	}
	var briefingIDs []int64
	var busy []due
	rules := schedule.CurrentZoneRules() // the rules the tick decided with
	for start := 0; start < len(items); start += enqueueChunk {
		chunk := items[start:min(start+enqueueChunk, len(items))]
		ids, later, err := enqueueChunkTx(ctx, db, tasks, firedAt, rules, chunk, 0)
		if err != nil {
			return briefingIDs, fmt.Errorf("enqueue briefings for orgs %d..%d: %w", chunk[0].OrgID, chunk[len(chunk)-1].OrgID, err)
		}
		briefingIDs = append(briefingIDs, ids...)
		busy = append(busy, later...)
	}
	for _, it := range busy {
		ids, _, err := enqueueChunkTx(ctx, db, tasks, firedAt, rules, []due{it}, lockWait)
		if err != nil {
			return briefingIDs, fmt.Errorf("enqueue the briefing of org %d: %w", it.OrgID, err)
		}
		briefingIDs = append(briefingIDs, ids...)
	}
	return briefingIDs, nil
}

// tickHintWriterSQL tells the ff_briefings triggers of the transaction
// that the tick writes its firings' hints itself. A SET LOCAL, not
// set_config: on Citus the triggers run on the workers' shards, and only a
// SET LOCAL reaches them (propagated; on plain PostgreSQL the citus.*
// setting is an unused placeholder). With set_config every org the tick
// fired on Citus had its hint reset behind the tick, and was read again
// the next minute (docs/scaling.md, "What the real cluster refused").
const tickHintWriterSQL = `SET LOCAL citus.propagate_set_commands = 'local'; SET LOCAL fieldbrief.hint_writer = 'tick'`

// enqueueChunkTx inserts the briefings and their generation tasks in one
// transaction: a scheduled firing never exists without its task. It first
// takes the items' firing locks: with a wait, waiting for them up to it;
// with none (0), it leaves out and returns the items whose lock a job write
// holds.
func enqueueChunkTx(ctx context.Context, db *pgxpool.Pool, tasks *river.Client[pgx.Tx], firedAt time.Time, rules *schedule.ZoneRules,
	items []due, wait time.Duration) (briefingIDs []int64, busy []due, err error) {
	err = database.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		// The firings this transaction records need not invalidate their
		// orgs' hints: a firing keeps its org's minute, and the tick stores
		// any hint it computed with these dates itself (migrations 00013,
		// 00050; docs/scheduling.md, "The next-fire hint").
		if _, err := tx.Exec(ctx, tickHintWriterSQL); err != nil {
			return err
		}
		ready, err := lockFirings(ctx, tx, items, wait)
		if err != nil {
			return err
		}
		for _, it := range items {
			if !ready[it.OrgID] {
				busy = append(busy, it)
			}
		}
		if len(busy) == len(items) {
			return nil
		}
		orgIDs := make([]int64, 0, len(items))
		dates := make([]time.Time, 0, len(items))
		zones := make([]string, 0, len(items))
		fireAts := make([]time.Time, 0, len(items))
		for _, it := range items {
			if ready[it.OrgID] {
				orgIDs, dates, zones, fireAts = append(orgIDs, it.OrgID), append(dates, it.Date.Time()), append(zones, it.Timezone), append(fireAts, it.FireAt)
			}
		}
		rows, err := tx.Query(ctx, enqueueSQL, orgIDs, dates, zones, firedAt, rules.Version, rules.Source, fireAts)
		if err != nil {
			return err
		}
		var args []river.InsertManyParams
		var id, orgID int64
		var revision int
		var date time.Time
		var zone string
		_, err = pgx.ForEachRow(rows, []any{&id, &orgID, &revision, &date, &zone}, func() error {
			briefingIDs = append(briefingIDs, id)
			// No ScheduledAt: tasks run on the real clock, whatever instant
			// decided the tick (worker -once -now). The row's own date and
			// zone (a "generate now" row keeps its zone) let the generation
			// read it and the day in one round trip.
			args = append(args, river.InsertManyParams{Args: briefing.GenerateBriefingArgs{
				OrgID: orgID, BriefingID: id, Revision: revision, Trigger: briefing.TriggerSchedule, Deliver: true,
				Date: schedule.DateOf(date).String(), Timezone: zone}})
			return nil
		})
		if err != nil || len(args) == 0 {
			return err
		}
		if _, err := tasks.InsertManyTx(ctx, tx, args); err != nil {
			return fmt.Errorf("insert generation tasks: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return briefingIDs, busy, nil
}

// defaultFiringLockWait is how long the tick waits for a job write that
// holds an org's firing lock (a CSV import of 50,000 rows saves in a few
// seconds).
const defaultFiringLockWait = 30 * time.Second

// lockFirings takes the firing locks of items' orgs for the rest of tx,
// exclusively, and returns the orgs it holds: with a wait all of them, one
// after the other in the items' order (sorted: no deadlock between
// replicas), or an error once one took longer than wait; with none (0),
// those no job write holds at the moment.
func lockFirings(ctx context.Context, tx pgx.Tx, items []due, wait time.Duration) (map[int64]bool, error) {
	orgIDs := make([]int64, len(items))
	for i, it := range items {
		orgIDs[i] = it.OrgID
	}
	if wait > 0 {
		// A write that holds its org's lock for longer (a connection left
		// idle in its transaction) fails this tick rather than stopping
		// every tick after it: its orgs stay due, and their hints are not
		// stored, so the next tick tries again.
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, fmt.Sprintf("%dms", wait.Milliseconds())); err != nil {
			return nil, fmt.Errorf("firing lock timeout: %w", err)
		}
	}
	held, err := pglock.XactLockEach(ctx, tx, pglock.LockFirings, orgIDs, wait > 0)
	if err != nil {
		return nil, fmt.Errorf("firing locks: %w", err)
	}
	out := make(map[int64]bool, len(held))
	for _, id := range held {
		out[id] = true
	}
	return out, nil
}
