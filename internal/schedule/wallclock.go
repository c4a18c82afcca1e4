package schedule

import (
	"fmt"
	"strings"
	"time"
)

// Reading local times that people type (a job's arrival window) follows the
// rule of docs/field-data.md: a wall time that does not exist that day (a
// spring-forward gap) is an error naming the zone and the gap, never moved
// silently; one that happens twice (a fall-back overlap) is its first
// occurrence, with a note saying so. FireTime's rule for schedules differs on
// purpose: a schedule must still fire, a typed time must mean what was typed.

// GapError is a local time that does not exist in its zone on that day.
type GapError struct {
	Zone     string    // the zone's name, e.g. "America/New_York"
	Wall     string    // what was asked for, "2026-03-08 02:30"
	From, To time.Time // the gap's wall-clock bounds, in the zone: clocks jump from From to To
}

func (e *GapError) Error() string {
	from, to := e.From.Format("15:04"), e.To.Format("15:04")
	if DateOf(e.From) != DateOf(e.To) {
		from, to = e.From.Format("2006-01-02 15:04"), e.To.Format("2006-01-02 15:04")
	}
	fromAbbr, _ := e.From.Zone()
	toAbbr, _ := e.To.Zone()
	return fmt.Sprintf("%s does not exist in %s: clocks jump from %s to %s (%s to %s) that day",
		e.Wall, e.Zone, from, to, abbrev(fromAbbr, e.From), abbrev(toAbbr, e.To))
}

// LocalDateTime is the instant wall time at reads on date d in loc. A wall
// time in a gap is a *GapError; one in an overlap is its first occurrence and
// note says which of the two it is.
func LocalDateTime(loc *time.Location, d Date, at LocalTime) (t time.Time, note string, err error) {
	t, dst := FireTime(loc, d, at)
	wall := d.String() + " " + at.String()
	switch dst {
	case DSTGap:
		// The jump's instant read in the offset that ended: where the wall
		// clock was when it jumped.
		from := t.In(time.FixedZone(t.Add(-time.Nanosecond).In(loc).Zone()))
		return time.Time{}, "", &GapError{Zone: loc.String(), Wall: wall, From: from, To: t.In(loc)}
	case DSTOverlap:
		first := t.In(loc)
		second := secondOccurrence(loc, first)
		return first, fmt.Sprintf("%s happens twice in %s (clocks go back that night); the first, %s, is used, not the second, %s",
			wall, loc.String(), describeOffset(first), describeOffset(second)), nil
	}
	return t.In(loc), "", nil
}

// ParseLocalDateTime reads "YYYY-MM-DDTHH:MM" as a wall time in loc, by
// LocalDateTime's rule. A time with an offset or Z (RFC 3339, seconds
// optional) names its instant already and is taken as it is.
func ParseLocalDateTime(loc *time.Location, s string) (t time.Time, note string, err error) {
	if len(s) == len("2006-01-02T15:04") {
		if s[10] != 'T' {
			return time.Time{}, "", fmt.Errorf("invalid date and time %q: want YYYY-MM-DDTHH:MM, e.g. 2026-03-09T08:00", s)
		}
		d, err := ParseDate(s[:10])
		if err != nil {
			return time.Time{}, "", fmt.Errorf("invalid date and time %q: want YYYY-MM-DDTHH:MM, e.g. 2026-03-09T08:00", s)
		}
		at, err := ParseLocalTime(s[11:])
		if err != nil {
			return time.Time{}, "", fmt.Errorf("invalid date and time %q: the time must be between 00:00 and 23:59", s)
		}
		return LocalDateTime(loc, d, at)
	}
	for _, layout := range []string{"2006-01-02T15:04Z07:00", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, "", nil
		}
	}
	return time.Time{}, "", fmt.Errorf("invalid date and time %q: want YYYY-MM-DDTHH:MM in the org's time zone, or with an offset such as 2026-03-09T08:00-05:00", s)
}

// DayBounds returns the first instant of local date d in loc and the first
// instant of the next day: midnight, or the end of a gap on days midnight
// does not exist.
func DayBounds(loc *time.Location, d Date) (start, end time.Time) {
	start, _ = FireTime(loc, d, LocalTime{})
	end, _ = FireTime(loc, d.AddDays(1), LocalTime{})
	return start, end
}

// ZoneAbbr is the zone's abbreviation at t ("EST", "CEST"), or its offset
// ("+0530") where the tz database has no letters for it.
func ZoneAbbr(t time.Time) string {
	return zoneAbbr(t)
}

func zoneAbbr(t time.Time) string {
	name, _ := t.Zone()
	return abbrev(name, t)
}

// abbrev keeps letter abbreviations and writes numeric ones ("+0530", which
// the tz database uses where no letters are in use) as UTC offsets.
func abbrev(name string, t time.Time) string {
	if name != "" && !strings.ContainsAny(name[:1], "+-0123456789") {
		return name
	}
	return "UTC" + t.Format("-07:00")
}

func describeOffset(t time.Time) string {
	return t.Format("15:04") + " " + zoneAbbr(t) + " (UTC" + t.Format("-07:00") + ")"
}

// secondOccurrence is the later instant whose wall clock in loc reads the
// same as first's.
func secondOccurrence(loc *time.Location, first time.Time) time.Time {
	wall := time.Date(first.Year(), first.Month(), first.Day(), first.Hour(), first.Minute(), 0, 0, time.UTC)
	var latest time.Time
	for _, p := range periodsAround(loc, wall) {
		t := wall.Add(-p.offset)
		if sameWall(t.In(loc), wall) && t.After(latest) {
			latest = t
		}
	}
	return latest.In(loc)
}
