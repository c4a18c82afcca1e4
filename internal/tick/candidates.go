package tick

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// Candidate is an org whose briefing might be due: its module is configured
// and its flag is on. Whether it is due is decided in Go (tick.go).
type Candidate struct {
	OrgID  int64
	Config ConfigColumns   // validated by the decision
	Dates  []schedule.Date // its dates within the scan window whose scheduled firing happened
	Hint   StoredHint

	// fired is Dates as the scans read them: bit i is the window's i-th
	// date (scanWindow). A streamed candidate has only this, not Dates.
	fired uint8
}

// ConfigColumns is a candidate's config document as the candidate SQL
// returns it (docs/scheduling.md, "The candidate columns"): the members
// as raw JSON when the document has the usual shape, else the whole
// document.
type ConfigColumns struct {
	Doc     []byte           // the whole document, only when its shape is unusual
	Members schedule.Members // otherwise
}

// appendKey appends what identifies the document to b, for the parse memo.
// JSON text never holds a NUL byte (jsonb cannot store \u0000 either), so
// NUL separates the members and 0x01 marks an absent one.
func (c ConfigColumns) appendKey(b []byte) []byte {
	if c.Doc != nil {
		return append(append(b, 'd'), c.Doc...)
	}
	b = append(b, 'm')
	m := &c.Members
	for _, v := range [...][]byte{m.Timezone, m.ScheduleLocalTime, m.Days, m.Enabled, m.Delivery} {
		if v == nil {
			b = append(b, 1)
		} else {
			b = append(b, v...)
		}
		b = append(b, 0)
	}
	return b
}

// StoredHint is the org's next-fire hint as the scan read it
// (docs/scheduling.md, "The next-fire hint"; schedule.FiringMinute).
type StoredHint struct {
	Version    int64              // the tick writes its hint only while the version is still this
	NextFireAt pgtype.Timestamptz // the hint's end (FiringMinute.Until); NULL: unknown; infinity: never ends
	From       pgtype.Timestamptz // the instant it was computed at; NULL after a reset
	Minute     pgtype.Int2        // the firings' UTC minute of the day; NULL: never fires
}

// validAt reports whether the hint speaks for now: computed at or before
// now, and not yet at its end.
func (h StoredHint) validAt(now time.Time) bool {
	return h.NextFireAt.Valid && h.From.Valid && !h.From.Time.After(now) &&
		(h.NextFireAt.InfinityModifier == pgtype.Infinity || h.NextFireAt.Time.After(now))
}

// covers reports whether a hinted tick reading the minutes up to at reads
// the org for a firing at at: at is on the hint's minute, or at or after
// its end.
func (h StoredHint) covers(at time.Time) bool {
	if h.NextFireAt.InfinityModifier == pgtype.Finite && !at.Before(h.NextFireAt.Time) {
		return true
	}
	m, whole := schedule.MinuteOfDay(at)
	return whole && h.Minute.Valid && int(h.Minute.Int16) == m
}

// candidatesSQL applies only cheap, zone-free filters (docs/scheduling.md,
// "The tick"). The window comes from Go, so a tick at any instant sees what
// it would have seen then. Only dates whose scheduled firing happened
// count: a "generate now" look does not consume the day's run.
//
// The config comes as columns: the briefing's members as JSON text when the
// document has the usual shape (generated columns, computed on write:
// migration 00013), else the whole document; Go validates either way
// (schedule.ParseMembers, schedule.ParseConfig). No ORDER BY: sorting a
// million wide rows cost more than the scan; the tick sorts what it fires.
//
// The flags are written so the planner can't misjudge them: the global
// switch is one row, an uncorrelated EXISTS evaluated once; the override is
// the set of orgs switched off, hashed once, for the full scan (NOT IN, not
// a correlated NOT EXISTS: beside the switch's EXISTS, Citus cannot plan
// that one, docs/scaling.md, "What the real cluster refused"), a probe of
// the override's primary key per org for the hinted one (a hash of every
// override each minute cost more than the hinted scan's own rows). (As
// "LEFT JOIN … WHERE is_enabled IS NULL OR is_enabled" the planner guessed
// one row from the override table's statistics and chose a nested loop and
// an on-disk sort; docs/benchmarks.md, "Figures that explained a choice in the code".)
//
// The first %s is the rows: the table for the full scan, hintedRows for
// the hinted one; then the dates column (none for the full scan: they come
// from fullDatesSQL, on the same snapshot) and the override filter.
const candidatesSQL = `
SELECT om.org_id, om.hint_version, om.next_fire_at, om.hint_from, om.fire_minute,
       CASE WHEN NOT om.briefing_shape_ok THEN om.config_json::text END,
       om.briefing_timezone, om.briefing_time, om.briefing_days, om.briefing_enabled, om.briefing_delivery%s
  FROM %s om
 WHERE om.module = $1
   AND EXISTS (SELECT FROM admin_feature_flags af WHERE af.key = $2 AND af.is_enabled)
   AND %s`

const (
	overrideSwitchedOff = `om.org_id NOT IN (SELECT oo.org_id FROM org_feature_flags oo WHERE oo.key = $2 AND NOT oo.is_enabled)`
	overrideProbe       = `coalesce((SELECT oo.is_enabled FROM org_feature_flags oo WHERE oo.org_id = om.org_id AND oo.key = $2), true)`
)

// The dates, two ways, as a bit set: bit i is the window's i-th date. The
// hinted scan reads few orgs, so it looks up each one's dates
// (ff_briefings_scheduled_idx). The full scan reads every org: it reads
// the window's scheduled dates in one pass first (ff_briefings_scheduled_
// date_idx) and looks them up in Go; joining them in SQL cost PostgreSQL a
// hash of every org on its one core while the tick's core waited.
//
// The per-org lookup bounds the dates by a row comparison led by org_id,
// which only ff_briefings_scheduled_idx (org_id, briefing_date) can use as
// its range: written as "briefing_date BETWEEN", the date-led index was as
// usable, and once the window's dates were past what ANALYZE last saw (a
// UTC midnight; the indexes are partial, so PostgreSQL cannot look up the
// real newest date) the planner expected no rows there and took it: every
// org's lookup walked the window's whole range, 5.5 s a tick instead of
// 27 ms at 1M orgs (docs/benchmarks.md, "Figures that explained a choice
// in the code"). The org_id equality stays for Citus, which pushes a
// correlated subquery down only on an equality of the distribution column.
const (
	datesPerOrg = `,
       (SELECT coalesce(bit_or(1 << (b.briefing_date - $3::date)), 0)
          FROM ff_briefings b
         WHERE b.org_id = om.org_id
           AND (b.org_id, b.briefing_date) BETWEEN (om.org_id, $3::date) AND (om.org_id, $4::date)
           AND b.scheduled_at IS NOT NULL)`
	fullDatesSQL = `
SELECT b.org_id, bit_or(1 << (b.briefing_date - $1::date))
  FROM ff_briefings b
 WHERE b.briefing_date BETWEEN $1::date AND $2::date
   AND b.scheduled_at IS NOT NULL
 GROUP BY b.org_id`
)

// hintedRows is the hinted scan's one more cheap filter: the orgs whose
// firings fall on one of the UTC minutes of the day $6 (those since the
// last tick: Ticker.covered), and those whose hint is unknown, has ended,
// or was computed after now (it says nothing about earlier instants).
// Four disjoint ranges of the hint indexes (00013, 00050), each read by an
// index scan. In the steady state only the first returns rows, and a
// firing writes nothing, so these indexes do not change from minute to
// minute (docs/scheduling.md, "The next-fire hint", has the figures).
const hintedRows = `(
        SELECT * FROM org_module_configs WHERE module = $1 AND fire_minute = ANY ($6::smallint[]) AND hint_from <= $5 AND next_fire_at > $5
        UNION ALL
        SELECT * FROM org_module_configs WHERE module = $1 AND next_fire_at <= $5
        UNION ALL
        SELECT * FROM org_module_configs WHERE module = $1 AND next_fire_at IS NULL
        UNION ALL
        SELECT * FROM org_module_configs WHERE module = $1 AND hint_from > $5 AND next_fire_at > $5)`

var (
	fullScanSQL   = fmt.Sprintf(candidatesSQL, "", "org_module_configs", overrideSwitchedOff)
	hintedScanSQL = fmt.Sprintf(candidatesSQL, datesPerOrg, hintedRows, overrideProbe)
	// hintedDueSQL is which of the orgs $4 the hinted scan returns, for the
	// safety net's comparison: the same filters, only for the due orgs. Its
	// now is $3 and its minutes $5: a statement may not skip a parameter
	// number.
	hintedDueSQL = `SELECT org_id FROM (` + fmt.Sprintf(candidatesSQL, "",
		strings.NewReplacer("$5", "$3", "$6", "$5").Replace(hintedRows), overrideProbe) + `
   AND om.org_id = ANY ($4)) c`
)

// switchOnSQL reads the global switch: the tick reads it in its scan's
// snapshot, so that it knows whether the scan saw every org due.
const switchOnSQL = `SELECT EXISTS (SELECT FROM admin_feature_flags af WHERE af.key = $1 AND af.is_enabled)`

// firingMinutes lists the UTC minutes of the day of the whole minutes in
// (covered, now]: the minutes whose firings a hinted tick at now reads.
// All of them when covered is zero (no tick has read every org yet), after
// now (a clock set back), or a day or more before it.
func firingMinutes(covered, now time.Time) []int16 {
	out := []int16{} // not nil: nil is the full scan (eachCandidate)
	if covered.IsZero() || now.Before(covered) || now.Sub(covered) >= 24*time.Hour {
		for m := range int16(24 * 60) {
			out = append(out, m)
		}
		return out
	}
	for at := covered.Truncate(time.Minute).Add(time.Minute); !at.After(now); at = at.Add(time.Minute) {
		m, _ := schedule.MinuteOfDay(at)
		out = append(out, int16(m))
	}
	return out
}

// scanWindow is the ±1 day around now's UTC date: every UTC offset (-12h to
// +14h) puts an org's local date at now inside it. The pages that show the
// next run read the same dates (schedule.GeneratedWindow).
func scanWindow(now time.Time) (from, to schedule.Date) {
	return schedule.GeneratedWindow(now)
}

// windowDays is how many dates scanWindow spans: the bits of Candidate.fired.
const windowDays = 3

// eachCandidate runs a scan, the full one (minutes nil) or the hinted one
// of those minutes (firingMinutes), and calls fn with each candidate as its row
// arrives, so the tick decides while PostgreSQL still sends and keeps
// nothing of an org it need not fire or re-hint: at a million orgs, the
// whole candidate list was most of a worker's memory (~1 GB). The
// Candidate and its config's bytes belong to the connection's buffer:
// they are valid only during the call (ConfigColumns.clone keeps them).
// The full scan's two statements must share a snapshot: q is then a
// repeatable-read transaction (Ticker.fullScan).
func eachCandidate(ctx context.Context, q database.Querier, now time.Time, minutes []int16, fn func(*Candidate) error) error {
	hinted := minutes != nil
	from, to := scanWindow(now)
	var fired *firings
	if !hinted {
		var err error
		if fired, err = windowFirings(ctx, q, from, to); err != nil {
			return err
		}
	}
	// Both scans are planned for their window and now every time (an
	// unnamed statement): from the sixth run of a cached prepared
	// statement, PostgreSQL may switch to a generic plan made without the
	// values, and the selectivity of "hint <= $now" or of the window's
	// dates is exactly what the plan depends on (a generic plan was many
	// times slower: docs/benchmarks.md, "Figures that explained a choice in the code"). One extra round trip a minute is nothing.
	sql, args := fullScanSQL, []any{pgx.QueryExecModeDescribeExec, schedule.Module, schedule.FlagKey}
	if hinted {
		sql, args = hintedScanSQL, append(args, from.Time(), to.Time(), now, minutes)
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("scan briefing candidates: %w", err)
	}
	defer rows.Close()
	var c Candidate
	var bits int32
	m := &c.Config.Members
	// The text columns are read in place (RawValues: no copy per row);
	// the others through pgx's own decoders, planned once for the scan.
	raw := []*[]byte{(*[]byte)(&c.Config.Doc), (*[]byte)(&m.Timezone), (*[]byte)(&m.ScheduleLocalTime),
		(*[]byte)(&m.Days), (*[]byte)(&m.Enabled), (*[]byte)(&m.Delivery)} // columns 5..10
	scanned := []any{&c.OrgID, &c.Hint.Version, &c.Hint.NextFireAt, &c.Hint.From, &c.Hint.Minute}
	cols := []int{0, 1, 2, 3, 4}
	if hinted {
		scanned, cols = append(scanned, &bits), append(cols, 5+len(raw)) // the dates come after the config
	}
	var plans []pgtype.ScanPlan
	for rows.Next() {
		vals := rows.RawValues()
		if plans == nil {
			fds := rows.FieldDescriptions()
			if len(fds) != len(scanned)+len(raw) {
				return fmt.Errorf("scan briefing candidates: %d columns, want %d", len(fds), len(scanned)+len(raw))
			}
			tm := rows.Conn().TypeMap()
			for i, dst := range scanned {
				plans = append(plans, tm.PlanScan(fds[cols[i]].DataTypeOID, fds[cols[i]].Format, dst))
			}
		}
		for i, dst := range scanned {
			if err := plans[i].Scan(vals[cols[i]], dst); err != nil {
				return fmt.Errorf("scan briefing candidates: column %d: %w", cols[i], err)
			}
		}
		for i, dst := range raw {
			*dst = vals[5+i] // nil for SQL NULL
		}
		if hinted {
			c.fired = uint8(bits)
		} else {
			c.fired = fired.get(c.OrgID)
		}
		if err := fn(&c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan briefing candidates: %w", err)
	}
	return nil
}

// windowFirings is which of the window's dates had their scheduled firing,
// per org that has any. Org ids are an identity column, so they are dense:
// a byte per id up to the largest (1 MB at a million orgs) instead of a
// map entry per org that has any (most of the worker's memory at a million
// orgs: docs/benchmarks.md, "Figures that explained a choice in the code"); ids far beyond the row count go to a map.
func windowFirings(ctx context.Context, q database.Querier, from, to schedule.Date) (*firings, error) {
	rows, err := q.Query(ctx, fullDatesSQL, pgx.QueryExecModeDescribeExec, from.Time(), to.Time())
	if err != nil {
		return nil, fmt.Errorf("scan the window's firings: %w", err)
	}
	var ids []int64
	var sets []uint8
	var orgID int64
	var bits int32
	_, err = pgx.ForEachRow(rows, []any{&orgID, &bits}, func() error {
		ids, sets = append(ids, orgID), append(sets, uint8(bits))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan the window's firings: %w", err)
	}
	return newFirings(ids, sets), nil
}

// newFirings stores each ids[i]'s sets[i].
func newFirings(ids []int64, sets []uint8) *firings {
	f := &firings{}
	if top := slices.Max(append(ids, 0)); top < maxDense && top < int64(4*len(ids)+1024) {
		f.dense = make([]uint8, top+1)
	}
	for i, id := range ids {
		if id >= 0 && id < int64(len(f.dense)) {
			f.dense[id] = sets[i]
		} else {
			if f.sparse == nil {
				f.sparse = map[int64]uint8{}
			}
			f.sparse[id] = sets[i]
		}
	}
	return f
}

// firings maps org ids to their fired-date bits (Candidate.fired).
type firings struct {
	dense  []uint8 // by org id, when the ids are at most a few times as many as the rows
	sparse map[int64]uint8
}

// maxDense bounds the dense part whatever the ids: 64 MiB of bytes.
const maxDense = 64 << 20

func (f *firings) get(orgID int64) uint8 {
	if orgID >= 0 && orgID < int64(len(f.dense)) {
		return f.dense[orgID]
	}
	return f.sparse[orgID]
}
