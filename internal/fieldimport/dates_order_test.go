package fieldimport

import (
	"testing"

	"fieldbrief/internal/locale"
)

// A US org reads 11/12/2026 month first in English and in Spanish (es-US);
// every other region day first (docs/i18n.md, "Glossary").
func TestSlashedDateOrderByRegion(t *testing.T) {
	for tag, want := range map[string]DateOrder{"en-US": MonthFirst, "es-US": MonthFirst, "es-MX": DayFirst, "en-GB": DayFirst, "de-DE": DayFirst, "fr-CA": DayFirst} {
		if got := OrderOf(locale.Nearest(tag)); got != want {
			t.Errorf("%s: %v, want %v", tag, got, want)
		}
	}
}
