package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/i18n"
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
	p := briefingPage(b, revs, runs, m.IsAdmin())
	if p.Prev, p.Next, err = s.neighbours(ctx, m, b.Date); err != nil {
		return err
	}
	p.Page = s.page(c, "Briefing "+b.Date.String())
	p.Section = "briefings"
	p.Slug = m.Org.Slug
	if p.Content != nil {
		p.Content.Link(orgBase(m.Org.Slug))
	}
	p.Notice = notice(c)
	resendBase := briefingsURL(m.Org.Slug) + "/" + b.Date.String() + "/deliveries/"
	for _, d := range deliveries {
		p.Deliveries = append(p.Deliveries, deliveryRow(d, briefingLoc(b), m.IsAdmin(), resendBase))
	}
	if p.TechnicianLinks, err = s.technicianLinks(c, m, b.Date, briefingLoc(b)); err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.Briefing(p))
}

// briefingPage is the view of a briefing, its times in the briefing's own
// zone. Errors, worker ids and attempt counts are for admins: members see
// outcomes only.
func briefingPage(b briefing.Briefing, revs []briefing.Revision, runs []briefing.Run, admin bool) views.BriefingPage {
	loc := briefingLoc(b)
	p := views.BriefingPage{
		Date:        b.Date.String(),
		Timezone:    b.Timezone,
		Status:      b.Status,
		Trigger:     b.Trigger,
		FiredAt:     clock(b.FiredAt, loc),
		GeneratedAt: clock(b.GeneratedAt, loc),
		ZoneRules:   b.ZoneRules.String(),
		Admin:       admin,
	}
	// The shown content is the newest revision's (revs are newest first);
	// say so when other rules built it than decided the date.
	if len(revs) > 0 && revs[0].Revision == b.Revision && revs[0].ZoneRules != b.ZoneRules {
		p.ContentZoneRules = revs[0].ZoneRules.String()
	}
	if admin {
		p.LastError = b.LastError
	}
	if b.Content != nil {
		v := snapshot.View(*b.Content, loc)
		p.Content = &v
	}
	for _, r := range revs {
		p.Revisions = append(p.Revisions, views.BriefingRevision{Number: r.Revision, Trigger: r.Trigger,
			Generated: clock(r.GeneratedAt, loc), ZoneRules: r.ZoneRules.String()})
	}
	for _, r := range runs {
		v := views.BriefingRun{Revision: r.Revision, Trigger: r.Trigger, Outcome: r.Outcome,
			Started: clock(r.StartedAt, loc), Finished: clock(r.FinishedAt, loc)}
		if admin {
			v.Attempt, v.Worker, v.Error = r.Attempt, r.Worker, r.Error
		}
		p.Runs = append(p.Runs, v)
	}
	return p
}

// briefingLoc is the zone a briefing's page shows times in: its own.
func briefingLoc(b briefing.Briefing) *time.Location {
	if z, err := schedule.LoadZone(b.Timezone); err == nil {
		return z.Loc
	}
	return time.UTC
}

// clock formats an instant in loc; the zero time (not happened yet) is "".
func clock(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04 MST")
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
	link := func(day, nearest schedule.Date) views.DayLink {
		l := views.DayLink{Date: day.String()}
		if nearest == day {
			l.Link = briefingsURL(m.Org.Slug) + "/" + day.String()
			return l
		}
		l.Why = strings.TrimPrefix(dayWords(i18n.From(ctx), briefing.Explain(day, today, now, m.Org.CreatedAt, st.loc(), hist)), "— ")
		if !nearest.IsZero() {
			l.Nearest, l.NearestLink = nearest.String(), briefingsURL(m.Org.Slug)+"/"+nearest.String()
		}
		return l
	}
	return link(d.AddDays(-1), before), link(d.AddDays(1), after), nil
}
