package web

import (
	"fieldbrief/views/briefview"
	"strings"
	"time"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
)

// The field pages (board, jobs, technicians) in the reader's language and
// formats (docs/i18n.md): their notices, status names, windows and days.

// statusName is a job status in l's language.
func statusName(l *i18n.Localizer, status string) string {
	return briefview.JobStatus(l, status)
}

// dayLabel is a board day as the reader's locale writes a full date:
// "Thursday, November 26, 2026", "Donnerstag, 26. November 2026".
func dayLabel(l locale.Locale, d schedule.Date) string {
	return l.LongDate(d.Time())
}

// window writes an arrival window in the zone and the reader's clock:
// "9:00 – 11:00 AM EDT" (en-US), "09:00–11:00 Uhr EDT" (de-DE) on day d;
// a time on another day has its date before it ("Nov 27, 1:00 AM"), and a
// window across a change of offset names both abbreviations.
func window(l locale.Locale, loc *time.Location, start, end time.Time, d schedule.Date) string {
	start, end = start.In(loc), end.In(loc)
	a, b := l.ZoneAbbr(start), l.ZoneAbbr(end)
	onDay := schedule.DateOf(start) == d && schedule.DateOf(end) == d
	if onDay && a == b {
		return l.TimeRange(start, end) + " " + a
	}
	format := func(t time.Time, ref schedule.Date) string {
		if schedule.DateOf(t) != ref {
			return l.MonthDay(t) + ", " + l.Time(t)
		}
		return l.Time(t)
	}
	var s strings.Builder
	s.WriteString(format(start, d))
	if a != b {
		s.WriteString(" " + a)
	}
	s.WriteString(" – " + format(end, schedule.DateOf(start)) + " " + b)
	return s.String()
}

// wallTime is a typed date and time as the reader's locale writes them:
// "Sun, Mar 8, 2:30 AM".
func wallTime(l locale.Locale, d schedule.Date, at schedule.LocalTime) string {
	return l.Date(d.Time()) + ", " + l.Clock(at.Hour, at.Minute)
}

// gapMessage is a *schedule.GapError in the reader's words and clock.
func gapMessage(l *i18n.Localizer, d schedule.Date, at schedule.LocalTime, gap *schedule.GapError) string {
	lo := l.Locale()
	return l.Tf("jobform.gap", map[string]any{
		"Wall": wallTime(lo, d, at), "Zone": gap.Zone,
		"From": lo.Time(gap.From), "To": lo.Time(gap.To),
		"FromZone": lo.ZoneAbbr(gap.From), "ToZone": lo.ZoneAbbr(gap.To),
	})
}

// twiceNote says, in the reader's words, that the wall time at on d happens
// twice in loc and first (its first occurrence) was taken.
func twiceNote(l *i18n.Localizer, loc *time.Location, d schedule.Date, at schedule.LocalTime, first time.Time) string {
	lo := l.Locale()
	first = first.In(loc)
	_, off1 := first.Zone()
	_, off2 := first.Add(3 * time.Hour).Zone() // the offset after the change
	second := first.Add(time.Duration(off1-off2) * time.Second).In(loc)
	return l.Tf("jobform.twice", map[string]any{
		"Wall": wallTime(lo, d, at), "Zone": loc.String(),
		"First": lo.Time(first) + " " + lo.ZoneAbbr(first), "Second": lo.Time(second) + " " + lo.ZoneAbbr(second),
	})
}
