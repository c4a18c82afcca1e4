package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
)

const settingsPath = "/orgs/acme/settings/fieldforce"

// scheduleForm is a valid submission of the schedule form.
func scheduleForm(tz, at string, days ...string) url.Values {
	return url.Values{"timezone": {tz}, "schedule_local_time": {at}, "days": days, "enabled": {"true"}}
}

// configRow is an org's stored fieldforce document and its audit entries,
// to prove a rejected save changed nothing.
type configRow struct {
	Raw    string
	Audits int
}

func storedConfig(t *testing.T, f *fixture, orgID int64) configRow {
	t.Helper()
	var r configRow
	err := f.db.QueryRow(context.Background(), `
		SELECT coalesce((SELECT config_json::text FROM org_module_configs WHERE org_id = $1 AND module = 'fieldforce'), ''),
		       (SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'fieldforce.config.update')`, orgID).
		Scan(&r.Raw, &r.Audits)
	require.NoError(t, err)
	return r
}

// saveConfig stores a valid document through the store, as an earlier save would.
func saveConfig(t testing.TB, f *fixture, orgID int64, raw string) {
	t.Helper()
	_, err := f.store.Tenants.SaveFieldforce(context.Background(), audit.System, orgID, []byte(raw), tenants.AnyVersion)
	require.NoError(t, err)
}

// forceConfig stores a document bypassing validation, as an older release or
// a hand edit could have left it.
func forceConfig(t *testing.T, f *fixture, orgID int64, raw string) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)
		ON CONFLICT (org_id, module) DO UPDATE SET config_json = EXCLUDED.config_json`, orgID, raw)
	require.NoError(t, err)
}

func setClock(f *fixture, t time.Time) { f.clock.Set(t) }

func TestSettingsFormShowsStoredConfig(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	r := admin.get(settingsPath)
	require.Equal(t, http.StatusOK, r.Code)
	doc := parseDoc(t, r.Body)
	require.NotNil(t, doc.byID("not-configured"), "a never-saved org is told nothing runs yet")
	require.NotNil(t, doc.byID("preview").find(attrIs("data-preview", "runs")))

	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Asia/Kolkata","schedule_local_time":"06:45","days":["sat","sun"],"enabled":false}}`)
	doc = parseDoc(t, admin.get(settingsPath).Body)
	require.Nil(t, doc.byID("not-configured"))
	require.Equal(t, "Asia/Kolkata", doc.byID("timezone").attr("value"))
	require.Equal(t, "6:45 AM", doc.byID("schedule_local_time").attr("value"), "acme is en-US: its clock is 12-hour")
	require.Equal(t, []string{"sat", "sun"}, doc.checked("days"))
	require.Empty(t, doc.findAll(attrIs("type", "radio")), "no Running/Paused radios: the Pause/Resume button is the control")
	require.Equal(t, "false", doc.byID("enabled").attr("value"), "the form carries the state hidden")
	require.Contains(t, doc.byID("config_json").text(), `"timezone": "Asia/Kolkata"`)
	require.Contains(t, doc.byID("timezone-hint").text(), "UTC+05:30")
	require.NotNil(t, doc.find(attrIs("action", settingsPath+"/enabled")), "pause/resume button")
	require.Contains(t, doc.find(hasClass("enabled-toggle")).text(), "Resume")
}

func TestSettingsSaveForm(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	before := storedConfig(t, f, f.orgA.ID)

	r := admin.post(settingsPath, scheduleForm("US/Eastern", "07:30", "wed", "mon"))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, settingsPath+"?notice=saved", r.Header.Get("Location"))

	after := storedConfig(t, f, f.orgA.ID)
	require.JSONEq(t, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"07:30","days":["mon","wed"],"enabled":true}}`, after.Raw,
		"the alias is stored under its canonical name")
	require.Equal(t, before.Audits+1, after.Audits)

	doc := parseDoc(t, admin.get(r.Header.Get("Location")).Body)
	require.Contains(t, doc.find(hasClass("notice")).text(), "Saved")
	require.Equal(t, "America/New_York", doc.byID("timezone").attr("value"))

	// Saving the same schedule again changes nothing and audits nothing.
	r = admin.post(settingsPath, scheduleForm("America/New_York", "07:30", "mon", "wed"))
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, after, storedConfig(t, f, f.orgA.ID))
}

func TestSettingsSaveAuditsOldAndNew(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00"}}`)
	before := storedConfig(t, f, f.orgA.ID)

	r := f.as(&f.adminA).post(settingsPath, scheduleForm("Europe/Paris", "09:15", "mon", "tue", "wed", "thu", "fri"))
	require.Equal(t, http.StatusSeeOther, r.Code)

	entries, err := f.store.Audit.List(context.Background(), audit.Filter{OrgSlug: "acme"})
	require.NoError(t, err)
	require.Len(t, entries, before.Audits+1)
	e := entries[0]
	require.Equal(t, "fieldforce.config.update", e.Action)
	require.Equal(t, f.adminA.Email, e.Actor.Email)
	require.JSONEq(t, before.Raw, string(e.Old.(json.RawMessage)))
	require.JSONEq(t, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"09:15","days":["mon","tue","wed","thu","fri"],"enabled":true}}`,
		string(e.New.(json.RawMessage)))
}

func TestSettingsSaveFormRejects(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00"}}`)
	admin := f.as(&f.adminA)

	for _, tc := range []struct {
		name, field, want string
		form              url.Values
	}{
		{"unknown zone", "timezone", `We don't know the time zone "Mars/Olympus_Mons".`, scheduleForm("Mars/Olympus_Mons", "08:00", "mon")},
		{"empty zone", "timezone", "Choose a time zone.", scheduleForm("", "08:00", "mon")},
		{"Local zone", "timezone", `We don't know the time zone "Local".`, scheduleForm("Local", "08:00", "mon")},
		{"path zone", "timezone", `We don't know the time zone "../../etc/passwd".`, scheduleForm("../../etc/passwd", "08:00", "mon")},
		{"hour 25", "schedule_local_time", "Choose a time between 00:00 and 23:59", scheduleForm("Europe/Paris", "25:00", "mon")},
		{"not a time", "schedule_local_time", "Choose a time between 00:00 and 23:59", scheduleForm("Europe/Paris", "8 sharp", "mon")},
		{"13 pm", "schedule_local_time", "Choose a time between 00:00 and 23:59", scheduleForm("Europe/Paris", "13pm", "mon")},
		{"minute 60", "schedule_local_time", "Choose a time between 00:00 and 23:59", scheduleForm("Europe/Paris", "6:60", "mon")},
		{"empty time", "schedule_local_time", "Enter a time, such as 08:00.", scheduleForm("Europe/Paris", "", "mon")},
		{"no days", "days", "Choose at least one day.", scheduleForm("Europe/Paris", "08:00")},
		{"unknown day", "days", "List the days as mon, tue, wed, thu, fri, sat or sun", scheduleForm("Europe/Paris", "08:00", "funday")},
		{"enabled maybe", "enabled", "must be true or false (true: running, false: paused)", url.Values{
			"timezone": {"Europe/Paris"}, "schedule_local_time": {"08:00"}, "days": {"mon"}, "enabled": {"maybe"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := storedConfig(t, f, f.orgA.ID)
			r := admin.post(settingsPath, tc.form)
			require.Equal(t, http.StatusUnprocessableEntity, r.Code)
			require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")

			doc := parseDoc(t, r.Body)
			msg := doc.byID(tc.field + "-error").text()
			require.Contains(t, msg, tc.want, "the message is beside the field")
			requirePlainWords(t, msg)
			require.Equal(t, tc.form.Get("timezone"), doc.byID("timezone").attr("value"), "the input is kept")
			require.Equal(t, tc.form.Get("schedule_local_time"), doc.byID("schedule_local_time").attr("value"))
			if tc.name != "unknown day" { // no checkbox has that value
				require.Equal(t, tc.form["days"], doc.checked("days"))
			}
			// One model: the JSON editor shows the document the form would
			// have saved, not the stored one.
			editor := doc.byID("config_json").text()
			require.Contains(t, editor, `"timezone": `+jsonString(tc.form.Get("timezone")))
			require.Contains(t, editor, `"schedule_local_time": `+jsonString(tc.form.Get("schedule_local_time")))
		})
	}
}

func TestSettingsSaveJSON(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	r := admin.post(settingsPath+"/json", url.Values{"config_json": {`{"briefing": {"timezone": "Asia/Calcutta", "schedule_local_time": "06:00"}}`}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, settingsPath+"?notice=saved", r.Header.Get("Location"))
	saved := storedConfig(t, f, f.orgA.ID)
	// The alias is resolved; the optional fields the admin left out stay out.
	require.JSONEq(t, `{"briefing":{"timezone":"Asia/Kolkata","schedule_local_time":"06:00"}}`, saved.Raw)
	require.Equal(t, 1, saved.Audits)

	for _, tc := range []struct{ name, doc, want string }{
		{"invalid JSON", `{"briefing": {"timezone": "Europe/Paris",}}`, "This isn't valid JSON: look at line 1, column 42"},
		{"invalid JSON on line 3", "{\n  \"briefing\": {\n    \"timezone\" \"Europe/Paris\"\n  }\n}", "look at line 3, column 16"},
		{"truncated", `{"briefing": {`, "it ends too early"},
		{"empty", ``, "The document is empty"},
		{"unknown top-level field", `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "08:00"}, "extra": 1}`, `Remove "extra": it is not a setting we know.`},
		{"unknown field", `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "08:00", "tz": "x"}}`, `Remove "tz": it is not a setting we know.`},
		{"unknown zone", `{"briefing": {"timezone": "Europe/Atlantis", "schedule_local_time": "08:00"}}`, `We don't know the time zone "Europe/Atlantis".`},
		{"zone not a string", `{"briefing": {"timezone": 1, "schedule_local_time": "08:00"}}`, `The time zone must be a name in quotes`},
		{"hour 25", `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "25:00"}}`, "Choose a time between 00:00 and 23:59"},
		{"empty days", `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "08:00", "days": []}}`, "Choose at least one day."},
		{"enabled string", `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "08:00", "enabled": "yes"}}`, "must be true or false (true: running, false: paused)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := admin.post(settingsPath+"/json", url.Values{"config_json": {tc.doc}})
			require.Equal(t, http.StatusUnprocessableEntity, r.Code)
			require.Equal(t, saved, storedConfig(t, f, f.orgA.ID), "nothing saved")
			doc := parseDoc(t, r.Body)
			msg := doc.byID("config_json-error").text()
			require.Contains(t, msg, tc.want)
			requirePlainWords(t, msg)
			require.Equal(t, strings.Join(strings.Fields(tc.doc), " "), doc.byID("config_json").text(), "the text is kept as typed")
			// One model: the form shows the typed document's values when
			// it parses, and the stored ones when it does not.
			want := "Asia/Kolkata"
			if typed, ok := jsonInput([]byte(tc.doc)); ok {
				want = typed.timezone
			}
			require.Equal(t, want, doc.byID("timezone").attr("value"))
		})
	}
}

func TestSettingsShowsInvalidStoredConfig(t *testing.T) {
	t.Parallel()
	f := setup(t)
	forceConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Mars/Base","schedule_local_time":"08:00","days":["mon"]}}`)

	doc := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body)
	problem := doc.byID("stored-problem")
	require.NotNil(t, problem)
	require.Contains(t, problem.text(), `We don't know the time zone "Mars/Base".`)
	require.Equal(t, "Mars/Base", doc.byID("timezone").attr("value"), "the stored values are shown to be fixed")
	require.Equal(t, []string{"mon"}, doc.checked("days"))
}

func TestSettingsSetEnabled(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00"}}`)
	admin := f.as(&f.adminA)

	r := admin.post(settingsPath+"/enabled", url.Values{"enabled": {"false"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, settingsPath+"?notice=paused", r.Header.Get("Location"))
	paused := storedConfig(t, f, f.orgA.ID)
	require.Contains(t, paused.Raw, `"enabled": false`)
	require.Contains(t, paused.Raw, `"Europe/Paris"`, "only enabled changes")
	require.Equal(t, 2, paused.Audits)

	r = admin.post(settingsPath+"/enabled", url.Values{"enabled": {"true"}, "next": {"briefings"}})
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, "/orgs/acme/briefings?notice=resumed", r.Header.Get("Location"))
	resumed := storedConfig(t, f, f.orgA.ID)
	require.Contains(t, resumed.Raw, `"enabled": true`)

	r = admin.post(settingsPath+"/enabled", url.Values{"enabled": {"sometimes"}, "next": {"https://evil.example"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, parseDoc(t, r.Body).byID("enabled-error").text(), "must be true or false (true: running, false: paused)")
	require.Equal(t, resumed, storedConfig(t, f, f.orgA.ID))
}

func TestSettingsAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00"}}`)
	before := storedConfig(t, f, f.orgA.ID)
	valid := scheduleForm("Europe/Berlin", "09:00", "mon")
	doc := url.Values{"config_json": {`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"09:00"}}`}}

	for _, tc := range []struct {
		who  string
		c    *client
		want int
	}{
		{"member", f.as(&f.memberA), http.StatusForbidden},
		{"other org's admin", f.as(&f.adminB), http.StatusNotFound},
		{"staff", f.as(&f.staff), http.StatusForbidden},
	} {
		t.Run(tc.who, func(t *testing.T) {
			require.Equal(t, tc.want, tc.c.get(settingsPath).Code)
			require.Equal(t, tc.want, tc.c.get(settingsPath+"/preview?timezone=UTC&schedule_local_time=08:00&days=mon").Code)
			require.Equal(t, tc.want, tc.c.htmx().get(settingsPath+"/zones?q=paris").Code)
			require.Equal(t, tc.want, tc.c.post(settingsPath, valid).Code)
			require.Equal(t, tc.want, tc.c.post(settingsPath+"/json", doc).Code)
			require.Equal(t, tc.want, tc.c.post(settingsPath+"/enabled", url.Values{"enabled": {"false"}}).Code)
			require.Equal(t, before, storedConfig(t, f, f.orgA.ID))
		})
	}
	r := f.anon().get(settingsPath)
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, signInTo(settingsPath), r.Header.Get("Location"))
	require.Equal(t, http.StatusNotFound, f.as(&f.adminA).get("/orgs/nope/settings/fieldforce").Code)
}

func TestSettingsPreview(t *testing.T) {
	t.Parallel()
	f := setup(t)
	// Sessions follow the injected clock: sign in after moving it.
	preview := func(q string) htmlDoc {
		t.Helper()
		r := f.as(&f.adminA).htmx().get(settingsPath + "/preview?" + q)
		require.Equal(t, http.StatusOK, r.Code)
		require.NotContains(t, r.Body, "<html", "a fragment, not a page")
		return parseDoc(t, r.Body)
	}
	flagged := func(doc htmlDoc, flag string) []string {
		var rows []string
		for _, tr := range doc.findAll(attrIs("data-flag", flag)) {
			rows = append(rows, tr.text())
		}
		return rows
	}

	// Spring forward: 2027-03-14 02:00 → 03:00 in New York.
	setClock(f, time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC))
	doc := preview("timezone=America/New_York&schedule_local_time=02:30&days=sun&enabled=true")
	require.Len(t, doc.findAll(tagIs("tr")), 8, "a header and the next 7 runs")
	gap := flagged(doc, "gap")
	require.Len(t, gap, 1)
	require.Contains(t, gap[0], "Sun, Mar 14")
	require.Contains(t, gap[0], "shifted: 2:30 AM doesn't exist, runs at 3:00 AM")
	require.Contains(t, gap[0], "7:00 AM UTC")
	require.Contains(t, gap[0], "UTC−04:00")
	require.Contains(t, doc.find(attrIs("data-warning", "dst")).text(),
		"2:30 AM does not exist on Sun, Mar 14, 2027 in Eastern Time (New York); the briefing will run at 3:00 AM that day")

	// Fall back: 2026-11-01 01:00–02:00 happens twice; the first is EDT.
	setClock(f, time.Date(2026, 10, 29, 12, 0, 0, 0, time.UTC))
	doc = preview("timezone=US/Eastern&schedule_local_time=01:30&days=sun&days=mon")
	overlap := flagged(doc, "overlap")
	require.Len(t, overlap, 1)
	require.Contains(t, overlap[0], "Sun, Nov 1")
	require.Contains(t, overlap[0], "overlap: runs at the first 1:30 AM")
	require.Contains(t, overlap[0], "5:30 AM UTC")
	require.Contains(t, doc.find(tagIs("caption")).text(), "America/New_York")

	// A time that exists every day has no flags.
	doc = preview("timezone=America/New_York&schedule_local_time=08:00&days=mon")
	require.Empty(t, flagged(doc, "gap"))
	require.Nil(t, doc.find(attrIs("data-warning", "dst")))

	// Invalid values answer 200 with the messages, for htmx to swap in.
	doc = preview("timezone=Nowhere/Land&schedule_local_time=25:00&days=mon")
	msg := doc.find(attrIs("data-preview", "invalid")).text()
	require.Contains(t, msg, `We don't know the time zone "Nowhere/Land".`)
	require.Contains(t, msg, "Choose a time between 00:00 and 23:59")
	requirePlainWords(t, msg)

	// Paused still previews, and says so.
	doc = preview("timezone=UTC&schedule_local_time=08:00&days=mon&enabled=false")
	require.Contains(t, doc.find(hasClass("notice")).text(), "Paused")
	require.Len(t, doc.findAll(tagIs("tr")), 8)
}

// The preview answer carries the zone hint out of band, so the line under
// the zone input follows a zone picked before saving; a zone still being
// typed gets the generic hint back.
func TestSettingsPreviewUpdatesZoneHint(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 1, 15, 13, 4, 0, 0, time.UTC))
	admin := f.as(&f.adminA).htmx()

	r := admin.get(settingsPath + "/preview?timezone=Asia/Kolkata&schedule_local_time=08:00&days=mon")
	require.Equal(t, http.StatusOK, r.Code)
	hint := parseDoc(t, r.Body).byID("timezone-hint")
	require.Equal(t, "true", hint.attr("hx-swap-oob"))
	require.Equal(t, "India Standard Time (Kolkata) Asia/Kolkata : UTC+05:30, 6:34 PM there now.", hint.text())

	r = admin.get(settingsPath + "/preview?timezone=Springf&schedule_local_time=08:00&days=mon")
	require.Contains(t, parseDoc(t, r.Body).byID("timezone-hint").text(), "Search for a city")
	// Text one place alone matches is read as its zone, as the save reads it.
	r = admin.get(settingsPath + "/preview?timezone=Kolk&schedule_local_time=08:00&days=mon")
	require.Equal(t, "India Standard Time (Kolkata) Asia/Kolkata : UTC+05:30, 6:34 PM there now.", parseDoc(t, r.Body).byID("timezone-hint").text())
}

// The editor's preview never fires on keystrokes in the zone search, and
// the local time is a 24-hour text field the server still validates.
func TestSettingsFormMarkup(t *testing.T) {
	t.Parallel()
	f := setup(t)
	doc := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body)
	form := doc.byID("schedule-form")
	require.Equal(t, "this:replace", form.attr("hx-sync"))
	require.NotContains(t, form.attr("hx-trigger"), "from:#timezone")
	require.NotContains(t, doc.byID("timezone").attr("class"), "previewed", "zone keystrokes do not refresh the preview")
	tm := doc.byID("schedule_local_time")
	require.Equal(t, "text", tm.attr("type"))
	// No pattern, no numeric keyboard: "6:30 pm" and "18h30" are typed
	// too, and the server reads them (TestSettingsFormReadsTypedTimes).
	require.Empty(t, tm.attr("pattern"))
	require.Empty(t, tm.attr("inputmode"))
	require.Equal(t, "16", tm.attr("maxlength"))
	require.Contains(t, doc.byID(tm.attr("aria-describedby")).text(), "6:30 pm · 18:30")
}

// htmlDoc and htmlNode query rendered HTML in tests.
type htmlDoc = htmlNode

type htmlNode struct{ n *html.Node }

func parseDoc(t *testing.T, body string) htmlDoc {
	t.Helper()
	n, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	return htmlNode{n}
}

func (h htmlNode) findAll(match func(*html.Node) bool) []htmlNode {
	var out []htmlNode
	if h.n == nil {
		return nil
	}
	for n := range h.n.Descendants() {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, htmlNode{n})
		}
	}
	return out
}

// find returns the first match; its methods on a miss return zero values,
// and require.Nil/NotNil test it through ptr.
func (h htmlNode) find(match func(*html.Node) bool) *htmlNode {
	all := h.findAll(match)
	if len(all) == 0 {
		return nil
	}
	return &all[0]
}

func (h htmlNode) byID(id string) *htmlNode { return h.find(attrIs("id", id)) }

func (h *htmlNode) attr(key string) string {
	if h == nil {
		return "<missing element>"
	}
	for _, a := range h.n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func (h *htmlNode) text() string {
	if h == nil {
		return "<missing element>"
	}
	var words []string
	for n := range h.n.Descendants() {
		if n.Type == html.TextNode {
			words = append(words, strings.Fields(n.Data)...)
		}
	}
	return strings.Join(words, " ")
}

// checked lists the values of the checked checkboxes or radios named name.
func (h htmlNode) checked(name string) []string {
	var values []string
	for _, in := range h.findAll(attrIs("name", name)) {
		if _, ok := hasAttr(in.n, "checked"); ok {
			values = append(values, in.attr("value"))
		}
	}
	return values
}

func hasAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func attrIs(key, value string) func(*html.Node) bool {
	return func(n *html.Node) bool { v, ok := hasAttr(n, key); return ok && v == value }
}

func hasClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		v, _ := hasAttr(n, "class")
		return strings.Contains(" "+v+" ", " "+class+" ")
	}
}

func tagIs(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

// An org admin sees who changed the org's settings, and from what, on the
// settings page itself; another org's changes never show there, nor do
// staff changes to the org's flags (staff emails, internal reasons).
func TestSettingsShowsRecentChangesOfThisOrgOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgB.ID, `{"briefing":{"timezone":"Asia/Tokyo","schedule_local_time":"06:00"}}`)
	staff := f.as(&f.staff)
	r := staff.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"on"}, "reason": {"pilot customer, see ticket 7"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	r = staff.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"incident 42"}, "confirm": {flagKey}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	requireNoStaffEntries := func(history string) {
		t.Helper()
		for _, secret := range []string{f.staff.Email, "ticket 7", "incident 42", "flag.org.set", "flag.global.set"} {
			require.NotContains(t, history, secret)
		}
	}

	page := f.as(&f.adminA).get(settingsPath)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body, "No changes yet.")
	require.NotContains(t, page.Body, "Asia/Tokyo")
	requireNoStaffEntries(page.Body)

	r = f.as(&f.adminA).post(settingsPath, scheduleForm("Europe/Paris", "09:15", "mon", "fri"))
	require.Equal(t, http.StatusSeeOther, r.Code)
	page = f.as(&f.adminA).get(settingsPath)
	require.Equal(t, http.StatusOK, page.Code)
	history := page.Body[strings.Index(page.Body, `id="history-title"`):]
	require.Contains(t, history, f.adminA.Email)
	require.Contains(t, history, "fieldforce.config.update")
	require.Contains(t, history, "briefing.schedule_local_time")
	require.Contains(t, history, "09:15")
	require.NotContains(t, history, "Asia/Tokyo")
	requireNoStaffEntries(history)
}

// The form reads a time as people type it, the save and the preview alike,
// and shows it back in the org's clock; the document keeps HH:MM.
func TestSettingsFormReadsTypedTimes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	for _, tc := range []struct{ typed, stored, us, de string }{
		{"6:30 pm", "18:30", "6:30 PM", "18:30"}, {"6:30 AM", "06:30", "6:30 AM", "06:30"},
		{"0630", "06:30", "6:30 AM", "06:30"}, {"18h30", "18:30", "6:30 PM", "18:30"},
		{"18.30", "18:30", "6:30 PM", "18:30"}, {"9am", "09:00", "9:00 AM", "09:00"},
		{"12am", "00:00", "12:00 AM", "00:00"}, {" 7:05 ", "07:05", "7:05 AM", "07:05"},
	} {
		for _, org := range []struct{ locale, shown string }{{"en-US", tc.us}, {"de-DE", tc.de}} {
			_, err := f.db.Exec(context.Background(), `UPDATE orgs SET locale = $2 WHERE id = $1`, f.orgA.ID, org.locale)
			require.NoError(t, err)
			r := admin.post(settingsPath, scheduleForm("Europe/Paris", tc.typed, "mon"))
			require.Equal(t, http.StatusSeeOther, r.Code, "%q: %s", tc.typed, r.Body)
			require.JSONEq(t, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"`+tc.stored+`","days":["mon"],"enabled":true}}`,
				storedConfig(t, f, f.orgA.ID).Raw, tc.typed)

			page := admin.get(settingsPath)
			require.Equal(t, http.StatusOK, page.Code)
			require.Equal(t, org.shown, parseDoc(t, page.Body).byID("schedule_local_time").attr("value"), "shown back in %s's clock", org.locale)

			pv := admin.htmx().get(settingsPath + "/preview?" + scheduleForm("Europe/Paris", tc.typed, "mon").Encode())
			require.Equal(t, http.StatusOK, pv.Code)
			require.NotContains(t, pv.Body, `data-preview="invalid"`, "the preview reads %q as the save does", tc.typed)
			require.Contains(t, pv.Body, `"r-local">`+strings.ReplaceAll(org.shown, " ", "\u202f"), "the preview's runs are at %s, in the reader's clock", tc.stored)
		}
	}
}
