package schedule

import (
	"slices"
	"time"
)

// DSTNote says how a daylight-saving transition bent a run.
type DSTNote string

const (
	DSTNone    DSTNote = ""
	DSTGap     DSTNote = "gap"     // the wall time did not exist; the run moved to the end of the gap
	DSTOverlap DSTNote = "overlap" // the wall time happened twice; the run took the first
)

// window bounds the instants whose wall clock can read a given wall time:
// real UTC offsets lie within ±15h.
const window = 15 * time.Hour

// FireTime returns the instant the schedule fires on local date d in loc.
//
// Normally that is wall time at on d. If at falls in a spring-forward gap, it
// is the first valid local minute after it — the instant the gap ends — noted
// DSTGap. If at happens twice in a fall-back overlap, it is the first (earlier)
// occurrence, noted DSTOverlap.
//
// Go's time.Date picks an arbitrary side for such times, so FireTime reasons
// from the zone's transitions instead: it tries every offset in effect within
// the window around the wall time and keeps the instants that read it.
func FireTime(loc *time.Location, d Date, at LocalTime) (time.Time, DSTNote) {
	wall := time.Date(d.Year, d.Month, d.Day, at.Hour, at.Minute, 0, 0, time.UTC)
	periods := periodsAround(loc, wall)
	first, n := occurrences(loc, periods, wall)
	switch {
	case n > 1:
		return first, DSTOverlap
	case n == 1:
		return first, DSTNone
	}
	return gapEnd(loc, periods, wall), DSTGap
}

// period is a span of constant UTC offset.
type period struct {
	start  time.Time // zero for the zone's first period
	offset time.Duration
}

// periodsAround lists the offset periods of loc overlapping [wall-window,
// wall+window], wall being the wall time read as if it were UTC.
func periodsAround(loc *time.Location, wall time.Time) []period {
	var periods []period
	for t := wall.Add(-window); ; {
		local := t.In(loc)
		_, secs := local.Zone()
		start, end := local.ZoneBounds()
		periods = append(periods, period{start: start, offset: time.Duration(secs) * time.Second})
		if end.IsZero() || end.After(wall.Add(window)) {
			return periods
		}
		t = end
	}
}

// occurrences returns the earliest instant whose wall clock in loc reads
// wall, and how many distinct instants do.
func occurrences(loc *time.Location, periods []period, wall time.Time) (first time.Time, n int) {
	var seen []time.Time
	for _, p := range periods {
		t := wall.Add(-p.offset)
		if !sameWall(t.In(loc), wall) || slices.ContainsFunc(seen, t.Equal) {
			continue
		}
		seen = append(seen, t)
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first, len(seen)
}

func sameWall(t, wall time.Time) bool {
	y, m, d := t.Date()
	wy, wm, wd := wall.Date()
	return y == wy && m == wm && d == wd && t.Hour() == wall.Hour() && t.Minute() == wall.Minute()
}

// gapEnd returns the transition that skips over wall: the wall clock jumped
// from before it to after it there. Real zones always have one when wall has
// no occurrence; time.Date's normalization is the fallback for data that
// breaks the ±15h assumption.
func gapEnd(loc *time.Location, periods []period, wall time.Time) time.Time {
	for i := 1; i < len(periods); i++ {
		at := periods[i].start
		if !at.Add(periods[i-1].offset).After(wall) && at.Add(periods[i].offset).After(wall) {
			return at
		}
	}
	return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), 0, 0, loc)
}
