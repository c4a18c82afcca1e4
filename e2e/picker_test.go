package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fieldbrief/internal/audit"
)

// The picker's hidden field: the zone the form saves (static/picker.js).
const zoneField = `#timezone-value`

// Picker by keyboard: the time zone field is a WAI-ARIA combobox. "nyc",
// ArrowDown, Enter picks New York and closes the list; "lon" lists London
// first; Escape closes; Enter on half-typed text submits nothing; saving
// stores the picked zone. Then a zone is picked with the mouse and saved.
func TestZonePickerByKeyboard(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitText(previewBox, "Europe/Berlin")
	admin.waitJS("the picker to be a combobox", `document.querySelector("#timezone").getAttribute("role") === "combobox"`)
	admin.watchHTMX()

	for attr, want := range map[string]string{
		"aria-autocomplete": "list",
		"aria-controls":     "zone-results",
		"aria-expanded":     "false",
	} {
		if got := admin.attr(zoneInput, attr); got != want {
			t.Errorf("#timezone %s=%q, want %q", attr, got, want)
		}
	}
	if got := admin.text(`label[for="timezone"]`); got != "Time zone" {
		t.Errorf("the field's label says %q", got)
	}
	if got := admin.value(zoneField); got != "Europe/Berlin" {
		t.Errorf("the form's zone is %q before any pick, want the saved Europe/Berlin (the browser's zone is offered, not forced)", got)
	}
	offered, err := eval[bool](admin, `(() => { const b = document.querySelector("#browser-zone");
		return b.hidden || /^Use my time zone: \S+$/.test(b.textContent) })()`)
	e.must("read the browser zone offer", err)
	if !offered {
		t.Errorf("the browser's zone is offered as %q", admin.text(`#browser-zone`))
	}

	// Every submit of the schedule form is counted and, until saving on
	// purpose below, stopped, so a submit by Enter shows up as a count
	// instead of a page load the test might miss.
	admin.do("count the form's submits", chromedp.Evaluate[chromedp.Void](`(() => {
		window.__e2eSubmits = 0;
		window.__e2eBlockSubmits = true;
		document.querySelector("#schedule-form").addEventListener("submit", (ev) => {
			window.__e2eSubmits++;
			if (window.__e2eBlockSubmits) ev.preventDefault();
		});
	})()`))

	// "nyc", ArrowDown, Enter.
	admin.searchZone("nyc", "America/New_York")
	admin.waitJS("the list to open", `document.querySelector("#timezone").getAttribute("aria-expanded") === "true" && !document.querySelector("#zone-results").hidden`)
	if first := admin.attr(`#zone-results [role="option"]`, "data-zone"); first != "America/New_York" {
		t.Errorf(`"nyc" lists %s first, want America/New_York`, first)
	}
	admin.waitTextWhere(`#zone-status`, regexp.MustCompile(`^\d+ time zones? found\.$`).MatchString, "announce the number of results")
	admin.do("ArrowDown", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.ArrowDown))
	first := admin.attr(`#zone-results [role="option"]`, "id")
	if got := admin.attr(zoneInput, "aria-activedescendant"); got == "" || got != first {
		t.Errorf("after ArrowDown aria-activedescendant=%q, want the first option %q", got, first)
	}
	if got := admin.attr(`#`+first, "aria-selected"); got != "true" {
		t.Errorf("the highlighted option has aria-selected=%q", got)
	}
	admin.do("Enter", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Enter))
	admin.waitJS("New York picked", `document.querySelector("#timezone").value === "America/New_York" && document.querySelector("#timezone-value").value === "America/New_York"`)
	admin.expectClosed("after picking with Enter")
	admin.expectSubmits(0, "Enter on a highlighted option")
	admin.waitText(previewBox, "America/New_York")

	// "lon": London first (before Longyearbyen); Escape closes.
	admin.searchZone("lon", "Europe/London")
	if first := admin.attr(`#zone-results [role="option"]`, "data-zone"); first != "Europe/London" {
		t.Errorf(`"lon" lists %s first, want Europe/London:\n%s`, first, admin.text(zoneResults))
	}
	admin.waitJS("the list to open", `document.querySelector("#timezone").getAttribute("aria-expanded") === "true"`)
	admin.do("ArrowDown twice", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.ArrowDown+kb.ArrowDown))
	admin.screenshot("picker-lon")
	admin.do("Escape", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Escape))
	admin.expectClosed("after Escape")
	if got := admin.value(zoneInput); got != "lon" {
		t.Errorf("the first Escape changed the text to %q; it only closes the list", got)
	}

	// Enter on the half-typed "lon" submits nothing and changes nothing.
	admin.do("Enter on half-typed text", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Enter))
	admin.waitText(`#zone-status`, "Choose a time zone from the list")
	admin.expectSubmits(0, "Enter on half-typed text")
	if got := admin.value(zoneField); got != "America/New_York" {
		t.Errorf("Enter on half-typed text changed the form's zone to %q", got)
	}
	// That Enter showed the choices again: Escape closes them, and the
	// second Escape brings the picked zone back into the field.
	admin.waitJS("the list to open on Enter", `document.querySelector("#timezone").getAttribute("aria-expanded") === "true"`)
	admin.do("Escape", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Escape))
	admin.expectClosed("after Escape")
	if got := admin.value(zoneInput); got != "lon" {
		t.Errorf("the first Escape changed the text to %q", got)
	}
	admin.do("Escape", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Escape))
	admin.waitJS("the picked zone back in the field", `document.querySelector("#timezone").value === "America/New_York"`)
	admin.expectClosed("after the second Escape")

	// Save: the zone picked by keyboard is stored.
	admin.do("let the form submit", chromedp.Evaluate[chromedp.Void](`window.__e2eBlockSubmits = false`))
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d:\n%s", status, admin.text("main"))
	}
	admin.waitText(`main .notice[role="status"]`)
	admin.expectStoredZone("America/New_York")
	if got := admin.value(zoneInput); got != "America/New_York" {
		t.Errorf("after saving the field says %q", got)
	}

	// One pick with the mouse, then save.
	admin.waitJS("the picker to be a combobox", `document.querySelector("#timezone").getAttribute("role") === "combobox"`)
	admin.searchZone("mumbai", "Asia/Kolkata")
	admin.click(zoneOption("Asia/Kolkata"))
	admin.waitJS("Kolkata picked", `document.querySelector("#timezone").value === "Asia/Kolkata" && document.querySelector("#timezone-value").value === "Asia/Kolkata"`)
	admin.expectClosed("after a click on an option")
	admin.screenshot("picker-mouse-pick")
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d:\n%s", status, admin.text("main"))
	}
	admin.waitText(`main .notice[role="status"]`)
	admin.expectStoredZone("Asia/Kolkata")

	// Typing searched at every keystroke's pause and answers overlapped;
	// none of it may log an error (htmx logs an aborted request as one).
	for _, m := range admin.consoleErrors() {
		t.Errorf("browser console error during the picker flow: %s", m)
	}
}

// The picker speaks the admin's language (docs/timezone-picker.md, "The
// reader's language and region"): in a German org "Mailand" and "München" are found,
// labelled in German and taken on blur; "Tucsn", a near match only, is not
// taken: the field says to choose one and keeps the list open, and saving
// it anyway is refused beside the field with the one choice.
func TestZonePickerInGerman(t *testing.T) {
	e := newEnv(t)
	e.seed()
	_, err := e.store.Tenants.SetLocale(e.ctx, audit.System, e.orgA.ID, "de-DE")
	e.must("make the org German", err)
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitJS("the picker to be a combobox", `document.querySelector("#timezone").getAttribute("role") === "combobox"`)

	admin.searchZone("Mailand", "Europe/Rome")
	admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
	admin.waitJS("Rome taken on blur", `document.querySelector("#timezone-value").value === "Europe/Rome"`)
	admin.expectClosed("after the blur")

	admin.searchZone("München", "Europe/Berlin")
	first := admin.text(`#zone-results [role="option"]`)
	for _, want := range []string{"München, Bayern, Deutschland", "Mitteleuropäische Zeit (Berlin)", "Europe/Berlin"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first option for München reads %q, want %q in it", first, want)
		}
	}
	admin.screenshot("picker-de-muenchen")
	admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
	admin.waitJS("Berlin taken on blur", `document.querySelector("#timezone").value === "Europe/Berlin" && document.querySelector("#timezone-value").value === "Europe/Berlin"`)
	admin.expectClosed("after the blur")

	admin.searchZone("Tucsn", "America/Phoenix")
	admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
	admin.expectChooseOne("Keiner dieser Orte heißt genau so: Wählen Sie einen aus.")
	admin.screenshot("picker-de-choose-one")
	if got := admin.value(zoneField); got != "Europe/Berlin" {
		t.Errorf("a near match changed the form's zone to %q", got)
	}
	if status := admin.submit(saveSchedule); status != 422 {
		t.Fatalf("saving a near match answered %d, want 422:\n%s", status, admin.text("main"))
	}
	admin.waitText("#timezone-error", "Kein Ort heißt genau „Tucsn“. Wählen Sie einen davon:")
	admin.waitText("#zone-choices", "Tucson, Arizona, Vereinigte Staaten")
	admin.expectStoredZone("Europe/Berlin")
	for _, m := range admin.consoleErrors() {
		t.Errorf("browser console error: %s", m)
	}
}

// expectChooseOne checks the picker took nothing on blur and says so: the
// note under the field is shown with msg and the list stays open.
func (s *session) expectChooseOne(msg string) {
	s.t.Helper()
	s.waitText("#zone-choose", msg)
	s.waitJS("the list to stay open", `(() => {
		const input = document.querySelector("#timezone");
		return !document.querySelector("#zone-choose").hidden && input.getAttribute("aria-expanded") === "true" &&
			!document.querySelector("#zone-results").hidden && document.querySelector("#zone-results .zone-option") !== null;
	})()`)
}

// attr is an attribute of the first element matching sel ("" if absent).
func (s *session) attr(sel, name string) string {
	s.t.Helper()
	v, err := eval[*string](s, `(() => { const el = document.querySelector(`+jsString(sel)+`); return el ? el.getAttribute(`+jsString(name)+`) : null })()`)
	if err != nil {
		s.t.Fatalf("%s: read %s of %s: %v", s.name, name, sel, err)
	}
	if v == nil {
		return ""
	}
	return *v
}

// expectClosed checks the picker's list is closed the way assistive
// technology reads it: aria-expanded false, no active option, list hidden.
func (s *session) expectClosed(when string) {
	s.t.Helper()
	s.waitJS("the list to close "+when, `(() => {
		const input = document.querySelector("#timezone");
		return input.getAttribute("aria-expanded") === "false" && !input.hasAttribute("aria-activedescendant") &&
			document.querySelector("#zone-results").hidden;
	})()`)
}

func (s *session) expectSubmits(want int, after string) {
	s.t.Helper()
	n, err := eval[int](s, `window.__e2eSubmits`)
	if err != nil {
		s.t.Fatalf("%s: count submits: %v", s.name, err)
	}
	if n != want {
		s.t.Errorf("%s: %s submitted the form %d times, want %d", s.name, after, n, want)
	}
}

func (s *session) expectStoredZone(want string) {
	s.t.Helper()
	cfg, err := s.e.store.Tenants.Fieldforce(s.e.ctx, s.e.orgA.ID)
	s.e.must("read the saved config", err)
	if got := cfg.Config.Briefing.Timezone; got != want {
		s.t.Errorf("stored zone = %s, want %s", got, want)
	}
}
