package web

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
	"fieldbrief/internal/history"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// briefingShow shows one briefing by its local date. A malformed date is
// not a page, so it is a 404 like another org's date.
func (s *Server) briefingShow(c echo.Context) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	date, err := schedule.ParseDate(c.Param("date"))
	if err != nil {
		return apperr.Errorf(apperr.NotFound, "There is no such briefing.")
	}
	b, err := s.briefings.Get(ctx, m.Org.ID, date)
	if err != nil {
		return err
	}
	revs, err := s.briefings.Revisions(ctx, m.Org.ID, b.ID)
	if err != nil {
		return err
	}
	runs, err := s.briefings.Runs(ctx, m.Org.ID, b.ID)
	if err != nil {
		return err
	}
	deliveries, err := s.deliver.Deliveries(ctx, m.Org.ID, b.ID)
	if err != nil {
		return err
	}
	l := localizer(c)
	p := briefingPage(l, b, revs, runs, m.ReadsAll())
	if p.Prev, p.Next, err = s.neighbours(ctx, m, b.Date); err != nil {
		return err
	}
	if p.HistoryNote, err = s.historyNote(ctx, l); err != nil {
		return err
	}
	p.Page = s.page(c, l.Tf("mail.title", map[string]any{"Date": l.Locale().Date(b.Date.Time())}))
	p.Section = "briefings"
	p.Slug = m.Org.Slug
	if p.Content != nil {
		p.Content.Link(orgBase(m.Org.Slug))
	}
	p.Notice = pageNotice(c)
	if p.Changed, err = s.changedSince(ctx, l, m.Org.ID, b); err != nil {
		return err
	}
	resendBase := "" // a re-send is delivery: admins only
	if m.IsAdmin() {
		resendBase = briefingsURL(m.Org.Slug) + "/" + b.Date.String() + "/deliveries/"
	}
	for _, d := range deliveries {
		d.Fired.Loc = briefingLoc(b)
		r := deliveryRow(l.Locale(), d, briefingLoc(b), deliveryAccessOf(m), resendBase)
		// A late, capped or stopped one in the reader's words (docs/i18n.md, "The settings page").
		r.Note = deliveryNote(l, d, r.Note, briefingLoc(b))
		if d.UpdateID != 0 {
			r.Update = l.Tn("bsettings.log.update", d.UpdateJobs, nil)
		}
		p.Deliveries = append(p.Deliveries, r)
	}
	if p.TechnicianLinks, err = s.technicianLinks(c, m, b.Date, briefingLoc(b)); err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.Briefing(p))
}

// briefingPage is the view of a briefing in l's language and formats
// (docs/i18n.md), its times in the briefing's own zone. Errors, worker ids
// and attempt counts are for admins and dispatchers (admin, tenants.Membership.ReadsAll):
// members see outcomes only.
func briefingPage(l *i18n.Localizer, b briefing.Briefing, revs []briefing.Revision, runs []briefing.Run, admin bool) views.BriefingPage {
	loc, lc := briefingLoc(b), l.Locale()
	at := func(t time.Time) string { return stamp(lc, t, loc) }
	p := views.BriefingPage{
		L:              l,
		Date:           b.Date.String(),
		DateLabel:      lc.LongDate(b.Date.Time()),
		YesterdayLabel: lc.Date(b.Date.AddDays(-1).Time()),
		Timezone:       b.Timezone,
		ZoneName:       zoneNameOn(lc, b.Timezone, loc, b.Date),
		Status:         b.Status,
		Trigger:        b.Trigger,
		FiredAt:        at(b.FiredAt),
		GeneratedAt:    at(b.GeneratedAt),
		ZoneRules:      b.ZoneRules.String(),
		ZoneRulesShown: rulesWords(l, b.ZoneRules),
		Admin:          admin,
	}
	// The shown content is the newest revision's (revs are newest first);
	// say so when other rules built it than decided the date.
	if len(revs) > 0 && revs[0].Revision == b.Revision && revs[0].ZoneRules != b.ZoneRules {
		p.ContentZoneRules = revs[0].ZoneRules.String()
		p.ContentZoneRulesShown = rulesWords(l, revs[0].ZoneRules)
	}
	if admin {
		p.LastError = b.LastError
	}
	if b.Content != nil {
		v := snapshot.ViewIn(*b.Content, loc, lc)
		if d, err := schedule.ParseDate(v.Yesterday.Date); err == nil {
			p.YesterdayLabel = lc.Date(d.Time())
		}
		p.Content = &v
	}
	for _, r := range revs {
		p.Revisions = append(p.Revisions, views.BriefingRevision{Number: r.Revision, Trigger: r.Trigger,
			Generated: at(r.GeneratedAt), ZoneRules: r.ZoneRules.String(), ZoneRulesShown: rulesWords(l, r.ZoneRules)})
	}
	for _, r := range runs {
		v := views.BriefingRun{Revision: r.Revision, Trigger: r.Trigger, Outcome: r.Outcome,
			Started: at(r.StartedAt), Finished: at(r.FinishedAt)}
		if admin {
			v.Attempt, v.Worker, v.Error = r.Attempt, r.Worker, r.Error
		}
		p.Runs = append(p.Runs, v)
	}
	return p
}

// stamp is an instant in loc as the reader writes it, with the zone's
// abbreviation: "Thu, Nov 26, 2026, 6:30 AM CST", "Do., 26. Nov. 2026,
// 06:30 CET" (the date as locale.DateYear, the time as locale.Time, joined
// as the field pages join a date and a time); the zero time (not happened
// yet) is "".
func stamp(lc locale.Locale, t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(loc)
	return lc.DateYear(t) + ", " + lc.Time(t) + " " + lc.ZoneAbbr(t)
}

// zoneNameOn is the zone as the reader knows it on day d: "Central Time
// (Chicago)" (locale.ZoneName, at noon of d, as the emails name it).
func zoneNameOn(lc locale.Locale, id string, loc *time.Location, d schedule.Date) string {
	start, _ := schedule.DayBounds(loc, d)
	return lc.ZoneName(id, start.Add(12*time.Hour))
}

// briefingLoc is the zone a briefing's page shows times in: its own.
func briefingLoc(b briefing.Briefing) *time.Location {
	if z, err := schedule.LoadZone(b.Timezone); err == nil {
		return z.Loc
	}
	return time.UTC
}

// clock formats an instant in loc as lc writes it, with the reader's
// abbreviation: "Thu, Nov 26, 6:30 AM CST", "Do., 26. Nov., 06:30 MEZ";
// the zero time (not happened yet) is "".
func clock(lc locale.Locale, t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(loc)
	return lc.Date(t) + ", " + lc.Time(t) + " " + lc.ZoneAbbr(t)
}

// neighbours are the dates before and after d: each links to its
// briefing or says why it has none, as the calendar does, and then links
// to the nearest briefing that way, if there is one.
func (s *Server) neighbours(ctx context.Context, m tenants.Membership, d schedule.Date) (prev, next views.DayLink, err error) {
	st, err := s.orgState(ctx, m.Org.ID)
	if err != nil {
		return prev, next, err
	}
	before, after, err := s.briefings.Nearest(ctx, m.Org.ID, d)
	if err != nil {
		return prev, next, err
	}
	now := s.now()
	hist, err := s.history(ctx, m.Org.ID, st, d.AddDays(-1), d.AddDays(1), now)
	if err != nil {
		return prev, next, err
	}
	today := st.today(now)
	lc := i18n.From(ctx).Locale()
	link := func(day, nearest schedule.Date) views.DayLink {
		l := views.DayLink{Date: day.String(), Label: lc.Date(day.Time())}
		if nearest == day {
			l.Link = briefingsURL(m.Org.Slug) + "/" + day.String()
			return l
		}
		l.Why = strings.TrimPrefix(dayWords(i18n.From(ctx), briefing.Explain(day, today, now, m.Org.CreatedAt, st.loc(), hist)), "— ")
		if !nearest.IsZero() {
			l.Nearest, l.NearestLink = nearest.String(), briefingsURL(m.Org.Slug)+"/"+nearest.String()
			l.NearestText = lc.Date(nearest.Time())
		}
		return l
	}
	return link(d.AddDays(-1), before), link(d.AddDays(1), after), nil
}

// rulesWords names the tz database a decision was made with in l's
// language ("tzdata 2025b (eingebaut)"); the data attributes keep
// briefing.ZoneRules.String(), the same in every language.
func rulesWords(l *i18n.Localizer, r briefing.ZoneRules) string {
	switch r.Source {
	case "":
		return ""
	case schedule.SourceEmbedded, schedule.SourceHost:
		return l.Tf("briefing.rules."+r.Source, map[string]any{"Version": r.Version})
	}
	return r.String()
}

// historyNote says, in l's language and formats, how long history is kept
// and the first day of the oldest month still kept: "History is kept for
// 400 days; the oldest kept is from Wed, Oct 1, 2025" (docs/operations.md,
// "History retention"). "" before the history tables are partitioned.
func (s *Server) historyNote(ctx context.Context, l *i18n.Localizer) (string, error) {
	oldest, ok, err := history.Oldest(ctx, database.Reader(ctx, s.db))
	if err != nil || !ok {
		return "", err
	}
	days := int(cmp.Or(s.cfg.HistoryRetention, history.DefaultRetention) / (24 * time.Hour))
	lc := l.Locale()
	return l.Tf("history.kept", map[string]any{"Days": lc.Number(days), "Date": lc.DateYear(oldest)}), nil
}

// changedSince is the warning at the top of a briefing of today or later
// whose day's jobs were created or changed after it was made: read or
// printed, it is no longer the day as it is (docs/briefing-content.md,
// "Changed since it was made"). "" otherwise; a past day's briefing is
// its record.
func (s *Server) changedSince(ctx context.Context, l *i18n.Localizer, orgID int64, b briefing.Briefing) (string, error) {
	loc := briefingLoc(b)
	if b.GeneratedAt.IsZero() || b.Date.Time().Before(schedule.DateOf(s.now().In(loc)).Time()) {
		return "", nil
	}
	start, end := schedule.DayBounds(loc, b.Date)
	n, err := s.field.DayChangedSince(ctx, orgID, start, end, b.GeneratedAt)
	if err != nil || n == 0 {
		return "", err
	}
	return l.Tn("briefing.changed_since", n, map[string]any{"Count": l.Locale().Number(n), "Time": stamp(l.Locale(), b.GeneratedAt, loc)}), nil
}
