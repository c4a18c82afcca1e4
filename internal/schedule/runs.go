package schedule

import (
	"iter"
	"time"
)

// Run is one previewed briefing run.
type Run struct {
	Date      Date
	Local     time.Time // fire instant in the org's zone
	UTC       time.Time
	Offset    string // e.g. "UTC−04:00"
	Note      DSTNote
	Scheduled LocalTime // what the admin asked for; differs from Local's wall clock in a gap
}

// NextRuns returns the next n runs firing at or after from, ignoring Enabled
// so a paused schedule still previews what it would do. It uses FireTime, the
// rule Decide uses, so the editor shows exactly what the worker will do.
func NextRuns(from time.Time, s Schedule, n int) []Run {
	if n <= 0 {
		return nil
	}
	// Any nonempty day set runs at least once a week; a week more covers
	// local dates that do not exist.
	var runs []Run
	for r := range runsFrom(from, s, 7*(n+1)) {
		runs = append(runs, r)
		if len(runs) == n {
			break
		}
	}
	return runs
}

// DSTWarnings returns the runs on the `days` local dates starting at from's
// whose time a DST transition moves or makes ambiguous, for the editor to
// explain ("02:30 does not exist on 2027-03-14; it will run at 03:00").
func DSTWarnings(from time.Time, s Schedule, days int) []Run {
	var warnings []Run
	for r := range runsFrom(from, s, days) {
		if r.Note != DSTNone {
			warnings = append(warnings, r)
		}
	}
	return warnings
}

// runsFrom yields the runs firing at or after from on the `days` local dates
// starting at from's. A date that does not exist in the zone (Pacific/Apia
// skipped 2011-12-30), or whose run a gap pushes past midnight, has no run:
// Decide never finds that date due either.
func runsFrom(from time.Time, s Schedule, days int) iter.Seq[Run] {
	return func(yield func(Run) bool) {
		if s.Zone.Loc == nil {
			return
		}
		start := DateOf(from.In(s.Zone.Loc))
		for d := start; d.Before(start.AddDays(days)); d = d.AddDays(1) {
			if !s.Days.Has(d.Weekday()) {
				continue
			}
			fire, note := FireTime(s.Zone.Loc, d, s.At)
			local := fire.In(s.Zone.Loc)
			if DateOf(local) != d || fire.Before(from) {
				continue
			}
			run := Run{Date: d, Local: local, UTC: fire.UTC(), Offset: offsetLabel(local), Note: note, Scheduled: s.At}
			if !yield(run) {
				return
			}
		}
	}
}
