package delivery

import (
	"context"
	"time"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tenants"
	"fieldbrief/views/briefview"
)

// Reader is who reads an email or a day link page, in their language and formats
// (docs/i18n.md, "Who reads what"): a technician's own language, else the
// org's locale's; a dispatcher (or a test send) the org's locale. The
// formats are the org's locale's region with that language (es in an
// en-US org: es-US, 12-hour times). Emails are made in the worker, with no
// request: the Localizer comes from the database alone.
func Reader(ctx context.Context, q database.Querier, orgID, technicianID int64) (*i18n.Localizer, error) {
	var lang string
	orgLocale, err := tenants.Locale(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	if technicianID != 0 {
		c, _, err := field.ContactOf(ctx, q, orgID, technicianID) // a deleted technician reads the org's language
		if err != nil {
			return nil, err
		}
		lang = c.Language
	}
	return i18n.Resolve(lang, orgLocale, ""), nil
}

// dateLabel is a date as an email's subject says it, in the reader's
// locale (CLDR's MMMEd): "Thu, Nov 26" (en-US), "Do., 26. Nov." (de-DE).
func dateLabel(l *i18n.Localizer, d schedule.Date) string { return l.Locale().Date(d.Time()) }

// zoneName is the zone as the reader knows it on day d: "Central Time
// (Chicago)", "Mitteleuropäische Zeit (Berlin)" (CLDR metazone names); the
// email keeps the IANA id after it in small print.
func zoneName(l *i18n.Localizer, z schedule.Zone, d schedule.Date) string {
	start, _ := schedule.DayBounds(z.Loc, d)
	return l.Locale().ZoneName(z.Name, start.Add(12*time.Hour))
}

// localWindow is a job's arrival window in the reader's clock, in the
// briefing's zone: "8:00 – 10:00 AM" (en-US), "08:00–10:00 Uhr" (de-DE);
// a window on another day than day has its date ("Tue, Nov 24 9:00 –
// 10:00 AM"), and one across midnight the date of its end as well. A line without times keeps its generated window.
func localWindow(l *i18n.Localizer, j snapshot.JobLine, day schedule.Date, loc *time.Location) string {
	if j.ArrivalStart.IsZero() || j.ArrivalEnd.IsZero() {
		return j.Window
	}
	return windowIn(l, j.ArrivalStart, j.ArrivalEnd, day, loc)
}

// localZone is the abbreviation after a job's window in the reader's
// letters ("MEZ" for a German reader, docs/i18n.md "Zone abbreviations");
// a line without times keeps generated.
func localZone(l *i18n.Localizer, j snapshot.JobLine, loc *time.Location, generated string) string {
	if j.ArrivalStart.IsZero() || j.ArrivalEnd.IsZero() {
		return generated
	}
	return l.Locale().ZoneAbbrs(j.ArrivalStart.In(loc), j.ArrivalEnd.In(loc))
}

// windowIn is the span from start to end in loc as the reader writes it
// (snapshot.LocalWindow).
func windowIn(l *i18n.Localizer, start, end time.Time, day schedule.Date, loc *time.Location) string {
	return snapshot.LocalWindow(l.Locale(), start, end, day, loc)
}

// localWindows rewrites the windows of jobs (made by snapshot.View from
// s) in the reader's clock, each by its job's line in s.
func localWindows(l *i18n.Localizer, s snapshot.Snapshot, day schedule.Date, loc *time.Location, lists ...[]briefview.Job) {
	lines := snapshot.LinesByID(s)
	for _, jobs := range lists {
		for i := range jobs {
			if j, ok := lines[jobs[i].ID]; ok {
				jobs[i].Window = localWindow(l, j, day, loc)
				jobs[i].Zone = localZone(l, j, loc, jobs[i].Zone)
			}
		}
	}
}
