// Package mail renders the briefing email, HTML and plain text, from its own
// view model: the caller (the delivery worker) fills BriefingEmail with
// strings already formatted for the org (times in its zone, with the zone's
// abbreviation), so this package knows no domain types and no time zones.
package mail

import (
	"fmt"
	"strings"
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
}

// Summary is the day in counts.
type Summary struct {
	Jobs, Cancelled, TechniciansOut, Unassigned, Overdue, Emergencies int
}

// ActionItems are the jobs that need someone to act, shown before the
// routes.
type ActionItems struct {
	Unassigned, Overdue, Emergencies, OnHold []Job
}

// sections lists the non-empty action item groups, most urgent first.
func (a ActionItems) sections() []section {
	var out []section
	for _, s := range []section{
		{"Emergencies", a.Emergencies},
		{"Unassigned", a.Unassigned},
		{"Overdue", a.Overdue},
		{"On hold", a.OnHold},
	} {
		if len(s.Jobs) > 0 {
			out = append(out, s)
		}
	}
	return out
}

type section struct {
	Title string
	Jobs  []Job
}

// Route is one technician's day, in visit order.
type Route struct {
	Technician string
	Phone      string
	Jobs       []Job
}

// Job is one customer visit, every field ready to show.
type Job struct {
	Window    string // "08:00–10:00 EST", formatted by the caller in the org's zone
	Customer  string
	Address   string
	MapURL    string // a maps link for Address, "" for none
	Phone     string // the customer's
	Status    string // "scheduled", "on hold", …
	Notes     string
	Emergency bool
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
			{s.Cancelled, "cancelled"}, {s.TechniciansOut, "technicians out"},
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

// telURL turns a phone number as people write it into a tel: link.
func telURL(phone string) string {
	var b strings.Builder
	for i, r := range phone {
		if (r >= '0' && r <= '9') || (r == '+' && i == 0) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "tel:" + b.String()
}

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
	if secs := e.ActionItems.sections(); len(secs) > 0 {
		line("NEEDS ACTION")
		line("")
		for _, s := range secs {
			line("%s (%d)", s.Title, len(s.Jobs))
			for _, j := range s.Jobs {
				textJob(&b, j)
			}
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
		if len(r.Jobs) == 0 {
			line("  No jobs.")
		}
		for _, j := range r.Jobs {
			textJob(&b, j)
		}
		line("")
	}
	line("Open the briefing: %s", e.BriefingURL)
	line("")
	line("You receive this because %s sends you its daily briefing.", e.OrgName)
	line("Unsubscribe: %s", e.UnsubscribeURL)
	return b.String()
}

func textJob(b *strings.Builder, j Job) {
	head := "- " + j.Window + "  " + j.Customer
	if j.Emergency {
		head += "  [EMERGENCY]"
	}
	fmt.Fprintln(b, head)
	for _, s := range []string{j.Address, j.Phone, j.Status, j.Notes} {
		if s != "" {
			fmt.Fprintln(b, "  "+s)
		}
	}
}
