package locale

import (
	"testing"
	"time"
)

// Zone abbreviations are the reader's language's (docs/i18n.md, "Zone
// abbreviations"): MEZ/MESZ on German pages, HNE in Canadian French, the
// offset where CLDR gives the language none, never the English letters.
func TestZoneAbbrInEachLanguage(t *testing.T) {
	load := func(id string) *time.Location {
		loc, err := time.LoadLocation(id)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	winter := func(id string) time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, load(id)) }
	summer := func(id string) time.Time { return time.Date(2026, 7, 15, 12, 0, 0, 0, load(id)) }
	cases := []struct {
		tag  string
		t    time.Time
		want string
	}{
		{"en-US", winter("Europe/Berlin"), "CET"},
		{"en-US", winter("America/New_York"), "EST"},
		{"en-US", winter("Asia/Kolkata"), "IST"},
		{"en-US", winter("Asia/Dubai"), "UTC+4"},
		{"de-DE", winter("Europe/Berlin"), "MEZ"},
		{"de-DE", summer("Europe/Berlin"), "MESZ"},
		{"de-CH", summer("Europe/Zurich"), "MESZ"},
		{"de-AT", winter("Europe/Helsinki"), "OEZ"},
		{"de-DE", winter("America/New_York"), "UTC−5"},
		{"de-DE", winter("Asia/Kolkata"), "UTC+5:30"},
		{"fr-FR", winter("Europe/Paris"), "UTC+1"},
		{"fr-FR", summer("Europe/Paris"), "UTC+2"},
		{"fr-CA", winter("America/Montreal"), "HNE"},
		{"fr-CA", summer("America/Toronto"), "HAE"},
		{"es-US", winter("America/Chicago"), "CST"},
		{"es-MX", winter("America/Mexico_City"), "UTC−6"},
		{"es-ES", summer("Europe/Madrid"), "CEST"},
		{"de-DE", winter("Etc/UTC"), "UTC"},
		{"fr-FR", winter("Europe/London"), "UTC"},
	}
	for _, c := range cases {
		if got := Nearest(c.tag).ZoneAbbr(c.t); got != c.want {
			t.Errorf("%s %s %s: %q, want %q", c.tag, c.t.Location(), c.t.Format(time.DateOnly), got, c.want)
		}
	}
	// A day across the change names both.
	d := Nearest("de-DE")
	if got := d.ZoneAbbrs(time.Date(2026, 3, 29, 0, 0, 0, 0, load("Europe/Berlin")), time.Date(2026, 3, 29, 23, 0, 0, 0, load("Europe/Berlin"))); got != "MEZ/MESZ" {
		t.Errorf("de-DE on 29 March: %q", got)
	}
}
