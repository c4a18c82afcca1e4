package mail_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/views/mail"
)

func sampleUpdate() mail.UpdateEmail {
	return mail.UpdateEmail{
		OrgName: "Austin Plumbing & Drains", DateLabel: "Thu 26 Nov", Timezone: "America/Chicago", Technician: "Ana",
		DayURL: "https://app.fieldbrief.test/t/abc",
		Items: []mail.UpdateItem{
			{Kind: mail.UpdateAdded, Window: "09:00–11:00 CST", Customer: `<b>Jane</b>`, Address: "500 W 2nd St",
				Lines: []string{"Assigned to you (it was Ben's)"}},
			{Kind: mail.UpdateChanged, Window: "13:00–14:00 CST", Customer: "Acme", Emergency: true,
				Lines: []string{"Notes: none → Gate code 1234\nDog in yard"}},
			{Kind: mail.UpdateCancelled, Window: "15:00–16:00 CST", Customer: "Birch", Lines: []string{"Status: Scheduled → Cancelled"}},
		},
		More: 2,
	}
}

func TestUpdateText(t *testing.T) {
	t.Parallel()
	text := mail.UpdateText(sampleUpdate())
	require.True(t, strings.HasPrefix(text, "Austin Plumbing & Drains\nChanges to your day, Thu 26 Nov\nTimes in America/Chicago\n"), text)
	require.Contains(t, text, "5 jobs changed on your day.")
	require.Contains(t, text, "ADDED TO YOUR DAY\n- 09:00–11:00 CST  <b>Jane</b>\n  500 W 2nd St\n  Assigned to you (it was Ben's)\n")
	require.Contains(t, text, "- 13:00–14:00 CST  Acme  [EMERGENCY]\n  Notes: none → Gate code 1234\n    Dog in yard\n", "every note line indented under its job")
	require.Contains(t, text, "CANCELLED\n")
	require.Contains(t, text, "And 2 more: open your day to see them all.")
	require.Contains(t, text, "Open your day: https://app.fieldbrief.test/t/abc")
	require.NotContains(t, text, "nsubscribe", "their day is work (docs/delivery.md, \"Stopping day sheets\")")
	require.Contains(t, text, "Don't want it by email? Tell your office on your day page: https://app.fieldbrief.test/t/abc#day-sheets")
	require.Equal(t, "Changes to your day, Thu 26 Nov", mail.UpdateSubject(nil, "Thu 26 Nov"))

	e := sampleUpdate()
	e.DayURL, e.More, e.Items = "", 0, e.Items[:1]
	text = mail.UpdateText(e)
	require.Contains(t, text, "1 job changed on your day.")
	require.NotContains(t, text, "Open your day", "no link when none could be made")
}

func TestUpdateHTML(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, mail.UpdateHTML(sampleUpdate()).Render(context.Background(), &buf))
	html := buf.String()
	require.Contains(t, html, `name="viewport"`)
	require.NotContains(t, html, "<b>Jane</b>")
	require.Contains(t, html, "&lt;b&gt;Jane&lt;/b&gt;")
	require.Contains(t, html, "Austin Plumbing &amp; Drains")
	require.Contains(t, html, `href="https://app.fieldbrief.test/t/abc"`)
	require.NotContains(t, html, "unsubscribe")
	require.Contains(t, html, `href="https://app.fieldbrief.test/t/abc#day-sheets"`)
	require.Equal(t, 1, strings.Count(html, `data-change="added"`))
	require.Equal(t, 1, strings.Count(html, `data-change="cancelled"`))
	require.Contains(t, html, "white-space:pre-line", "note line breaks kept")
	require.Contains(t, html, "EMERGENCY")
}

// A job added to the technician's day comes with its phone (a tel: link),
// type and notes, as the day sheet would show them.
func TestUpdateAddedJobHasPhoneAndNotes(t *testing.T) {
	t.Parallel()
	e := sampleUpdate()
	e.Items[0].Phone, e.Items[0].JobType, e.Items[0].Notes = "+1 (512) 555-0100", "Boiler repair", "Gate 4411\nDog in yard"
	text := mail.UpdateText(e)
	require.Contains(t, text, "ADDED TO YOUR DAY\n- 09:00–11:00 CST  <b>Jane</b>\n  500 W 2nd St\n  +1 (512) 555-0100\n  Boiler repair\n  Gate 4411\n    Dog in yard\n")
	var buf bytes.Buffer
	require.NoError(t, mail.UpdateHTML(e).Render(context.Background(), &buf))
	require.Contains(t, buf.String(), `href="tel:+15125550100"`)
	require.Contains(t, buf.String(), "Gate 4411\nDog in yard")
}
