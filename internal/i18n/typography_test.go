package i18n_test

import (
	"regexp"
	"testing"
)

// French typography (docs/i18n.md, "Adding a message"): a narrow no-break
// space (U+202F) before : ; ! ? and inside « », never an ASCII space or
// none — "Heures : …" and "Heures: …" both break the line or read English.
// Codes quoted as typed ("Authorization: Bearer", "08:00", URLs) are not
// punctuation.
func TestFrenchTypography(t *testing.T) {
	t.Parallel()
	bad := []*regexp.Regexp{
		regexp.MustCompile(`[ \x{00A0}][:;!?](\s|$)`),   // a space that breaks, or NBSP, before
		regexp.MustCompile(`\p{L}[;!?](\s|$)`),          // none before ; ! ?
		regexp.MustCompile(`\p{L}\)?:(\s|$)`),           // none before :
		regexp.MustCompile(`«[^\x{202F}]|[^\x{202F}]»`), // guillemets without their spaces
	}
	codes := regexp.MustCompile(`Authorization: Bearer|https?://\S+|\{\{[^}]*\}\}`)
	for id, m := range flatten(t, "fr") {
		texts := []string{m.text}
		for _, s := range m.forms {
			texts = append(texts, s)
		}
		for _, s := range texts {
			s = codes.ReplaceAllString(s, "X")
			for _, re := range bad {
				if loc := re.FindStringIndex(s); loc != nil {
					t.Errorf("fr %s: %q at %q", id, s, s[max(loc[0]-10, 0):min(loc[1]+5, len(s))])
				}
			}
		}
	}
}
