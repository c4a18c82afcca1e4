package views

// The import preview's updates (docs/field-data.md, "Updates: old → new, and changes made in fieldbrief are kept"): each
// changed field of an update row old → new, the fields changed in
// fieldbrief that saving keeps, and the tickbox that overwrites them.

// ImportUpdates is the preview's part about kept changes.
type ImportUpdates struct {
	KeptNote       string // "2 rows keep a change made in fieldbrief …: assignment, status"; empty when none
	Overwrite      bool   // the tickbox is ticked (a 409 after a save that overwrote)
	OverwriteLabel string
	OverwriteHint  string
}

// ImportRowUpdates is one row's changes, in the reader's words.
type ImportRowUpdates struct {
	Changes []ImportChange
	Kept    []ImportKept
}

// ImportChange is one field of an update row, old → new: Text says it
// ("customer: Pier Cafe → Pier Café").
type ImportChange struct {
	Column   string
	Old, New string
	Text     string
}

// ImportKept is a field changed in fieldbrief that saving keeps: Text says
// so, with the kept value and the file's.
type ImportKept struct {
	Column string
	Text   string
}
