// Package briefview is a briefing's content as people read it: the view
// model the briefing page (views) and the briefing email (views/mail) both
// render, so the two show the same jobs in the same sections and order.
// Every field is a string ready to show; snapshot.View (internal/snapshot) fills it from a
// snapshot (docs/briefing-content.md).
package briefview

import (
	"fieldbrief/internal/i18n"
	"net/url"
	"strconv"
	"strings"
)

// Content is one briefing's day. Its lists are bounded
// (docs/briefing-content.md, "Bounds"): each says how many jobs it leaves
// out, and links where to see them (Link fills the links).
type Content struct {
	Date        string // the briefing's date, YYYY-MM-DD
	Timezone    string // "America/New_York"
	Zone        string // the abbreviations in force that day: "EST", "EST/EDT" on a DST day
	Summary     Summary
	ActionItems ActionItems
	Routes      []Route
	Cancelled   []Job // the day's cancelled jobs, in arrival order
	Yesterday   Yesterday

	MoreCancelled int    // cancelled jobs not in Cancelled
	CancelledURL  string // where they all are
	Shortened     bool   // lists were cut below their usual bounds to keep the briefing under 1 MB
}

// Link fills the links to the jobs the lists leave out, under org, the
// org's pages ("/orgs/acme", or with the host for an email): the day board
// for the action items, the job list of the day for a route or the
// cancelled jobs.
func (c *Content) Link(org string) {
	board := org + "/board?date=" + url.QueryEscape(c.Date)
	jobs := org + "/jobs?date=" + url.QueryEscape(c.Date)
	a := &c.ActionItems
	a.EmergenciesURL, a.OverdueURL, a.OnHoldURL = board, board+"#overdue", board
	a.UnassignedURL = jobs + "&technician=none"
	// Each job needing action links to itself and to its own day on the
	// board (an overdue job's is an earlier day; the briefing's day when
	// an older snapshot has no date).
	for _, list := range [][]Job{a.Emergencies, a.Overdue, a.Unassigned, a.OnHold} {
		for i := range list {
			j := &list[i]
			if j.ID == 0 {
				continue
			}
			day := j.Date
			if day == "" {
				day = c.Date
			}
			j.JobURL = org + "/jobs/" + strconv.FormatInt(j.ID, 10)
			j.BoardURL = org + "/board?date=" + url.QueryEscape(day)
		}
	}
	for i := range c.Routes {
		if r := &c.Routes[i]; r.TechnicianID != 0 {
			r.MoreURL = jobs + "&technician=" + strconv.FormatInt(r.TechnicianID, 10)
		} else {
			r.MoreURL = jobs
		}
	}
	c.CancelledURL = jobs + "&status=cancelled"
}

// Summary is the strip at the top: the day in counts. The action item
// counts are the sections' sizes; each job needing action is counted once.
type Summary struct {
	Jobs, Cancelled, TechniciansOut, Unassigned, Overdue, Emergencies, OnHold int
	Technicians                                                               int // active technicians
}

// ActionItems are the jobs someone must act on, shown before the routes;
// a job is in one section only. Each section lists its first jobs; More…
// counts the rest, and …URL is where they all are.
type ActionItems struct {
	Unassigned, Overdue, Emergencies, OnHold []Job

	MoreUnassigned, MoreOverdue, MoreEmergencies, MoreOnHold int
	UnassignedURL, OverdueURL, EmergenciesURL, OnHoldURL     string
}

// Section is one group of action items.
type Section struct {
	ID      string // the page anchor: "emergencies", "overdue", "unassigned", "on-hold"
	Title   string
	Empty   string // what the page says when there is none
	Jobs    []Job
	More    int    // the section's jobs not in Jobs
	MoreURL string // where they all are
}

// Count is how many jobs the section has, listed or not.
func (s Section) Count() int { return len(s.Jobs) + s.More }

// Sections lists the action item groups, most urgent first: the order of
// the precedence that decides a job's one section.
func (a ActionItems) Sections() []Section {
	return []Section{
		{"emergencies", "Emergencies", "No emergency.", a.Emergencies, a.MoreEmergencies, a.EmergenciesURL},
		{"overdue", "Overdue", "Nothing else overdue.", a.Overdue, a.MoreOverdue, a.OverdueURL},
		{"unassigned", "Unassigned", "Nothing else unassigned.", a.Unassigned, a.MoreUnassigned, a.UnassignedURL},
		{"on-hold", "On hold", "Nothing else on hold.", a.OnHold, a.MoreOnHold, a.OnHoldURL},
	}
}

// Count is how many jobs need action, listed or not.
func (a ActionItems) Count() int {
	return len(a.Unassigned) + len(a.Overdue) + len(a.Emergencies) + len(a.OnHold) +
		a.MoreUnassigned + a.MoreOverdue + a.MoreEmergencies + a.MoreOnHold
}

// Route is one technician's day in arrival order; cancelled jobs are not
// visits and are listed apart.
type Route struct {
	TechnicianID int64 // 0 in snapshots made before technicians carried one
	Technician   string
	Phone        string
	Jobs         []Job
	More         int    // the technician's jobs of the day not in Jobs, cancelled ones not counted
	MoreURL      string // where they all are
}

// Job is one customer visit, every field ready to show.
type Job struct {
	ID         int64  // 0 in snapshots made before jobs carried one
	Window     string // "08:00–10:00" in the briefing's zone; dates where not the briefing's day
	Zone       string // the abbreviation in force: "EST"; "" when Window already says it
	Customer   string
	Address    string
	MapURL     string // MapURL(Address), "" for none
	Phone      string // the customer's, as entered
	Type       string // "Boiler repair"
	Technician string // who it is assigned to, for action items
	Status     string // "scheduled", "on hold", … (words)
	StatusCode string // scheduled | in_progress | on_hold | done | cancelled
	Notes      string
	Emergency  bool
	Date       string // the org-local date its window starts, YYYY-MM-DD; "" when unknown
	// Action items only (Content.Link): the job's page and its day on the
	// board; "" elsewhere and for a job without an ID.
	JobURL, BoardURL string
}

// Yesterday compares the previous day's plan with what got done.
type Yesterday struct {
	Date                 string
	Scheduled, Completed int
}

// WindowZone is the window with its zone abbreviation: "08:00–10:00 EST".
func (j Job) WindowZone() string {
	if j.Zone == "" {
		return j.Window
	}
	return j.Window + " " + j.Zone
}

// MapURL is a maps search for an address: a plain https URL that phones
// open in their maps app and desktops in the browser (Google Maps URLs,
// "search" action, documented at developers.google.com/maps/documentation/urls).
func MapURL(address string) string {
	address = strings.TrimSpace(address)
	if address == "" {
		return ""
	}
	return "https://www.google.com/maps/search/?api=1&query=" + url.QueryEscape(address)
}

// TelURL turns a phone number as people write it into a tap-to-call link:
// digits only, with a leading + kept. It stops at an extension ("x12",
// "ext. 12"), which a dialler would run into the number. Fewer than three
// digits is not a number: "".
func TelURL(phone string) string {
	var b strings.Builder
	for _, r := range phone {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' && b.Len() == 0:
			b.WriteRune(r)
		case (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '#' || r == ';' || r == ',') && b.Len() > 0:
			// An extension or a pause: the number ended.
			return tel(b.String())
		}
	}
	return tel(b.String())
}

func tel(number string) string {
	if len(strings.TrimPrefix(number, "+")) < 3 {
		return ""
	}
	return "tel:" + number
}

// SectionTitle is an action item section's heading in the reader's
// words, by its anchor (Section.ID): the one place for the four titles
// (the catalog's mail.section.*), for the briefing's page and its email
// alike. A section it does not know keeps the title it came with.
func SectionTitle(l *i18n.Localizer, s Section) string {
	switch s.ID {
	case "emergencies", "overdue", "unassigned", "on-hold":
		return l.T("mail.section." + strings.ReplaceAll(s.ID, "-", "_"))
	}
	return s.Title
}

// JobStatus is a job's status in the reader's words: the one table from a
// status code to words (the catalog's jobstatus.*), for pages, emails and
// the technician's day page alike. A code it does not know (a status newer
// than the catalog) is shown as written.
func JobStatus(l *i18n.Localizer, code string) string {
	switch code {
	case "scheduled", "in_progress", "on_hold", "done", "cancelled":
		return l.T("jobstatus." + code)
	}
	return strings.ReplaceAll(code, "_", " ")
}
