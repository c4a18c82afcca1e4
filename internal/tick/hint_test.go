package tick

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/updates"
)

// hintOf reads an org's stored hint and its version: "NULL" (unknown),
// "infinity" (never fires), or the firings' UTC minute and the hint's end,
// "12:00Z until 2026-11-01T13:00:00Z" ("12:00Z" alone: it never ends).
func (f *fixture) hintOf(q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, orgID int64) (string, int64) {
	f.T.Helper()
	var until *time.Time
	var inf, known bool
	var minute *int
	var version int64
	require.NoError(f.T, q.QueryRow(f.Ctx, `
		SELECT CASE WHEN next_fire_at = 'infinity' THEN NULL ELSE next_fire_at END, coalesce(next_fire_at = 'infinity', false),
		       hint_from IS NOT NULL, fire_minute, hint_version
		  FROM org_module_configs WHERE org_id = $1 AND module = 'fieldforce'`, orgID).Scan(&until, &inf, &known, &minute, &version))
	switch {
	case inf && (!known || minute == nil):
		return "infinity", version
	case !inf && until == nil:
		return "NULL", version
	case minute == nil:
		return "until " + until.UTC().Format(time.RFC3339), version
	}
	h := fmt.Sprintf("%02d:%02dZ", *minute/60, *minute%60)
	if !inf {
		h += " until " + until.UTC().Format(time.RFC3339)
	}
	return h, version
}

func (f *fixture) hint(orgID int64) string {
	f.T.Helper()
	h, _ := f.hintOf(f.DB, orgID)
	return h
}

// hintedTicker is a ticker whose first tick (a full scan) has run at
// first: its later ticks take the hinted path.
func (f *fixture) hintedTicker(first time.Time) *Ticker {
	f.T.Helper()
	tk := f.ticker()
	tk.FullScanEvery = 365 * 24 * time.Hour
	res, err := tk.Tick(f.Ctx, first)
	require.NoError(f.T, err)
	require.Equal(f.T, PathFull, res.Path)
	return tk
}

func tickAt(t *testing.T, tk *Ticker, now time.Time) Result {
	t.Helper()
	res, err := tk.Tick(t.Context(), now)
	require.NoError(t, err)
	return res
}

// The tick stores each org's next firing; a hinted tick reads only the orgs
// whose instant has come, and an org it fires ends with the next day's hint.
func TestHintStoredAndUsed(t *testing.T) {
	hintStoredAndUsed(setup(t))
}

// hintStoredAndUsed is the test on f's database (one node, or a Citus
// cluster: citus_test.go, where the enqueue's hint_writer setting must
// reach the shards' triggers for the fired org to keep its hint).
func hintStoredAndUsed(f *fixture) {
	t := f.T
	ny := f.Org("ny", config("America/New_York", "08:00")) // 12:00Z
	paris := f.Org("paris", config("Europe/Paris", "09:00"))
	paused := f.Org("paused", `{"briefing": {"timezone": "UTC", "schedule_local_time": "09:00", "enabled": false}}`)
	invalid := f.Org("invalid", config("Mars/Olympus_Mons", "08:00"))
	require.Equal(t, "NULL", f.hint(ny))

	tk := f.hintedTicker(utc("2026-03-10T11:00:00Z")) // Paris fired at 08:00Z already: 12:00 there
	require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(ny), "New York's minute until its first firing in winter time")
	require.Equal(t, "08:00Z until 2026-03-29T07:00:00Z", f.hint(paris), "Paris's until its first in summer time")
	require.Equal(t, "infinity", f.hint(paused))
	require.Equal(t, "infinity", f.hint(invalid))

	res := tickAt(t, tk, utc("2026-03-10T11:59:00Z"))
	require.Equal(t, PathHinted, res.Path)
	require.Zero(t, res.Candidates)

	res = tickAt(t, tk, utc("2026-03-10T12:00:00Z"))
	require.Equal(t, 1, res.Candidates)
	require.Equal(t, 1, res.Enqueued)
	require.Zero(t, res.HintsWritten, "a firing writes no hint")
	require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(ny), "the org just fired keeps its hint, not NULL")
	require.Zero(t, tickAt(t, tk, utc("2026-03-10T12:01:00Z")).Candidates)
	// A day later: every minute since the last tick is read, so Paris
	// (08:00Z, a tick missed) fires late and New York at its minute.
	res = tickAt(t, tk, utc("2026-03-11T12:00:00Z"))
	require.Equal(t, 2, res.Enqueued)
	require.Zero(t, res.HintsWritten)
}

// Each change that can move an org's next firing makes its hint NULL in
// the transaction that makes it (migration 00013's triggers), and the next
// hinted tick decides what the full scan would.
func TestHintInvalidation(t *testing.T) {
	t.Parallel()
	start := utc("2026-03-10T10:00:00Z") // 06:00 in New York
	// inTxTo: the change leaves the hint at want ("NULL", or "infinity" for
	// an org whose own override is now off: it can't fire until that
	// changes) with a new version, in the changing transaction.
	inTxTo := func(f *fixture, org int64, want string, change func(tx pgx.Tx)) {
		f.T.Helper()
		require.NotEqual(f.T, "NULL", f.hint(org))
		tx, err := f.DB.Begin(f.Ctx)
		require.NoError(f.T, err)
		defer func() { _ = tx.Rollback(f.Ctx) }()
		_, before := f.hintOf(tx, org)
		change(tx)
		h, after := f.hintOf(tx, org)
		require.Equal(f.T, want, h, "the hint in the changing transaction")
		require.NotEqual(f.T, before, after, "a new version")
		require.NoError(f.T, tx.Commit(f.Ctx))
	}
	inTx := func(f *fixture, org int64, change func(tx pgx.Tx)) {
		f.T.Helper()
		inTxTo(f, org, "NULL", change)
	}
	exec := func(f *fixture, tx pgx.Tx, sql string, args ...any) {
		f.T.Helper()
		_, err := tx.Exec(f.Ctx, sql, args...)
		require.NoError(f.T, err)
	}

	t.Run("config edit", func(t *testing.T) {
		f := setup(t)
		org := f.Org("ny", config("America/New_York", "08:00"))
		tk := f.hintedTicker(start)
		require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org))
		inTx(f, org, func(tx pgx.Tx) {
			exec(f, tx, `UPDATE org_module_configs SET config_json = $2 WHERE org_id = $1`, org, config("America/New_York", "07:00"))
		})
		require.Equal(t, 1, tickAt(t, tk, utc("2026-03-10T11:00:00Z")).Enqueued, "07:00 New York, before the old hint")
		require.Equal(t, "11:00Z until 2026-11-01T12:00:00Z", f.hint(org))
	})

	t.Run("org override", func(t *testing.T) {
		f := setup(t)
		org := f.Org("ny", config("America/New_York", "08:00"))
		tk := f.hintedTicker(start)
		inTxTo(f, org, "infinity", func(tx pgx.Tx) {
			exec(f, tx, `INSERT INTO org_feature_flags (org_id, key, is_enabled) VALUES ($1, 'fieldforce.briefing', false)`, org)
		})
		res := tickAt(t, tk, utc("2026-03-10T12:00:00Z"))
		require.Zero(t, res.Candidates, "off: not a candidate")
		require.Equal(t, "infinity", f.hint(org), "off: left out by the hint index, not read every minute")
		// A config edit while the override is off keeps it out too.
		_, err := f.DB.Exec(f.Ctx, `UPDATE org_module_configs SET config_json = $2 WHERE org_id = $1`, org, config("America/New_York", "08:00", "mon", "tue", "wed", "thu", "fri", "sat", "sun")) // every day, written out
		require.NoError(t, err)
		require.Equal(t, "infinity", f.hint(org))
		// The row update and delete paths invalidate too.
		f.OrgFlag(org, true)
		require.Equal(t, 1, tickAt(t, tk, utc("2026-03-10T12:05:00Z")).Enqueued, "on again: catches up")
		inTx(f, org, func(tx pgx.Tx) {
			exec(f, tx, `DELETE FROM org_feature_flags WHERE org_id = $1`, org)
		})
		res = tickAt(t, tk, utc("2026-03-10T12:10:00Z"))
		require.Equal(t, 1, res.Candidates)
		require.Zero(t, res.Enqueued)
		require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org))
	})

	t.Run("briefing deleted", func(t *testing.T) {
		f := setup(t)
		org := f.Org("ny", config("America/New_York", "08:00"))
		tk := f.hintedTicker(utc("2026-03-10T12:00:00Z"))
		require.Len(t, f.Briefings(org), 1)
		require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org))
		inTx(f, org, func(tx pgx.Tx) {
			exec(f, tx, `DELETE FROM ff_briefings WHERE org_id = $1`, org)
		})
		res := tickAt(t, tk, utc("2026-03-10T13:00:00Z"))
		require.Equal(t, PathHinted, res.Path)
		require.Equal(t, 1, res.Enqueued, "the date is open again: fired the same day")
		require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org))
	})

	t.Run("briefing inserted or rescheduled", func(t *testing.T) {
		f := setup(t)
		org := f.Org("ny", config("America/New_York", "08:00"))
		f.hintedTicker(start)
		var id int64
		inTx(f, org, func(tx pgx.Tx) {
			require.NoError(t, tx.QueryRow(f.Ctx, `INSERT INTO ff_briefings (org_id, briefing_date, trigger) VALUES ($1, '2026-03-10', 'manual') RETURNING id`, org).Scan(&id))
		})
		f.hintedTicker(start)
		inTx(f, org, func(tx pgx.Tx) {
			exec(f, tx, `UPDATE ff_briefings SET scheduled_at = $2 WHERE id = $1`, id, start)
		})
		tk := f.hintedTicker(start)
		require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org))
		res := tickAt(t, tk, utc("2026-03-10T12:00:00Z"))
		require.Equal(t, 1, res.Candidates)
		require.Zero(t, res.Enqueued, "today's scheduled firing counted")
		inTx(f, org, func(tx pgx.Tx) {
			exec(f, tx, `UPDATE ff_briefings SET briefing_date = '2026-03-09' WHERE id = $1`, id)
		})
	})

	t.Run("new org", func(t *testing.T) {
		f := setup(t)
		f.Org("ny", config("America/New_York", "08:00"))
		tk := f.hintedTicker(start)
		kolkata := f.Org("kolkata", config("Asia/Kolkata", "08:00")) // 02:30Z: passed, not fired
		require.Equal(t, "NULL", f.hint(kolkata))
		res := tickAt(t, tk, utc("2026-03-10T10:01:00Z"))
		require.Equal(t, 1, res.Candidates)
		require.Equal(t, 1, res.Enqueued)
		require.Equal(t, "02:30Z", f.hint(kolkata), "no offset change ahead: a hint without end")
	})

	// The global switch has no trigger: the hint is computed from the config
	// and the fired dates only, which a flip does not change; off, nothing
	// is a candidate; on again, an org whose hint passed meanwhile is one.
	t.Run("global flag", func(t *testing.T) {
		f := setup(t)
		org := f.Org("ny", config("America/New_York", "08:00"))
		later := f.Org("la", config("America/Los_Angeles", "08:00")) // 15:00Z
		tk := f.hintedTicker(start)
		f.GlobalFlag(false)
		require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org), "the kill switch writes no hint")
		require.Zero(t, tickAt(t, tk, utc("2026-03-10T12:00:00Z")).Candidates)
		require.Zero(t, tickAt(t, tk, utc("2026-03-10T13:00:00Z")).Candidates)
		f.GlobalFlag(true)
		at := utc("2026-03-10T13:30:00Z")
		full, err := candidates(f.Ctx, f.DB, at)
		require.NoError(t, err)
		fullDue, _ := f.ticker().decide(at, full, &Result{Skipped: map[schedule.Reason]int{}})
		res := tickAt(t, tk, at)
		require.Equal(t, PathHinted, res.Path)
		require.Equal(t, len(fullDue), res.Enqueued)
		require.Equal(t, 1, res.Enqueued, "catches up the same day")
		require.Equal(t, []string{row("2026-03-10", "America/New_York", "2026-03-10T13:30:00Z")}, f.Briefings(org))
		require.Equal(t, "15:00Z until 2026-11-01T16:00:00Z", f.hint(later))
	})
}

// A hint computed before a change and written after it is refused: the
// version it was read with is gone, and the row keeps its NULL.
func TestHintWriteRefusedAfterChange(t *testing.T) {
	f := setup(t)
	org := f.Org("ny", config("America/New_York", "08:00"))
	now := utc("2026-03-10T10:00:00Z")
	cands, err := candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	tk := f.ticker()
	_, hints := tk.decide(now, cands, &Result{Skipped: map[schedule.Reason]int{}})
	require.Equal(t, 1, hints.len())

	f.SetConfig(org, config("America/New_York", "07:00"))
	n, err := writeHints(f.Ctx, f.DB, now, hints, defaultHintChunk)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, "NULL", f.hint(org))

	cands, err = candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	_, hints = tk.decide(now, cands, &Result{Skipped: map[schedule.Reason]int{}})
	n, err = writeHints(f.Ctx, f.DB, now, hints, defaultHintChunk)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "11:00Z until 2026-11-01T12:00:00Z", f.hint(org))
}

// The safety net: a hint made wrong behind the triggers' back hides a due
// org from the hinted scan; the full scan fires it anyway, logs an error
// naming the org and counts the disagreement.
func TestFullScanCatchesWrongHint(t *testing.T) {
	f := setup(t)
	org := f.Org("ny", config("America/New_York", "08:00"))
	other := f.Org("paris", config("Europe/Paris", "23:00"))
	tk := f.hintedTicker(utc("2026-03-10T10:00:00Z"))
	_, err := f.DB.Exec(f.Ctx, `UPDATE org_module_configs SET fire_minute = 0 WHERE org_id = ANY($1)`, []int64{org, other}) // 00:00Z
	require.NoError(t, err)

	require.Zero(t, tickAt(t, tk, utc("2026-03-10T12:00:00Z")).Candidates, "the hinted scan misses it")

	var logs bytes.Buffer
	metrics := NewMetrics()
	tk.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	tk.Metrics = metrics
	tk.FullScanEvery = time.Minute
	res := tickAt(t, tk, utc("2026-03-10T12:01:00Z"))
	require.Equal(t, PathFull, res.Path)
	require.Equal(t, []int64{org}, res.MissedByHint)
	require.Equal(t, []int64{other}, res.LateHints)
	require.Equal(t, 1, res.Enqueued, "fired from the full scan")
	require.Equal(t, 1.0, counterValue(t, metrics.HintDisagreements.WithLabelValues("missed_due")))
	require.Equal(t, 1.0, counterValue(t, metrics.HintDisagreements.WithLabelValues("late_hint")))
	require.Equal(t, 1.0, counterValue(t, metrics.Scans.WithLabelValues(PathFull)))
	require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org), "corrected")
	require.Equal(t, "22:00Z until 2026-03-29T21:00:00Z", f.hint(other), "corrected")

	found := false
	for line := range bytes.Lines(logs.Bytes()) {
		var entry struct {
			Level        string  `json:"level"`
			MissedOrgIDs []int64 `json:"missed_org_ids"`
		}
		require.NoError(t, json.Unmarshal(line, &entry))
		if entry.Level == "ERROR" {
			require.Equal(t, []int64{org}, entry.MissedOrgIDs)
			found = true
		}
	}
	require.True(t, found, "an ERROR line names the org")
}

// A hint computed at a later instant says nothing about earlier ones: a
// tick at an earlier now (worker -once -now in the past) reads the org.
func TestHintFromLaterInstantIgnored(t *testing.T) {
	f := setup(t)
	org := f.Org("ny", config("America/New_York", "08:00"))
	f.hintedTicker(utc("2026-03-12T13:00:00Z")) // fires the 12th; the hint from then
	require.Equal(t, "12:00Z until 2026-11-01T13:00:00Z", f.hint(org))
	tk := f.ticker()
	tk.FullScanEvery, tk.lastFull = 365*24*time.Hour, utc("2026-03-10T00:00:00Z") // hinted from its first tick
	res := tickAt(t, tk, utc("2026-03-10T12:00:00Z"))
	require.Equal(t, PathHinted, res.Path)
	require.Equal(t, 1, res.Enqueued)
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	return m.GetCounter().GetValue()
}

// A row another transaction holds doesn't stall the hint write: after
// hintLockTimeout the chunk is written again without it, the other orgs
// get their hints and the held one keeps what it had.
func TestHintWriteSkipsRowHeldElsewhere(t *testing.T) {
	hintWriteSkipsRowHeldElsewhere(setup(t))
}

// hintWriteSkipsRowHeldElsewhere is the test on f's database (one node, or
// a Citus cluster: citus_test.go).
func hintWriteSkipsRowHeldElsewhere(f *fixture) {
	t := f.T
	held := f.Org("ny", config("America/New_York", "08:00"))
	free := f.Org("paris", config("Europe/Paris", "08:00"))
	now := utc("2026-03-10T10:00:00Z")
	cands, err := candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	_, hints := f.ticker().decide(now, cands, &Result{Skipped: map[schedule.Reason]int{}})
	require.Equal(t, 2, hints.len())

	tx, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(f.Ctx) }()
	_, err = tx.Exec(f.Ctx, `SELECT 1 FROM org_module_configs WHERE org_id = $1 FOR UPDATE`, held)
	require.NoError(t, err)

	n, err := writeHints(f.Ctx, f.DB, now, hints, defaultHintChunk)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "NULL", f.hint(held))
	require.Equal(t, "07:00Z until 2026-03-29T06:00:00Z", f.hint(free))
}

// A batch larger than a chunk is written whole, a chunk at a time.
func TestHintWriteCrossesChunks(t *testing.T) {
	f := setup(t)
	var orgs []int64
	for i := range 5 {
		orgs = append(orgs, f.Org(fmt.Sprintf("org-%d", i), config("Etc/UTC", fmt.Sprintf("%02d:00", 11+i))))
	}
	now := utc("2026-03-10T10:00:00Z")
	cands, err := candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	_, hints := f.ticker().decide(now, cands, &Result{Skipped: map[schedule.Reason]int{}})
	n, err := writeHints(f.Ctx, f.DB, now, hints, 2)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	for i, org := range orgs {
		require.Equal(t, fmt.Sprintf("%02d:00Z", 11+i), f.hint(org))
	}
}

// A full scan stores the hints of the orgs not due while it streams, a
// chunk at a time, and keeps those of the due orgs until their firing is
// recorded: a hint counting a firing the enqueue then failed to record
// would hide the org until the next full scan.
func TestFullScanStoresHintsAsItStreams(t *testing.T) {
	f := setup(t)
	fired := f.Org("due", config("Etc/UTC", "09:00"))
	var later []int64
	for i := range 5 {
		later = append(later, f.Org(fmt.Sprintf("later-%d", i), config("Etc/UTC", fmt.Sprintf("%02d:00", 11+i))))
	}
	now := utc("2026-03-10T10:00:00Z")
	tk := f.ticker()
	tk.hintChunk = 2
	d, err := tk.scanAndDecide(f.Ctx, now, true, &Result{Skipped: map[schedule.Reason]int{}})
	require.NoError(t, err)
	require.Equal(t, 4, d.flushed, "two chunks of two stored while the scan ran")
	require.Equal(t, 1, d.hints.len())
	require.Equal(t, 1, d.dueHints.len())
	require.Equal(t, "NULL", f.hint(fired), "the due org's hint waits for its firing")

	res := tickAt(t, f.ticker(), now)
	require.Equal(t, PathFull, res.Path)
	require.Equal(t, 1, res.Enqueued)
	require.Equal(t, 2, res.HintsWritten, "the rest were stored by the first scan")
	require.Equal(t, "09:00Z", f.hint(fired))
	for i, org := range later {
		require.Equal(t, fmt.Sprintf("%02d:00Z", 11+i), f.hint(org))
	}
}

// candidates is the full scan kept whole: one row per org that could be
// due at now, in no particular order, whatever its hint says (the tick
// streams it, eachCandidate).
func candidates(ctx context.Context, q database.Querier, now time.Time) ([]Candidate, error) {
	from, _ := scanWindow(now)
	var out []Candidate
	err := eachCandidate(ctx, q, now, nil, func(c *Candidate) error {
		c.Dates = firedDates(from, c.fired)
		c.Config = c.Config.clone()
		out = append(out, *c)
		return nil
	})
	return out, err
}

// decide decides a collected scan (candidates) as the
// tick decides a streamed one, as a full scan does (the memo keeps only
// the documents seen).
func (t *Ticker) decide(now time.Time, cands []Candidate, res *Result) ([]due, hintBatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.newDecider(now, res, true)
	from, _ := scanWindow(now)
	for _, c := range cands {
		c.fired = 0
		for i := range windowDays {
			if slices.Contains(c.Dates, from.AddDays(i)) {
				c.fired |= 1 << i
			}
		}
		_ = d.add(&c)
	}
	d.finish()
	hints := d.hints
	for i := range d.dueHints.len() {
		hints.push(*d.dueHints.row(i))
	}
	return d.items, hints
}

// A hinted tick that fails leaves its minutes to the next: the next tick
// reads every minute since the last tick that fired all it found due, so
// an org whose firing failed is read again, although a firing keeps its
// minute and the next tick's own minute is another.
func TestFailedHintedTickLeavesItsMinutes(t *testing.T) {
	f := setup(t)
	busy := f.Org("busy", config("Etc/UTC", "06:00"))
	free := f.Org("free", config("Etc/UTC", "06:00"))
	tk := f.hintedTicker(utc("2026-03-10T05:00:00Z"))
	tk.firingLockWait = 200 * time.Millisecond
	write, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer write.Rollback(f.Ctx) //nolint:errcheck // rolled back below
	require.NoError(t, updates.HoldFirings(f.Ctx, write, busy))

	_, err = tk.Tick(f.Ctx, utc("2026-03-10T06:00:00Z"))
	require.Error(t, err, "the tick gives up on the stuck write")
	require.Len(t, f.Briefings(free), 1)
	require.NoError(t, write.Rollback(f.Ctx))

	res := tickAt(t, tk, utc("2026-03-10T06:01:00Z"))
	require.Equal(t, PathHinted, res.Path)
	require.Equal(t, 2, res.Candidates, "06:00's orgs read again")
	require.Equal(t, 1, res.Enqueued, "the busy org fires a minute late")
	require.Len(t, f.Briefings(busy), 1)
	require.Zero(t, tickAt(t, tk, utc("2026-03-10T06:02:00Z")).Candidates, "then the minute is covered")
}

func TestFiringMinutes(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { return utc("2026-03-10T" + s + "Z") }
	require.Equal(t, []int16{721}, firingMinutes(at("12:00:00"), at("12:01:00")))
	require.Equal(t, []int16{721}, firingMinutes(at("12:00:00.250"), at("12:01:00.300")), "the database's clock: a minute is read once")
	require.Equal(t, []int16{}, firingMinutes(at("12:01:00.100"), at("12:01:00.900")), "the same minute again")
	require.Equal(t, []int16{1438, 1439, 0, 1}, firingMinutes(at("23:57:30"), utc("2026-03-11T00:01:00Z")), "across midnight")
	require.Len(t, firingMinutes(time.Time{}, at("12:00:00")), 1440, "no covered tick yet")
	require.Len(t, firingMinutes(at("12:00:00"), at("11:00:00")), 1440, "a clock set back")
	require.Len(t, firingMinutes(at("12:00:00"), utc("2026-03-11T12:00:00Z")), 1440, "a day")
}

// clone copies the columns out of the connection's buffer (a test
// keeps them past the scan).
func (c ConfigColumns) clone() ConfigColumns {
	m := c.Members
	return ConfigColumns{Doc: bytes.Clone(c.Doc), Members: schedule.Members{
		Timezone: bytes.Clone(m.Timezone), ScheduleLocalTime: bytes.Clone(m.ScheduleLocalTime),
		Days: bytes.Clone(m.Days), Enabled: bytes.Clone(m.Enabled), Delivery: bytes.Clone(m.Delivery)}}
}

// firedDates lists the window's dates in bits.
func firedDates(from schedule.Date, bits uint8) []schedule.Date {
	out := []schedule.Date{}
	for i := range windowDays {
		if bits&(1<<i) != 0 {
			out = append(out, from.AddDays(i))
		}
	}
	return out
}
