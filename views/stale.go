package views

// StaleNotice is the answer to a save over a newer version of what a form
// edits (docs/versions.md, "Forms"): nothing was saved, and the page says
// what is stored now against what was sent, with a link to the latest.
type StaleNotice struct {
	Reload  string        // the page showing the latest
	Changes []StaleChange // fields where the stored value differs from the sent one
	// Board: the answer is the board, already showing the latest; the
	// page's forms otherwise keep what was typed.
	Board bool
	// Undo: the refused save was an undo of the reader's own move.
	Undo bool
}

// StaleChange is one field that differs: its label, the value stored now
// (the other person's) and the one sent, both in the reader's words.
type StaleChange struct {
	Field  string // the name the markup carries (data-field), never shown
	Label  string
	Theirs string
	Yours  string
}

// staleValue shows an empty value as a dash, so a cleared field is seen.
func staleValue(v string) string {
	if v == "" {
		return "—"
	}
	return v
}

// texts is what StaleBlock needs of its caller: a Page, or the board's
// fragment, which has no Page.
type texts interface{ T(id string) string }
