package views

import "slices"

// SettingsPage is the fieldforce settings page: the schedule form, the raw
// JSON editor of the same document, and the preview of the next runs.
type SettingsPage struct {
	Page
	Base          string // "/orgs/{slug}/settings/fieldforce"
	Notice        string // after a successful save
	StoredProblem string // why the stored document is invalid (the worker skips the org)
	NotConfigured bool   // no document saved yet: the worker does not run for the org
	ZoneFrom      string // with NotConfigured: the browser's zone the form is filled with, by its name ("Central Time (Chicago)"), "" for UTC
	ZoneFromID    string // its IANA id, in small print
	FlagOff       bool   // the platform switched the feature off for the org
	Paused        bool   // the stored schedule is paused (drives the pause/resume button)
	Form          ScheduleForm
	Secret        SecretBlock
	Tests         TestSends
	Log           DeliveryLog
	JSON          JSONForm
	Preview       Preview
	History       []AuditRow // the org's latest audit entries, newest first
	Locale        LocaleForm
	// Version is the stored document's (tenants.FieldforceConfig.Version),
	// carried by the schedule form and the JSON editor; Stale says a save was
	// refused because it is not the stored one any more (409).
	Version int64
	Stale   *StaleNotice
}

// LocaleForm is the org's locale (docs/i18n.md): the language and formats
// its people read unless they choose their own language.
type LocaleForm struct {
	Action  string   // where the form posts: "/orgs/{slug}/settings/locale"
	Value   string   // the chosen tag, "de-DE"
	Options []Option // Value the tag, Label its name in its own language
	Error   string
}

// ScheduleForm is the friendly form's values, as typed, and its errors by
// form field (timezone, schedule_local_time, days, enabled,
// delivery_email_to, delivery_email_technicians, delivery_webhook_url,
// delivery_send_within, delivery_updates; "" for the form).
type ScheduleForm struct {
	Timezone  string
	LocalTime string
	Days      []string
	Enabled   string   // the hidden enabled field: "true", "false" or rejected text
	ZoneHint  ZoneHint // the zone's offset and wall clock now, for a valid zone
	// DayOptions are the day checkboxes, Monday first like the stored
	// document, labelled in the reader's language (CLDR's abbreviated names).
	DayOptions []DayOption
	// TimeExample is a time in the reader's clock, the box's placeholder
	// ("8:00 AM", "08:00"); TimeExamples a few ways to type one, for the hint.
	TimeExample  string
	TimeExamples string
	// ZoneChoices are the zones of typed text several places match
	// ("Springfield"), offered beside the field after a refused save.
	ZoneChoices []ZoneOption
	// BrowserDefault: no zone is saved and the browser's is not known yet,
	// so static/picker.js fills in the browser's zone if the server knows it.
	BrowserDefault bool
	Delivery       DeliveryForm
	Errors         map[string]string
}

// DeliveryForm is the form's Delivery section, as typed.
type DeliveryForm struct {
	To          string // addresses, one per line or comma-separated
	Technicians bool
	WebhookURL  string
	SendWithin  string // delivery.send_within as stored or typed; "" is the default
	Updates     bool   // delivery.updates (absent: true)
}

// SecretBlock is the webhook signing secret's block: masked unless an
// admin just revealed or rotated it.
type SecretBlock struct {
	Base     string // "/orgs/{slug}/settings/fieldforce"
	CSRF     string
	Revealed string // the secret, shown only in the answer to reveal or rotate
	Rotated  bool   // Revealed is a secret that replaced the old one
	Error    string // beside the rotate confirmation
}

// Error returns the message to show beside field, "" if none.
func (f ScheduleForm) Error(field string) string { return f.Errors[field] }

// HasDay reports whether a day checkbox is ticked.
func (f ScheduleForm) HasDay(day string) bool { return slices.Contains(f.Days, day) }

// JSONForm is the raw config document editor.
type JSONForm struct {
	Text   string
	Errors []FieldMessage // each names its JSON field, e.g. "briefing.timezone"
}

// FieldMessage is one validation problem in plain words; Field is the
// document path it concerns, kept for the markup (data-field), never shown.
type FieldMessage struct {
	Field   string
	Message string
}

// Preview is the htmx fragment listing the next runs of the schedule being
// edited, or why it cannot be computed.
type Preview struct {
	Errors []FieldMessage
	Zone   string // the zone as people know it: "Central Time (Chicago)"
	ZoneID string // its IANA id, in small print
	Paused bool
	Next   string // the first run in the reader's clock, "Mon, Dec 8, 8:00 AM CST"
	// CatchUp says, as a sentence in the reader's words, what today's run
	// does when today's minute has passed and the first run is made now,
	// late: "Today's 6:30 AM has passed: today's briefing will be kept,
	// not sent; first sent: Thu, Nov 26, 6:30 AM CST." (docs/guarantees.md,
	// "Late briefings"). "" otherwise.
	CatchUp  string
	Kept     bool // the catch-up run is kept but not sent (later than send_within)
	Runs     []PreviewRun
	Warnings []string // DST problems within the next year
}

// HasDST reports whether a listed run is shifted by a DST gap or falls in
// an overlap: only then does the table have its daylight saving column.
func (p Preview) HasDST() bool {
	return slices.ContainsFunc(p.Runs, func(r PreviewRun) bool { return r.Flag != "" })
}

// Summary is the preview in one line, what the live region announces.
func (p Preview) Summary(pg Page) string {
	switch {
	case len(p.Errors) > 0:
		return pg.Tf("bsettings.summary.invalid", map[string]any{"Problem": p.Errors[0].Message})
	case p.Next == "":
		return pg.T("bsettings.summary.none")
	case p.Paused && p.CatchUp != "":
		return pg.Tf("bsettings.summary.paused_now", map[string]any{"CatchUp": p.CatchUp})
	case p.Paused:
		return pg.Tf("bsettings.summary.paused", map[string]any{"Next": p.Next})
	case p.CatchUp != "":
		return pg.Tf("bsettings.summary.now", map[string]any{"CatchUp": p.CatchUp})
	}
	return pg.Tf("bsettings.summary.next", map[string]any{"Next": p.Next})
}

// ZoneHint is the line under the zone field: the zone as people know it,
// its IANA id in small print, and its offset and wall clock now in the
// reader's words ("UTC−06:00, 8:04 AM there now."); zero for no zone.
type ZoneHint struct {
	Name string
	ID   string
	Line string
}

// PreviewRun is one upcoming run.
type PreviewRun struct {
	Date   string // "Mon, Mar 9", in the reader's locale
	Local  string // "8:00 AM", in the reader's clock
	UTC    string // "1:00 PM UTC", with its date when it differs from the local date
	Offset string // "UTC−05:00"
	Flag   string // "" | "gap" | "overlap"
	Note   string // "shifted: 2:30 AM doesn't exist, runs at 3:00 AM"
	Late   string // a catch-up run: "now, 15 h after 6:30 AM: kept, not sent"
}

// DayOption is a weekday checkbox.
type DayOption struct {
	Value string // config name
	Label string // the reader's abbreviated name: "Mon", "Mo."
}

const (
	presetWeekdays = "mon,tue,wed,thu,fri"
	presetEveryDay = "mon,tue,wed,thu,fri,sat,sun"
)

func ariaInvalid(msg string) string {
	if msg != "" {
		return "true"
	}
	return "false"
}

// describedBy links an input to its hint and, when it has one, its error.
func describedBy(hint, field, msg string) string {
	if msg != "" {
		return hint + " " + field + "-error"
	}
	return hint
}

func firstMessage(ms []FieldMessage) string {
	if len(ms) == 0 {
		return ""
	}
	return ms[0].Message
}

// catchUpClass is the catch-up line's look: a warning when the run is
// kept but not sent.
func catchUpClass(kept bool) string {
	if kept {
		return "warning"
	}
	return "notice"
}
