package locale

import (
	"testing"
	"time"
)

// TestFormatPattern checks the interpreter on patterns beyond the ones
// data.go holds: every letter and width it knows, and quoting.
func TestFormatPattern(t *testing.T) {
	t.Parallel()
	en, de := Default(), Locale{byTag["de-de"]}
	at := time.Date(2026, 3, 5, 0, 7, 0, 0, time.UTC)
	for _, c := range []struct {
		l             Locale
		pattern, want string
	}{
		{en, "y yy yyyy M MM MMM MMMM d dd", "2026 26 2026 3 03 Mar March 5 05"},
		{en, "E EEE EEEE c", "Thu Thu Thursday Thu"},
		{en, "h hh H HH m mm a", "12 12 0 00 7 07 AM"},
		{de, "EEEE, d. MMMM y, HH:mm 'Uhr'", "Donnerstag, 5. März 2026, 00:07 Uhr"},
		{en, "h 'o''clock' a", "12 o'clock AM"},
		{en, "''h''", "'12'"},
		{en, "'unterminated", "unterminated"},
		{en, "Q", "Q"}, // unknown letters are written back, not dropped
	} {
		if got := c.l.format(c.pattern, at); got != c.want {
			t.Errorf("%s format(%q) = %q, want %q", c.l, c.pattern, got, c.want)
		}
	}
}

// TestNumberSecondaryGrouping: a pattern like en-IN's "#,##,##0" groups
// by three, then by two. No supported locale has one today; the
// generator reads it, and Number must write it.
func TestNumberSecondaryGrouping(t *testing.T) {
	t.Parallel()
	d := *byTag["en-us"]
	d.secondary = 2
	if got := (Locale{&d}).Number(123456789); got != "12,34,56,789" {
		t.Errorf("Number = %q, want 12,34,56,789", got)
	}
}
