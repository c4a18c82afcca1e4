package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/orgs"
	"fieldbrief/internal/schedule"
)

// scheduleInput is the schedule form as submitted. enabled holds what the
// document will get: a bool, or the unrecognised text for the validator to
// reject by name.
type scheduleInput struct {
	timezone  string
	localTime string
	days      []string
	enabled   any // nil when absent: the document's default, true
}

// scheduleInputFrom reads the form fields (the query string for the preview).
func scheduleInputFrom(c echo.Context) (scheduleInput, error) {
	form, err := c.FormParams()
	if err != nil {
		return scheduleInput{}, echo.NewHTTPError(http.StatusBadRequest, "Unreadable form.")
	}
	in := scheduleInput{
		timezone:  strings.TrimSpace(form.Get("timezone")),
		localTime: strings.TrimSpace(form.Get("schedule_local_time")),
		days:      form["days"],
	}
	if vs := form["enabled"]; len(vs) > 0 {
		in.enabled = parseEnabled(vs[len(vs)-1])
	}
	return in, nil
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

// document is the config document the form describes. Days are always
// present: a form with no day ticked means no day, not every day.
func (in scheduleInput) document() []byte {
	b := map[string]any{
		"timezone":            in.timezone,
		"schedule_local_time": in.localTime,
		"days":                append([]string{}, in.days...),
	}
	if in.enabled != nil {
		b["enabled"] = in.enabled
	}
	raw, _ := json.Marshal(map[string]any{"briefing": b}) // strings, bools and a string slice always encode
	return raw
}

// storedInput fills the form from the stored document. An invalid document
// is read leniently so the admin sees the values to fix.
func storedInput(stored orgs.FieldforceConfig) scheduleInput {
	cfg := stored.Config
	if stored.Err != nil {
		_ = json.Unmarshal(stored.Raw, &cfg)
	}
	b := cfg.Briefing
	in := scheduleInput{timezone: b.Timezone, localTime: b.ScheduleLocalTime, days: b.Days, enabled: b.Enabled == nil || *b.Enabled}
	if b.Days == nil { // absent means every day
		in.days = schedule.AllDays().Names()
	}
	return in
}
