package snapshot

import (
	"time"

	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
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
