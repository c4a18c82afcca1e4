package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/places"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// scheduleInput is the schedule form as submitted. enabled holds what the
// document will get: a bool, or the unrecognised text for the validator to
// reject by name.
type scheduleInput struct {
	timezone  string
	localTime string
	typedTime string // the time as typed, shown back when the form is refused; "" for a stored config
	days      []string
	enabled   any            // nil when absent: the document's default, true
	delivery  *deliveryInput // nil when the form has no Delivery section
}

// deliveryInput is the form's Delivery section as submitted.
type deliveryInput struct {
	to          string // the textarea as typed
	technicians any    // a bool, or unrecognised text for the validator to reject by name
	webhookURL  string
	sendWithin  string // delivery.send_within as typed; "" leaves it out (the default, 3h)
	updates     bool   // delivery.updates; true is left out of the document (its default)
}

// scheduleInputFrom reads the form fields (the query string for the
// preview): the preview and the save read them here, the same way. The
// time is read as people type it in l ("6:30 pm", "0630", "18h30":
// locale.ParseClock) and becomes the document's HH:MM; one that cannot be
// read goes into the document as typed, for the validator to refuse beside
// the field. The zone is read at now (typedZone).
func scheduleInputFrom(c echo.Context, l locale.Locale, now time.Time) (scheduleInput, error) {
	form, err := c.FormParams()
	if err != nil {
		return scheduleInput{}, apperr.Errorf(apperr.Malformed, "Unreadable form.")
	}
	in := scheduleInput{
		timezone:  typedZone(form, zoneReader(localizer(c)), now),
		localTime: documentClock(l, form.Get("schedule_local_time")),
		typedTime: strings.TrimSpace(form.Get("schedule_local_time")),
		days:      form["days"],
	}
	if vs := form["enabled"]; len(vs) > 0 {
		in.enabled = parseEnabled(vs[len(vs)-1])
	}
	in.delivery = deliveryInputFrom(form)
	return in, nil
}

// typedZone is the zone field as the server reads it: the zone of a "Did
// you mean" button (timezone_choice) if one was pressed, else the text
// typed. Text that is not a zone name, but that one place or name matches
// best and alone ("Denver", "Eastern Time"), is read as that zone, as the
// picker takes a unique match on blur (docs/timezone-picker.md, "Typed, not
// picked"); anything else is kept as typed for the validator to refuse,
// with the choices beside the field (formModel).
func typedZone(form url.Values, r places.Reader, now time.Time) string {
	if choice := strings.TrimSpace(form.Get("timezone_choice")); choice != "" {
		return choice
	}
	typed := strings.TrimSpace(form.Get("timezone"))
	if typed == "" {
		return typed
	}
	if _, err := schedule.LoadZone(typed); err == nil {
		return typed
	}
	if zone, _ := places.Resolve(typed, r, now); zone != "" {
		return zone
	}
	return typed
}

// deliveryInputFrom reads the Delivery section; nil when the form has none
// of its text fields (the settings form always sends both, even empty), so
// a client that posts only the schedule keeps the stored delivery.
func deliveryInputFrom(form url.Values) *deliveryInput {
	_, hasTo := form["delivery_email_to"]
	_, hasURL := form["delivery_webhook_url"]
	if !hasTo && !hasURL {
		return nil
	}
	d := &deliveryInput{
		to:          form.Get("delivery_email_to"),
		webhookURL:  strings.TrimSpace(form.Get("delivery_webhook_url")),
		technicians: false, // an unticked checkbox is not sent
		sendWithin:  strings.TrimSpace(form.Get("delivery_send_within")),
		updates:     true,
	}
	if vs := form["delivery_email_technicians"]; len(vs) > 0 {
		d.technicians = parseEnabled(vs[len(vs)-1])
	}
	// The form says whether it carries the updates checkbox (an unticked
	// one is not sent): a client posting without it keeps them on, the
	// document's default.
	if _, has := form["delivery_updates_shown"]; has {
		vs := form["delivery_updates"]
		d.updates = len(vs) > 0 && parseEnabled(vs[len(vs)-1]) == true
	}
	return d
}

// recipients splits the textarea: one address per line or comma-separated,
// blanks ignored. (A display name holding a comma would be split; the stored
// form is bare addresses anyway.)
func (d deliveryInput) recipients() []string {
	fields := strings.FieldsFunc(d.to, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ';' })
	out := []string{}
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// member is the document's delivery object for the section, nil when it is
// left empty: nothing to send is no delivery key at all. send_within and
// updates are written only when they differ from their defaults, so a form
// save keeps what the JSON editor set and adds nothing it did not.
func (d deliveryInput) member() map[string]any {
	delivery := map[string]any{}
	if to := d.recipients(); len(to) > 0 || d.technicians != false {
		delivery["email"] = map[string]any{"to": to, "technicians": d.technicians}
	}
	if d.webhookURL != "" {
		delivery["webhook"] = map[string]any{"url": d.webhookURL}
	}
	if d.sendWithin != "" {
		delivery["send_within"] = d.sendWithin
	}
	if !d.updates {
		delivery["updates"] = false
	}
	if len(delivery) == 0 {
		return nil
	}
	return delivery
}

// sends reports whether the section sends the briefing to anyone.
func (d *deliveryInput) sends() bool {
	return d != nil && (len(d.recipients()) > 0 || d.technicians != false || d.webhookURL != "")
}

// on reports whether the form runs the briefings: enabled, or left to the
// document's default.
func (in scheduleInput) on() bool { return in.enabled == nil || in.enabled == true }

// parseEnabled reads a boolean field; anything boolWord does not know is
// passed on as text so the validator names the field.
func parseEnabled(v string) any {
	if b, ok := boolWord(v); ok {
		return b
	}
	return v
}

// boolWord reads the spellings forms and scripts send for a boolean:
// true/on/1/yes or false/off/0/no, in any case, spaces trimmed.
func boolWord(v string) (b, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "1", "yes":
		return true, true
	case "false", "off", "0", "no":
		return false, true
	}
	return false, false
}

// formDocument is the document a form submission describes, its members in
// the stored document's order (the JSON editor shows it). Enabled and the
// delivery's technicians may hold unrecognised text for the validator.
type formDocument struct {
	Briefing formBriefing   `json:"briefing"`
	Delivery map[string]any `json:"delivery,omitempty"`
}

type formBriefing struct {
	Timezone          string   `json:"timezone"`
	ScheduleLocalTime string   `json:"schedule_local_time"`
	Days              []string `json:"days"`
	Enabled           any      `json:"enabled,omitempty"`
}

// document is the config document of the form's schedule, for the
// preview, with the one delivery member the preview needs (send_within:
// whether today's late run is sent). Days are always present: a form with
// no day ticked means no day, not every day.
func (in scheduleInput) document() []byte {
	doc := formDocument{Briefing: in.briefing()}
	if in.delivery != nil && in.delivery.sendWithin != "" {
		doc.Delivery = map[string]any{"send_within": in.delivery.sendWithin}
	}
	return marshalDocument(doc)
}

// settingsDocument is the whole document the form saves: its schedule and
// its Delivery section or, when it has none, the delivery kept from the
// stored config.
func (in scheduleInput) settingsDocument(kept *schedule.DeliveryConfig) []byte {
	doc := formDocument{Briefing: in.briefing()}
	switch {
	case in.delivery != nil:
		doc.Delivery = in.delivery.member()
	case kept != nil:
		doc.Delivery = storedDelivery(kept).member()
	}
	return marshalDocument(doc)
}

func (in scheduleInput) briefing() formBriefing {
	return formBriefing{
		Timezone:          in.timezone,
		ScheduleLocalTime: in.localTime,
		Days:              append([]string{}, in.days...),
		Enabled:           in.enabled,
	}
}

func marshalDocument(doc formDocument) []byte {
	raw, _ := json.Marshal(doc) // strings, bools, string slices and a parsed config always encode
	return raw
}

// storedInput fills the form from the stored document. An invalid document
// is read leniently so the admin sees the values to fix.
func storedInput(stored tenants.FieldforceConfig) scheduleInput {
	cfg := stored.Config
	if stored.Err != nil {
		_ = json.Unmarshal(stored.Raw, &cfg)
	}
	return inputOf(cfg)
}

// jsonInput fills the form from a document typed in the JSON editor, read
// leniently (the validator says what is wrong); false when it is not a
// JSON object of the document's shape.
func jsonInput(raw []byte) (scheduleInput, bool) {
	var cfg schedule.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return scheduleInput{}, false
	}
	return inputOf(cfg), true
}

// inputOf is the form's view of a config: days spelled out (absent means
// every day) and enabled as a bool (absent means true).
func inputOf(cfg schedule.Config) scheduleInput {
	b := cfg.Briefing
	in := scheduleInput{timezone: b.Timezone, localTime: b.ScheduleLocalTime, days: b.Days, enabled: b.Enabled == nil || *b.Enabled,
		delivery: storedDelivery(cfg.Delivery)}
	if b.Days == nil {
		in.days = schedule.AllDays().Names()
	}
	return in
}

// enabledText is the form's hidden enabled field: true, false, or the
// unrecognised text a rejected submission carried.
func (in scheduleInput) enabledText() string {
	switch v := in.enabled.(type) {
	case nil:
		return "true"
	case bool:
		return strconv.FormatBool(v)
	case string:
		return v
	}
	return ""
}

func storedDelivery(d *schedule.DeliveryConfig) *deliveryInput {
	in := &deliveryInput{technicians: false, updates: d.UpdatesOn() || d == nil}
	if d == nil {
		return in
	}
	in.sendWithin = d.SendWithin
	if d.Email != nil {
		in.to = strings.Join(d.Email.To, "\n")
		in.technicians = d.Email.Technicians
	}
	if d.Webhook != nil {
		in.webhookURL = d.Webhook.URL
	}
	return in
}

// documentClock is a typed time of day in the document's spelling, HH:MM,
// or as typed (trimmed) when l cannot read it.
func documentClock(l locale.Locale, typed string) string {
	typed = strings.TrimSpace(typed)
	h, m, err := l.ParseClock(typed)
	if err != nil {
		return typed
	}
	return fmt.Sprintf("%02d:%02d", h, m)
}

// shownClock is a document's HH:MM as l writes a time of day in a text box
// ("6:30 PM", "18:30"), with plain spaces where CLDR has no-break ones, as
// people type them; anything else (a rejected value) as it is.
func shownClock(l locale.Locale, doc string) string {
	t, err := schedule.ParseLocalTime(doc)
	if err != nil {
		return doc
	}
	return strings.Map(func(r rune) rune {
		if r == '\u202f' || r == '\u00a0' {
			return ' '
		}
		return r
	}, l.Clock(t.Hour, t.Minute))
}

// shownTime is the form's time box: what was typed when the form is shown
// back refused, else the document's time in l's clock.
func (in scheduleInput) shownTime(l locale.Locale) string {
	if in.typedTime != "" {
		return in.typedTime
	}
	return shownClock(l, in.localTime)
}

// clockLocale is the locale the schedule form reads and writes its time
// in, and names zones in: the reader's (docs/i18n.md, "Who reads what"),
// whose clock is the org's region's ("8:00 AM" in en-US, "08:00" in de-DE).
func (s *Server) clockLocale(c echo.Context) locale.Locale {
	return localizer(c).Locale()
}
