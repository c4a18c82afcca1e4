package mail_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/views/mail"
)

func sample() mail.BriefingEmail {
	return mail.BriefingEmail{
		OrgName:        "Northwind Heating & Air",
		DateLabel:      "Mon 9 Mar",
		Timezone:       "America/New_York",
		BriefingURL:    "https://app.fieldbrief.test/orgs/northwind/briefings/2026-03-09",
		UnsubscribeURL: "https://app.fieldbrief.test/unsubscribe?t=abc",
		Recipient:      mail.Dispatcher,
		Summary:        mail.Summary{Jobs: 12, Cancelled: 1, TechniciansOut: 1, Unassigned: 1, Overdue: 1, Emergencies: 1},
		ActionItems: mail.ActionItems{
			Unassigned: []mail.Job{{Window: "08:00–10:00 EDT", Customer: `<script>alert("x")</script> Ltd`, Address: "1 Elm St"}},
			Overdue:    []mail.Job{{Window: "Sun 8 Mar 14:00–16:00 EDT", Customer: "Birch Dental", Status: "in progress"}},
			Emergencies: []mail.Job{{
				Window: "07:00–08:00 EDT", Customer: "Cedar School", Address: "9 Oak Ave",
				MapURL: "https://maps.example/?q=9+Oak+Ave", Phone: "+1 (555) 010-2030", Emergency: true, Notes: "No heat in gym\nKeys at the office",
			}},
		},
		Routes: []mail.Route{
			{Technician: "Ana Ruiz", Phone: "555-0100", Jobs: []mail.Job{
				{Window: "09:00–11:00 EDT", Customer: "Dogwood Bakery", Address: "3 Main St", Status: "scheduled"},
			}},
			{Technician: "Ben Ode"},
		},
	}
}

func render(t *testing.T, e mail.BriefingEmail) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, mail.HTML(e).Render(context.Background(), &buf))
	return buf.String()
}

func TestHTML(t *testing.T) {
	t.Parallel()
	html := render(t, sample())

	require.True(t, strings.HasPrefix(html, "<!doctype html>") || strings.HasPrefix(html, "<!DOCTYPE html>"), html[:40])
	require.Contains(t, html, `name="viewport"`)
	require.NotContains(t, html, "<script>")
	require.Contains(t, html, "&lt;script&gt;")
	require.Contains(t, html, "Northwind Heating &amp; Air")
	require.Contains(t, html, `href="https://app.fieldbrief.test/orgs/northwind/briefings/2026-03-09"`)
	require.Contains(t, html, `href="https://app.fieldbrief.test/unsubscribe?t=abc"`)
	require.Contains(t, html, `href="https://maps.example/?q=9+Oak+Ave"`)
	require.Contains(t, html, `href="tel:+15550102030"`)
	require.Contains(t, html, "08:00–10:00 EDT")
	require.Contains(t, html, "Times in America/New_York")

	// Action items come before the routes, emergencies first.
	actions, routes := strings.Index(html, `data-section="action-items"`), strings.Index(html, `data-section="routes"`)
	require.Positive(t, actions)
	require.Greater(t, routes, actions)
	require.Less(t, strings.Index(html, "Cedar School"), strings.Index(html, "Birch Dental"))
	require.Greater(t, strings.Index(html, "Dogwood Bakery"), routes)

	// Nothing forces a width beyond a phone's: no fixed widths over 390 px.
	require.NotContains(t, html, "<table")
	require.NotRegexp(t, `[^-]width:\s*[4-9]\d\dpx|width="[4-9]\d\d"`, html)
	require.NotContains(t, html, "&amp;#", "double-escaped entity")
	require.NotContains(t, html, "<style")
}

// technician is Ana's own email: her jobs, her overdue job and her
// cancelled one, with her day link.
func technician() mail.BriefingEmail {
	e := sample()
	e.Recipient, e.Summary, e.ActionItems, e.Routes, e.Cancelled = mail.Technician, mail.Summary{}, mail.ActionItems{}, nil, nil
	e.DayURL = "https://app.fieldbrief.test/t/tok"
	e.Own = mail.TechnicianDay{
		First: "08:00 at 500 W 2nd St",
		Jobs: []mail.Job{
			{ID: 1, Window: "08:00–10:00 EDT", Customer: "Dogwood Bakery", Address: "500 W 2nd St", Phone: "+1 512 555 0100",
				Status: "scheduled", Notes: "Gate code 4411\nDog in the yard\r\nAsk for Sam"},
			{ID: 2, Window: "11:00–12:00 EDT", Customer: "Elm Clinic", Status: "scheduled"},
			{ID: 3, Window: "14:00–15:00 EDT", Customer: "Fir Farm", Status: "scheduled"},
		},
		Overdue:   []mail.Job{{ID: 4, Window: "Fri 6 Mar 14:00–16:00 EST", Customer: "Birch Dental", Status: "in progress"}},
		Cancelled: []mail.Job{{ID: 5, Window: "16:00–17:00 EDT", Customer: "Gum Grocer", Status: "cancelled"}},
	}
	return e
}

func TestTechnicianSubjectAndPreheader(t *testing.T) {
	t.Parallel()
	e := technician()
	want := "Your day, Mon 9 Mar: 3 jobs, first 08:00 at 500 W 2nd St · 1 overdue · 1 cancelled"
	require.Equal(t, want, e.Subject())
	html := render(t, e)
	require.Contains(t, html, `<div style="display:none;max-height:0;overflow:hidden;">`+want+`</div>`, "the same line as preview text")

	e.Own.Jobs, e.Own.Overdue, e.Own.Cancelled = e.Own.Jobs[:1], nil, nil
	require.Equal(t, "Your day, Mon 9 Mar: 1 job, 08:00 at 500 W 2nd St", e.Subject())
	e.Own.Jobs, e.Own.First, e.Own.Overdue = nil, "", technician().Own.Overdue
	require.Equal(t, "Your day, Mon 9 Mar: no jobs · 1 overdue", e.Subject())

	// A dispatcher's stays the org's briefing, its preview the summary.
	require.Equal(t, "Northwind Heating & Air · briefing for Mon 9 Mar", sample().Subject())
	require.Contains(t, render(t, sample()), `overflow:hidden;">12 jobs · 1 emergency`)
}

func TestHTMLTechnician(t *testing.T) {
	t.Parallel()
	html := render(t, technician())
	require.Contains(t, html, "Your day, Mon 9 Mar")
	require.NotContains(t, html, `data-section="action-items"`)
	require.NotContains(t, html, `data-section="routes"`, "no route heading for one person")
	require.NotContains(t, html, ">Routes<")
	require.NotContains(t, html, "unassigned", "org-wide counts are not a technician's business")
	require.NotContains(t, html, "Ben Ode")
	require.NotContains(t, html, "555-0100", "not their own phone number")
	require.NotContains(t, html, "Technician:", "they are the technician")
	require.Contains(t, html, `href="https://app.fieldbrief.test/t/tok"`)
	require.NotContains(t, html, "Open the briefing", "the day link opens without an account; the briefing page does not")
	require.Contains(t, html, `href="tel:+15125550100"`)

	// Their jobs, then their overdue job, then their cancelled one.
	jobs, overdue, cancelled := strings.Index(html, `data-section="jobs"`), strings.Index(html, `data-section="overdue"`), strings.Index(html, `data-section="cancelled"`)
	require.Positive(t, jobs)
	require.Greater(t, overdue, jobs)
	require.Greater(t, cancelled, overdue)
	require.Greater(t, strings.Index(html, "Birch Dental"), overdue)
	require.Less(t, strings.Index(html, "Birch Dental"), cancelled)

	// A note's line breaks are kept.
	require.Contains(t, html, "white-space:pre-line;\">Gate code 4411\nDog in the yard\r\nAsk for Sam</p>")

	// Without a day link (a re-send after it would have expired), no link
	// to the briefing either: it needs an account a technician has not.
	e := technician()
	e.DayURL = ""
	html = render(t, e)
	require.NotContains(t, html, "Open the briefing")
	require.NotContains(t, html, e.BriefingURL)
	require.Contains(t, html, "ask your dispatcher")
	require.NotContains(t, mail.Text(e), e.BriefingURL)
}

// TestTechnicianMore: a technician's lists count what they leave out, in
// the subject and the headings, and say "and N more" linked to the day
// link; without one, unlinked: never the briefing, which needs an account.
func TestTechnicianMore(t *testing.T) {
	t.Parallel()
	e := technician()
	e.Own.MoreJobs, e.Own.MoreOverdue, e.Own.MoreCancelled = 4, 10, 2
	require.Equal(t, "Your day, Mon 9 Mar: 7 jobs, first 08:00 at 500 W 2nd St · 11 overdue · 3 cancelled", e.Subject())
	text := mail.Text(e)
	require.Contains(t, text, "YOUR JOBS (7)\n")
	require.Contains(t, text, "and 4 more: https://app.fieldbrief.test/t/tok\n\nOVERDUE (11)\n")
	require.Contains(t, text, "Birch Dental\n  in progress\nand 10 more: https://app.fieldbrief.test/t/tok\n")
	require.Contains(t, text, "and 2 more: https://app.fieldbrief.test/t/tok\n")
	html := render(t, e)
	require.Contains(t, html, ">Overdue (11)</h2>")
	require.Equal(t, 3+1, strings.Count(html, `href="https://app.fieldbrief.test/t/tok"`), "three lists and the button")
	require.Contains(t, html, `data-more="10"`)
	require.NotContains(t, html, "/orgs/")

	e.Shortened = true
	require.Contains(t, mail.Text(e), "shortened to stay under 1 MB: its lists show fewer jobs than usual. Open your day for the rest.")
	e.DayURL = ""
	text, html = mail.Text(e), render(t, e)
	require.Contains(t, text, "and 10 more\n")
	require.Contains(t, text, "Your dispatcher has the rest.")
	require.Contains(t, html, `data-more="10"`)
	require.NotContains(t, html, "see them all")
	require.NotContains(t, text+html, "/orgs/")
}

func TestTextTechnician(t *testing.T) {
	t.Parallel()
	text := mail.Text(technician())
	require.True(t, strings.HasPrefix(text, "Northwind Heating & Air\nYour day, Mon 9 Mar\nTimes in America/New_York\n\n"+
		"3 jobs, first 08:00 at 500 W 2nd St · 1 overdue · 1 cancelled\n\n"+
		"Open your day on your phone: https://app.fieldbrief.test/t/tok\n\nYOUR JOBS (3)\n\n"), text)
	// Every line of a note is indented under its job.
	require.Contains(t, text, "- 08:00–10:00 EDT  Dogwood Bakery\n  500 W 2nd St\n  +1 512 555 0100\n  scheduled\n"+
		"  Gate code 4411\n  Dog in the yard\n  Ask for Sam\n- 11:00–12:00 EDT  Elm Clinic\n")
	require.Contains(t, text, "OVERDUE (1)\n\n- Fri 6 Mar 14:00–16:00 EST  Birch Dental\n")
	require.Contains(t, text, "CANCELLED (1)\n\n- 16:00–17:00 EDT  Gum Grocer\n")
	require.Less(t, strings.Index(text, "OVERDUE"), strings.Index(text, "CANCELLED"))
	require.NotContains(t, text, "ROUTES")
	require.NotContains(t, text, "NEEDS ACTION")
	require.NotContains(t, text, "Open the briefing")
	require.NotContains(t, text, "\r")
	// Their day sheet is work: no unsubscribe, a request on their day page
	// that the office sees (docs/delivery.md, "Stopping day sheets").
	require.NotContains(t, text, "nsubscribe")
	require.Contains(t, text, "You receive your day sheet because you work with Northwind Heating & Air: it is part of your work.\n"+
		"Don't want it by email? Tell your office on your day page: https://app.fieldbrief.test/t/tok#day-sheets\n")
}

// A technician's email never offers a one-tap unsubscribe, in either
// part, with or without a day link; a dispatcher's does.
func TestTechnicianEmailHasNoUnsubscribe(t *testing.T) {
	t.Parallel()
	e := technician()
	e.UnsubscribeURL = "https://app.fieldbrief.test/unsubscribe?t=abc" // even if a caller set one
	html := render(t, e)
	require.NotContains(t, html+mail.Text(e), "unsubscribe")
	require.Contains(t, html, `href="https://app.fieldbrief.test/t/tok#day-sheets"`)
	require.Contains(t, html, "Tell your office on your day page")
	e.DayURL = ""
	html = render(t, e)
	require.NotContains(t, html+mail.Text(e), "unsubscribe")
	require.Contains(t, html, "Don&#39;t want it by email? Tell your office.")
	require.Contains(t, mail.Text(e), "Don't want it by email? Tell your office.\n")
	require.Contains(t, render(t, sample()), `href="https://app.fieldbrief.test/unsubscribe?t=abc"`)
}

func TestHTMLRefusesScriptURLs(t *testing.T) {
	t.Parallel()
	e := sample()
	e.ActionItems.Unassigned[0].MapURL = "javascript:alert(1)"
	require.NotContains(t, render(t, e), "javascript:")
}

func TestText(t *testing.T) {
	t.Parallel()
	text := mail.Text(sample())
	require.True(t, strings.HasPrefix(text, "Northwind Heating & Air\nBriefing for Mon 9 Mar\nTimes in America/New_York\n"), text)
	require.Contains(t, text, "12 jobs · 1 emergency · 1 unassigned · 1 overdue · 1 cancelled · 1 technician out")
	require.Contains(t, text, `<script>alert("x")</script> Ltd`, "plain text is not escaped")
	require.Contains(t, text, "- 07:00–08:00 EDT  Cedar School  [EMERGENCY]\n  9 Oak Ave\n  +1 (555) 010-2030\n  No heat in gym\n  Keys at the office\n")
	require.Contains(t, text, "Ana Ruiz · 555-0100\n- 09:00–11:00 EDT  Dogwood Bakery\n")
	require.Contains(t, text, "Ben Ode\n  No jobs.\n")
	require.Contains(t, text, "Open the briefing: https://app.fieldbrief.test/orgs/northwind/briefings/2026-03-09\n")
	require.Contains(t, text, "Unsubscribe: https://app.fieldbrief.test/unsubscribe?t=abc\n")
	require.Less(t, strings.Index(text, "NEEDS ACTION"), strings.Index(text, "ROUTES"))
	for _, l := range strings.Split(text, "\n") {
		require.LessOrEqual(t, len([]rune(l)), 120, "line too long for a phone: %q", l)
	}
}

func TestSubject(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Northwind Heating & Air · briefing for Mon 9 Mar", mail.Subject(nil, "Northwind Heating & Air", "Mon 9 Mar"))
}
