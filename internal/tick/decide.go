package tick

import (
	"cmp"
	"context"
	"slices"
	"time"

	"fieldbrief/internal/schedule"
)

// parsedConfig is a config document's schedule, or why it is invalid.
type parsedConfig struct {
	schedule schedule.Schedule
	err      error
}

// configMemo is what the tick knows of one config document: its strict
// parse, kept from tick to tick (configs rarely change and many orgs share
// one: parsing was ~98% of a decision's cost), and, for the tick at at, the
// decision and hint for each set of fired dates (an org's outcome
// depends on nothing else, so orgs sharing a config and fired dates share
// it: at a million orgs over 7,200 distinct configs, ~10k computations a
// full scan instead of 1M).
type configMemo struct {
	key     string
	parsed  parsedConfig
	seen    time.Time // the last full scan that read it
	at      time.Time // the tick byFired is for
	byFired [1 << windowDays]*outcome
}

// maxMemo bounds the memo: configs are shared by many orgs in practice
// (7,200 or 72,000 distinct among a million in the benchmarks), but a
// delivery member unique to each org would make every document distinct,
// and a memo of a million documents would be most of the worker's memory.
// Past the bound, a document is parsed and decided for its org alone.
const maxMemo = 100_000

// outcome is a decision and the hint that follows it.
type outcome struct {
	decision schedule.Decision
	hint     schedule.FiringMinute // once hinted
	fires    bool                  // false: never, until something changes
	hinted   bool
}

// decider applies schedule.Decide to a tick's candidates one at a time and
// keeps only what the tick needs of them: the due ones, and the next-fire
// hints to store (schedule.NextFiringMinute, counting the dates this tick fires)
// that differ from the stored ones. It uses the Ticker's memo; the caller
// holds t.mu.
type decider struct {
	t      *Ticker
	now    time.Time
	full   bool
	window [windowDays]schedule.Date
	res    *Result
	items  []due
	key    []byte
	// switchOn is the global switch as the scan's snapshot saw it: off,
	// the scan read nothing, and the tick covers no minute (Ticker.covered).
	switchOn bool

	// The hints to store: those of the orgs not due are right whatever the
	// enqueue does, so a full scan stores them as they fill a chunk
	// (flush), while it streams: a fresh deployment's first full scan
	// computes a million, too many to keep to the end (docs/benchmarks.md, "Figures that explained a choice in the code").
	// Those of the due orgs count this tick's firing: they wait for the
	// enqueue (storeHints), so a hint is stored only with what it counts.
	hints    hintBatch
	dueHints hintBatch
	flush    func(hintBatch) // nil: keep every hint until storeHints
	flushed  int             // hints flush stored
}

// storeHints stores the hints the scan kept and returns how many hints
// the tick stored in all.
func (d *decider) storeHints(ctx context.Context) (int, error) {
	n, err := writeHints(ctx, d.t.DB, d.now, d.hints, d.t.chunk())
	if err == nil {
		var m int
		m, err = writeHints(ctx, d.t.DB, d.now, d.dueHints, d.t.chunk())
		n += m
	}
	return d.flushed + n, err
}

func (t *Ticker) newDecider(now time.Time, res *Result, full bool) *decider {
	if t.memo == nil {
		t.memo = map[string]*configMemo{}
	}
	d := &decider{t: t, now: now, full: full, res: res}
	from, _ := scanWindow(now)
	for i := range d.window {
		d.window[i] = from.AddDays(i)
	}
	return d
}

// count counts and decides one candidate of the tick's own scan.
func (d *decider) count(c *Candidate) error {
	d.res.Candidates++
	return d.add(c)
}

// add decides one candidate. c is valid only during the call.
func (d *decider) add(c *Candidate) error {
	d.key = c.Config.appendKey(d.key[:0])
	m := d.t.memo[string(d.key)] // no allocation for the lookup
	if m == nil {
		m = &configMemo{key: string(d.key), parsed: parseConfig(c.Config)}
		if len(d.t.memo) < maxMemo {
			d.t.memo[m.key] = m
		}
	}
	if d.full {
		m.seen = d.now
	}
	if m.parsed.err != nil {
		d.res.Skipped[schedule.ReasonInvalidConfig]++
		d.t.Log.Warn("briefing config invalid, org skipped", "org_id", c.OrgID, "error", m.parsed.err)
		d.addHint(c, schedule.FiringMinute{}, false) // until the config changes
		return nil
	}
	o := d.outcome(m, c.fired)
	// A stored hint that speaks for now stays right until a change resets
	// it (a firing does not change it), so the hinted tick computes hints
	// only for the orgs without one; the full scan computes every org's,
	// to check the stored ones (LateHints) and correct them, unless it
	// writes none (worker -once: its cold start is a full scan, and the
	// long-running workers' full scans check the hints).
	keep := d.t.NoHintWrites || !d.full && c.Hint.validAt(d.now)
	if o.decision.Due() {
		d.items = append(d.items, due{OrgID: c.OrgID, Date: o.decision.Date, Timezone: m.parsed.schedule.Zone.Name, FireAt: o.decision.FireAt})
		if !d.t.NoHintWrites && !keep {
			d.hint(m, c.fired, o)
			d.dueHints.add(c, d.now, o.hint, o.fires)
		}
		return nil
	}
	d.res.Skipped[o.decision.Reason]++
	if keep {
		return nil
	}
	d.hint(m, c.fired, o)
	if o.fires && c.Hint.validAt(d.now) && !c.Hint.covers(o.hint.First) {
		d.res.LateHints = append(d.res.LateHints, c.OrgID)
	}
	d.addHint(c, o.hint, o.fires)
	return nil
}

// addHint keeps the hint of an org not due, flushing a full chunk; none
// when the Ticker writes no hints (worker -once).
func (d *decider) addHint(c *Candidate, h schedule.FiringMinute, fires bool) {
	if d.t.NoHintWrites {
		return
	}
	d.hints.add(c, d.now, h, fires)
	if d.flush != nil && d.hints.len() >= d.t.chunk() {
		d.flush(d.hints)
		d.hints = hintBatch{}
	}
}

// outcome is the decision at d.now for a config and fired dates, from the
// memo when another org with both was decided this tick.
func (d *decider) outcome(m *configMemo, fired uint8) *outcome {
	if !m.at.Equal(d.now) {
		m.at, m.byFired = d.now, [len(m.byFired)]*outcome{}
	}
	if o := m.byFired[fired]; o != nil {
		return o
	}
	o := &outcome{decision: schedule.Decide(d.now, m.parsed.schedule, d.generated(fired))}
	m.byFired[fired] = o
	return o
}

// hint fills o's hint, once: the firing minute that follows the decision,
// counting the date it fires.
func (d *decider) hint(m *configMemo, fired uint8, o *outcome) {
	if o.hinted {
		return
	}
	generated := d.generated(fired)
	if o.decision.Due() { // the hint counts the date this tick fires
		generated = func(date schedule.Date) bool { return date == o.decision.Date || d.generated(fired)(date) }
	}
	o.hint, o.fires = schedule.NextFiringMinute(d.now, m.parsed.schedule, generated)
	o.hinted = true
}

// generated reports the window's dates in fired.
func (d *decider) generated(fired uint8) func(schedule.Date) bool {
	return func(date schedule.Date) bool {
		for i, w := range d.window {
			if fired&(1<<i) != 0 && w == date {
				return true
			}
		}
		return false
	}
}

// finish orders the due orgs and, after a full scan, forgets the configs
// it did not see: the memo never outgrows the candidate set for long.
func (d *decider) finish() {
	// enqueue takes the unique key's locks in org id order (no deadlock
	// between replicas); the scan returns no particular order.
	slices.SortFunc(d.items, func(a, b due) int { return cmp.Compare(a.OrgID, b.OrgID) })
	slices.Sort(d.res.LateHints)
	if d.full {
		for k, m := range d.t.memo {
			if !m.seen.Equal(d.now) {
				delete(d.t.memo, k)
			}
		}
	}
}

// parseConfig validates a candidate's config: by its members when the SQL
// found the usual shape, else the whole document. Both apply ParseConfig's
// checks (TestConfigColumnsAgreeWithParseConfig).
func parseConfig(c ConfigColumns) parsedConfig {
	if c.Doc != nil {
		_, s, err := schedule.ParseConfig(c.Doc)
		return parsedConfig{schedule: s, err: err}
	}
	s, err := schedule.ParseMembers(c.Members)
	return parsedConfig{schedule: s, err: err}
}
