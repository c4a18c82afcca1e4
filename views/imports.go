package views

import "strconv"

// ImportPage is the CSV import page: per kind, the upload form, the
// columns with their help and the template link. Its words are the
// reader's (docs/i18n.md): the web puts messages that need numbers in the
// reader's locale (Intro, Notice) into the model.
type ImportPage struct {
	Page
	Base   string // /orgs/{slug}/import
	Intro  string // what the page does, with the file's limits
	Notice string
	Kinds  []ImportKind
	// After a jobs import: the day board of its first day (CSVIN).
	BoardURL, BoardLabel string
}

// ImportKind is one kind of file (technicians or jobs).
type ImportKind struct {
	Kind      string
	Title     string
	Intro     string
	FileLabel string
	Columns   []ImportColumn
	Error     string // the upload was refused (too large, too many rows)
}

// ImportColumn is one documented column.
type ImportColumn struct {
	Name     string
	Label    string // in the reader's language
	Required bool
	Help     string
}

// ImportPreview shows every row of an uploaded file as it will be saved
// and every problem, with the button that saves it when there are none.
type ImportPreview struct {
	Page
	Base       string // the import page
	SaveURL    string
	Kind       string
	Title      string
	Filename   string
	Digest     string
	Expires    string // when the upload is dropped, in the reader's clock
	Conflict   string // the save found the data changed since this preview
	Summary    string // the rows by action, in words: "2 new, 1 update, 0 unchanged rows, 1 error."
	SaveLabel  string // "Import 3 rows"
	Columns    []string
	Rows       []ImportRow
	Problems   []ImportProblem
	Skipped    int
	Created    int
	Updated    int
	Unchanged  int
	CanSave    bool
	ErrorCount int
	Reading    ImportReading // how the file was read (CSVIN: import_reading.go)
	ImportUpdates
	// Nothing: the file changes nothing (no save is offered). Past: the
	// rows dated before today, in words. Suggestions: near-miss
	// technicians, each accepted by a post to SuggestURL.
	Nothing     string
	Blocked     string // why nothing can be saved yet: fix the file, or answer the page's questions
	Past        string
	Suggestions []ImportSuggestion
	SuggestURL  string
}

// ImportSuggestion is "did you mean T-1 (Dana O'Neil)?" for every row
// whose technician cell is From.
type ImportSuggestion struct {
	From, To string
	Text     string
	Accept   string // the button
}

// ImportRow is one row as it will be saved.
type ImportRow struct {
	Row     int
	Action  string // create, update, unchanged, error
	Values  []string
	Notes   []string
	Updates ImportRowUpdates
}

// ImportProblem is one error, by row and column.
type ImportProblem struct {
	Row     int
	Column  string // our field's code name (data-column)
	Label   string // the field in the reader's language
	Code    string // the problem's stable code (internal/fieldimport, internal/field)
	Message string
}

func actionLabel(p Page, a string) string {
	switch a {
	case "create", "update", "unchanged":
		return p.T("import.action_" + a)
	}
	return p.T("import.action_error")
}

func actionBadge(a string) string {
	switch a {
	case "create":
		return "badge-ready"
	case "update":
		return "badge-pending"
	case "unchanged":
		return "badge-muted"
	}
	return "badge-failed"
}

// rowLabel is a problem's row: its number, or "file" for the file as a whole.
func rowLabel(p Page, n int) string {
	if n == 0 {
		return p.T("import.row_file")
	}
	return strconv.Itoa(n)
}
