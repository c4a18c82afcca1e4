package web

import (
	"time"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// The settings page's times, runs and late-run sentences in the reader's
// words and clock (docs/i18n.md): what internal/schedule and
// internal/delivery say in English for logs and the JSON API, said here
// from their values.

// dateTime is an instant as l writes a date and a time of day, in t's
// zone, with the zone's abbreviation: "Thu, Nov 26, 6:30 AM CST".
func dateTime(l *i18n.Localizer, t time.Time) string {
	lo := l.Locale()
	return l.Tf("bsettings.date_time", map[string]any{"Date": lo.Date(t), "Time": lo.Time(t)}) + " " + lo.ZoneAbbr(t)
}

// orgTime is an instant in the org's zone (UTC when it has none usable),
// as dateTime writes it.
func (s *Server) orgTime(l *i18n.Localizer, stored tenants.FieldforceConfig, t time.Time) string {
	z, _ := stored.Zone()
	return dateTime(l, t.In(z.Loc))
}

// clockOf is a scheduled time of day in l's clock: "6:30 AM", "06:30".
func clockOf(l *i18n.Localizer, t schedule.LocalTime) string {
	return l.Locale().Clock(t.Hour, t.Minute)
}

// lateness says how late in l's words: "40 min", "3 h 20 min", and whole
// hours from ten hours on ("15 h"), as delivery.Lateness does in English.
func lateness(l *i18n.Localizer, d time.Duration) string {
	d = d.Truncate(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return l.Tf("bsettings.late.minutes", map[string]any{"Minutes": m})
	case h >= 10 || m == 0:
		return l.Tf("bsettings.late.hours", map[string]any{"Hours": h})
	}
	return l.Tf("bsettings.late.hours_minutes", map[string]any{"Hours": h, "Minutes": m})
}

// lateDetail is a late firing in l's words, as the calendar and the
// delivery log show it: "made 9:35 PM, 15 h after 6:30 AM — not sent"
// (delivery.Firing.LateDetail's English, which the delivery row stores).
func lateDetail(l *i18n.Localizer, f delivery.Firing) string {
	loc := f.Loc
	if loc == nil {
		loc = time.UTC
	}
	lo := l.Locale()
	return l.Tf("bsettings.late.detail", map[string]any{
		"Made": lo.Time(f.At.In(loc)), "Late": lateness(l, f.At.Sub(f.For)), "For": lo.Time(f.For.In(loc))})
}

// runNote flags a run a DST transition bends, in the preview table.
func runNote(l *i18n.Localizer, r schedule.Firing) string {
	switch r.Note {
	case schedule.DSTGap:
		return l.Tf("briefings.next.gap", map[string]any{"Scheduled": clockOf(l, r.Scheduled), "Time": l.Locale().Time(r.Local)})
	case schedule.DSTOverlap:
		return l.Tf("briefings.next.overlap", map[string]any{"Scheduled": clockOf(l, r.Scheduled), "Offset": r.Offset})
	}
	return ""
}

// dstWarning explains a run a DST transition bends within the next year.
func dstWarning(l *i18n.Localizer, r schedule.Firing, zone string) string {
	data := map[string]any{"Scheduled": clockOf(l, r.Scheduled), "Date": l.Locale().DateYear(r.Local), "Zone": zone,
		"Time": l.Locale().Time(r.Local), "Offset": r.Offset}
	switch r.Note {
	case schedule.DSTGap:
		return l.Tf("bsettings.preview.warn_gap", data)
	case schedule.DSTOverlap:
		return l.Tf("bsettings.preview.warn_overlap", data)
	}
	return ""
}

// catchUpWords says, as a sentence, what a firing made after its scheduled
// minute does (docs/guarantees.md, "Late briefings"): "Today's 6:30 AM has
// passed: today's briefing will be kept, not sent; first sent: Thu, Nov 26,
// 6:30 AM CST.", or "… will be made and sent now." within send_within.
// next are the firings after it; sends whether the settings deliver
// anything.
func catchUpWords(l *i18n.Localizer, r schedule.Firing, next []schedule.Firing, within time.Duration, sends bool) string {
	data := map[string]any{"Time": clockOf(l, r.Scheduled)}
	switch {
	case !sends:
		return l.Tf("bsettings.preview.catch_up_made", data)
	case !schedule.SentLate(r.Late(), within):
		return l.Tf("bsettings.preview.catch_up_sent", data)
	case len(next) > 0:
		data["First"] = dateTime(l, next[0].Local)
		return l.Tf("bsettings.preview.catch_up_kept_first", data)
	}
	return l.Tf("bsettings.preview.catch_up_kept", data)
}

// lateBadge is the catch-up row's badge: "now, 15 h after 6:30 AM", and
// ": kept, not sent" when it will not be sent.
func lateBadge(l *i18n.Localizer, r schedule.Firing, kept bool) string {
	data := map[string]any{"Late": lateness(l, r.Late()), "Time": clockOf(l, r.Scheduled)}
	if kept {
		return l.Tf("bsettings.preview.late_kept", data)
	}
	return l.Tf("bsettings.preview.late", data)
}
