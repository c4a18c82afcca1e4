package schedule

import "time"

// nextFireHorizon bounds NextFire's search in local dates. Any nonempty day
// set has a run within a week; the slack covers dates already generated
// (the tick knows at most a few) and dates a zone skips.
const nextFireHorizon = 21

// NextFire returns the earliest instant at or after from at which Decide
// would find the briefing due, given generated (nil: none), and true; or
// false when no instant ever is (paused, no zone, no days). It is the
// tick's next-fire hint (docs/scheduling.md, "The next-fire hint").
//
// It walks the zone's spans of constant UTC offset: inside one, local
// dates follow each other without jumps, so on each date the due instants
// are those from the date's FireTime (Decide's own rule) to the date's end.
// A date whose FireTime falls in a later span (a gap at the schedule time)
// is found again in that span. Should the horizon pass without a due
// instant (generated reports every date), it returns the horizon's end: a
// hint may be early, never late.
func NextFire(from time.Time, s Schedule, generated func(Date) bool) (time.Time, bool) {
	if s.Zone.Loc == nil || !s.Enabled || s.Days&AllDays() == 0 {
		return time.Time{}, false
	}
	loc := s.Zone.Loc
	if generated == nil {
		generated = func(Date) bool { return false }
	}
	last := DateOf(from.In(loc)).AddDays(nextFireHorizon)
	for t := from; ; {
		local := t.In(loc)
		_, spanEnd := local.ZoneBounds() // zero: the offset never changes again
		_, offset := local.Zone()
		d := DateOf(local)
		dayStart := t
		for {
			if d.After(last) {
				return dayStart, true
			}
			// Midnight after d, at this span's offset.
			dayEnd := time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(offset) * time.Second)
			if s.Days.Has(d.Weekday()) && !generated(d) {
				fire, _ := FireTime(loc, d, s.At)
				c := later(dayStart, fire)
				if c.Before(dayEnd) && (spanEnd.IsZero() || c.Before(spanEnd)) {
					return c, true
				}
			}
			if !spanEnd.IsZero() && !dayEnd.Before(spanEnd) {
				break
			}
			d, dayStart = d.AddDays(1), dayEnd
		}
		t = spanEnd
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
