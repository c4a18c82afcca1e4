package views

import "fieldbrief/views/briefview"

// TechnicianDay is the day link page (GET /t/{token}): one technician's
// jobs of one date, as they are now, for a phone and no account
// (docs/delivery.md, "Day links").
type TechnicianDay struct {
	OrgName    string
	Technician string
	DateLabel  string // "Thu 26 Nov 2026"
	Timezone   string // "America/Chicago"
	Zone       string // the abbreviations in force that day: "CST", "CST/CDT"
	ValidUntil string // "the end of Fri 27 Nov"
	Jobs       []briefview.Job
	Cancelled  []briefview.Job
	More       bool // jobs were left off (snapshot.MaxTechnicianJobs)
}
