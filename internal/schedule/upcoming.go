package schedule

import "time"

// Late is how long after its scheduled minute the firing is made: zero
// but for a catch-up firing.
func (f Firing) Late() time.Duration { return f.At.Sub(f.UTC) }

// CatchUp reports whether the firing is made after its scheduled minute.
func (f Firing) CatchUp() bool { return f.At.After(f.UTC) }

// SentLate reports whether a firing made this late is kept but not sent,
// given how late a briefing may still be sent (delivery.send_within,
// DeliveryConfig.Within): docs/guarantees.md, "Late briefings".
func SentLate(late, within time.Duration) bool { return late > within }

// Upcoming returns the next n firings the tick will make from now on, in
// order (the UI's "next runs"): the instants Decide finds due, one a date,
// as the tick meets them. generated reports the dates whose scheduled
// briefing exists (nil: none); "generate now" looks are not scheduled and
// do not count (docs/scheduling.md, "The tick"), nor does a test send.
// The first firing is at NextFire(now): now itself when today's scheduled
// minute has passed and today has no scheduled briefing (a catch-up
// firing, late by Firing.Late), and every later one at NextFire after the
// one before, with its date counted as generated. Each has At, when it is
// made, beside its date's scheduled minute (Local, UTC). A paused
// schedule, one without a zone or without days has none. It is the one
// answer to "when is the next run" for the settings preview, the
// briefings page and the tick's next-fire hint
// (TestUpcomingAgreesWithTheTick).
func Upcoming(now time.Time, s Schedule, generated func(Date) bool, n int) []Firing {
	if generated == nil {
		generated = func(Date) bool { return false }
	}
	var runs []Firing
	seen := func(d Date) bool {
		for _, r := range runs {
			if r.Date == d {
				return true
			}
		}
		return generated(d)
	}
	for from := now; len(runs) < n; {
		at, ok := NextFire(from, s, seen)
		if !ok {
			break
		}
		d := Decide(at, s, seen)
		if !d.Due() { // NextFire's horizon passed with every date generated
			break
		}
		_, note := FireTime(s.Zone.Loc, d.Date, s.At)
		local := d.FireAt.In(s.Zone.Loc)
		runs = append(runs, Firing{Date: d.Date, Local: local, UTC: d.FireAt.UTC(), Offset: offsetLabel(local), Note: note,
			Scheduled: s.At, At: at})
		from = at
	}
	return runs
}

// GeneratedWindow is the span of local dates, around now's UTC date, whose
// scheduled briefings decide the next runs: every UTC offset puts an org's
// local date at now inside it. The tick reads an org's fired dates in it
// (docs/scheduling.md, "The tick"), and so do the pages that show the
// next run, so all answer from the same dates.
func GeneratedWindow(now time.Time) (from, to Date) {
	d := DateOf(now.UTC())
	return d.AddDays(-1), d.AddDays(1)
}
