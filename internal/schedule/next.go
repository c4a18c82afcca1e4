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

// FiringMinute is the tick's next-fire hint (docs/scheduling.md, "The
// next-fire hint"): every instant at or after the hint's computation and
// before Until at which Decide turns to due — every firing — falls on the
// UTC minute of the day Minute (0–1439), at zero seconds. Firings move to
// another UTC minute only at an offset change, so one hint holds from
// daylight-saving change to daylight-saving change, and a firing does not
// change it: the tick reads the org at that minute each day without
// storing anything.
type FiringMinute struct {
	Minute int
	Until  time.Time // zero: never ends (a zone whose offset never changes again)
	First  time.Time // the first firing (NextFire's)
}

// MinuteOfDay is t's UTC minute of the day (0–1439), and whether t is a
// whole minute.
func MinuteOfDay(t time.Time) (int, bool) { return minuteOf(t) }

func minuteOf(t time.Time) (int, bool) {
	secs := t.Unix() % 86400
	if secs < 0 {
		secs += 86400
	}
	return int(secs / 60), secs%60 == 0 && t.Nanosecond() == 0
}

// NextFiringMinute returns the hint for s at from, given generated (as
// NextFire), and true; or false when it never fires (NextFire's false).
//
// It follows the firings from NextFire's: two that share a span of
// constant offset and a minute mean every later one in that span does too
// (the wall time is the same each day, at the same offset); the hint then
// lasts to the first firing at or after the span's end, which the tick
// reads by its Until. A firing at another minute (one moved by a gap, the
// first after a change) or not on a whole minute ends the hint there.
func NextFiringMinute(from time.Time, s Schedule, generated func(Date) bool) (FiringMinute, bool) {
	f, ok := NextFire(from, s, generated)
	if !ok {
		return FiringMinute{}, false
	}
	if generated == nil {
		generated = func(Date) bool { return false }
	}
	loc, first := s.Zone.Loc, f
	m, whole := minuteOf(f)
	if !whole {
		return FiringMinute{Minute: m, Until: f, First: first}, true
	}
	gen := generated
	for range 4 {
		fired, was := DateOf(f.In(loc)), gen
		gen = func(d Date) bool { return d == fired || was(d) }
		g, _ := NextFire(f, s, gen) // the firing after f
		if gm, whole := minuteOf(g); gm != m || !whole {
			return FiringMinute{Minute: m, Until: g, First: first}, true
		}
		_, end := f.In(loc).ZoneBounds()
		if end.IsZero() {
			return FiringMinute{Minute: m, First: first}, true
		}
		if g.Before(end) {
			// The span's firings all fall on m: the hint lasts to the
			// first firing at or after its end. The date the span ends
			// on counts as fired when its firing came before the end.
			last := DateOf(end.In(loc))
			lastFire, _ := FireTime(loc, last, s.At)
			after, _ := NextFire(end, s, func(d Date) bool {
				return d.Before(last) || d == last && lastFire.Before(end) || gen(d)
			})
			return FiringMinute{Minute: m, Until: after, First: first}, true
		}
		f = g // the next firing is in a later span, at the same minute: go on from there
	}
	return FiringMinute{Minute: m, Until: f, First: first}, true
}
