// Package mail renders the briefing email, HTML and plain text, from its own
// view model: the caller (dispatch, in the worker) fills BriefingEmail with
// strings already formatted for the org (times in its zone, with the zone's
// abbreviation), so this package knows no domain types and no time zones.
package mail

import (
	"fmt"
	"strings"

	"fieldbrief/views/briefview"
)

// Recipient says whose email this is.
type Recipient string

const (
	// Dispatcher gets the whole org's day: the summary, the action items and
	// every technician's route.
	Dispatcher Recipient = "dispatcher"
	// Technician gets only their own day.
	Technician Recipient = "technician"
)

// BriefingEmail is everything one briefing email shows.
type BriefingEmail struct {
	OrgName        string
	DateLabel      string // "Mon 9 Mar"
	Timezone       string // "America/New_York", named once under the title
	BriefingURL    string // the briefing page
	DayURL         string // a technician's day link (BASE_URL/t/…), "" for dispatchers or when none
	UnsubscribeURL string // one-click unsubscribe for this recipient
	Recipient      Recipient
	Summary        Summary
	ActionItems    ActionItems
	Routes         []Route
	Cancelled      []Job               // the day's cancelled jobs, shown apart after the routes
	Yesterday      briefview.Yesterday // Date "" for none (technicians' emails)
	Own            TechnicianDay       // a technician's email: their day (the fields above stay empty)

	// The lists are bounded (docs/briefing-content.md, "Bounds"): the
	// cancelled jobs not listed, and where they are; Shortened says the
	// lists were cut further to keep the email under 1 MB.
	MoreCancelled int
	CancelledURL  string
	Shortened     bool
}

// TechnicianDay is what a technician's email shows of their own work.
type TechnicianDay struct {
	// First is the day's first visit, "08:00 at 500 W 2nd St" (its
	// customer when it has no address); "" without one.
	First     string
	Jobs      []Job // the day's visits, in arrival order, cancelled ones apart
	Overdue   []Job // their jobs overdue on the day (docs/briefing-content.md)
	Cancelled []Job // the day's jobs of theirs that were cancelled

	// How many of each list's jobs it leaves out (the bounds, or the email's
	// shortening): "and N more", linked to the day link, which opens without
	// an account; never to a page that needs one.
	MoreJobs, MoreOverdue, MoreCancelled int
}

// jobs, overdue and cancelled count each list's jobs, listed or not.
func (d TechnicianDay) jobs() int      { return len(d.Jobs) + d.MoreJobs }
func (d TechnicianDay) overdue() int   { return len(d.Overdue) + d.MoreOverdue }
func (d TechnicianDay) cancelled() int { return len(d.Cancelled) + d.MoreCancelled }

// ownSection is one list of a technician's email.
type ownSection struct {
	id, title, text string // data-section, heading, the text part's heading
	note            string
	jobs            []Job
	more            int
}

func (d TechnicianDay) sections() []ownSection {
	var out []ownSection
	for _, s := range []ownSection{
		{"jobs", "Your jobs", "YOUR JOBS", "", d.Jobs, d.MoreJobs},
		{"overdue", "Overdue", "OVERDUE", "Still open from before this day.", d.Overdue, d.MoreOverdue},
		{"cancelled", "Cancelled", "CANCELLED", "", d.Cancelled, d.MoreCancelled},
	} {
		if len(s.jobs)+s.more > 0 {
			out = append(out, s)
		}
	}
	return out
}

func (s ownSection) heading() string { return fmt.Sprintf("%s (%d)", s.title, len(s.jobs)+s.more) }

// The content types are the briefing page's (views/briefview): the email
// and the page show the same jobs in the same sections and order.
type (
	// Summary is the day in counts.
	Summary = briefview.Summary
	// ActionItems are the jobs that need someone to act, shown before the
	// routes, each in one section only.
	ActionItems = briefview.ActionItems
	// Route is one technician's day, in visit order.
	Route = briefview.Route
	// Job is one customer visit, every field ready to show.
	Job = briefview.Job
)

// sections lists the non-empty action item groups, most urgent first.
func sections(a ActionItems) []briefview.Section {
	var out []briefview.Section
	for _, s := range a.Sections() {
		if s.Count() > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Subject is a dispatcher's subject: the org and the local date.
func Subject(orgName, dateLabel string) string {
	return orgName + " · briefing for " + dateLabel
}

// Subject is the email's subject. A technician's is about their day:
// "Your day, Thu 26 Nov: 3 jobs, first 08:00 at 500 W 2nd St", and is
// their inbox preview too.
func (e BriefingEmail) Subject() string {
	if e.Recipient == Technician {
		return e.title() + ": " + e.headline()
	}
	return Subject(e.OrgName, e.DateLabel)
}

// preheader is the hidden preview text inbox lists show after the subject.
func (e BriefingEmail) preheader() string {
	if e.Recipient == Technician {
		return e.Subject()
	}
	return e.summaryLine()
}

// headline is a technician's day in one line: their jobs, the first
// visit, and their overdue and cancelled jobs when there are any.
func (e BriefingEmail) headline() string {
	d := e.Own
	out := "no jobs"
	if n := d.jobs(); n > 0 {
		out = plural(n, "job", "jobs")
	}
	if d.First != "" {
		if d.jobs() > 1 {
			out += ", first " + d.First
		} else {
			out += ", " + d.First
		}
	}
	if n := d.overdue(); n > 0 {
		out += fmt.Sprintf(" · %d overdue", n)
	}
	if n := d.cancelled(); n > 0 {
		out += fmt.Sprintf(" · %d cancelled", n)
	}
	return out
}

// title is the heading inside the email.
func (e BriefingEmail) title() string {
	if e.Recipient == Technician {
		return "Your day, " + e.DateLabel
	}
	return "Briefing for " + e.DateLabel
}

// summaryLine is the day in one sentence, also a dispatcher's inbox
// preview.
func (e BriefingEmail) summaryLine() string {
	if e.Recipient == Technician {
		return e.headline()
	}
	s := e.Summary
	parts := []string{plural(s.Jobs, "job", "jobs")}
	if e.Recipient == Dispatcher {
		for _, p := range []struct {
			n    int
			word string
		}{
			{s.Emergencies, "emergencies"}, {s.Unassigned, "unassigned"}, {s.Overdue, "overdue"},
			{s.OnHold, "on hold"}, {s.Cancelled, "cancelled"}, {s.TechniciansOut, "technicians out"},
		} {
			if p.n > 0 {
				word := p.word
				if p.n == 1 {
					word = strings.NewReplacer("emergencies", "emergency", "technicians", "technician").Replace(word)
				}
				parts = append(parts, fmt.Sprintf("%d %s", p.n, word))
			}
		}
	}
	return strings.Join(parts, " · ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func telURL(phone string) string { return briefview.TelURL(phone) }

// Text renders the plain-text part: the same content as the HTML, in the
// same order, for clients and people that prefer text.
func Text(e BriefingEmail) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("%s", e.OrgName)
	line("%s", e.title())
	line("Times in %s", e.Timezone)
	line("")
	line("%s", e.summaryLine())
	line("")
	if e.Shortened {
		line("%s", e.shortenedNote())
		line("")
	}
	if e.Recipient == Technician {
		textTechnician(&b, e)
		return b.String()
	}
	if secs := sections(e.ActionItems); len(secs) > 0 {
		line("NEEDS ACTION")
		line("")
		for _, s := range secs {
			line("%s (%d)", s.Title, s.Count())
			for _, j := range s.Jobs {
				textJob(&b, j)
			}
			textMore(&b, s.More, s.MoreURL)
			line("")
		}
	}
	if len(e.Routes) > 0 {
		line("ROUTES")
		line("")
	}
	for _, r := range e.Routes {
		if r.Phone != "" {
			line("%s · %s", r.Technician, r.Phone)
		} else {
			line("%s", r.Technician)
		}
		if len(r.Jobs) == 0 && r.More == 0 {
			line("  No jobs.")
		}
		for _, j := range r.Jobs {
			textJob(&b, j)
		}
		textMore(&b, r.More, r.MoreURL)
		line("")
	}
	if len(e.Cancelled) > 0 || e.MoreCancelled > 0 {
		line("CANCELLED (%d)", len(e.Cancelled)+e.MoreCancelled)
		line("")
		for _, j := range e.Cancelled {
			textJob(&b, j)
		}
		textMore(&b, e.MoreCancelled, e.CancelledURL)
		line("")
	}
	if y := e.Yesterday; y.Date != "" {
		line("Yesterday (%s): %d of %d scheduled jobs completed.", y.Date, y.Completed, y.Scheduled)
		line("")
	}
	textFooter(&b, e)
	return b.String()
}

// textTechnician is the rest of a technician's text part: their day link,
// their jobs, their overdue and cancelled jobs; no route heading, no
// phone number of their own.
func textTechnician(b *strings.Builder, e BriefingEmail) {
	line := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	if e.DayURL != "" {
		line("Open your day on your phone: %s", e.DayURL)
		line("")
	}
	for _, sec := range e.Own.sections() {
		line("%s (%d)", sec.text, len(sec.jobs)+sec.more)
		line("")
		for _, j := range sec.jobs {
			textJob(b, j)
		}
		textMore(b, sec.more, e.DayURL)
		line("")
	}
	textFooter(b, e)
}

func textFooter(b *strings.Builder, e BriefingEmail) {
	line := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	switch {
	case e.Recipient == Technician && e.DayURL == "":
		line("%s", noDayLink)
		line("")
	case e.DayURL == "":
		line("Open the briefing: %s", e.BriefingURL)
		line("")
	}
	line("You receive this because %s sends you its daily briefing.", e.OrgName)
	line("Unsubscribe: %s", e.UnsubscribeURL)
}

// shortenedNote says an email's lists were cut below their usual bounds,
// and where the rest is: the briefing for a dispatcher, the day link for a
// technician (who has no account).
func (e BriefingEmail) shortenedNote() string {
	const cut = "This email was shortened to stay under 1 MB: its lists show fewer jobs than usual."
	switch {
	case e.Recipient != Technician:
		return cut + " Open the briefing for the rest."
	case e.DayURL != "":
		return cut + " Open your day for the rest."
	}
	return cut + " Your dispatcher has the rest."
}

// noDayLink ends a technician's email that has no day link (a re-send
// after the link's time): the briefing page needs an account they do not
// have, so it is not linked.
const noDayLink = "For changes to your day since, ask your dispatcher."

// moreLine is what a bounded list says of the jobs it leaves out.
func moreLine(n int) string { return fmt.Sprintf("and %d more", n) }

func textMore(b *strings.Builder, n int, href string) {
	if n <= 0 {
		return
	}
	if href == "" {
		fmt.Fprintf(b, "%s\n", moreLine(n))
		return
	}
	fmt.Fprintf(b, "%s: %s\n", moreLine(n), href)
}

func textJob(b *strings.Builder, j Job) {
	head := "- " + j.WindowZone() + "  " + j.Customer
	if j.Emergency {
		head += "  [EMERGENCY]"
	}
	fmt.Fprintln(b, head)
	var tech string
	if j.Technician != "" {
		tech = "Technician: " + j.Technician
	}
	for _, s := range []string{j.Type, j.Address, j.Phone, tech, j.Status, j.Notes} {
		// Every line indented under its job, a note's own lines too.
		for l := range strings.Lines(strings.ReplaceAll(s, "\r\n", "\n")) {
			if l = strings.TrimRight(l, "\r\n"); l != "" {
				fmt.Fprintln(b, "  "+l)
			}
		}
	}
}
