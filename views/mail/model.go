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
	UnsubscribeURL string // one-click unsubscribe for this recipient
	Recipient      Recipient
	Summary        Summary
	ActionItems    ActionItems
	Routes         []Route
	Cancelled      []Job               // the day's cancelled jobs, shown apart after the routes
	Yesterday      briefview.Yesterday // Date "" for none (technicians' emails)

	// The lists are bounded (docs/briefing-content.md, "Bounds"): the
	// cancelled jobs not listed, and where they are; Shortened says the
	// lists were cut further to keep the email under 1 MB.
	MoreCancelled int
	CancelledURL  string
	Shortened     bool
}

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

// Subject is the email's subject: the org and the local date.
func Subject(orgName, dateLabel string) string {
	return orgName + " · briefing for " + dateLabel
}

// title is the heading inside the email.
func (e BriefingEmail) title() string {
	if e.Recipient == Technician {
		return "Your day, " + e.DateLabel
	}
	return "Briefing for " + e.DateLabel
}

// summaryLine is the day in one sentence, also the inbox preview.
func (e BriefingEmail) summaryLine() string {
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
		line("%s", shortenedNote)
		line("")
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
	line("Open the briefing: %s", e.BriefingURL)
	line("")
	line("You receive this because %s sends you its daily briefing.", e.OrgName)
	line("Unsubscribe: %s", e.UnsubscribeURL)
	return b.String()
}

// shortenedNote says an email's lists were cut below their usual bounds.
const shortenedNote = "This email was shortened to stay under 1 MB: its lists show fewer jobs than usual. Open the briefing for the rest."

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
		if s != "" {
			fmt.Fprintln(b, "  "+s)
		}
	}
}
