package schedule_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// scheduleTimes crowd around midnight and the usual 02:00/03:00 transitions.
var scheduleTimes = []string{"00:00", "00:30", "01:00", "01:30", "02:00", "02:30", "03:00", "12:00", "23:00", "23:30", "23:59"}

// TestEveryZoneAgreesWithBruteForce checks the one rule (FireTime, through
// Decide and NextFirings) against a reference that knows nothing but t.In(loc):
// walking a local day's instants minute by minute, the run is the first
// minute, in instant order, whose wall clock reads at or after the schedule.
// That covers gaps (the first minute after), overlaps (the first occurrence)
// and days that begin late or end early.
//
// It runs for every canonical zone, on every local day of 2026–2027 whose UTC
// offset changes and the days either side, plus two ordinary days per zone.
// To keep it fast (~6 s on 2 cores), Decide is checked every minute within 3h
// of the reference run and every 15 minutes elsewhere, plus the day's last
// minute; "already generated" only at the 15-minute samples.
func TestEveryZoneAgreesWithBruteForce(t *testing.T) {
	t.Parallel()
	start := time.Now()
	var st stats
	t.Run("zones", func(t *testing.T) {
		for _, zi := range schedule.Zones() {
			t.Run(zi.Name, func(t *testing.T) {
				t.Parallel()
				checkZone(t, zone(t, zi.Name), &st)
			})
		}
	})
	t.Logf("%d zones, %d days at or beside an offset change (+%d ordinary days), %d schedule times: %d checks, %d mismatches in %v",
		st.zones.Load(), st.transitionDays.Load(), st.ordinaryDays.Load(), len(scheduleTimes),
		st.checks.Load(), st.mismatches.Load(), time.Since(start).Round(time.Millisecond))
	require.Zero(t, st.mismatches.Load())
	require.Greater(t, st.transitionDays.Load(), int64(1000), "the tz data should have hundreds of transitions in two years")
}

type stats struct {
	zones, transitionDays, ordinaryDays, checks, mismatches atomic.Int64
}

// checker counts checks and reports the first mismatches. Callers format
// only on failure: boxing arguments for every check would dominate the runtime.
type checker struct {
	t  *testing.T
	st *stats
}

func (c checker) ok(pass bool) bool {
	c.st.checks.Add(1)
	if !pass {
		c.st.mismatches.Add(1)
	}
	return pass
}

func (c checker) report(format string, args ...any) {
	c.t.Helper()
	if c.st.mismatches.Load() <= 20 {
		c.t.Errorf(format, args...)
	}
}

func checkZone(t *testing.T, z schedule.Zone, st *stats) {
	transitions := offsetChangeDays(z.Loc)
	days := slices.Clone(transitions)
	for _, d := range []schedule.Date{{Year: 2026, Month: time.January, Day: 15}, {Year: 2026, Month: time.July, Day: 15}} {
		if !slices.Contains(days, d) {
			days = append(days, d)
			st.ordinaryDays.Add(1)
		}
	}
	st.zones.Add(1)
	st.transitionDays.Add(int64(len(transitions)))

	c := checker{t, st}
	for _, d := range days {
		minutes := localDay(z.Loc, d)
		for _, hhmm := range scheduleTimes {
			s := daily(t, z.Name, hhmm)
			checkDay(c, s, d, minutes, s.At.Hour*60+s.At.Minute)
		}
	}
}

// offsetChangeDays returns the local dates in 2026–2027 on which loc's UTC
// offset changes, with the days either side, found by sampling every hour.
// The property tests ask for a zone's thousands of times: each zone's are
// found once (the 17,500 samples were a sixth of this package's CPU).
// Callers do not modify the slice.
func offsetChangeDays(loc *time.Location) []schedule.Date {
	if days, ok := changeDays.Load(loc.String()); ok {
		return days.([]schedule.Date)
	}
	days := findOffsetChangeDays(loc)
	changeDays.Store(loc.String(), days)
	return days
}

// changeDays holds offsetChangeDays' answers by zone name.
var changeDays sync.Map

func findOffsetChangeDays(loc *time.Location) []schedule.Date {
	set := map[schedule.Date]bool{}
	end := time.Date(2028, 1, 2, 0, 0, 0, 0, time.UTC)
	prev := time.Date(2025, 12, 30, 0, 0, 0, 0, time.UTC).In(loc)
	for t := prev.Add(time.Hour); t.Before(end); t = t.Add(time.Hour) {
		cur := t.In(loc)
		_, before := prev.Zone()
		_, after := cur.Zone()
		if before != after {
			for _, d := range []schedule.Date{civil(prev), civil(cur)} {
				set[d.AddDays(-1)], set[d], set[d.AddDays(1)] = true, true, true
			}
		}
		prev = cur
	}
	var days []schedule.Date
	for d := range set {
		if d.Year == 2026 || d.Year == 2027 {
			days = append(days, d)
		}
	}
	slices.SortFunc(days, func(a, b schedule.Date) int { return a.Time().Compare(b.Time()) })
	return days
}

func civil(t time.Time) schedule.Date {
	y, m, d := t.Date()
	return schedule.Date{Year: y, Month: m, Day: d}
}

// minute is one minute-aligned instant and its wall clock in minutes after midnight.
type minute struct {
	at   time.Time
	wall int
}

// localDay returns, in instant order, every minute whose wall clock in loc
// falls on d. Real offsets are within ±15h, so the day lies within
// [midnight read as UTC − 15h, + 39h).
func localDay(loc *time.Location, d schedule.Date) []minute {
	naive := d.Time()
	var day []minute
	for t := naive.Add(-15 * time.Hour); t.Before(naive.Add(39 * time.Hour)); t = t.Add(time.Minute) {
		local := t.In(loc)
		if civil(local) == d {
			day = append(day, minute{at: t, wall: local.Hour()*60 + local.Minute()})
		}
	}
	return day
}

// reference is the brute-force run on a local day: the first minute at or
// after the schedule, and what the editor should say about it.
func reference(day []minute, target int) (run time.Time, note schedule.DSTNote, ok bool) {
	i := slices.IndexFunc(day, func(m minute) bool { return m.wall >= target })
	if i < 0 {
		return time.Time{}, schedule.DSTNone, false
	}
	switch exact := countFunc(day, func(m minute) bool { return m.wall == target }); {
	case day[i].wall != target:
		note = schedule.DSTGap
	case exact > 1:
		note = schedule.DSTOverlap
	}
	return day[i].at, note, true
}

func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}

func checkDay(c checker, s schedule.Schedule, d schedule.Date, day []minute, target int) {
	c.t.Helper()
	run, note, ok := reference(day, target)
	name, at := s.Zone.Name, s.At

	next := schedule.NextFirings(day[0].at, s, 1)
	if ok {
		if !c.ok(len(next) == 1 && next[0].Date == d && next[0].UTC.Equal(run) && next[0].Note == note) {
			c.report("%s %s %s: NextFirings = %v, want %s %v %q", name, d, at, next, d, run, note)
		}
	} else {
		if !c.ok(len(next) == 1 && next[0].Date.After(d)) {
			c.report("%s %s %s: NextFirings = %v, want no run that day", name, d, at, next)
		}
	}

	always := func(schedule.Date) bool { return true }
	for i, m := range day {
		coarse := i%15 == 0 || i == len(day)-1
		near := ok && m.at.Sub(run).Abs() <= 3*time.Hour
		if !coarse && !near {
			continue
		}
		want := schedule.ReasonNotYet
		if ok && !m.at.Before(run) {
			want = schedule.ReasonDue
		}
		got := schedule.Decide(m.at, s, never)
		if !c.ok(got.Date == d && got.Reason == want && (!ok || got.FireAt.Equal(run))) {
			c.report("%s %s %s at %v: Decide = %s %s fire %v, want %s %s fire %v",
				name, d, at, m.at, got.Date, got.Reason, got.FireAt, d, want, run)
		}
		if !coarse {
			continue
		}
		if got := schedule.Decide(m.at, s, always); !c.ok(got.Reason == schedule.ReasonAlreadyGenerated) {
			c.report("%s %s %s at %v: Decide with a briefing = %s", name, d, at, m.at, got.Reason)
		}
	}
}
