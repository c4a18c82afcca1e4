package schedule

import "time"

// Run is one run the worker will make (docs/glossary.md): the date's
// firing as scheduled, and the instant the tick makes it. That instant is
// the firing's own, except for a catch-up run: a date whose scheduled
// minute has passed with no scheduled briefing is due at once (Decide's
// catch-up rule), so its run is made at the instant asked about, late.
type Run struct {
	Firing           // the date's scheduled minute (FireTime), in Local and UTC
	At     time.Time // when the tick makes the run: Firing.UTC, or later for a catch-up
}

// Late is how long after its scheduled minute the run is made: zero but
// for a catch-up run.
func (r Run) Late() time.Duration { return r.At.Sub(r.UTC) }

// CatchUp reports whether the run is made after its scheduled minute.
func (r Run) CatchUp() bool { return r.At.After(r.UTC) }

// SentLate reports whether a run made this late is kept but not sent,
// given how late a briefing may still be sent (delivery.send_within,
// DeliveryConfig.Within): docs/guarantees.md, "Late briefings".
func SentLate(late, within time.Duration) bool { return late > within }

// Upcoming returns the next n runs the worker will make from now on, in
// order: the runs Decide finds due, one a date, as the tick meets them.
// generated reports the dates whose scheduled briefing exists (nil: none);
// "generate now" looks are not scheduled and do not count
// (docs/architecture.md, "The tick"), nor does a test send. The first run
// is at NextFire(now): now itself when today's scheduled minute has passed
// and today has no scheduled briefing (a catch-up run, late by Run.Late),
// and every later one at NextFire after the one before, with its date
// counted as generated. A paused schedule, one without a zone or without
// days has none. It is the one answer to "when is the next run" for the
// settings preview, the briefings page and the tick's next-fire hint
// (TestUpcomingAgreesWithTheTick).
func Upcoming(now time.Time, s Schedule, generated func(Date) bool, n int) []Run {
	if generated == nil {
		generated = func(Date) bool { return false }
	}
	var runs []Run
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
		runs = append(runs, Run{
			Firing: Firing{Date: d.Date, Local: local, UTC: d.FireAt.UTC(), Offset: offsetLabel(local), Note: note, Scheduled: s.At},
			At:     at,
		})
		from = at
	}
	return runs
}

// GeneratedWindow is the span of local dates, around now's UTC date, whose
// scheduled briefings decide the next runs: every UTC offset puts an org's
// local date at now inside it. The tick reads an org's fired dates in it
// (docs/architecture.md, "The tick"), and so do the pages that show the
// next run, so all answer from the same dates.
func GeneratedWindow(now time.Time) (from, to Date) {
	d := DateOf(now.UTC())
	return d.AddDays(-1), d.AddDays(1)
}
