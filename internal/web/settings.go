package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/places"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// settingsForm shows the fieldforce settings page for the stored document.
func (s *Server) settingsForm(c echo.Context) error {
	stored, err := s.tenants.Fieldforce(c.Request().Context(), currentMembership(c).Org.ID)
	if err != nil {
		return err
	}
	return s.renderSettings(c, http.StatusOK, stored, rejected{}, settingsAnswer{})
}

// settingsSave saves the friendly form. Its fields map one to one onto the
// document's briefing and delivery objects, so the form and the JSON editor
// save the same document through the same strict validation. What the form
// does not send is kept from the stored document: the delivery (a client
// posting only the schedule) and whether briefings run (the Pause/Resume
// button is the control for that; the form carries it hidden).
func (s *Server) settingsSave(c echo.Context) error {
	in, err := scheduleInputFrom(c, s.clockLocale(c), s.now())
	if err != nil {
		return err
	}
	version, err := formVersion(c, tenants.AnyVersion)
	if err != nil {
		return err
	}
	var kept *schedule.DeliveryConfig
	if in.delivery == nil || in.enabled == nil {
		stored, err := s.tenants.Fieldforce(c.Request().Context(), currentMembership(c).Org.ID)
		if err != nil {
			return err
		}
		kept = stored.Config.Delivery // nil when the stored document is invalid: nothing valid to keep
		if in.enabled == nil {
			in.enabled = storedInput(stored).enabled
		}
	}
	return s.saveSettings(c, in.settingsDocument(kept), rejected{form: &in, version: version}, "saved", "settings")
}

// saveSettings stores a config document read at r.version and redirects to
// next with a notice; an invalid document re-renders the page (422, by
// httpkit.StatusOf) with the rejected input beside its errors, and one saved over a
// newer version (409, docs/versions.md) with the input kept and what differs
// from the stored one. Either saves nothing.
func (s *Server) saveSettings(c echo.Context, raw []byte, r rejected, notice, next string) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	_, err := s.tenants.SaveFieldforce(ctx, actor(c), m.Org.ID, raw, r.version)
	if isStale(err) {
		stored, err := s.tenants.Fieldforce(ctx, m.Org.ID)
		if err != nil {
			return err
		}
		r.stale = true
		return s.renderSettings(c, http.StatusConflict, stored, r, settingsAnswer{})
	}
	if errors.As(err, &r.err) {
		stored, err := s.tenants.Fieldforce(ctx, m.Org.ID)
		if err != nil {
			return err
		}
		return s.renderSettings(c, httpkit.StatusOf(r.err), stored, r, settingsAnswer{})
	}
	if err != nil {
		return err
	}
	return redirect(c, returnURL(m.Org.Slug, next)+"?notice="+notice)
}

// rejected is input that failed validation, to show again with its errors:
// the schedule form's values or the JSON text, whichever was submitted.
type rejected struct {
	form *scheduleInput
	json *string
	err  *schedule.ValidationError
	// version is the one the input was read at (below 0: the form sent
	// none, last write wins), shown again with a refused one so that its
	// next save is still checked against it; stale says it was refused for
	// being older than the stored one: the page then carries the stored
	// version, as the admin has now seen what differs.
	version int64
	stale   bool
}

// settingsHistory is how many of the org's audit entries the settings page
// shows: enough to answer "who changed this, and from what?".
const settingsHistory = 5

// settingsAnswer is what the page shows in answer to one of its smaller
// forms posted without JavaScript: the webhook secret's block (masked when
// zero) and a test send's outcome.
type settingsAnswer struct {
	secret views.SecretBlock
	test   views.TestSendResult
	locale views.LocaleForm // a refused locale, as chosen, with its error
}

// renderSettings builds the settings page from one model of the document:
// the stored one or, on a failed save, the rejected input. The form and the
// JSON editor both show that model (docs/web.md, "The schedule
// editor"): a rejected form shows its document in the JSON editor too, and
// rejected JSON that parses fills the form with its values.
func (s *Server) renderSettings(c echo.Context, status int, stored tenants.FieldforceConfig, r rejected, answer settingsAnswer) error {
	m, l := currentMembership(c), localizer(c)
	zoneFrom := ""
	if !stored.Found {
		stored, zoneFrom = browserDefault(c, stored)
	}
	flagOn, err := s.flags.Enabled(c.Request().Context(), m.Org.ID, schedule.FlagKey)
	if err != nil {
		return err
	}
	slug := m.Org.Slug
	p := views.SettingsPage{
		FlagOff:       !flagOn,
		Page:          s.page(c, l.T("bsettings.page_title")),
		Base:          settingsURL(slug),
		Notice:        pageNotice(c),
		NotConfigured: !stored.Found,
		JSON:          views.JSONForm{Text: indentJSON(stored.Raw)},
	}
	if zoneFrom != "" {
		p.ZoneFrom, p.ZoneFromID = l.Locale().ZoneName(zoneFrom, s.now()), zoneFrom
	}
	p.Section = "settings"
	in := storedInput(stored)
	if !stored.Found {
		// A new org's form has "send each technician their own day"
		// ticked (docs/delivery.md, "A technician's email"): saving it as
		// shown sends them. Only the form's default: a save without the
		// delivery section, or any saved document, is not changed by it.
		in.delivery.technicians = true
	}
	current := in
	var ve *schedule.ValidationError
	if errors.As(stored.Err, &ve) {
		p.StoredProblem = messageList(plainMessages(l, ve, in.timezone))
	} else if stored.Err != nil {
		p.StoredProblem = l.T("bsettings.stored_unreadable")
	}
	p.Paused = stored.Err == nil && !in.on()
	var formErrs map[string]string
	switch {
	case r.form != nil:
		kept := in.delivery
		in = *r.form
		if in.delivery == nil { // a form without the section kept the stored delivery
			in.delivery = kept
		}
		formErrs = formErrors(plainMessages(l, r.err, in.timezone))
		p.JSON.Text = indentJSON(in.settingsDocument(nil))
	case r.json != nil:
		if typed, ok := jsonInput([]byte(*r.json)); ok {
			in = typed
		}
		p.JSON = views.JSONForm{Text: *r.json, Errors: plainMessages(l, r.err, in.timezone)}
	}
	p.Version = stored.Version
	if (r.form != nil || r.json != nil) && !r.stale && r.version >= 0 {
		p.Version = r.version
	}
	if r.stale {
		p.Stale = &views.StaleNotice{Reload: settingsURL(slug), Changes: settingsChanges(l, current, in)}
	}
	history, err := s.audit.ForOrg(c.Request().Context(), m.Org.ID, settingsHistory)
	if err != nil {
		return err
	}
	p.History = auditRows(history)
	for i := range p.History {
		p.History[i].When = s.orgTime(l, stored, p.History[i].At)
	}
	p.Locale = answer.locale
	if p.Locale.Error == "" {
		p.Locale.Value = m.Org.Locale
	}
	p.Locale.Options = localeOptions()
	p.Locale.Action = "/orgs/" + slug + "/settings/locale"
	p.Form = s.formModel(l, in, formErrs)
	p.Form.BrowserDefault = !stored.Found && zoneFrom == "" && r.form == nil && r.json == nil
	p.Secret = s.secretBlock(c, answer.secret)
	p.Tests = testSends(c, stored, answer.test)
	if p.Log, err = s.deliveryLog(c.Request().Context(), l, m.Org.ID, stored); err != nil {
		return err
	}
	if p.Preview, err = s.preview(c.Request().Context(), l, m.Org.ID, in.document(), in.timezone, in.delivery.sends()); err != nil {
		return err
	}
	return s.render(c, status, views.Settings(p))
}

// messageList joins sentences for one paragraph.
func messageList(ms []views.FieldMessage) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Message
	}
	return strings.Join(out, " ")
}

// formModel is the view of the form in the reader's language and clock,
// with the zone's current offset and wall clock when the zone is valid.
func (s *Server) formModel(tr *i18n.Localizer, in scheduleInput, errs map[string]string) views.ScheduleForm {
	l := tr.Locale()
	f := views.ScheduleForm{
		Timezone:     in.timezone,
		LocalTime:    in.shownTime(l),
		Days:         in.days,
		Enabled:      in.enabledText(),
		Errors:       errs,
		DayOptions:   dayOptions(l),
		TimeExample:  shownClock(l, "08:00"),
		TimeExamples: strings.Join(timeExamples(l), " · "),
	}
	if d := in.delivery; d != nil {
		f.Delivery = views.DeliveryForm{To: d.to, Technicians: d.technicians == true, WebhookURL: d.webhookURL,
			SendWithin: d.sendWithin, Updates: d.updates}
	}
	if errs["timezone"] == "" {
		f.ZoneHint = s.zoneHint(tr, in.timezone)
	} else if in.timezone != "" {
		// Typed text several places match: say so, and offer them.
		if _, choices := places.Resolve(in.timezone, zoneReader(tr), s.now()); len(choices) > 0 {
			msg := "bsettings.msg.zone_choices"
			if len(choices) == 1 { // a near match only ("Munchon" for "München"): never taken unasked
				msg = "bsettings.msg.zone_choose_one"
			}
			errs["timezone"] = tr.Tf(msg, map[string]any{"Typed": places.Bound(in.timezone)})
			for _, r := range choices {
				f.ZoneChoices = append(f.ZoneChoices, zoneOption(r, l, s.now()))
			}
		}
	}
	return f
}

// browserZoneCookie carries the browser's time zone (static/app.js sets it
// on every page), for the settings of an org that has none saved yet.
const browserZoneCookie = "tz"

// browserDefault is the document an org without saved settings is shown:
// the default schedule in the browser's zone when the browser sent one we
// know (then also its name, for the page to say where it came from), or
// the default as it is (UTC) otherwise. Nothing is saved: the admin saves.
func browserDefault(c echo.Context, stored tenants.FieldforceConfig) (tenants.FieldforceConfig, string) {
	ck, err := c.Cookie(browserZoneCookie)
	if err != nil || len(ck.Value) > 4*places.MaxQuery {
		return stored, ""
	}
	name, err := url.QueryUnescape(ck.Value)
	if err != nil {
		return stored, ""
	}
	zone, err := schedule.LoadZone(name)
	if err != nil || zone.Name == stored.Schedule.Zone.Name {
		return stored, ""
	}
	stored.Schedule.Zone = zone
	stored.Config = stored.Schedule.Config()
	stored.Raw = stored.Config.JSON()
	return stored, zone.Name
}

// zoneHint is a zone as people know it, its IANA id and its offset and
// wall clock now in l's words ("India Standard Time (Kolkata) Asia/Kolkata:
// UTC+05:30, 4:47 PM there now."); zero when the name is not a zone.
func (s *Server) zoneHint(l *i18n.Localizer, name string) views.ZoneHint {
	z, err := schedule.LoadZone(name)
	if err != nil {
		return views.ZoneHint{}
	}
	now := s.now().In(z.Loc)
	return views.ZoneHint{Name: l.Locale().ZoneName(z.Name, now), ID: z.Name,
		Line: l.Tf("bsettings.zone_hint", map[string]any{"Offset": schedule.OffsetLabel(now), "Time": l.Locale().Time(now)})}
}

// dayOptions are the day checkboxes in l's abbreviated day names, Monday
// first like the stored document.
func dayOptions(l locale.Locale) []views.DayOption {
	out := make([]views.DayOption, 0, 7)
	for i, name := range schedule.AllDays().Names() {
		out = append(out, views.DayOption{Value: name, Label: l.Weekday(time.Weekday((i+1)%7), locale.Abbreviated)})
	}
	return out
}

// timeExamples are ways to type a time of day that l reads (ParseClock),
// the locale's own spelling first: "6:30 AM · 6:30 pm · 18:30" on a
// 12-hour clock, "06:30 · 6.30 · 18h30" on a 24-hour one.
func timeExamples(l locale.Locale) []string {
	own := shownClock(l, "06:30")
	if strings.ContainsFunc(own, unicode.IsLetter) { // a day period: the 12-hour clock
		return []string{own, "6:30 pm", "18:30"}
	}
	return []string{own, "6.30", "18h30"}
}

// formFields maps the document's fields to the form's: the first entry
// whose path is the field or a prefix of it (an item such as
// "delivery.email.to[2]" goes beside its list's input).
var formFields = []struct{ path, field string }{
	{"briefing.timezone", "timezone"},
	{"briefing.schedule_local_time", "schedule_local_time"},
	{"briefing.days", "days"},
	{"briefing.enabled", "enabled"},
	{"delivery.email.technicians", "delivery_email_technicians"},
	{"delivery.email", "delivery_email_to"},
	{"delivery.webhook", "delivery_webhook_url"},
	{"delivery.send_within", "delivery_send_within"},
	{"delivery.updates", "delivery_updates"},
}

// formField is the form field a document path is shown beside; "" (the
// form's top) for anything else, such as the document itself.
func formField(path string) string {
	for _, f := range formFields {
		if rest, ok := strings.CutPrefix(path, f.path); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return f.field
		}
	}
	return ""
}

// formErrors places messages beside the form's fields.
func formErrors(ms []views.FieldMessage) map[string]string {
	if len(ms) == 0 {
		return nil
	}
	errs := map[string]string{}
	for _, m := range ms {
		field := formField(m.Field)
		errs[field] = strings.TrimPrefix(errs[field]+" "+m.Message, " ")
	}
	return errs
}

// indentJSON pretty-prints a stored document for the editor; text that is
// not JSON is shown as is.
func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// settingsSetLocale saves the org's locale (docs/i18n.md), audited as
// "org.locale.set"; a tag the select does not offer is a 422 beside the
// field, nothing saved.
func (s *Server) settingsSetLocale(c echo.Context) error {
	ctx, m := c.Request().Context(), currentMembership(c)
	locale := c.FormValue("locale")
	_, err := s.tenants.SetLocale(ctx, actor(c), m.Org.ID, locale)
	if fieldOf(err) != "" {
		stored, serr := s.tenants.Fieldforce(ctx, m.Org.ID)
		if serr != nil {
			return serr
		}
		return s.renderSettings(c, http.StatusUnprocessableEntity, stored, rejected{},
			settingsAnswer{locale: views.LocaleForm{Value: locale, Error: localizer(c).T("bsettings.locale.invalid")}})
	}
	if err != nil {
		return err
	}
	return redirect(c, settingsURL(m.Org.Slug)+"?notice=locale-saved")
}
