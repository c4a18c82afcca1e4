package tick

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/database"
	"fieldbrief/internal/pglock"
	"fieldbrief/internal/schedule"
)

// tickLock is the advisory lock that lets one replica at a time scan. It
// saves work only; the unique key is what prevents duplicates.
var tickLock = pglock.SessionLockOf(pglock.LockTick)

// Ticker runs the tick (docs/scheduling.md, "The tick"): candidate scan,
// Go-side decision, enqueue.
type Ticker struct {
	DB      *pgxpool.Pool
	Log     *slog.Logger // required
	Metrics *Metrics     // optional

	// WaitLock waits for the tick lock instead of skipping the tick when
	// another replica holds it: cmd/worker -once must run its tick.
	WaitLock bool
	// NoHintWrites leaves the stored hints as they are: worker -once sets
	// it. Its one tick is a full scan whatever the hints say, so the hints
	// it would write serve only a long-running worker, which writes its own
	// on its first tick; at 100k orgs with none stored, writing them was
	// most of a cold -once's time (docs/scheduling.md, "The next-fire
	// hint"). A hint left early is always safe: it only makes a candidate.
	NoHintWrites bool
	// FullScanEvery is how often, in tick time, a tick reads every org (the
	// plain candidate query) instead of the hinted scan, and checks that the
	// two agree: the safety net (docs/scheduling.md, "The next-fire
	// hint"). The first tick of a Ticker always does. 0 means
	// DefaultFullScanEvery.
	FullScanEvery time.Duration

	// hintChunk is how many hints one statement writes; 0 means
	// defaultHintChunk.
	hintChunk int
	// firingLockWait is how long the tick waits for a job write holding an
	// org's firing lock before it fails; 0 means defaultFiringLockWait.
	firingLockWait time.Duration

	mu       sync.Mutex
	memo     map[string]*configMemo // by config document (ConfigColumns.appendKey)
	lastFull time.Time              // the instant of the last full scan; zero: none yet
	// covered is the instant of this Ticker's last tick that decided every
	// org due then (a full scan, or a hinted one of every firing minute
	// since the one before) with the global switch on; zero: none yet. The
	// next hinted tick reads the firing minutes after it
	// (docs/scheduling.md, "The next-fire hint"). A failed tick, or one
	// that found the switch off, leaves it: an org due meanwhile is still
	// due, and the next tick reads its minute.
	covered time.Time
}

// chunk is how many hints one statement writes.
func (t *Ticker) chunk() int { return cmp.Or(t.hintChunk, defaultHintChunk) }

// DefaultFullScanEvery is how often the safety net runs by default.
const DefaultFullScanEvery = time.Hour

// The tick's two scans, as logged and counted.
const (
	PathHinted = "hinted" // orgs whose hint is unknown, has come, or was computed after now
	PathFull   = "full"   // every org (the safety net), checked against the hinted scan
)

// Result is what one tick saw and did.
type Result struct {
	Now        time.Time
	Ran        bool // false when another replica held the tick lock
	Candidates int
	Due        int
	Enqueued   int                     // scheduled firings recorded; Due-Enqueued lost a race to another replica
	Skipped    map[schedule.Reason]int // orgs not due, by why; ReasonInvalidConfig: a config that does not validate
	Duration   time.Duration
	// BriefingIDs are the briefings whose scheduled firing this tick
	// recorded, one generation task each.
	BriefingIDs []int64

	Path         string // PathHinted or PathFull
	HintsWritten int    // next-fire hints stored
	// Full scans only: orgs due that the hinted scan at the same instant
	// and snapshot did not return (MissedByHint), and orgs not due whose
	// stored hint would not have them read at their next firing (LateHints). Either is
	// a bug (or new zone rules); the full scan fires what is due anyway.
	MissedByHint []int64
	LateHints    []int64
}

// Tick decides and enqueues every briefing due at now. A bad config skips
// only its org; an error is returned only when the database fails. A lost
// connection reruns the whole attempt (database.RetryTransient): the unique
// key and scheduled_at make a chunk that committed before the loss fire
// nothing twice, and the rerun finds the briefings such a chunk fired (its
// commit may have succeeded unseen), so -once waits for them too.
func (t *Ticker) Tick(ctx context.Context, now time.Time) (Result, error) {
	return t.run(ctx, now, t.lockedTick)
}

// run runs the tick at now with step, which is one attempt: the tick lock
// and the tick (lockedTick), or the tick alone (tick).
func (t *Ticker) run(ctx context.Context, now time.Time, step func(ctx context.Context, now time.Time, res *Result, dueBefore *[]int64) error) (res Result, err error) {
	start := time.Now()
	defer func() {
		res.Duration = time.Since(start)
		t.Metrics.observeTick(res, err)
		t.logResult(res, err)
	}()
	fired := map[int64]bool{}
	var dueBefore []int64 // the orgs earlier attempts found due: what a lost attempt may have fired
	err = database.RetryTransient(ctx, t.Log, "briefing tick", func(ctx context.Context) error {
		res = Result{Now: now, Skipped: map[schedule.Reason]int{}}
		err := step(ctx, now, &res, &dueBefore)
		for _, id := range res.BriefingIDs {
			fired[id] = true
		}
		return err
	})
	res.BriefingIDs = res.BriefingIDs[:0]
	for id := range fired {
		res.BriefingIDs = append(res.BriefingIDs, id)
	}
	slices.Sort(res.BriefingIDs)
	res.Enqueued = len(res.BriefingIDs)
	return res, err
}

// lockedTick is one attempt of Tick: the tick, while this replica holds the
// tick lock; nothing when another one does.
func (t *Ticker) lockedTick(ctx context.Context, now time.Time, res *Result, dueBefore *[]int64) error {
	unlock, ok, err := t.lock(ctx)
	if err != nil || !ok {
		return err
	}
	defer unlock()
	return t.tick(ctx, now, res, dueBefore)
}

// tick is the tick's work, without the lock, which saves work only: the
// unique key and scheduled_at fire nothing twice whatever runs at once.
// dueBefore holds the orgs earlier attempts found due (it adds its own):
// when an earlier attempt lost its connection, a chunk of theirs may have
// committed without our seeing it.
func (t *Ticker) tick(ctx context.Context, now time.Time, res *Result, dueBefore *[]int64) error {
	res.Ran = true

	full := t.fullScanDue(now)
	d, err := t.scanAndDecide(ctx, now, full, res)
	if err != nil {
		return err
	}
	res.Due = len(d.items)
	rerun := len(*dueBefore) > 0
	for _, it := range d.items {
		*dueBefore = append(*dueBefore, it.OrgID)
	}
	res.BriefingIDs, err = enqueue(ctx, t.DB, now, d.items, cmp.Or(t.firingLockWait, defaultFiringLockWait))
	if err != nil {
		return err
	}
	t.decided(d)
	if !t.NoHintWrites {
		// A hint is advisory: one not stored leaves its org a candidate,
		// so a failed write is logged and the tick goes on (its firings
		// are enqueued, and a full scan counts as done).
		if res.HintsWritten, err = d.storeHints(ctx); err != nil {
			if ctx.Err() != nil {
				return err
			}
			t.Log.Warn("next-fire hints not all stored; those orgs stay candidates", "now", now,
				"hints", d.hints.len()+d.dueHints.len(), "written", res.HintsWritten, "error", err)
		}
	}
	if full {
		t.mu.Lock()
		t.lastFull = now
		t.mu.Unlock()
	}
	if !rerun {
		return nil
	}
	// The scan skips an org whose date was fired already, so look up the
	// briefings of the orgs earlier attempts found due fired at this very
	// instant: scheduled_at is set once per date.
	rows, err := t.DB.Query(ctx, `SELECT id FROM ff_briefings WHERE org_id = ANY($1) AND scheduled_at = $2`, *dueBefore, now)
	if err != nil {
		return fmt.Errorf("briefings fired by a lost attempt: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("briefings fired by a lost attempt: %w", err)
	}
	res.BriefingIDs = append(res.BriefingIDs, ids...)
	return nil
}

// decided records that the tick of d has fired every org it found due:
// with the switch on, every firing minute up to its now is covered.
func (t *Ticker) decided(d *decider) {
	if !d.switchOn {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.covered = d.now
}

// fullScanDue reports whether the tick at now is a full scan: the first of
// this Ticker, or FullScanEvery after the last one (either way, for a clock
// moved back).
func (t *Ticker) fullScanDue(now time.Time) bool {
	every := cmp.Or(t.FullScanEvery, DefaultFullScanEvery)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastFull.IsZero() || now.Sub(t.lastFull).Abs() >= every
}

// scanAndDecide runs the tick's scan, hinted or full, deciding each
// candidate as it arrives.
func (t *Ticker) scanAndDecide(ctx context.Context, now time.Time, full bool, res *Result) (*decider, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.newDecider(now, res, full)
	if !full {
		res.Path = PathHinted
		if err := t.hintedScan(ctx, now, d); err != nil {
			return nil, err
		}
		return d, nil
	}
	res.Path = PathFull
	if !t.NoHintWrites {
		d.flush = func(b hintBatch) {
			n, err := writeHints(ctx, t.DB, now, b, t.chunk())
			d.flushed += n
			if err != nil && ctx.Err() == nil {
				t.Log.Warn("next-fire hints not all stored; those orgs stay candidates", "now", now,
					"hints", b.len(), "written", n, "error", err)
			}
		}
	}
	err := t.fullScan(ctx, now, d)
	return d, err
}

// fullScan is the safety net: the full scan and its decisions, and, on
// the same snapshot, which of the due orgs the hinted scan returns: any
// other is a disagreement (res.MissedByHint), caused by the hints, not by a
// change in between. The caller holds t.mu.
func (t *Ticker) fullScan(ctx context.Context, now time.Time, d *decider) error {
	return database.BeginTxFunc(ctx, t.DB, scanTx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, switchOnSQL, schedule.FlagKey).Scan(&d.switchOn); err != nil || !d.switchOn {
			return err
		}
		if err := eachCandidate(ctx, tx, now, nil, d.count); err != nil {
			return err
		}
		d.finish()
		ids := make([]int64, len(d.items))
		for i, it := range d.items {
			ids[i] = it.OrgID
		}
		rows, err := tx.Query(ctx, hintedDueSQL, schedule.Module, schedule.FlagKey, now, ids, firingMinutes(t.covered, now))
		if err != nil {
			return fmt.Errorf("hinted scan of the due orgs: %w", err)
		}
		hinted, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("hinted scan of the due orgs: %w", err)
		}
		slices.Sort(hinted)
		for _, id := range ids {
			if _, found := slices.BinarySearch(hinted, id); !found {
				d.res.MissedByHint = append(d.res.MissedByHint, id)
			}
		}
		return nil
	})
}

// scanTx is the scans' transaction: the switch and the rows of one snapshot.
var scanTx = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// hintedScan reads and decides the orgs whose firing minute came since the
// last covered tick, or whose hint is unknown or ended, and the global
// switch in the same snapshot: a scan that saw the switch off read
// nothing, and covers nothing. The caller holds t.mu.
func (t *Ticker) hintedScan(ctx context.Context, now time.Time, d *decider) error {
	return database.BeginTxFunc(ctx, t.DB, scanTx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, switchOnSQL, schedule.FlagKey).Scan(&d.switchOn); err != nil || !d.switchOn {
			return err
		}
		if err := eachCandidate(ctx, tx, now, firingMinutes(t.covered, now), d.count); err != nil {
			return err
		}
		d.finish()
		return nil
	})
}

// lock takes the tick lock on a dedicated connection: session advisory locks
// belong to a connection, so the unlock must run on the same one.
func (t *Ticker) lock(ctx context.Context) (unlock func(), ok bool, err error) {
	conn, err := t.DB.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("acquire connection for tick lock: %w", err)
	}
	if t.WaitLock {
		ok, err = true, tickLock.Lock(ctx, conn)
	} else {
		ok, err = tickLock.TryLock(ctx, conn)
	}
	if err != nil || !ok {
		conn.Release()
		if err != nil {
			return nil, false, fmt.Errorf("take tick lock: %w", err)
		}
		return nil, false, nil
	}
	return func() {
		// Unlock even when the tick's context is done; a connection that
		// can't unlock is closed, which releases the lock with the session.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := tickLock.Unlock(ctx, conn); err != nil {
			t.Log.Warn("release tick lock", "error", err)
			_ = conn.Conn().Close(ctx)
		}
		conn.Release()
	}, true, nil
}

// maxLoggedBriefingIDs keeps the tick's log line readable when thousands of
// orgs share a schedule minute.
const maxLoggedBriefingIDs = 50

func (t *Ticker) logResult(r Result, err error) {
	attrs := []any{
		"now", r.Now, "ran", r.Ran, "candidates", r.Candidates, "due", r.Due, "enqueued", r.Enqueued,
		"skipped", r.Skipped, "invalid_configs", r.Skipped[schedule.ReasonInvalidConfig], "duration_ms", float64(r.Duration.Microseconds()) / 1000,
		"briefing_ids", r.BriefingIDs[:min(len(r.BriefingIDs), maxLoggedBriefingIDs)], // the count is "enqueued"
		"path", r.Path, "hints_written", r.HintsWritten,
	}
	if r.Path == PathFull {
		attrs = append(attrs, "missed_by_hint", len(r.MissedByHint), "late_hints", len(r.LateHints))
	}
	if len(r.MissedByHint)+len(r.LateHints) > 0 {
		t.Log.Error("next-fire hints disagree with the full scan; the full scan's decisions were used",
			"now", r.Now, "missed_by_hint", len(r.MissedByHint), "late_hints", len(r.LateHints),
			"missed_org_ids", r.MissedByHint[:min(len(r.MissedByHint), maxLoggedBriefingIDs)],
			"late_org_ids", r.LateHints[:min(len(r.LateHints), maxLoggedBriefingIDs)])
	}
	switch {
	case err != nil:
		t.Log.Error("briefing tick failed", append(attrs, "error", err)...)
	case !r.Ran:
		t.Log.Info("briefing tick skipped: another replica holds the tick lock", attrs...)
	default:
		t.Log.Info("briefing tick", attrs...)
	}
}
