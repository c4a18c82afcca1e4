// Package text holds the rules for text people type that the app stores
// and shows again: email addresses, names, control characters. Each rule
// is one function or constant here, which the stores, the forms and their
// messages share. Standard library only, so every package (schedule
// included) can use it.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLen is the longest name of a person, an org or a technician, in
// characters.
const MaxNameLen = 200

// IsControl reports whether r changes how the text around it is shown
// rather than showing itself: C0/C1 controls (newlines, NUL and terminal
// escapes included) and the bidirectional overrides and isolates.
func IsControl(r rune) bool {
	return unicode.IsControl(r) || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// HasControl reports whether s holds a control character (see IsControl)
// or is not valid UTF-8, either of which would be shown as it is.
func HasControl(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, IsControl)
}

// MaxSubjectPart is the most characters of a stored value (a customer, a
// street, an org's name) that a subject line carries.
const MaxSubjectPart = 60

// SubjectPart is s as a subject line carries it (docs/delivery.md,
// "Subjects"): one line, whatever a tenant typed or imported. Line breaks
// and other spaces become one space, control characters (see IsControl)
// and invalid UTF-8 are dropped, and a longer value is cut to
// MaxSubjectPart characters, the last an ellipsis.
func SubjectPart(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case IsControl(r), r == utf8.RuneError:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > MaxSubjectPart {
		s = strings.TrimRight(string(r[:MaxSubjectPart-1]), " ") + "…"
	}
	return s
}
