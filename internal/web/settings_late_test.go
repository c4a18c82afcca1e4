package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/briefing"
)

// chicagoLate is the schedule of the late save: 06:30 on weekdays in
// Chicago, the dispatcher on the list.
func chicagoLate(extra url.Values) url.Values {
	q := url.Values{"timezone": {"America/Chicago"}, "schedule_local_time": {"06:30"}, "days": {"mon", "tue", "wed", "thu", "fri"},
		"enabled": {"true"}, "delivery_email_to": {"dispatch@acme.example"}, "delivery_webhook_url": {""}, "delivery_updates_shown": {"true"},
		"delivery_updates": {"true"}}
	for k, v := range extra {
		q[k] = v
	}
	return q
}

// A schedule first saved at 21:35 with 06:30: the preview says, before the
// save, that today's briefing is made at once but kept, not sent, and when
// the first one is sent (docs/guarantees.md, "Late briefings"); within
// send_within it is made and sent now. Only a scheduled briefing of today
// moves the next run to tomorrow; a "generate now" look does not.
func TestSettingsPreviewSaysTodaysLateRunIsKept(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 11, 26, 3, 35, 0, 0, time.UTC)) // Wed 25 Nov 21:35 in Chicago
	admin := f.as(&f.adminA).htmx()
	preview := func(q url.Values) htmlDoc {
		t.Helper()
		r := admin.get(settingsPath + "/preview?" + q.Encode())
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		return parseDoc(t, r.Body)
	}

	doc := preview(chicagoLate(nil))
	const kept = "Today's 6:30 AM has passed: today's briefing will be kept, not sent; first sent: Thu, Nov 26, 6:30 AM CST."
	require.Equal(t, "Next run: now. "+kept, doc.byID("preview-summary").text())
	line := doc.find(attrIs("data-preview", "catch-up"))
	require.Equal(t, "true", line.attr("data-kept"))
	require.Equal(t, kept, line.text())
	first := doc.find(attrIs("data-preview", "runs")).find(tagIs("tbody")).find(tagIs("tr"))
	require.Contains(t, first.text(), "Wed, Nov 25 9:35 PM now, 15 h after 6:30 AM: kept, not sent Thu, Nov 26, 3:35 AM UTC")

	// Sent within 16 h: made and sent now.
	doc = preview(chicagoLate(url.Values{"delivery_send_within": {"16h"}}))
	require.Equal(t, "Next run: now. Today's 6:30 AM has passed: today's briefing will be made and sent now.", doc.byID("preview-summary").text())
	require.Equal(t, "false", doc.find(attrIs("data-preview", "catch-up")).attr("data-kept"))

	// Nothing to send: made now, nothing said about sending.
	doc = preview(chicagoLate(url.Values{"delivery_email_to": {""}}))
	require.Equal(t, "Next run: now. Today's 6:30 AM has passed: today's briefing will be made now.", doc.byID("preview-summary").text())

	// A bad send_within is the preview's message, in plain words.
	doc = preview(chicagoLate(url.Values{"delivery_send_within": {"2 days"}}))
	require.Contains(t, doc.byID("preview-summary").text(), "No preview: ")
	require.Contains(t, doc.find(attrIs("data-preview", "invalid")).text(), "how late a briefing may still be sent")

	// The JSON editor says the same of the same document.
	r := admin.get(settingsPath + "/json/preview?" + url.Values{"config_json": {`{"briefing":{"timezone":"America/Chicago",
		"schedule_local_time":"06:30","days":["mon","tue","wed","thu","fri"]},"delivery":{"email":{"to":["dispatch@acme.example"]}}}`}}.Encode())
	require.Equal(t, "Next run: now. "+kept, parseDoc(t, r.Body).byID("preview-summary").text())

	// "Generate now" looked at today: the next run is still today's catch-up.
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/Chicago","schedule_local_time":"06:30"}}`)
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-11-25", Trigger: briefing.TriggerManual})
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-11-25"}) // another org's scheduled one counts for nothing here
	require.Equal(t, "Next run: now. "+kept, preview(chicagoLate(nil)).byID("preview-summary").text())

	// The tick fired today's: the next run is tomorrow's, and nothing is late.
	_, err := f.db.Exec(context.Background(), `UPDATE ff_briefings SET scheduled_at = fired_at WHERE org_id = $1`, f.orgA.ID)
	require.NoError(t, err)
	doc = preview(chicagoLate(nil))
	require.Equal(t, "Next run: Thu, Nov 26, 6:30 AM CST", doc.byID("preview-summary").text())
	require.Nil(t, doc.find(attrIs("data-preview", "catch-up")))

	// The settings page itself says the same on load.
	require.Equal(t, "Next run: Thu, Nov 26, 6:30 AM CST", parseDoc(t, f.as(&f.adminA).get(settingsPath).Body).byID("preview-summary").text())
}

// formAsRendered is what a browser posts for the schedule form as the page
// rendered it: text inputs and hidden fields, checked boxes, textareas.
func formAsRendered(t *testing.T, doc htmlDoc) url.Values {
	t.Helper()
	form := doc.byID("schedule-form")
	require.NotNil(t, form)
	q := url.Values{}
	for _, in := range form.findAll(func(n *html.Node) bool { return n.Data == "input" || n.Data == "textarea" }) {
		name := in.attr("name")
		if name == "" || name == "_csrf" || name == "timezone_search" {
			continue
		}
		switch {
		case in.n.Data == "textarea":
			q.Add(name, in.n.FirstChild.Data)
		case in.attr("type") == "checkbox":
			if _, ok := hasAttr(in.n, "checked"); ok {
				q.Add(name, in.attr("value"))
			}
		default:
			q.Add(name, in.attr("value"))
		}
	}
	return q
}

// The form carries send_within and updates, so saving it never drops what
// the JSON editor set, adds nothing it did not, and can set both.
func TestSettingsFormKeepsSendWithinAndUpdates(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"]},`+
		`"delivery":{"email":{"to":["dispatch@acme.example"]},"send_within":"90m","updates":false}}`)
	before := storedConfig(t, f, f.orgA.ID).Raw

	doc := parseDoc(t, admin.get(settingsPath).Body)
	require.Equal(t, "1h30m", doc.byID("delivery_send_within").attr("value"), "canonical spelling")
	require.Empty(t, doc.checked("delivery_updates"))
	require.Contains(t, doc.find(attrIs("for", "delivery_send_within")).text(), "Send a late briefing up to after its time")
	require.Contains(t, doc.byID("delivery_updates").attr("aria-describedby"), "delivery_updates-hint")

	// Saved as rendered: the same document (the form spells enabled out).
	r := admin.post(settingsPath, formAsRendered(t, doc))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.JSONEq(t, strings.Replace(before, `"days": ["mon"]`, `"days": ["mon"], "enabled": true`, 1), storedConfig(t, f, f.orgA.ID).Raw)

	// Changed in the form, opened again (the form carries the version it
	// was read at: the first page is stale now, docs/versions.md): both stored.
	q := formAsRendered(t, parseDoc(t, admin.get(settingsPath).Body))
	q.Set("delivery_send_within", "45m")
	q.Set("delivery_updates", "true")
	r = admin.post(settingsPath, q)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.JSONEq(t, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"],"enabled":true},`+
		`"delivery":{"email":{"to":["dispatch@acme.example"]},"send_within":"45m"}}`, storedConfig(t, f, f.orgA.ID).Raw,
		"updates on is the default: left out")

	// A document without either gets neither from a form save.
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"]},"delivery":{"email":{"to":["dispatch@acme.example"]}}}`)
	doc = parseDoc(t, admin.get(settingsPath).Body)
	require.Empty(t, doc.byID("delivery_send_within").attr("value"))
	require.Equal(t, "3h", doc.byID("delivery_send_within").attr("placeholder"))
	require.Equal(t, []string{"true"}, doc.checked("delivery_updates"))
	r = admin.post(settingsPath, formAsRendered(t, doc))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	saved := storedConfig(t, f, f.orgA.ID).Raw
	require.NotContains(t, saved, "send_within")
	require.NotContains(t, saved, "updates")

	// A client posting the section without the checkbox's marker keeps updates on.
	r = admin.post(settingsPath, deliveryForm("dispatch@acme.example", "", ""))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.NotContains(t, storedConfig(t, f, f.orgA.ID).Raw, "updates")

	// The JSON editor's preview fills both fields.
	r = admin.htmx().get(settingsPath + "/json/preview?" + jsonWithDelivery(`{"send_within":"2h","updates":false}`).Encode())
	form := hxTrigger(t, r)["config-form"]
	require.Equal(t, "2h", form["delivery_send_within"])
	require.Equal(t, false, form["delivery_updates"])

	// A bad duration is refused beside its field, nothing saved.
	before = storedConfig(t, f, f.orgA.ID).Raw
	q = formAsRendered(t, doc)
	q.Set("delivery_send_within", "2 days")
	r = admin.post(settingsPath, q)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID).Raw)
	doc = parseDoc(t, r.Body)
	require.Contains(t, doc.byID("delivery_send_within-error").text(), "how late a briefing may still be sent")
	require.Equal(t, "2 days", doc.byID("delivery_send_within").attr("value"), "the input is kept")
	require.Equal(t, "true", doc.byID("delivery_send_within").attr("aria-invalid"))
	requirePlainWords(t, strings.ReplaceAll(doc.byID("delivery_send_within-error").text(), `"2 days"`, ""))
}

// A briefing fired too late is shown as made but not sent, with why: on
// its page beside each delivery (members too), in the calendar, and in the
// settings page's delivery log.
func TestLateBriefingShowsWhyNothingWasSent(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	id := readyBriefing(t, f, f.orgA.ID)
	const why = "made 21:35, 15 h after 06:30 — not sent"
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, last_code, last_detail, due_at)
		VALUES ($1, $2, 1, 'email', 'dispatcher', 'dispatch@acme.test', 'msg_late1', 'skipped', 'late', $3, '2026-03-03 13:00Z'),
		       ($1, $2, 1, 'webhook', 'webhook', 'https://hooks.acme.test/x?token=secret', 'msg_late2', 'skipped', 'late', $3, '2026-03-03 13:00Z')`,
		f.orgA.ID, id, why)
	require.NoError(t, err)

	for _, u := range []*accounts.User{&f.memberA, &f.adminA} {
		doc := parseDoc(t, f.as(u).get(briefingsPath+"/2026-03-03").Body)
		items := doc.findAll(attrIs("data-delivery-state", "skipped"))
		require.Len(t, items, 2)
		for _, it := range items {
			require.Contains(t, it.text(), "Not sent")
			require.Equal(t, why, it.find(attrIs("data-skipped", "late")).text())
			require.Nil(t, it.find(attrIs("action", "")), "nothing to send again")
		}
		if u == &f.memberA {
			require.NotContains(t, doc.text(), "token=secret", "members see a webhook's host only")
		}

		rows, _ := listRows(t, f.as(u), briefingsPath)
		require.Equal(t, "late", rows["2026-03-03"].attr("data-reason"))
		require.Contains(t, rows["2026-03-03"].text(), "ready; "+why)
	}
	log := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body).byID("delivery-log")
	require.Contains(t, log.find(attrIs("data-delivery-state", "skipped")).text(), why)

	// Another org sees none of it.
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get(briefingsPath+"/2026-03-03").Code)
}
