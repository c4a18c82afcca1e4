package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Selectors of the settings page (views/settings.templ).
const (
	settingsPath    = "/orgs/acme/settings/fieldforce"
	zoneInput       = `#timezone`
	zoneResults     = `#zone-results`
	timeInput       = `#schedule_local_time`
	previewBox      = `#preview`
	dstWarning      = `#preview [data-warning="dst"]`
	saveSchedule    = `#schedule-form button[type="submit"]`
	settingsNavLink = `nav a[href$="/settings/fieldforce"]`
	jsonEditor      = `#config_json`
)

// zoneOption is the picker's option for a zone.
func zoneOption(zone string) string {
	return `#zone-results [role="option"][data-zone="` + zone + `"]`
}

// An admin finds a zone by city in the picker, sees its offset and local
// time, picks it, changes the time and watches the preview follow, saves,
// and staff see the change with its old and new values in the audit log.
func TestAdminEditsScheduleWithZonePickerAndPreview(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)

	if status := admin.follow(settingsNavLink); status != 200 {
		t.Fatalf("the settings link answered %d, want 200", status)
	}
	if p := admin.path(); p != settingsPath {
		t.Fatalf("the settings link opened %s, want %s", p, settingsPath)
	}
	before := admin.waitText(previewBox, "Europe/Berlin", "7:00\u202fAM")
	admin.screenshot("settings")
	admin.watchHTMX()

	// Search by city: the htmx results list the zone with offset and local time.
	results := admin.searchZone("Kolk", "Asia/Kolkata")
	// acme is en-US: the time is on the 12-hour clock ("6:34 PM").
	if !regexp.MustCompile(`UTC\+05:30, \d{1,2}:\d\d[\s\x{202f}][AP]M now`).MatchString(results) {
		t.Errorf("zone results should show Kolkata's offset and local time; they say:\n%s", results)
	}
	if want := time.Now().In(mustZone(t, "Asia/Kolkata")).Format("3:04"); !strings.Contains(results, want) &&
		!strings.Contains(results, time.Now().Add(-time.Minute).In(mustZone(t, "Asia/Kolkata")).Format("3:04")) {
		t.Errorf("zone results should show the local time in Kolkata (%s); they say:\n%s", want, results)
	}
	admin.screenshot("settings-zone-search")
	// A half-typed zone is a search, not an error: the preview keeps the
	// saved schedule. Once every request the typing started has ended, no
	// preview was asked for, and the preview box is as it was. (A preview
	// asked for with a longer delay is caught by the check of the form's
	// requests before saving, below.)
	admin.waitHTMXIdle("timezone")
	if reqs := admin.htmxRequests("schedule-form"); len(reqs) > 0 {
		t.Errorf("typing in the zone search asked for a preview: %v", reqs)
	}
	if now := admin.text(previewBox); now != before {
		t.Errorf("typing in the zone search changed the preview from\n%s\nto\n%s", before, now)
	}

	// Pick it: the input gets the canonical name, the results close, the
	// preview follows and so does the hint under the input.
	admin.pickZone("Asia/Kolkata")
	picked := admin.waitTextChange(previewBox, before, "Asia/Kolkata", "7:00\u202fAM", "UTC+05:30", "1:30\u202fAM UTC")
	admin.waitText("#timezone-hint", "Asia/Kolkata", "UTC+05:30")

	// Change the local time: the preview shows the new runs.
	admin.setValue(timeInput, "09:45")
	after := admin.waitTextChange(previewBox, picked, "Asia/Kolkata", "9:45\u202fAM", "4:15\u202fAM UTC")
	if strings.Contains(after, "Europe/Berlin") {
		t.Errorf("preview still mentions the old zone:\n%s", after)
	}
	admin.screenshot("settings-preview")
	// Every preview of this page was asked for by picking a zone or editing
	// another field, none by a keystroke in the zone search.
	for _, r := range admin.htmxRequests("schedule-form") {
		if strings.HasSuffix(r.Trigger, " on #timezone") && !strings.HasPrefix(r.Trigger, "zone-picked ") {
			t.Errorf("the zone search asked for a preview: %s", r)
		}
	}

	// Save: the page shows the saved state.
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving the schedule answered %d, want 200 after the redirect:\n%s", status, admin.text("main"))
	}
	admin.waitText(`main .notice[role="status"]`)
	if got := admin.value(zoneInput); got != "Asia/Kolkata" {
		t.Errorf("after saving, the zone input says %q, want Asia/Kolkata", got)
	}
	// acme is en-US: the form shows the saved time on its 12-hour clock.
	if got := admin.value(timeInput); got != "9:45 AM" {
		t.Errorf("after saving, the time input says %q, want 9:45 AM", got)
	}
	if doc := admin.value(jsonEditor); !containsAll(doc, `"Asia/Kolkata"`, `"09:45"`) {
		t.Errorf("after saving, the JSON editor should hold the saved document; it says:\n%s", doc)
	}
	admin.waitText(previewBox, "Asia/Kolkata", "9:45\u202fAM")
	admin.screenshot("settings-saved")

	cfg, err := e.store.Tenants.Fieldforce(e.ctx, e.orgA.ID)
	e.must("read the saved config", err)
	if b := cfg.Config.Briefing; b.Timezone != "Asia/Kolkata" || b.ScheduleLocalTime != "09:45" {
		t.Errorf("stored config = %s %s, want Asia/Kolkata 09:45", b.Timezone, b.ScheduleLocalTime)
	}

	// Staff read the change, old → new, in the audit log.
	st := e.newSession("staff")
	st.login(staff)
	st.open("/staff/audit")
	row := st.waitText(`table.audit tbody`, adminA.Email)
	entry := st.auditEntry(adminA.Email, "fieldforce.config.update")
	old, neu := entry[0], entry[1]
	if !containsAll(old, "Europe/Berlin", "07:00") || strings.Contains(old, "Asia/Kolkata") {
		t.Errorf("audit entry's old value should be the Berlin 07:00 config; it is %s\n(rows:\n%s)", old, row)
	}
	if !containsAll(neu, "Asia/Kolkata", "09:45") {
		t.Errorf("audit entry's new value should be the Kolkata 09:45 config; it is %s", neu)
	}
	st.screenshot("staff-audit")
}

// A search still scheduled when a zone is picked (here with "Use my zone",
// right after typing) must not open the list again once it fires: the
// input's delayed search sends what the input holds then, the picked zone,
// and static/picker.js keeps it from being sent or its answer from being shown.
func TestPickedZoneIsNotReopenedByALateSearch(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitText(previewBox, "Europe/Berlin")
	admin.watchHTMX()
	zone, err := eval[string](admin, `document.querySelector("#browser-zone").dataset.zone`)
	e.must("read the browser zone", err)
	if zone == "" {
		t.Fatal("the browser has no time zone to offer")
	}

	// The search fires 200 ms after the last keystroke. The pick must come
	// before that, which a loaded machine may miss; then the search of the
	// typed text fired first and the round proves nothing, so type again.
	const rounds = 5
	var late []htmxRequest // the searches of the picked zone, sent after the pick
	for round := 1; ; round++ {
		admin.typeInto(zoneInput, "Kolk")
		admin.click(`#browser-zone`) // offered while the saved zone is not the browser's
		admin.waitJS("the picked zone in the input", `document.querySelector(`+jsString(zoneInput)+`).value === `+jsString(zone))
		admin.waitHTMXIdle("timezone")
		late = late[:0]
		for _, r := range admin.htmxRequests("timezone") {
			if r.param("q") == zone {
				late = append(late, r)
			}
		}
		if len(late) > 0 {
			break
		}
		if round == rounds {
			t.Fatalf("in %d rounds the search of the typed text always fired before the pick, so no late search was tested; searches: %v",
				rounds, admin.htmxRequests("timezone"))
		}
		// The pick committed the browser's zone, so the page no longer offers
		// it: start the next round from the saved settings again.
		t.Logf("round %d: the search fired before the pick; typing again on a fresh page", round)
		admin.open(settingsPath)
		admin.waitText(previewBox, "Europe/Berlin")
		admin.watchHTMX()
	}

	// Every request is over: what the list shows now, it keeps.
	n, err := eval[int](admin, `document.querySelector(`+jsString(zoneResults)+`).childElementCount`)
	e.must("count what the zone list shows", err)
	if n != 0 {
		t.Errorf("a search that fired after the pick reopened the list:\n%s\nsearches: %v",
			admin.text(zoneResults), admin.htmxRequests("timezone"))
	}
	for _, r := range late {
		if r.SwappedInto != "" {
			t.Errorf("the answer of a search sent after the pick was shown: %s", r)
		}
		// static/picker.js does not even send it (its answer would be dropped).
		if r.State != "dropped" {
			t.Errorf("a search scheduled before the pick was sent after it: %s", r)
		}
	}
	if got := admin.value(zoneInput); got != zone {
		t.Errorf("the zone input says %q after the late search, want %q", got, zone)
	}
	admin.waitText("#timezone-hint", zone)
}

// searchZone types a query into the zone picker, waits until htmx has
// settled the results of that query (not of a prefix typed on the way) and
// returns them once they list zone.
func (s *session) searchZone(query, zone string) string {
	s.t.Helper()
	s.do("watch the zone search", chromedp.Evaluate[chromedp.Void](`(() => {
		if (window.__e2eZoneQuery !== undefined) return;
		window.__e2eZoneQuery = null;
		document.addEventListener("htmx:afterSettle", (ev) => {
			const d = ev.detail;
			if (d.target && d.target.id === "zone-results" && d.xhr && d.xhr.responseURL) {
				window.__e2eZoneQuery = new URL(d.xhr.responseURL).searchParams.get("q");
			}
		});
	})()`))
	s.typeInto(zoneInput, query)
	s.waitJS("the zone results for "+query, `window.__e2eZoneQuery === `+jsString(query))
	return s.waitText(zoneResults, zone)
}

// pickZone clicks a zone in the picker's results and waits until the input
// holds it and the results are closed.
func (s *session) pickZone(zone string) {
	s.t.Helper()
	s.click(zoneOption(zone))
	s.waitJS("the picked zone in the input", `document.querySelector(`+jsString(zoneInput)+`).value === `+jsString(zone))
	s.waitJS("the zone results to close", `document.querySelector("#zone-results .zone-option") === null`)
}

// auditEntry waits for the audit row by actor and action and returns its
// old and new values: the changed fields' values, one per line.
func (s *session) auditEntry(actor, action string) [2]string {
	s.t.Helper()
	expr := `(() => {
		for (const tr of document.querySelectorAll("tr.audit-entry")) {
			const t = tr.innerText;
			if (t.includes(` + jsString(actor) + `) && t.includes(` + jsString(action) + `)) {
				const all = (sel) => Array.from(tr.querySelectorAll(sel), (el) => el.innerText).join("\n");
				return [all(".old"), all(".new")];
			}
		}
		return null;
	})()`
	s.waitJS("an audit entry by "+actor+" for "+action, expr)
	v, err := eval[[]string](s, expr)
	if err != nil || len(v) != 2 {
		s.t.Fatalf("%s: read audit entry: %v %q", s.name, err, v)
	}
	return [2]string{v[0], v[1]}
}

// value is the live value of a form control.
func (s *session) value(sel string) string {
	s.t.Helper()
	v, err := eval[*string](s, `(() => { const el = document.querySelector(`+jsString(sel)+`); return el ? el.value : null })()`)
	if err != nil || v == nil {
		s.t.Fatalf("%s: read the value of %s: %v (element missing: %v)", s.name, sel, err, v == nil)
	}
	return *v
}

// 02:30 does not exist in New York on the day clocks spring forward; the
// editor warns that the run that day happens at 03:00.
func TestPreviewWarnsAboutSpringForwardGap(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	before := admin.waitText(previewBox, "Europe/Berlin")

	admin.searchZone("new y", "America/New_York")
	admin.pickZone("America/New_York")
	// US clocks change on a Sunday; acme's schedule is weekdays only.
	admin.click(`input[name="days"][value="sun"]`)
	admin.setValue(timeInput, "02:30")
	admin.waitTextChange(previewBox, before, "America/New_York", "2:30\u202fAM")

	gap := nextGap(t, "America/New_York", 2, 30)
	warning := admin.waitText(dstWarning, "2:30\u202fAM", "3:00\u202fAM")
	if !mentionsDate(warning, gap) {
		t.Errorf("the DST warning should name %s; it says: %s", gap.Format("Mon 2006-01-02"), warning)
	}
	if !regexp.MustCompile(`(?i)exist|skipped|gap`).MatchString(warning) {
		t.Errorf("the DST warning should say 02:30 does not exist that day; it says: %s", warning)
	}
	admin.screenshot("settings-dst-warning")

	// Nothing was saved by previewing.
	cfg, err := e.store.Tenants.Fieldforce(e.ctx, e.orgA.ID)
	e.must("read the config", err)
	if cfg.Config.Briefing.Timezone != "Europe/Berlin" {
		t.Errorf("previewing changed the stored zone to %s", cfg.Config.Briefing.Timezone)
	}
}

// nextGap is the next local date (from today) on which hh:mm does not exist
// in the zone.
func nextGap(t *testing.T, zone string, hh, mm int) time.Time {
	t.Helper()
	loc := mustZone(t, zone)
	now := time.Now().In(loc)
	for d := 0; d < 400; d++ {
		day := time.Date(now.Year(), now.Month(), now.Day()+d, 0, 0, 0, 0, time.UTC)
		at := time.Date(day.Year(), day.Month(), day.Day(), hh, mm, 0, 0, loc)
		if at.Hour() != hh || at.Minute() != mm {
			return day
		}
	}
	t.Fatalf("no DST gap at %02d:%02d in %s within 400 days", hh, mm, zone)
	return time.Time{}
}

// mentionsDate reports whether text names day in one of the usual ways.
func mentionsDate(text string, day time.Time) bool {
	for _, layout := range []string{"2006-01-02", "2 January", "January 2", "2 Jan", "Jan 2", "02 Jan"} {
		if strings.Contains(text, day.Format(layout)) {
			return true
		}
	}
	return false
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}
