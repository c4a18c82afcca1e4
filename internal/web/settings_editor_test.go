package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// goErrorText is what must never reach an admin: JSON paths, Go's and
// encoding/json's wording.
var goErrorText = regexp.MustCompile(`briefing\.|delivery\.|\[\d+\]|invalid character|looking for|unknown field|want HH:MM|depends on the server|invalid fieldforce config`)

func requirePlainWords(t *testing.T, msg string) {
	t.Helper()
	require.NotEmpty(t, msg)
	require.NotRegexp(t, goErrorText, msg, "plain words only")
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hxTrigger decodes the HX-Trigger header of an htmx answer.
func hxTrigger(t *testing.T, r response) map[string]map[string]any {
	t.Helper()
	h := r.Header.Get("HX-Trigger")
	if h == "" {
		return nil
	}
	var events map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(h), &events), h)
	return events
}

// The form's preview answer carries the document the form describes, for
// the JSON editor: the whole document, delivery included.
func TestSettingsPreviewCarriesTheFormsDocument(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA).htmx()
	q := url.Values{"timezone": {"Europe/Paris"}, "schedule_local_time": {"25:00"}, "days": {"mon", "fri"}, "enabled": {"false"},
		"delivery_email_to": {"dispatch@acme.example"}, "delivery_webhook_url": {""}}

	r := admin.get(settingsPath + "/preview?" + q.Encode())
	require.Equal(t, http.StatusOK, r.Code)
	ev := hxTrigger(t, r)["config-document"]
	require.NotNil(t, ev, "the answer carries the document")
	require.JSONEq(t, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"25:00","days":["mon","fri"],"enabled":false},
		"delivery":{"email":{"to":["dispatch@acme.example"],"technicians":false}}}`, ev["value"].(string),
		"what the form holds, invalid time included: no state only one of them shows")
	doc := parseDoc(t, r.Body)
	require.Nil(t, doc.find(attrIs("data-preview", "runs")), "no stale table beside an invalid time")
	require.Contains(t, doc.find(attrIs("data-preview", "invalid")).text(), "Choose a time between 00:00 and 23:59")

	// A client previewing the schedule alone gets no document.
	r = admin.get(settingsPath + "/preview?timezone=UTC&schedule_local_time=08:00&days=mon")
	require.Nil(t, hxTrigger(t, r)["config-document"])

	// Non-ASCII travels escaped: a header is read as Latin-1.
	q.Set("delivery_email_to", "jörg@acme.example")
	r = admin.get(settingsPath + "/preview?" + q.Encode())
	require.Regexp(t, `^[\x20-\x7e]+$`, r.Header.Get("HX-Trigger"))
	require.Contains(t, hxTrigger(t, r)["config-document"]["value"], "jörg@acme.example")
}

// The JSON editor's preview: a valid document previews and fills the form;
// an invalid one explains itself in plain words, in the preview and under
// the editor, and leaves the form alone.
func TestSettingsPreviewJSON(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)) // a Sunday
	admin := f.as(&f.adminA).htmx()
	preview := func(doc string) response {
		t.Helper()
		r := admin.get(settingsPath + "/json/preview?" + url.Values{"config_json": {doc}}.Encode())
		require.Equal(t, http.StatusOK, r.Code)
		return r
	}

	r := preview(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"08:00","days":["mon","wed"]},
		"delivery":{"webhook":{"url":"https://hooks.acme.example/x"}}}`)
	form := hxTrigger(t, r)["config-form"]
	require.Equal(t, "Europe/Berlin", form["timezone"])
	require.Equal(t, "8:00 AM", form["schedule_local_time"], "in the org's clock (acme: en-US)")
	require.Equal(t, []any{"mon", "wed"}, form["days"])
	require.Equal(t, "true", form["enabled"], "absent enabled is running")
	require.Equal(t, "https://hooks.acme.example/x", form["delivery_webhook_url"])
	doc := parseDoc(t, r.Body)
	require.NotNil(t, doc.find(attrIs("data-preview", "runs")))
	require.Equal(t, "Next run: Mon, Dec 7, 8:00 AM CET", doc.byID("preview-summary").text())
	require.Empty(t, doc.byID("config_json-error").text())

	// Days left out mean every day, and the form says so.
	r = preview(`{"briefing":{"timezone":"UTC","schedule_local_time":"08:00"}}`)
	require.Equal(t, []any{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, hxTrigger(t, r)["config-form"]["days"])

	for _, tc := range []struct{ doc, want string }{
		{`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"25:00"}}`, "Choose a time between 00:00 and 23:59"},
		{`{"briefing":{"timezone":"Europe/Berlin",}}`, "This isn't valid JSON: look at line 1, column 41"},
		{`{"briefing":{"timezone":"Moon/Base","schedule_local_time":"08:00"}}`, `We don't know the time zone "Moon/Base".`},
	} {
		r := preview(tc.doc)
		require.Nil(t, hxTrigger(t, r)["config-form"], "an invalid document leaves the form alone")
		doc := parseDoc(t, r.Body)
		require.Nil(t, doc.find(attrIs("data-preview", "runs")))
		inPreview := doc.find(attrIs("data-preview", "invalid")).text()
		require.Contains(t, inPreview, tc.want)
		requirePlainWords(t, inPreview)
		errs := doc.byID("config_json-error")
		require.Equal(t, "true", errs.attr("hx-swap-oob"))
		require.Contains(t, errs.text(), tc.want)
		require.Contains(t, doc.byID("preview-summary").text(), "No preview: "+tc.want)
	}
}

// The live region is one line; the table is not in it.
func TestSettingsPreviewLiveRegionIsASummary(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC))
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"08:00","days":["mon"]}}`)
	doc := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body)
	require.Empty(t, doc.findAll(attrIs("aria-live", "polite"))[0].find(tagIs("table")), "no table inside a live region")
	require.Equal(t, "", doc.byID("preview").attr("aria-live"))
	summary := doc.byID("preview-summary")
	require.Equal(t, "status", summary.attr("role"))
	require.Equal(t, "Next run: Mon, Dec 7, 8:00 AM CET", summary.text())

	r := f.as(&f.adminA).htmx().get(settingsPath + "/preview?timezone=Europe/Berlin&schedule_local_time=09:30&days=tue&enabled=false")
	summary = parseDoc(t, r.Body).byID("preview-summary")
	require.Equal(t, "true", summary.attr("hx-swap-oob"))
	require.Equal(t, "Paused. Once resumed, next run: Tue, Dec 8, 9:30 AM CET", summary.text())
}

// The daylight saving column is there only when a listed run needs it.
func TestSettingsPreviewDSTColumnOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	columns := func(q string) []string {
		t.Helper()
		var out []string
		// Sessions follow the injected clock: sign in after moving it.
		for _, th := range parseDoc(t, f.as(&f.adminA).htmx().get(settingsPath+"/preview?"+q).Body).findAll(tagIs("th")) {
			out = append(out, th.text())
		}
		return out
	}
	setClock(f, time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC))
	require.Contains(t, columns("timezone=America/New_York&schedule_local_time=02:30&days=sun"), "Daylight saving", "a run in the gap")
	require.NotContains(t, columns("timezone=America/New_York&schedule_local_time=08:00&days=sun"), "Daylight saving")
	require.NotContains(t, columns("timezone=Asia/Kolkata&schedule_local_time=02:30&days=sun"), "Daylight saving", "no DST at all")
	setClock(f, time.Date(2026, 10, 29, 12, 0, 0, 0, time.UTC))
	require.Contains(t, columns("timezone=America/New_York&schedule_local_time=01:30&days=sun"), "Daylight saving", "a run in the overlap")
	// The gap is beyond the seven runs listed: the warning says so, the table needs no column.
	setClock(f, time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC))
	require.NotContains(t, columns("timezone=America/New_York&schedule_local_time=02:30&days=sun"), "Daylight saving")
}

// Without the radios, the form keeps the state it is given (hidden) and a
// client that leaves enabled out keeps the stored one: saving the schedule
// never resumes a paused org by accident.
func TestSettingsSaveFormKeepsPausedState(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","enabled":false}}`)
	admin := f.as(&f.adminA)

	form := url.Values{"timezone": {"Europe/Paris"}, "schedule_local_time": {"09:00"}, "days": {"mon"}}
	r := admin.post(settingsPath, form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"enabled": false`)

	form.Set("enabled", "true") // the stable interface still takes it
	r = admin.post(settingsPath, form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"enabled": true`)
}
