package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The picker speaks the admin's language (docs/timezone-picker.md, "The
// reader's language and region" and "Typed, not picked"), in the four
// languages at 1280 and 390 px, one browser session for all: a query as
// the reader writes it (de "München", es "Nueva York", fr "heure de
// Paris", en "Montreal") lists its place first, labelled in the reader's
// language, and blur takes it, the one zone it stands for. A typo that
// finds one place by a letter ("Müncen", the way "München" once found
// only North Korea's Munchon) is a weak match: blur takes nothing, the
// field says to choose one and the list stays open with the place in it.
// The screenshots are listed in docs/timezone-picker.md, "Tests".
func TestZonePickerInFourLanguages(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)

	for _, c := range []struct {
		lang, locale   string
		query, zone    string
		label          string // the first option's place, in the reader's language
		typo, typoZone string
		chooseOne      string // bsettings.picker.js_pick_one
		typoLabel      string // the typo's one choice, in the reader's language
	}{
		{"en", "en-US", "Montreal", "America/Toronto", "Montréal, Québec, Canada",
			"Montrael", "America/Toronto", "None of these places is called exactly that: choose one.", "Montréal"},
		{"de", "de-DE", "München", "Europe/Berlin", "München, Bayern, Deutschland",
			"Müncen", "Europe/Berlin", "Keiner dieser Orte heißt genau so: Wählen Sie einen aus.", "München"},
		{"es", "es-ES", "Nueva York", "America/New_York", "Nueva York, New York, Estados Unidos",
			"Nueva Yrok", "America/New_York", "Ninguno de estos lugares se llama exactamente así: elija uno.", "Nueva York"},
		{"fr", "fr-FR", "heure de Paris", "Europe/Paris", "Paris, Île-de-France, France",
			"Marseile", "Europe/Paris", "Aucun de ces lieux ne porte exactement ce nom\u202f: choisissez-en un.", "Marseille"},
	} {
		_, err := e.db.Exec(e.ctx, `UPDATE orgs SET locale = $1 WHERE id = $2`, c.locale, e.orgA.ID)
		e.must("set the org's locale", err)
		for _, w := range []int64{1280, 390} {
			at := fmt.Sprintf("%s at %d px", c.lang, w)
			if w == 390 {
				admin.do(at, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
			} else {
				admin.do(at, chromedp.EmulateViewport(1280, 900))
			}
			admin.open(settingsPath)
			admin.waitJS("the picker to be a combobox", `document.querySelector("#timezone").getAttribute("role") === "combobox"`)
			before := admin.value(zoneField)

			// A query in the reader's language: its place first, in their words; blur takes it.
			admin.searchZone(c.query, c.zone)
			if z := admin.attr(`#zone-results [role="option"]`, "data-zone"); z != c.zone {
				t.Errorf("%s: %q lists %s first, want %s:\n%s", at, c.query, z, c.zone, admin.text(zoneResults))
			}
			if first := admin.text(`#zone-results [role="option"]`); !strings.Contains(first, c.label) {
				t.Errorf("%s: the first option for %q reads %q, want %q in it", at, c.query, first, c.label)
			}
			if u := admin.attr(`#zone-results [role="option"]`, "data-unique"); u != "true" {
				t.Errorf("%s: %q stands for one zone, but its option is not marked unique", at, c.query)
			}
			admin.screenshot(fmt.Sprintf("picker-%s-%d-match", c.lang, w))
			admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
			admin.waitJS(at+": "+c.zone+" taken on blur", `document.querySelector("#timezone").value === `+jsString(c.zone)+
				` && document.querySelector("#timezone-value").value === `+jsString(c.zone))
			admin.expectClosed(at + " after the blur took " + c.zone)

			// A lone weak match: not taken; "choose one", and the list offers it.
			admin.searchZone(c.typo, c.typoZone)
			if n, err := eval[int](admin, `document.querySelectorAll('#zone-results [role="option"][data-unique="true"]').length`); err != nil || n != 0 {
				t.Errorf("%s: %q is a near match, but %d options are marked unique (%v)", at, c.typo, n, err)
			}
			admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
			admin.expectChooseOne(c.chooseOne)
			admin.waitText(zoneOption(c.typoZone), c.typoLabel)
			if got := admin.value(zoneInput); got != c.typo {
				t.Errorf("%s: after the blur the field says %q, want the typed %q", at, got, c.typo)
			}
			if got := admin.value(zoneField); got != c.zone {
				t.Errorf("%s: the near match %q changed the form's zone to %q (before it: %q)", at, c.typo, got, before)
			}
			admin.screenshot(fmt.Sprintf("picker-%s-%d-choose-one", c.lang, w))
		}
	}
	for _, m := range admin.consoleErrors() {
		t.Errorf("browser console error: %s", m)
	}
}
