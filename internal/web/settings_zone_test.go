package web

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// setBrowserZone puts the cookie static/app.js sets into the client's jar.
func setBrowserZone(c *client, zone string) {
	u, _ := url.Parse(c.base)
	c.hc.Jar.SetCookies(u, []*http.Cookie{{Name: browserZoneCookie, Value: url.QueryEscape(zone), Path: "/"}})
}

// An org with nothing saved is shown the creating admin's browser zone,
// selected (docs/timezone-picker.md, "A new org's zone"); nothing is saved
// until the admin saves. A zone we do not know, or no cookie, is UTC.
func TestSettingsNewOrgTakesBrowserZone(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	before := storedConfig(t, f, f.orgA.ID)

	doc := parseDoc(t, admin.get(settingsPath).Body)
	require.Equal(t, "UTC", doc.byID("timezone").attr("value"), "no cookie: UTC")
	require.Equal(t, "browser", doc.byID("timezone").attr("data-zone-default"), "the picker may fill in the browser's zone")
	require.Nil(t, doc.byID("zone-from-browser"))

	setBrowserZone(admin, "Europe/Berlin")
	doc = parseDoc(t, admin.get(settingsPath).Body)
	require.Equal(t, "Europe/Berlin", doc.byID("timezone").attr("value"))
	require.Empty(t, doc.byID("timezone").attr("data-zone-default"))
	require.Contains(t, doc.byID("zone-from-browser").text(), "Europe/Berlin")
	require.Contains(t, doc.byID("timezone-hint").text(), "Central European Time (Berlin) Europe/Berlin : UTC+01:00")
	require.Contains(t, doc.byID("config_json").text(), `"timezone": "Europe/Berlin"`)
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "shown, not saved")

	setBrowserZone(admin, "Asia/Calcutta") // an old name: shown under the canonical one
	require.Equal(t, "Asia/Kolkata", parseDoc(t, admin.get(settingsPath).Body).byID("timezone").attr("value"))

	for _, bad := range []string{"Mars/Base", "Local", "../../etc/passwd", "", "\x00"} {
		setBrowserZone(admin, bad)
		doc = parseDoc(t, admin.get(settingsPath).Body)
		require.Equal(t, "UTC", doc.byID("timezone").attr("value"), "%q", bad)
		require.Nil(t, doc.byID("zone-from-browser"))
	}

	// Saved settings win over the browser.
	setBrowserZone(admin, "Europe/Berlin")
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Asia/Tokyo","schedule_local_time":"08:00"}}`)
	doc = parseDoc(t, admin.get(settingsPath).Body)
	require.Equal(t, "Asia/Tokyo", doc.byID("timezone").attr("value"))
	require.Nil(t, doc.byID("zone-from-browser"))
	require.Empty(t, doc.byID("timezone").attr("data-zone-default"))
}

// Text typed and never picked is saved when one place matches it best and
// alone ("Denver"); text several zones match ("Springfield") is refused
// beside the field with those zones offered, and one of them saves.
func TestSettingsSaveTypedZone(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	r := admin.post(settingsPath, scheduleForm("Denver", "07:30", "mon"))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.JSONEq(t, `{"briefing":{"timezone":"America/Denver","schedule_local_time":"07:30","days":["mon"],"enabled":true}}`,
		storedConfig(t, f, f.orgA.ID).Raw)

	r = admin.post(settingsPath, scheduleForm("eastern time", "07:30", "mon"))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"America/New_York"`)

	before := storedConfig(t, f, f.orgA.ID)
	r = admin.post(settingsPath, scheduleForm("Springfield", "07:30", "mon"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")
	doc := parseDoc(t, r.Body)
	require.Contains(t, doc.byID("timezone-error").text(), "“Springfield” matches places in more than one time zone. Did you mean one of these?")
	require.Equal(t, "Springfield", doc.byID("timezone").attr("value"), "the text is kept")
	var offered []string
	for _, b := range doc.byID("zone-choices").findAll(attrIs("name", "timezone_choice")) {
		offered = append(offered, b.attr("value"))
	}
	require.Equal(t, []string{"America/New_York", "America/Chicago", "America/Los_Angeles"}, offered)
	require.Contains(t, doc.byID("zone-choices").text(), "Springfield, Missouri")

	// Pressing a choice posts the form with it: it wins over the text.
	form := scheduleForm("Springfield", "07:30", "mon")
	form.Set("timezone_choice", "America/Chicago")
	r = admin.post(settingsPath, form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"America/Chicago"`)

	// A choice is validated like any zone; text nothing matches is the old
	// refusal, with no choices.
	form.Set("timezone_choice", "Mars/Base")
	r = admin.post(settingsPath, form)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	r = admin.post(settingsPath, scheduleForm("Zzyzxqq", "07:30", "mon"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	doc = parseDoc(t, r.Body)
	require.Contains(t, doc.byID("timezone-error").text(), `We don't know the time zone "Zzyzxqq".`)
	require.Nil(t, doc.byID("zone-choices"))

	// The preview reads the text as the save does.
	r = admin.htmx().get(settingsPath + "/preview?" + scheduleForm("Denver", "07:30", "mon").Encode())
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body, `<small class="zone-id">America/Denver</small>: UTC`)
}

// The zones endpoint marks the one option typed text stands for, which the
// picker takes on blur; ambiguous text marks none.
func TestZoneSearchMarksUniqueMatch(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA).htmx()
	unique := func(q string) []string {
		r := admin.get(settingsPath + "/zones?q=" + url.QueryEscape(q))
		require.Equal(t, http.StatusOK, r.Code)
		var out []string
		for _, o := range parseDoc(t, r.Body).findAll(attrIs("data-unique", "true")) {
			out = append(out, o.attr("data-zone"))
		}
		return out
	}
	require.Equal(t, []string{"America/Denver"}, unique("Denver"))
	// Each option names its zone as people know it, above the IANA name.
	r := admin.get(settingsPath + "/zones?q=Dallas")
	label := parseDoc(t, r.Body).find(hasClass("zone-label"))
	require.NotNil(t, label)
	require.Equal(t, "Central Time (Chicago)", label.text())
	require.Equal(t, []string{"Asia/Kolkata"}, unique("Bombay"))
	require.Empty(t, unique("Springfield"))
	require.Empty(t, unique("EST"))
}

// A German admin finds zones by German names and reads them in German;
// text that is only a near match is never saved: the field says to choose
// and offers the match (docs/timezone-picker.md, "Typed, not picked").
func TestZonePickerSpeaksTheAdminsLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 1, 15, 13, 4, 0, 0, time.UTC))
	f.setLocale(f.orgA.ID, "de-DE")
	admin := f.as(&f.adminA)
	first := func(q string) *htmlNode {
		t.Helper()
		r := admin.htmx().get(settingsPath + "/zones?q=" + url.QueryEscape(q))
		require.Equal(t, http.StatusOK, r.Code)
		opts := parseDoc(t, r.Body).findAll(hasClass("zone-option"))
		require.NotEmpty(t, opts, q)
		return &opts[0]
	}
	munich := first("München")
	require.Equal(t, "Europe/Berlin", munich.attr("data-zone"))
	require.Equal(t, "true", munich.attr("data-unique"), "a whole name: taken on blur")
	require.Equal(t, "München, Bayern, Deutschland", munich.find(hasClass("zone-place")).text())
	require.Equal(t, "Mitteleuropäische Zeit (Berlin)", munich.find(hasClass("zone-label")).text())
	for q, want := range map[string]string{
		"Mitteleuropäische Zeit": "Europe/Berlin", "MEZ": "Europe/Berlin", "Mailand": "Europe/Rome",
		"Mexiko-Stadt": "America/Mexico_City", "Köln": "Europe/Berlin",
	} {
		require.Equal(t, want, first(q).attr("data-zone"), q)
	}
	tucson := first("Tucsn")
	require.Equal(t, "America/Phoenix", tucson.attr("data-zone"))
	require.Empty(t, tucson.attr("data-unique"), "a near match alone is not taken on blur")

	// Saved: a German name is stored as its zone; a near match is refused.
	r := admin.post(settingsPath, scheduleForm("München", "07:30", "mon"))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"Europe/Berlin"`)
	before := storedConfig(t, f, f.orgA.ID)
	r = admin.post(settingsPath, scheduleForm("Tucsn", "07:30", "mon"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")
	doc := parseDoc(t, r.Body)
	require.Contains(t, doc.byID("timezone-error").text(), "Kein Ort heißt genau „Tucsn“. Wählen Sie einen davon:")
	var offered []string
	for _, b := range doc.byID("zone-choices").findAll(attrIs("name", "timezone_choice")) {
		offered = append(offered, b.attr("value"))
	}
	require.Equal(t, []string{"America/Phoenix"}, offered)
	require.Contains(t, doc.byID("zone-choices").text(), "Tucson, Arizona, Vereinigte Staaten")
	// The picker's words for it are on the field, for the script.
	require.Equal(t, "Keiner dieser Orte heißt genau so: Wählen Sie einen aus.",
		doc.find(hasClass("zone-picker")).attr("data-msg-pick-one"))
}
