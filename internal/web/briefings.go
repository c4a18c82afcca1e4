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
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// listDays is how many local dates before the newest one a page of the
// calendar shows: a page is listDays+1 dates, newest first.
const listDays = 14

// briefingList shows a page of the calendar: today and the previous two
// weeks, or the two weeks ending at ?to=YYYY-MM-DD (the "Older" and "Newer"
// links), so a page's address survives a reload.
func (s *Server) briefingList(c echo.Context) error {
	return s.renderBriefingList(c, http.StatusOK, nil)
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
		httpkit.SetRetryAfter(c, err)
		return s.renderBriefingList(c, httpkit.StatusOf(err), err)
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

// renderBriefingList shows the calendar page; refused is why "generate
// now" was refused, or nil.
func (s *Server) renderBriefingList(c echo.Context, status int, refused error) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	l := localizer(c)
	loc := l.Locale()
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
	zone, zoneID := st.zoneWords(l, now)
	p := views.BriefingsPage{
		Page:    s.page(c, l.T("briefings.title")),
		Slug:    m.Org.Slug,
		Notice:  localNotice(l, c.QueryParam("notice")),
		Problem: refusal(l, refused),
		Admin:   m.IsAdmin(),
		// Generating needs what the worker needs; pausing an org the
		// platform switched off would only muddle the page, so both are
		// offered only when the schedule is valid and the flag is on.
		Usable: st.usable(),
		Paused: st.Err == nil && !st.Schedule.Enabled,
		Zone:   zone,
		ZoneID: zoneID,
		Days:   st.days(l, m.Org.Slug, now, today, last, m.Org.CreatedAt, list, hist, m.ReadsAll()),
		Range:  l.Tf("briefings.range", map[string]any{"From": loc.DateYear(first.Time()), "To": loc.DateYear(last.Time())}),
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
	p.StateKind, p.State = st.describe(l, now)
	if p.NextRun, err = s.nextRun(ctx, l, m.Org.ID, st, now); err != nil {
		return err
	}
	return s.render(c, status, views.Briefings(p))
}

// refusal is why "generate now" was refused, in the reader's language:
// the briefing package's refusal (i18n.Refusal).
func refusal(l *i18n.Localizer, err error) string {
	if err == nil {
		return ""
	}
	if w, ok := l.Refusal(err); ok {
		return w
	}
	return l.T("error.text.internal")
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

// problem is why the saved config is invalid, in the reader's words: the
// settings page's validation messages.
func (st orgState) problem(l *i18n.Localizer) string {
	var ve *schedule.ValidationError
	if !errors.As(st.Err, &ve) {
		return l.T("bsettings.stored_unreadable")
	}
	return messageList(plainMessages(l, ve, storedInput(st.FieldforceConfig).timezone))
}

// zoneWords names the zone the dates are in as people know it at now
// ("Central Time (Chicago)"), with its IANA id for the small print; when
// it is UTC for want of a usable zone, the name says why.
func (st orgState) zoneWords(l *i18n.Localizer, now time.Time) (name, id string) {
	z, err := st.Zone()
	name = l.Locale().ZoneName(z.Name, now)
	switch {
	case errors.Is(err, tenants.ErrZoneNotSaved):
		return l.Tf("briefings.zone.not_saved", map[string]any{"Zone": name}), z.Name
	case errors.Is(err, tenants.ErrZoneInvalid):
		return l.Tf("briefings.zone.invalid", map[string]any{"Zone": name}), z.Name
	}
	return name, z.Name
}

// describe is the org's state in one line, most fundamental cause first.
func (st orgState) describe(l *i18n.Localizer, now time.Time) (kind, text string) {
	switch st.Eligibility() {
	case flags.NotConfigured:
		return string(flags.NotConfigured), l.T("briefings.state.not_configured")
	case flags.InvalidConfig:
		return string(flags.InvalidConfig), l.Tf("briefings.state.invalid", map[string]any{"Problem": st.problem(l)})
	case flags.FlagOff:
		return string(flags.FlagOff), l.T("briefings.state.flag_off")
	}
	if !st.Schedule.Enabled {
		return "paused", l.T("briefings.state.paused")
	}
	loc := l.Locale()
	data := map[string]any{
		"Time": loc.Clock(st.Schedule.At.Hour, st.Schedule.At.Minute),
		"Zone": loc.ZoneName(st.Schedule.Zone.Name, now),
	}
	switch days := st.Schedule.Days; days {
	case schedule.AllDays():
		return "running", l.Tf("briefings.state.running_daily", data)
	case schedule.DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday):
		return "running", l.Tf("briefings.state.running_weekdays", data)
	default:
		data["Days"] = dayNames(loc, days)
		return "running", l.Tf("briefings.state.running_days", data)
	}
}

// dayNames names a day set's days in the locale, in its week's order:
// "Mon, Wed" (en-US starts on Sunday, de-DE on Monday).
func dayNames(loc locale.Locale, days schedule.DaySet) string {
	var names []string
	for _, d := range loc.Week() {
		if days.Has(d) {
			names = append(names, loc.Weekday(d, locale.Abbreviated))
		}
	}
	return strings.Join(names, ", ")
}

// days lists the page's dates, last and the listDays before it, newest
// first: the briefing of each date, or why it has none as the config and
// flag in force then tell (briefing.Explain). Errors are for admins;
// members see the failed status.
func (st orgState) days(l *i18n.Localizer, slug string, now time.Time, today, last schedule.Date, created time.Time, list []briefing.Briefing,
	hist flags.BriefingHistory, admin bool) []views.BriefingDay {
	days := make([]views.BriefingDay, 0, listDays+1)
	for d := last; !d.Before(last.AddDays(-listDays)); d = d.AddDays(-1) {
		day := views.BriefingDay{Date: d.String(), Label: l.Locale().Date(d.Time()), Today: d == today}
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
		day.Reason, day.Why = cal.Reason.String(), dayWords(l, cal)
		days = append(days, day)
	}
	return days
}

// dayReasonWords is the one place a calendar day's reason becomes words:
// its catalog id.
var dayReasonWords = map[briefing.DayReason]string{
	briefing.DayGenerated:     "briefings.day.ready",
	briefing.DayDelivered:     "briefings.day.delivered",
	briefing.DayPending:       "briefings.day.pending",
	briefing.DayFailed:        "briefings.day.failed",
	briefing.DayBeforeSetup:   "briefings.day.before_setup",
	briefing.DayNotConfigured: "briefings.day.not_configured",
	briefing.DayInvalidConfig: "briefings.day.invalid_config",
	briefing.DayFlagOff:       "briefings.day.flag_off",
	briefing.DayPaused:        "briefings.day.paused",
	briefing.DayNotScheduled:  "briefings.day.not_scheduled",
	briefing.DayNotYet:        "briefings.day.not_yet",
	briefing.DayDueNow:        "briefings.day.due_now",
	briefing.DayMissed:        "briefings.day.missed",
	briefing.DayLate:          "briefings.day.late",
}

// dayWords is a calendar day in the reader's words; a day not reached yet
// says when it runs, in the reader's clock. A late day says when it was
// made and how late, from its firing (lateDetail); one whose firing was
// not recorded keeps the delivery's English detail for English readers.
func dayWords(l *i18n.Localizer, d briefing.Day) string {
	id, ok := dayReasonWords[d.Reason]
	if !ok {
		return d.Reason.String()
	}
	if d.Reason == briefing.DayNotYet && !d.RunAt.IsZero() {
		return l.Tf("briefings.day.runs_at", map[string]any{"Time": l.Locale().Time(d.RunAt.In(d.Zone))})
	}
	if d.Reason == briefing.DayLate && !d.Fired.At.IsZero() {
		return l.Tf("briefings.day.late_note", map[string]any{"Note": lateDetail(l, d.Fired)})
	}
	if d.Reason == briefing.DayLate && d.Note != "" && l.Language() == "en" {
		return l.Tf("briefings.day.late_note", map[string]any{"Note": d.Note}) // "made 21:35, 15 h after 06:30 — not sent"
	}
	return l.T(id)
}
