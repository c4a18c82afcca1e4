package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/orgs"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// listDays is how many local dates before today the list shows.
const listDays = 14

// briefingList shows today and the previous two weeks.
func (s *Server) briefingList(c echo.Context) error {
	return s.renderBriefingList(c, http.StatusOK, "")
}

// briefingGenerate is the admin's "generate now" for today's local date:
// it creates the briefing or asks for a new revision of it (pressing twice
// refreshes). A refusal (the schedule is off or invalid) is shown on the
// list with its status, not as an error page.
func (s *Server) briefingGenerate(c echo.Context) error {
	m := currentMembership(c)
	_, err := s.briefings.GenerateNow(c.Request().Context(), m.Org.ID, s.now(), actor(c))
	switch apperr.Code(err) {
	case "":
		return redirect(c, briefingsURL(m.Org.Slug)+"?notice=generating")
	case apperr.Conflict, apperr.Invalid:
		return s.renderBriefingList(c, statusOf(err), apperr.Message(err))
	}
	return err
}

func (s *Server) renderBriefingList(c echo.Context, status int, problem string) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	st, err := s.orgState(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	now := s.now()
	today := st.today(now)
	list, err := s.briefings.List(ctx, m.Org.ID, today.AddDays(-listDays), today)
	if err != nil {
		return err
	}
	p := views.BriefingsPage{
		Page:    s.page(c, "Briefings"),
		Slug:    m.Org.Slug,
		Notice:  notice(c),
		Problem: problem,
		Admin:   m.IsAdmin(),
		// Generating needs what the worker needs; pausing an org the
		// platform switched off would only muddle the page, so both are
		// offered only when the schedule is valid and the flag is on.
		Usable: st.usable(),
		Paused: st.Err == nil && !st.Schedule.Enabled,
		Zone:   st.zoneName(),
		Days:   st.days(m.Org.Slug, now, today, m.Org.CreatedAt, list, m.IsAdmin()),
	}
	p.Section = "briefings"
	p.StateKind, p.State = st.describe()
	p.NextRun = st.nextRun(now, list)
	return s.render(c, status, views.Briefings(p))
}

// orgState is what decides whether an org's briefings run: its saved
// schedule and its feature flag (orgs.BriefingEligibility, the rule the
// worker and "generate now" follow too).
type orgState struct {
	orgs.BriefingState
}

func (s *Server) orgState(ctx context.Context, orgID int64) (orgState, error) {
	st, err := s.orgs.BriefingState(ctx, orgID)
	return orgState{st}, err
}

// usable reports whether the org has a valid saved schedule and the flag
// on: what the worker and "generate now" need, paused or not.
func (st orgState) usable() bool { return st.Eligibility() == orgs.Eligible }

// running reports whether the worker generates this org's briefings.
func (st orgState) running() bool { return st.usable() && st.Schedule.Enabled }

// today is the org-local date at now; UTC's when the config has no valid zone.
func (st orgState) today(now time.Time) schedule.Date {
	return schedule.DateOf(now.In(st.loc()))
}

// loc is the zone the list's dates are in: UTC when the config has no valid zone.
func (st orgState) loc() *time.Location {
	if st.Err != nil {
		return time.UTC
	}
	return st.Schedule.Zone.Loc
}

func (st orgState) zoneName() string {
	if st.Err != nil {
		return "UTC (the saved time zone is not usable)"
	}
	return st.Schedule.Zone.Name
}

// describe is the org's state in one line, most fundamental cause first.
func (st orgState) describe() (kind, text string) {
	switch st.Eligibility() {
	case orgs.NotConfigured:
		return string(orgs.NotConfigured), "No schedule is saved yet, so no briefing runs. An admin sets it in Settings."
	case orgs.InvalidConfig:
		return string(orgs.InvalidConfig), "The saved settings are invalid, so no briefing runs: " + st.Err.Error()
	case orgs.FlagOff:
		return string(orgs.FlagOff), "Daily briefings are switched off for this org by the platform team: none are generated, " +
			"on schedule or on request, until they switch them back on. Your settings are kept."
	}
	if !st.Schedule.Enabled {
		return "paused", "Paused: no briefing runs until an admin resumes."
	}
	return "running", "Every " + daysText(st.Schedule.Days) + " at " + st.Schedule.At.String() + " in " + st.Schedule.Zone.Name + "."
}

// nextRun is the next run that will make a briefing: a run on a date that
// already has one (made on request, say) does not count.
func (st orgState) nextRun(now time.Time, list []briefing.Briefing) string {
	if !st.running() {
		return ""
	}
	for _, r := range schedule.NextRuns(now, st.Schedule, 2) {
		if !hasDate(list, r.Date) {
			next := r.Local.Format(previewDateForm+" 15:04") + " (" + r.Offset + "), " + r.UTC.Format("15:04") + " UTC"
			if note := runNote(r); note != "" {
				next += "; " + note
			}
			return next
		}
	}
	return ""
}

// days lists today and the listDays before it, newest first: the briefing
// of each date, or why it has none as the schedule's decision rule tells.
// created is when the org was set up: no run was due before it. Errors are
// for admins; members see the failed status.
func (st orgState) days(slug string, now time.Time, today schedule.Date, created time.Time, list []briefing.Briefing, admin bool) []views.BriefingDay {
	days := make([]views.BriefingDay, 0, listDays+1)
	for d := today; !d.Before(today.AddDays(-listDays)); d = d.AddDays(-1) {
		day := views.BriefingDay{Date: d.String(), Weekday: d.Weekday().String()[:3], Today: d == today}
		if i := slices.IndexFunc(list, func(b briefing.Briefing) bool { return b.Date == d }); i >= 0 {
			b := list[i]
			day.Status, day.Link = b.Status, briefingsURL(slug)+"/"+d.String()
			day.Manual = b.ScheduledAt.IsZero() // only "generate now" looks so far
			if admin {
				day.Error = b.LastError
			}
		} else {
			day.Reason, day.Why = st.whyNone(now, d, today, created)
		}
		days = append(days, day)
	}
	return days
}

// whyNone explains a date without a briefing. Today is decided at now; a
// past date at its own run time, so a scheduled day reads "missed" unless
// the org did not exist yet at that time.
func (st orgState) whyNone(now time.Time, d, today schedule.Date, created time.Time) (reason, why string) {
	if d.Before(schedule.DateOf(created.In(st.loc()))) {
		return views.ReasonBeforeSetup, "— before the org was set up"
	}
	switch st.Eligibility() {
	case orgs.NotConfigured:
		return string(orgs.NotConfigured), "not set up"
	case orgs.InvalidConfig:
		return string(schedule.ReasonInvalidConfig), "invalid settings"
	case orgs.FlagOff:
		return string(orgs.FlagOff), "switched off"
	}
	at := now
	if d != today {
		at, _ = schedule.FireTime(st.Schedule.Zone.Loc, d, st.Schedule.At)
	}
	dec := schedule.Decide(at, st.Schedule, nil)
	switch {
	case dec.Reason == schedule.ReasonPaused:
		return string(dec.Reason), "paused"
	case dec.Reason == schedule.ReasonDayOff:
		return string(dec.Reason), "day off"
	case dec.Reason == schedule.ReasonNotYet:
		return string(dec.Reason), "not yet: runs at " + dec.FireAt.In(st.Schedule.Zone.Loc).Format("15:04")
	case d == today:
		return string(dec.Reason), "due now: the worker is about to generate it"
	case at.Before(created):
		return views.ReasonBeforeSetup, "— the org was set up after that day's run time"
	}
	return "missed", "missed"
}

func hasDate(list []briefing.Briefing, d schedule.Date) bool {
	return slices.ContainsFunc(list, func(b briefing.Briefing) bool { return b.Date == d })
}

// daysText names a day set the way people say it.
func daysText(days schedule.DaySet) string {
	switch days {
	case schedule.AllDays():
		return "day"
	case schedule.DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday):
		return "weekday"
	}
	names := days.Names()
	for i, n := range names {
		names[i] = strings.ToUpper(n[:1]) + n[1:]
	}
	return strings.Join(names, ", ")
}
