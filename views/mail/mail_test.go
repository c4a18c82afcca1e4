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
				MapURL: "https://maps.example/?q=9+Oak+Ave", Phone: "+1 (555) 010-2030", Emergency: true, Notes: "No heat in gym",
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

func TestHTMLTechnician(t *testing.T) {
	t.Parallel()
	e := sample()
	e.Recipient, e.ActionItems, e.Routes = mail.Technician, mail.ActionItems{}, e.Routes[:1]
	html := render(t, e)
	require.Contains(t, html, "Your day, Mon 9 Mar")
	require.NotContains(t, html, `data-section="action-items"`)
	require.NotContains(t, html, "unassigned", "org-wide counts are not a technician's business")
	require.NotContains(t, html, "Ben Ode")
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
	require.Contains(t, text, "- 07:00–08:00 EDT  Cedar School  [EMERGENCY]\n  9 Oak Ave\n  +1 (555) 010-2030\n  No heat in gym\n")
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
	require.Equal(t, "Northwind Heating & Air · briefing for Mon 9 Mar", mail.Subject("Northwind Heating & Air", "Mon 9 Mar"))
}
