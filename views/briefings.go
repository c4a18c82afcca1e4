package views

import (
	"strings"

	"fieldbrief/internal/i18n"

	"fieldbrief/views/briefview"
)

// BriefingsPage is the org's recent briefings: one row per local date, today
// first, with the briefing's status or why there is none.
type BriefingsPage struct {
	Page
	Slug      string
	Notice    string // after a successful action
	Problem   string // why "generate now" was refused
	Admin     bool   // shows generate now and pause/resume
	Usable    bool   // a valid saved schedule and the flag on: "generate now" and pause/resume apply
	Paused    bool
	Zone      string // the zone the dates are in, as people name it: "Central Time (Chicago)"
	ZoneID    string // its IANA id, in small print
	State     string // the schedule in one line, or why nothing runs
	StateKind string // running | paused | flag_off | invalid_config | not_configured
	NextRun   string // "" when nothing will run
	Days      []BriefingDay
	Range     string // "Wed, Feb 18, 2026 to Wed, Mar 4, 2026", in the reader's words
	Latest    bool   // the page ends today
	Older     string // the previous page's address; "" before the org existed
	Newer     string // the next page's address; "" on the latest page
}

// BriefingDay is one local date of the list.
type BriefingDay struct {
	Date   string // YYYY-MM-DD
	Label  string // the date in the reader's locale: "Thu, Nov 26", "Do., 26. Nov."
	Today  bool
	Status string // ready | pending | failed; "" when there is no briefing
	Link   string // the detail page when there is a briefing
	Manual bool   // created by "generate now"
	Error  string // why it failed; admins only
	Reason string // briefing.DayReason's code (data attribute, badge)
	Why    string // the same, for people
}

// BriefingPage is one briefing: its content and its generation history.
type BriefingPage struct {
	Page
	// Changed says, at the top of the page and of its print, that jobs of
	// the day changed after the briefing was made; "" when none did
	// (docs/briefing-content.md, "Changed since it was made").
	Changed string
	// L is the reader (docs/i18n.md): numbers in its locale; nil is English.
	// Every string below is already in its language and formats.
	L                     *i18n.Localizer
	Slug                  string
	Date                  string // YYYY-MM-DD
	DateLabel             string // "Thursday, November 26, 2026" (LongDate)
	YesterdayLabel        string // the day before, "Wed, Nov 25" (Date)
	Timezone              string // the IANA id, in small print
	ZoneName              string // "Central Time (Chicago)" in the reader's language (locale.ZoneName)
	Status                string
	Trigger               string
	FiredAt               string
	GeneratedAt           string
	ZoneRules             string             // the tz database that decided it, "tzdata 2025b (embedded)"; "" when not recorded
	ContentZoneRules      string             // the one the shown content was built with, when it differs from ZoneRules
	ZoneRulesShown        string             // ZoneRules in the reader's words: "tzdata 2025b (eingebaut)"
	ContentZoneRulesShown string             // ContentZoneRules in the reader's words
	LastError             string             // admins only: left empty for members
	Content               *briefview.Content // the newest revision's; nil until generated
	Prev, Next            DayLink            // the neighbouring local dates
	Revisions             []BriefingRevision
	Runs                  []BriefingRun
	Deliveries            []DeliveryRow // newest revision first
	HistoryNote           string        // how long history is kept and where it starts; "" to say nothing
	Notice                string        // after a successful action
	Admin                 bool          // sees errors, codes and worker ids; re-sends
	// Admins and staff: the date's technicians' day links, newest first.
	TechnicianLinks []TechnicianLinkRow
}

// DayLink is a neighbouring date on a briefing's page: a link to its
// briefing, or why it has none.
type DayLink struct {
	Date        string // YYYY-MM-DD
	Label       string // the date in the reader's locale, "Wed, Nov 25"; "" shows Date
	NearestText string // Nearest in the reader's locale; "" shows Nearest
	Link        string // "" when the date has no briefing
	Why         string // why there is none, as the briefings list says it
	Nearest     string // the nearest date that way with a briefing, when Link is ""
	NearestLink string
}

// BriefingRevision is one generated revision, newest first.
type BriefingRevision struct {
	Number         int
	Trigger        string // schedule | manual
	Generated      string
	ZoneRules      string // the tz database its content was built with; "" when not recorded
	ZoneRulesShown string // ZoneRules in the reader's words
}

// BriefingRun is one generation attempt.
type BriefingRun struct {
	Revision int
	Attempt  int
	Trigger  string // schedule | manual
	Outcome  string // completed | retry | failed | skipped
	Started  string
	Finished string
	Worker   string // admins only: left empty for members
	Error    string // admins only: left empty for members
}

// statusBadge is the CSS class of a briefing status.
func statusBadge(status string) string {
	switch status {
	case "ready", "completed", "done", "sent":
		return "badge-ready"
	case "pending", "retry", "in_progress", "on_hold":
		return "badge-pending"
	case "failed":
		return "badge-failed"
	}
	return "badge-muted"
}

// reasonClass is how a date without a briefing shows its reason: a date
// before the org existed is not news, so it is plain muted text; a missed
// run stands out.
func reasonClass(reason string) string {
	switch reason {
	case "before_setup":
		return "muted"
	case "missed":
		return "badge-pending"
	}
	return "badge-muted"
}

// label turns a stored code into words: "in_progress" -> "in progress".
func label(code string) string { return strings.ReplaceAll(code, "_", " ") }
