package briefing

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/schedule"
)

// tickLockKey is the advisory lock that lets one replica at a time scan. It
// saves work only; the unique key is what prevents duplicates.
const tickLockKey int64 = 0x6662_7469_636b // "fbtick"

// Ticker runs the tick (docs/architecture.md, "The tick"): candidate scan,
// Go-side decision, enqueue.
type Ticker struct {
	DB      *pgxpool.Pool
	Jobs    *river.Client[pgx.Tx] // inserts the generation jobs; an insert-only client will do
	Log     *slog.Logger          // required
	Metrics *Metrics              // optional

	// WaitLock waits for the tick lock instead of skipping the tick when
	// another replica holds it: cmd/worker -once must run its tick.
	WaitLock bool
	// NoLock skips the advisory lock, so tests can show the unique key alone
	// keeps concurrent ticks from creating duplicates.
	NoLock bool

	mu     sync.Mutex
	parsed map[string]parsedConfig // by config document, as of the last tick
}

// parsedConfig is a config document's schedule, or why it is invalid.
type parsedConfig struct {
	schedule schedule.Schedule
	err      error
}

// TickResult is what one tick saw and did.
type TickResult struct {
	Now        time.Time
	Ran        bool // false when another replica held the tick lock
	Candidates int
	Due        int
	Enqueued   int                     // scheduled firings recorded; Due-Enqueued lost a race to another replica
	Skipped    map[schedule.Reason]int // orgs not due, by why; ReasonInvalidConfig: a config that does not validate
	Duration   time.Duration
	// BriefingIDs are the briefings whose scheduled firing this tick
	// recorded, one generation job each.
	BriefingIDs []int64
}

// Tick decides and enqueues every briefing due at now. A bad config skips
// only its org; an error is returned only when the database fails. A lost
// connection reruns the whole attempt (retryTransient): the unique key and
// scheduled_at make a chunk that committed before the loss fire nothing
// twice, and the rerun finds the briefings such a chunk fired (its commit
// may have succeeded unseen), so -once waits for them too.
func (t *Ticker) Tick(ctx context.Context, now time.Time) (res TickResult, err error) {
	start := time.Now()
	defer func() {
		res.Duration = time.Since(start)
		t.Metrics.observeTick(res, err)
		t.logResult(res, err)
	}()
	fired := map[int64]bool{}
	attempt := 0
	err = retryTransient(ctx, t.Log, "briefing tick", func(ctx context.Context) error {
		attempt++
		res = TickResult{Now: now, Skipped: map[schedule.Reason]int{}}
		err := t.tick(ctx, now, &res, attempt > 1)
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

// tick is one attempt of Tick. rerun: an earlier attempt lost its
// connection, so a chunk of it may have committed without our seeing it.
func (t *Ticker) tick(ctx context.Context, now time.Time, res *TickResult, rerun bool) error {
	if !t.NoLock {
		unlock, ok, err := t.lock(ctx)
		if err != nil || !ok {
			return err
		}
		defer unlock()
	}
	res.Ran = true

	cands, err := Candidates(ctx, t.DB, now)
	if err != nil {
		return err
	}
	res.Candidates = len(cands)
	items := t.decide(now, cands, res)
	res.Due = len(items)
	res.BriefingIDs, err = enqueue(ctx, t.DB, t.Jobs, now, items)
	if err != nil || !rerun {
		return err
	}
	// Candidates skips an org whose date was fired already, so look up the
	// orgs fired at this very instant: scheduled_at is set once per date.
	orgIDs := make([]int64, 0, len(cands))
	for _, c := range cands {
		orgIDs = append(orgIDs, c.OrgID)
	}
	rows, err := t.DB.Query(ctx, `SELECT id FROM ff_briefings WHERE org_id = ANY($1) AND scheduled_at = $2`, orgIDs, now)
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

// decide applies schedule.Decide to every candidate and returns the due
// ones. It remembers the strict config parse (schedule.ParseConfig) from
// one tick to the next: configs rarely change, and parsing is ~98% of
// the cost of a decision (which matters at 100k orgs a minute).
func (t *Ticker) decide(now time.Time, cands []Candidate, res *TickResult) []due {
	t.mu.Lock()
	defer t.mu.Unlock()
	next := make(map[string]parsedConfig, len(cands))
	var items []due
	for _, c := range cands {
		p, ok := t.parsed[string(c.Config)]
		if !ok {
			p = parseConfig(c.Config)
		}
		next[string(c.Config)] = p
		if p.err != nil {
			res.Skipped[schedule.ReasonInvalidConfig]++
			t.Log.Warn("briefing config invalid, org skipped", "org_id", c.OrgID, "error", p.err)
			continue
		}
		d := schedule.Decide(now, p.schedule, func(d schedule.Date) bool { return slices.Contains(c.Dates, d) })
		if !d.Due() {
			res.Skipped[d.Reason]++
			continue
		}
		items = append(items, due{OrgID: c.OrgID, Date: d.Date, Timezone: p.schedule.Zone.Name})
	}
	t.parsed = next // only the current configs: the memo never outgrows the candidate set
	return items
}

func parseConfig(raw []byte) parsedConfig {
	_, s, err := schedule.ParseConfig(raw)
	return parsedConfig{schedule: s, err: err}
}

// lock takes the tick lock on a dedicated connection: session advisory locks
// belong to a connection, so the unlock must run on the same one.
func (t *Ticker) lock(ctx context.Context) (unlock func(), ok bool, err error) {
	conn, err := t.DB.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("acquire connection for tick lock: %w", err)
	}
	lockSQL := `SELECT pg_try_advisory_lock($1)`
	if t.WaitLock {
		lockSQL = `SELECT true FROM pg_advisory_lock($1)`
	}
	if err := conn.QueryRow(ctx, lockSQL, tickLockKey).Scan(&ok); err != nil || !ok {
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
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, tickLockKey); err != nil {
			t.Log.Warn("release tick lock", "error", err)
			_ = conn.Conn().Close(ctx)
		}
		conn.Release()
	}, true, nil
}

// maxLoggedBriefingIDs keeps the tick's log line readable when thousands of
// orgs share a schedule minute.
const maxLoggedBriefingIDs = 50

func (t *Ticker) logResult(r TickResult, err error) {
	attrs := []any{
		"now", r.Now, "ran", r.Ran, "candidates", r.Candidates, "due", r.Due, "enqueued", r.Enqueued,
		"skipped", r.Skipped, "invalid_configs", r.Skipped[schedule.ReasonInvalidConfig], "duration_ms", float64(r.Duration.Microseconds()) / 1000,
		"briefing_ids", r.BriefingIDs[:min(len(r.BriefingIDs), maxLoggedBriefingIDs)], // the count is "enqueued"
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
