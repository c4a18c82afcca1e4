package snapshot

import (
	"time"

	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/views/briefview"
)

// LocalWindow is an arrival window in loc as a reader of lc reads it
// (docs/i18n.md, "Formats"): "8:00 – 10:00 AM" (en-US), "08:00–10:00 Uhr"
// (de-DE); a window on another day than day has its date ("Tue, Nov 24
// 9:00 – 10:00 AM"), and one across midnight the date of its end as well.
// The emails and the day link page write windows with it; the stored
// JobLine.Window stays as generated.
func LocalWindow(lc locale.Locale, start, end time.Time, day schedule.Date, loc *time.Location) string {
	start, end = start.In(loc), end.In(loc)
	if from := schedule.DateOf(start); from == schedule.DateOf(end) {
		if from == day {
			return lc.TimeRange(start, end)
		}
		return lc.Date(start) + " " + lc.TimeRange(start, end)
	}
	at := func(t time.Time, ref schedule.Date) string {
		if schedule.DateOf(t) != ref {
			return lc.Date(t) + " " + lc.Time(t)
		}
		return lc.Time(t)
	}
	return at(start, day) + " – " + at(end, schedule.DateOf(start))
}

// ViewIn is View with every job's window as a reader of lc writes it
// (LocalWindow): the briefing page's content, which the email's matches.
// Lines made without times, or without an id (older snapshots), keep
// their generated window.
func ViewIn(s Snapshot, loc *time.Location, lc locale.Locale) briefview.Content {
	v := View(s, loc)
	if !s.DayStart.IsZero() && !s.DayEnd.IsZero() { // the reader's letters (docs/i18n.md, "Zone abbreviations")
		v.Zone = lc.ZoneAbbrs(s.DayStart.In(loc), s.DayEnd.Add(-time.Second).In(loc))
	}
	day, err := schedule.ParseDate(s.Date)
	if err != nil {
		return v
	}
	lines := LinesByID(s)
	local := func(jobs []briefview.Job) {
		for i := range jobs {
			if j, ok := lines[jobs[i].ID]; ok && jobs[i].ID != 0 && !j.ArrivalStart.IsZero() && !j.ArrivalEnd.IsZero() {
				jobs[i].Window = LocalWindow(lc, j.ArrivalStart, j.ArrivalEnd, day, loc)
				jobs[i].Zone = lc.ZoneAbbrs(j.ArrivalStart.In(loc), j.ArrivalEnd.In(loc))
			}
		}
	}
	a := v.ActionItems
	for _, jobs := range [][]briefview.Job{a.Emergencies, a.Overdue, a.Unassigned, a.OnHold, v.Cancelled} {
		local(jobs)
	}
	for _, r := range v.Routes {
		local(r.Jobs)
	}
	return v
}

// LinesByID is every job line of s by its job's id: the lists a view is
// made of, for rewriting a view's windows from the lines' instants.
func LinesByID(s Snapshot) map[int64]JobLine {
	lines := map[int64]JobLine{}
	add := func(ls []JobLine) {
		for _, j := range ls {
			lines[j.ID] = j
		}
	}
	for _, t := range s.Technicians {
		add(t.Jobs)
		add(t.Overdue)
	}
	add(s.Unassigned)
	add(s.Overdue)
	add(s.OnHold)
	add(s.Cancelled)
	return lines
}
