package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// listDays is how many local dates before the newest one a page of the
// calendar shows: a page is listDays+1 dates, newest first.
const listDays = 14

// briefingList shows a page of the calendar: today and the previous two
// weeks, or the two weeks ending at ?to=YYYY-MM-DD (the "Older" and "Newer"
// links), so a page's address survives a reload.
func (s *Server) briefingList(c echo.Context) error {
	return s.renderBriefingList(c, http.StatusOK, "")
}

// briefingGenerate is the admin's "generate now" for today's local date:
// it creates the briefing or asks for a new revision of it. While one is
// on its way, a press shows it (the briefing's page) instead of queueing
// another; past the hourly allowance it is a 429 with Retry-After, said in
// words. A refusal (the schedule is off or invalid, too many) is shown on
// the list with its status, not as an error page.
func (s *Server) briefingGenerate(c echo.Context) error {
	m := currentMembership(c)
	g, err := s.briefings.Generate(c.Request().Context(), m.Org.ID, s.now(), actor(c))
	switch apperr.Code(err) {
	case "":
		if !g.Queued {
			return redirect(c, briefingsURL(m.Org.Slug)+"/"+g.Date.String()+"?notice=already-generating")
		}
		return redirect(c, briefingsURL(m.Org.Slug)+"?notice=generating")
	case apperr.Conflict, apperr.Invalid, apperr.TooMany, apperr.Unavailable:
		setRetryAfter(c, err)
		return s.renderBriefingList(c, statusOf(err), apperr.Message(err))
	}
	return err
}

// pageEnd is the newest date of the calendar page asked for: ?to, never
// after today; a malformed date is no page (404).
func pageEnd(c echo.Context, today schedule.Date) (schedule.Date, error) {
	v := c.QueryParam("to")
	if v == "" {
		return today, nil
	}
	d, err := schedule.ParseDate(v)
	if err != nil {
		return d, apperr.Errorf(apperr.NotFound, "There is no such page of briefings.")
	}
	if today.Before(d) {
		return today, nil
	}
	return d, nil
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
	last, err := pageEnd(c, today)
	if err != nil {
		return err
	}
	first := last.AddDays(-listDays)
	list, err := s.briefings.List(ctx, m.Org.ID, first, last)
	if err != nil {
		return err
	}
	hist, err := s.history(ctx, m.Org.ID, st, first, last, now)
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
		Days:   st.days(m.Org.Slug, now, today, last, m.Org.CreatedAt, list, hist, m.IsAdmin()),
		Range:  first.String() + " to " + last.String(),
		Latest: last == today,
	}
	p.Section = "briefings"
	if created := schedule.DateOf(m.Org.CreatedAt.In(st.loc())); created.Before(first) {
		p.Older = briefingsURL(m.Org.Slug) + "?to=" + first.AddDays(-1).String()
	}
	if last != today {
		p.Newer = briefingsURL(m.Org.Slug)
		if newer := last.AddDays(listDays + 1); newer.Before(today) {
			p.Newer += "?to=" + newer.String()
		}
	}
	p.StateKind, p.State = st.describe()
	if p.NextRun, err = s.nextRun(ctx, m.Org.ID, st, now); err != nil {
		return err
	}
	return s.render(c, status, views.Briefings(p))
}

// history is what decided the org's briefings over the dates first..last,
// read with a day's margin each side for the zones' offsets: the audit
// log's lookback is the page's span.
func (s *Server) history(ctx context.Context, orgID int64, st orgState, first, last schedule.Date, now time.Time) (flags.BriefingHistory, error) {
	return s.flags.BriefingHistory(ctx, orgID, st.FieldforceConfig, first.AddDays(-1).Time(), last.AddDays(2).Time(), now)
}

// orgState is what decides whether an org's briefings run: its saved
// schedule and its feature flag (flags.BriefingEligibility, the rule the
// worker and "generate now" follow too).
type orgState struct {
	flags.BriefingState
}

func (s *Server) orgState(ctx context.Context, orgID int64) (orgState, error) {
	st, err := s.flags.BriefingState(ctx, orgID)
	return orgState{st}, err
}

// usable reports whether the org has a valid saved schedule and the flag
// on: what the worker and "generate now" need, paused or not.
func (st orgState) usable() bool { return st.Eligibility() == flags.Eligible }

// running reports whether the worker generates this org's briefings.
func (st orgState) running() bool { return st.usable() && st.Schedule.Enabled }

// today is the org-local date at now; UTC's when the config has no valid zone.
func (st orgState) today(now time.Time) schedule.Date {
	return schedule.DateOf(now.In(st.loc()))
}

// loc is the zone the list's dates are in (tenants.FieldforceConfig.Zone).
func (st orgState) loc() *time.Location {
	z, _ := st.Zone()
	return z.Loc
}

// problem is why the saved config is invalid, in plain words.
func (st orgState) problem() string {
	var ve *schedule.ValidationError
	if !errors.As(st.Err, &ve) {
		return "they cannot be read."
	}
	return messageList(plainMessages(ve, storedInput(st.FieldforceConfig).timezone))
}

// zoneName names the zone the dates are in, and why it is UTC when it is.
func (st orgState) zoneName() string {
	z, err := st.Zone()
	if note := zoneNote(err); note != "" {
		return z.Name + " (" + note + ")"
	}
	return z.Name
}

// describe is the org's state in one line, most fundamental cause first.
func (st orgState) describe() (kind, text string) {
	switch st.Eligibility() {
	case flags.NotConfigured:
		return string(flags.NotConfigured), "No schedule is saved yet, so no briefing runs. An admin sets it in Settings."
	case flags.InvalidConfig:
		return string(flags.InvalidConfig), "The saved settings are invalid, so no briefing runs: " + st.problem() + " An admin fixes them in Settings."
	case flags.FlagOff:
		return string(flags.FlagOff), "Daily briefings are switched off for this org by the platform team: none are generated, " +
			"on schedule or on request, until they switch them back on. Your settings are kept."
	}
	if !st.Schedule.Enabled {
		return "paused", "Paused: no briefing runs until an admin resumes."
	}
	return "running", "Every " + daysText(st.Schedule.Days) + " at " + st.Schedule.At.String() + " in " + st.Schedule.Zone.Name + "."
}

// days lists the page's dates, last and the listDays before it, newest
// first: the briefing of each date, or why it has none as the config and
// flag in force then tell (briefing.Explain). Errors are for admins;
// members see the failed status.
func (st orgState) days(slug string, now time.Time, today, last schedule.Date, created time.Time, list []briefing.Briefing,
	hist flags.BriefingHistory, admin bool) []views.BriefingDay {
	days := make([]views.BriefingDay, 0, listDays+1)
	for d := last; !d.Before(last.AddDays(-listDays)); d = d.AddDays(-1) {
		day := views.BriefingDay{Date: d.String(), Weekday: d.Weekday().String()[:3], Today: d == today}
		var cal briefing.Day
		if i := slices.IndexFunc(list, func(b briefing.Briefing) bool { return b.Date == d }); i >= 0 {
			b := list[i]
			cal = briefing.DayOf(b)
			day.Status, day.Link = b.Status, briefingsURL(slug)+"/"+d.String()
			day.Manual = b.ScheduledAt.IsZero() // only "generate now" looks so far
			if admin {
				day.Error = b.LastError
			}
		} else {
			cal = briefing.Explain(d, today, now, created, st.loc(), hist)
		}
		day.Reason, day.Why = cal.Reason.String(), dayWords(cal)
		days = append(days, day)
	}
	return days
}

// dayReasonWords is the one place a calendar day's reason becomes words.
var dayReasonWords = map[briefing.DayReason]string{
	briefing.DayGenerated:     "ready",
	briefing.DayDelivered:     "ready, delivered",
	briefing.DayPending:       "pending",
	briefing.DayFailed:        "failed",
	briefing.DayBeforeSetup:   "— before the org was set up",
	briefing.DayNotConfigured: "no schedule was saved yet",
	briefing.DayInvalidConfig: "the settings were invalid",
	briefing.DayFlagOff:       "switched off by the platform",
	briefing.DayPaused:        "paused",
	briefing.DayNotScheduled:  "day off: not a scheduled day",
	briefing.DayNotYet:        "not yet",
	briefing.DayDueNow:        "due now: the worker is about to generate it",
	briefing.DayMissed:        "missed",
	briefing.DayLate:          "ready, not sent",
}

// dayWords is a calendar day in words; a day not reached yet says when it runs.
func dayWords(d briefing.Day) string {
	w, ok := dayReasonWords[d.Reason]
	if !ok {
		return d.Reason.String()
	}
	if d.Reason == briefing.DayNotYet && !d.RunAt.IsZero() {
		w += ": runs at " + d.RunAt.In(d.Zone).Format("15:04")
	}
	if d.Reason == briefing.DayLate && d.Note != "" {
		w = "ready; " + d.Note // "made 21:35, 15 h after 06:30 — not sent"
	}
	return w
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
