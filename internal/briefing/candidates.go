package briefing

import (
	"context"
	"fmt"
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
}

// ConfigColumns is a candidate's config document as the candidate SQL
// returns it (docs/architecture.md, "The candidate columns"): the members
// as raw JSON when the document has the usual shape, else the whole
// document.
type ConfigColumns struct {
	Doc     []byte           // the whole document, only when its shape is unusual
	Members schedule.Members // otherwise
}

// key identifies the document within a tick, for the parse memo. JSON text
// never holds a NUL byte (jsonb cannot store \u0000 either), so NUL
// separates the members and 0x01 marks an absent one.
func (c ConfigColumns) key() string {
	if c.Doc != nil {
		return "d" + string(c.Doc)
	}
	var b strings.Builder
	b.WriteByte('m')
	for _, m := range []([]byte){c.Members.Timezone, c.Members.ScheduleLocalTime, c.Members.Days, c.Members.Enabled, c.Members.Delivery} {
		if m == nil {
			b.WriteByte(1)
		} else {
			b.Write(m)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// StoredHint is the org's next-fire hint as the scan read it
// (docs/architecture.md, "The next-fire hint").
type StoredHint struct {
	Version    int64              // the tick writes its hint only while the version is still this
	NextFireAt pgtype.Timestamptz // NULL: unknown; infinity: never
	From       pgtype.Timestamptz // the instant it was computed at
}

// validAt reports whether the hint tells the tick at now to skip the org:
// computed at or before now, for an instant after it.
func (h StoredHint) validAt(now time.Time) bool {
	return h.NextFireAt.Valid && h.From.Valid && !h.From.Time.After(now) &&
		(h.NextFireAt.InfinityModifier == pgtype.Infinity || h.NextFireAt.Time.After(now))
}

// candidatesSQL applies only cheap, zone-free filters (docs/architecture.md,
// "The tick"). The dates are aggregated per org (a plain LEFT JOIN would
// return an org once per briefing in the window) and the window comes from
// Go, so a tick at any instant sees what it would have seen then. Only dates
// whose scheduled firing happened count: a "generate now" look does not
// consume the day's run.
//
// The config comes as columns: the briefing's members as JSON text when the
// document has the usual shape (generated columns, computed on write:
// migration 00013), else the whole document; Go validates either way
// (schedule.ParseMembers, schedule.ParseConfig). No ORDER BY: sorting a
// million wide rows cost more than the scan; the tick sorts what it fires.
//
// The first %s is the columns, the second the hint filter: empty for the
// full scan (the ADR-0024 query), or hintFilter for the hinted one.
const candidatesSQL = `
SELECT %s
  FROM org_module_configs om
  JOIN admin_feature_flags af ON af.key = $2 AND af.is_enabled
  LEFT JOIN org_feature_flags oo ON oo.org_id = om.org_id AND oo.key = $2%s
 WHERE om.module = $1
   AND (oo.is_enabled IS NULL OR oo.is_enabled)%s`

// candidateColumns is what the tick reads of each candidate; %s is how it
// gets the org's scheduled dates in the window.
const candidateColumns = `om.org_id, om.hint_version, om.next_fire_at, om.hint_from,
       CASE WHEN NOT om.briefing_shape_ok THEN om.config_json::text END,
       om.briefing_timezone, om.briefing_time, om.briefing_days, om.briefing_enabled, om.briefing_delivery,
       %s AS dates`

// The dates, two ways. The hinted scan reads few orgs, so it looks up each
// one's dates (ff_briefings_scheduled_idx). The full scan reads every org:
// one pass over the window's scheduled dates, grouped per org and hash
// joined (ff_briefings_scheduled_date_idx), costs a fraction of a million
// lookups.
const (
	datesPerOrg = `ARRAY(SELECT b.briefing_date
               FROM ff_briefings b
              WHERE b.org_id = om.org_id
                AND b.briefing_date BETWEEN $3::date AND $4::date
                AND b.scheduled_at IS NOT NULL)`
	datesGrouped     = `coalesce(d.dates, '{}')`
	datesGroupedJoin = `
  LEFT JOIN (SELECT b.org_id, array_agg(b.briefing_date) AS dates
               FROM ff_briefings b
              WHERE b.briefing_date BETWEEN $3::date AND $4::date
                AND b.scheduled_at IS NOT NULL
              GROUP BY b.org_id) d ON d.org_id = om.org_id`
)

// hintFilter is the hinted scan's one more cheap filter: the hint is
// unknown, has come, or was computed after now (it says nothing about
// earlier instants). A bitmap OR over the two hint indexes (00013).
const hintFilter = `
   AND (om.next_fire_at IS NULL OR om.next_fire_at <= $5 OR om.hint_from > $5)`

var (
	fullScanSQL   = fmt.Sprintf(candidatesSQL, fmt.Sprintf(candidateColumns, datesGrouped), datesGroupedJoin, "")
	hintedScanSQL = fmt.Sprintf(candidatesSQL, fmt.Sprintf(candidateColumns, datesPerOrg), "", hintFilter)
	// hintedDueSQL is which of the orgs $4 the hinted scan returns, for the
	// safety net's comparison: the same filters, only for the due orgs. Its
	// now is $3: a statement may not skip a parameter number.
	hintedDueSQL = fmt.Sprintf(candidatesSQL, "om.org_id", "", strings.ReplaceAll(hintFilter, "$5", "$3")+`
   AND om.org_id = ANY ($4)`)
)

// scanWindow is the ±1 day around now's UTC date: every UTC offset (-12h to
// +14h) puts an org's local date at now inside it.
func scanWindow(now time.Time) (from, to schedule.Date) {
	d := schedule.DateOf(now.UTC())
	return d.AddDays(-1), d.AddDays(1)
}

// Candidates is the full scan: one row per org that could be due at now,
// in no particular order, whatever its hint says.
func Candidates(ctx context.Context, q database.Querier, now time.Time) ([]Candidate, error) {
	return scan(ctx, q, now, false)
}

// HintedCandidates is the hinted scan: the candidates whose hint does not
// rule them out at now.
func HintedCandidates(ctx context.Context, q database.Querier, now time.Time) ([]Candidate, error) {
	return scan(ctx, q, now, true)
}

func scan(ctx context.Context, q database.Querier, now time.Time, hinted bool) ([]Candidate, error) {
	from, to := scanWindow(now)
	// Both scans are planned for their window and now every time (an
	// unnamed statement): from the sixth run of a cached prepared
	// statement, PostgreSQL may switch to a generic plan made without the
	// values, and the selectivity of "hint <= $now" or of the window's
	// dates is exactly what the plan depends on (at 10k orgs the full
	// scan's generic plan took 30× as long: 2.5 s vs 85 ms,
	// BenchmarkTick). One extra round trip a minute is nothing.
	sql, args := fullScanSQL, []any{pgx.QueryExecModeDescribeExec, schedule.Module, schedule.FlagKey, from.Time(), to.Time()}
	if hinted {
		sql, args = hintedScanSQL, append(args, now)
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("scan briefing candidates: %w", err)
	}
	defer rows.Close()
	var out []Candidate
	var c Candidate
	var dates []time.Time
	m := &c.Config.Members
	dest := []any{&c.OrgID, &c.Hint.Version, &c.Hint.NextFireAt, &c.Hint.From,
		&c.Config.Doc, &m.Timezone, &m.ScheduleLocalTime, &m.Days, &m.Enabled, &m.Delivery, &dates}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		cand := c
		cand.Dates = make([]schedule.Date, len(dates))
		for i, d := range dates {
			cand.Dates[i] = schedule.DateOf(d)
		}
		out = append(out, cand)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan briefing candidates: %w", err)
	}
	return out, nil
}
