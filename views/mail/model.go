// Package mail renders the briefing email, HTML and plain text, from its own
// view model: the caller (delivery, in the worker) fills BriefingEmail with
// strings already formatted for the org (times in its zone, with the zone's
// abbreviation), so this package knows no domain types and no time zones.
package mail

import (
	"cmp"
	"fmt"
	"strings"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/text"
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
	// L is the reader's language and formats (docs/i18n.md): the
	// technician's language, else the org's locale's; nil is English.
	// Every string below is already formatted in its formats locale.
	L              *i18n.Localizer
	OrgName        string
	DateLabel      string // "Thu, Nov 26" (en-US), "Do., 26. Nov." (de-DE)
	Timezone       string // "America/New_York", named once under the title, in small print after ZoneName
	ZoneName       string // "Eastern Time (New York)" in the reader's language (locale.ZoneName); "" for none
	BriefingURL    string // the briefing page
	DayURL         string // a technician's day link (BASE_URL/t/…), "" for dispatchers or when none
	UnsubscribeURL string // one-click unsubscribe for a dispatcher; "" for a technician, whose day sheet is work
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
	// First is the day's first visit in the reader's language, "8:00 AM
	// at 500 W 2nd St" (its customer when it has no address; VisitAt); ""
	// without one.
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
	id, title, note string // data-section, heading and note message ids
	jobs            []Job
	more            int
}

func (d TechnicianDay) sections() []ownSection {
	var out []ownSection
	for _, s := range []ownSection{
		{"jobs", "mail.own.jobs", "", d.Jobs, d.MoreJobs},
		{"overdue", "mail.own.overdue", "mail.own.overdue_note", d.Overdue, d.MoreOverdue},
		{"cancelled", "mail.own.cancelled", "", d.Cancelled, d.MoreCancelled},
	} {
		if len(s.jobs)+s.more > 0 {
			out = append(out, s)
		}
	}
	return out
}

func (s ownSection) heading(l *i18n.Localizer) string {
	return headingCount(l, l.T(s.title), len(s.jobs)+s.more)
}

// headingCount is a list's heading with how many jobs it holds: "Overdue (3)".
func headingCount(l *i18n.Localizer, title string, n int) string {
	return l.Tf("mail.heading_count", map[string]any{"Title": title, "Count": l.Locale().Number(n)})
}

// status is a job's status in the reader's language, by its code.
func status(l *i18n.Localizer, j Job) string {
	if j.StatusCode == "" {
		return j.Status
	}
	return briefview.JobStatus(l, j.StatusCode)
}

// VisitAt is a visit as a technician's subject names it: "8:00 AM at 500 W
// 2nd St"; at is already in the reader's clock.
func VisitAt(l *i18n.Localizer, at, place string) string {
	return l.Tf("mail.visit_at", map[string]any{"Time": at, "Place": text.SubjectPart(place)})
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

// Subject is a dispatcher's subject: the org and the local date. The org's
// name is the tenant's text: one short line of it (text.SubjectPart).
func Subject(l *i18n.Localizer, orgName, dateLabel string) string {
	return l.Tf("mail.subject", map[string]any{"Org": text.SubjectPart(orgName), "Date": dateLabel})
}

// Subject is the email's subject. A technician's is about their day:
// "Your day, Thu 26 Nov: 3 jobs, first 08:00 at 500 W 2nd St", and is
// their inbox preview too.
func (e BriefingEmail) Subject() string {
	if e.Recipient == Technician {
		return e.L.Tf("mail.technician_subject", map[string]any{"Title": e.title(), "Headline": e.headline()})
	}
	return Subject(e.L, e.OrgName, e.DateLabel)
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
	d, l := e.Own, e.L
	out := l.T("mail.no_jobs")
	if n := d.jobs(); n > 0 {
		out = countOf(l, "count.jobs", n)
	}
	if d.First != "" {
		id := "mail.first_only"
		if d.jobs() > 1 {
			id = "mail.first_of_many"
		}
		out = l.Tf(id, map[string]any{"Jobs": out, "Visit": d.First})
	}
	if n := d.overdue(); n > 0 {
		out += " · " + countOf(l, "mail.n.overdue", n)
	}
	if n := d.cancelled(); n > 0 {
		out += " · " + countOf(l, "mail.n.cancelled", n)
	}
	return out
}

// title is the heading inside the email.
func (e BriefingEmail) title() string {
	if e.Recipient == Technician {
		return e.L.Tf("mail.title_technician", map[string]any{"Date": e.DateLabel})
	}
	return e.L.Tf("mail.title", map[string]any{"Date": e.DateLabel})
}

// summaryLine is the day in one sentence, also a dispatcher's inbox
// preview.
func (e BriefingEmail) summaryLine() string {
	if e.Recipient == Technician {
		return e.headline()
	}
	s, l := e.Summary, e.L
	parts := []string{countOf(l, "count.jobs", s.Jobs)}
	if e.Recipient == Dispatcher {
		for _, p := range []struct {
			n  int
			id string
		}{
			{s.Emergencies, "mail.n.emergencies"}, {s.Unassigned, "mail.n.unassigned"}, {s.Overdue, "mail.n.overdue"},
			{s.OnHold, "mail.n.on_hold"}, {s.Cancelled, "mail.n.cancelled"}, {s.TechniciansOut, "mail.n.technicians_out"},
		} {
			if p.n > 0 {
				parts = append(parts, countOf(l, p.id, p.n))
			}
		}
	}
	return strings.Join(parts, " · ")
}

func telURL(phone string) string { return briefview.TelURL(phone) }

// Text renders the plain-text part: the same content as the HTML, in the
// same order, for clients and people that prefer text.
func Text(e BriefingEmail) string {
	var b strings.Builder
	l := e.L
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("%s", e.OrgName)
	line("%s", e.title())
	line("%s", textTimesIn(e.L, e.ZoneName, e.Timezone))
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
		line("%s", upper(l.T("mail.needs_action")))
		line("")
		for _, s := range secs {
			line("%s", headingCount(l, briefview.SectionTitle(l, s), s.Count()))
			for _, j := range s.Jobs {
				textJob(&b, l, j)
			}
			textMore(&b, l, s.More, s.MoreURL)
			line("")
		}
	}
	if len(e.Routes) > 0 {
		line("%s", upper(l.T("mail.routes")))
		line("")
	}
	for _, r := range e.Routes {
		if r.Phone != "" {
			line("%s · %s", r.Technician, r.Phone)
		} else {
			line("%s", r.Technician)
		}
		if len(r.Jobs) == 0 && r.More == 0 {
			line("  %s", l.T("mail.route_no_jobs"))
		}
		for _, j := range r.Jobs {
			textJob(&b, l, j)
		}
		textMore(&b, l, r.More, r.MoreURL)
		line("")
	}
	if len(e.Cancelled) > 0 || e.MoreCancelled > 0 {
		line("%s", upper(headingCount(l, l.T("mail.cancelled"), len(e.Cancelled)+e.MoreCancelled)))
		line("")
		for _, j := range e.Cancelled {
			textJob(&b, l, j)
		}
		textMore(&b, l, e.MoreCancelled, e.CancelledURL)
		line("")
	}
	if e.Yesterday.Date != "" {
		line("%s", e.yesterdayLine())
		line("")
	}
	textFooter(&b, e)
	return b.String()
}

// upper is a heading of the text part, in capitals as its language writes
// them.
func upper(s string) string { return strings.ToUpper(s) }

// timesIn names the zone the email's times are in, once under the title:
// its name as people know it, the IANA id after it in small print (HTML)
// or after a dot (text).
func (e BriefingEmail) timesIn() string { return timesIn(e.L, e.ZoneName, e.Timezone) }

func timesIn(l *i18n.Localizer, name, id string) string {
	return l.Tf("mail.times_in", map[string]any{"Zone": cmp.Or(name, id)})
}

// zoneID is the IANA id in small print after the zone's name; "" when the
// name is the id.
func zoneID(name, id string) string {
	if name == "" || name == id {
		return ""
	}
	return id
}

// textTimesIn is timesIn with the id, for the text part.
func textTimesIn(l *i18n.Localizer, name, id string) string {
	if z := zoneID(name, id); z != "" {
		return timesIn(l, name, id) + " · " + z
	}
	return timesIn(l, name, id)
}

// yesterdayLine is how the day before went, a dispatcher's last line.
func (e BriefingEmail) yesterdayLine() string {
	y, nf := e.Yesterday, e.L.Locale().Number
	return e.L.Tn("mail.yesterday", y.Scheduled, map[string]any{"Date": y.Date,
		"Completed": nf(y.Completed), "Count": nf(y.Scheduled)})
}

// footer is why the reader gets the email.
func (e BriefingEmail) footer() string {
	if e.Recipient == Technician {
		return e.L.Tf("mail.footer_technician", map[string]any{"Org": e.OrgName})
	}
	return e.L.Tf("mail.footer", map[string]any{"Org": e.OrgName})
}

// StopAnchor is where a technician's day page asks to stop the day sheets
// (views.TechnicianDayPage): their email's footer links it.
const StopAnchor = "#day-sheets"

// stopLine is how a technician asks not to receive day sheets by email: on
// their day page, where their office sees it (docs/delivery.md, "Stopping
// day sheets"); never a one-tap unsubscribe. Without a day link, ask the
// office.
func stopLine(l *i18n.Localizer, dayURL string) string {
	if dayURL == "" {
		return l.T("mail.stop_day_sheets_ask")
	}
	return l.T("mail.stop_day_sheets")
}

// textUnsubscribe is the footer's last line in the text part: the
// dispatcher's unsubscribe link, or how a technician asks to stop.
func textUnsubscribe(l *i18n.Localizer, technician bool, unsubscribeURL, dayURL string) string {
	switch {
	case technician && dayURL != "":
		return l.Tf("mail.stop_day_sheets_text", map[string]any{"URL": dayURL + StopAnchor})
	case technician:
		return l.T("mail.stop_day_sheets_ask")
	}
	return l.Tf("mail.unsubscribe_text", map[string]any{"URL": unsubscribeURL})
}

// textTechnician is the rest of a technician's text part: their day link,
// their jobs, their overdue and cancelled jobs; no route heading, no
// phone number of their own.
func textTechnician(b *strings.Builder, e BriefingEmail) {
	l := e.L
	line := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	if e.DayURL != "" {
		line("%s", l.Tf("mail.open_day_text", map[string]any{"URL": e.DayURL}))
		line("")
	}
	for _, sec := range e.Own.sections() {
		line("%s", upper(sec.heading(l)))
		line("")
		for _, j := range sec.jobs {
			textJob(b, l, j)
		}
		textMore(b, l, sec.more, e.DayURL)
		line("")
	}
	textFooter(b, e)
}

func textFooter(b *strings.Builder, e BriefingEmail) {
	l := e.L
	line := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	switch {
	case e.Recipient == Technician && e.DayURL == "":
		line("%s", l.T("mail.no_day_link"))
		line("")
	case e.DayURL == "":
		line("%s", l.Tf("mail.open_briefing_text", map[string]any{"URL": e.BriefingURL}))
		line("")
	}
	line("%s", e.footer())
	line("%s", textUnsubscribe(l, e.Recipient == Technician, e.UnsubscribeURL, e.DayURL))
}

// shortenedNote says an email's lists were cut below their usual bounds,
// and where the rest is: the briefing for a dispatcher, the day link for a
// technician (who has no account).
func (e BriefingEmail) shortenedNote() string {
	switch {
	case e.Recipient != Technician:
		return e.L.T("mail.shortened.briefing")
	case e.DayURL != "":
		return e.L.T("mail.shortened.day")
	}
	return e.L.T("mail.shortened.dispatcher")
}

// moreLine is what a bounded list says of the jobs it leaves out.
func moreLine(l *i18n.Localizer, n int) string { return countOf(l, "mail.more", n) }

// countOf is the plural message id for n, n grouped as the reader's
// locale groups numbers ("25,000 overdue", "25.000 überfällig").
func countOf(l *i18n.Localizer, id string, n int) string {
	return l.Tn(id, n, map[string]any{"Count": l.Locale().Number(n)})
}

func textMore(b *strings.Builder, l *i18n.Localizer, n int, href string) {
	if n <= 0 {
		return
	}
	if href == "" {
		fmt.Fprintf(b, "%s\n", moreLine(l, n))
		return
	}
	fmt.Fprintf(b, "%s\n", l.Tf("mail.more_at", map[string]any{"More": moreLine(l, n), "URL": href}))
}

func textJob(b *strings.Builder, l *i18n.Localizer, j Job) {
	head := "- " + j.WindowZone() + "  " + j.Customer
	if j.Emergency {
		head += "  [" + l.T("mail.emergency") + "]"
	}
	fmt.Fprintln(b, head)
	var tech string
	if j.Technician != "" {
		tech = technicianLine(l, j.Technician)
	}
	for _, s := range []string{j.Type, j.Address, j.Phone, tech, status(l, j), j.Notes} {
		// Every line indented under its job, a note's own lines too.
		for ln := range strings.Lines(strings.ReplaceAll(s, "\r\n", "\n")) {
			if ln = strings.TrimRight(ln, "\r\n"); ln != "" {
				fmt.Fprintln(b, "  "+ln)
			}
		}
	}
	if j.JobURL != "" { // an action item: the job and its day on the board
		fmt.Fprintln(b, "  "+l.T("actionlinks.job")+": "+j.JobURL)
		fmt.Fprintln(b, "  "+l.T("actionlinks.board")+": "+j.BoardURL)
	}
}

// technicianLine says who has a job; name "" is nobody.
func technicianLine(l *i18n.Localizer, name string) string {
	if name == "" {
		name = l.T("mail.nobody")
	}
	return l.Tf("mail.technician", map[string]any{"Name": name})
}
