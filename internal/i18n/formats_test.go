package i18n_test

import (
	"strings"
	"testing"
	"time"

	"fieldbrief/internal/i18n"
)

// A reader whose language is not the org's reads the org's formats in the
// words of their language (docs/i18n.md, "Resolution"): an English reader
// in a German org reads the 24-hour clock and the day before the month
// (en-GB), a Spanish reader in a German org es-ES, a German reader in a US
// org keeps the German clock (no German locale writes 12-hour times).
func TestReaderOfAnotherLanguageReadsTheOrgsFormats(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	cases := []struct{ lang, org, want, clock, date string }{
		{"en", "de-DE", "en-GB", "13:00", "26 Nov"},
		{"en", "fr-FR", "en-GB", "13:00", "26 Nov"},
		{"es", "de-DE", "es-ES", "13:00", "26 nov"},
		{"en", "es-US", "en-US", "1:00\u202fPM", "Nov 26"},
		{"es", "en-US", "es-US", "1:00\u202fp.m.", "26 nov"},
	}
	for _, c := range cases {
		l := i18n.Resolve(c.lang, c.org, "")
		lc := l.Locale()
		if lc.Tag() != c.want || lc.Time(day) != c.clock || lc.MonthDay(day) != c.date {
			t.Errorf("%s in %s: %s, %q, %q; want %s, %q, %q", c.lang, c.org, lc.Tag(), lc.Time(day), lc.MonthDay(day), c.want, c.clock, c.date)
		}
	}
}

// Swiss German writes "ss" for "ß" (docs/i18n.md, "Glossary").
func TestSwissGermanWithoutEszett(t *testing.T) {
	t.Parallel()
	de, ch := i18n.New("de", "de-DE").T("home.what"), i18n.New("de", "de-CH").T("home.what")
	if !strings.Contains(de, "ß") || strings.Contains(ch, "ß") || !strings.Contains(ch, "Aussendienst") {
		t.Errorf("de-DE %q, de-CH %q", de, ch)
	}
}
