package schedule

import (
	"iter"
	"time"
)

// Firing is one previewed firing of a schedule: when the tick will find the
// org due (docs/glossary.md; the settings page calls these "next runs").
type Firing struct {
	Date      Date
	Local     time.Time // the date's fire instant (FireTime, its scheduled minute) in the org's zone
	UTC       time.Time
	Offset    string // e.g. "UTC−04:00"
	Note      DSTNote
	Scheduled LocalTime // what the admin asked for; differs from Local's wall clock in a gap
	// At is when the tick makes the firing: UTC, or later for a catch-up
	// firing (Upcoming), whose date's minute had passed unfired.
	At time.Time
}

// DSTWarnings returns the runs on the `days` local dates starting at from's
// whose time a DST transition moves or makes ambiguous, for the editor to
// explain ("02:30 does not exist on 2027-03-14; it will run at 03:00").
func DSTWarnings(from time.Time, s Schedule, days int) []Firing {
	var warnings []Firing
	for r := range firingsFrom(from, s, days) {
		if r.Note != DSTNone {
			warnings = append(warnings, r)
		}
	}
	return warnings
}

// firingsFrom yields the runs firing at or after from on the `days` local dates
// starting at from's. A date that does not exist in the zone (Pacific/Apia
// skipped 2011-12-30), or whose run a gap pushes past midnight, has no run:
// Decide never finds that date due either.
func firingsFrom(from time.Time, s Schedule, days int) iter.Seq[Firing] {
	return func(yield func(Firing) bool) {
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
			run := Firing{Date: d, Local: local, UTC: fire.UTC(), Offset: offsetLabel(local), Note: note, Scheduled: s.At, At: fire.UTC()}
			if !yield(run) {
				return
			}
		}
	}
}
