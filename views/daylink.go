package views

import (
	"fieldbrief/internal/i18n"
	"fieldbrief/views/briefview"
)

// TechnicianDay is the day link page (GET /t/{token}): one technician's
// jobs of one date, as they are now, for a phone and no account
// (docs/delivery.md, "Day links").
type TechnicianDay struct {
	L          *i18n.Localizer // the technician's language, else the org's; nil is English
	OrgName    string
	Technician string
	DateLabel  string // "Thu, Nov 26, 2026" (en-US), in L's formats
	Timezone   string // "America/Chicago", in small print after ZoneName
	ZoneName   string // "Central Time (Chicago)" in L's language; "" shows Timezone alone
	Zone       string // the abbreviations in force that day: "CST", "CST/CDT"
	ValidUntil string // the day the link works through: "Fri, Nov 27"
	Jobs       []briefview.Job
	Cancelled  []briefview.Job
	More       bool // jobs were left off (snapshot.MaxTechnicianJobs)
	// Their own jobs overdue on the date, as they are now; MoreOverdue:
	// some were left off (snapshot.MaxTechnicianJobs).
	Overdue     []briefview.Job
	MoreOverdue bool
	// Their day sheets by email (docs/delivery.md, "Stopping day
	// sheets"): the form that asks the office to stop or start them again
	// posts to SheetsAction; SheetsStopped is when they asked to stop, in
	// L's formats ("" = they receive them).
	SheetsAction  string
	SheetsStopped string
}

// TechnicianLinkRow is a day link as admins and staff see it on the
// briefing page: that it was sent, to whom and until when; never its
// token, which only the technician's email holds.
type TechnicianLinkRow struct {
	Technician string
	Sent       string // "2026-11-26 06:30 CST"
	ValidUntil string
	State      string // "valid", "expired", "revoked"
}
