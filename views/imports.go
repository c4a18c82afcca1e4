package views

import "strconv"

// ImportPage is the CSV import page: per kind, the upload form, the
// columns with their help and the template link.
type ImportPage struct {
	Page
	Base   string // /orgs/{slug}/import
	Notice string
	Kinds  []ImportKind
}

// ImportKind is one kind of file (technicians or jobs).
type ImportKind struct {
	Kind    string
	Title   string
	Intro   string
	Columns []ImportColumn
	Error   string // the upload was refused (too large, too many rows)
}

// ImportColumn is one documented column.
type ImportColumn struct {
	Name     string
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
	Expires    string // when the upload is dropped, in words
	Conflict   string // the save found the data changed since this preview
	Columns    []string
	Rows       []ImportRow
	Problems   []ImportProblem
	Skipped    int
	Created    int
	Updated    int
	Unchanged  int
	CanSave    bool
	ErrorCount int
}

// ImportRow is one row as it will be saved.
type ImportRow struct {
	Row    int
	Action string // create, update, unchanged, error
	Values []string
	Notes  []string
}

// ImportProblem is one error, by row and column.
type ImportProblem struct {
	Row     int
	Column  string
	Message string
}

func actionLabel(a string) string {
	switch a {
	case "create":
		return "New"
	case "update":
		return "Update"
	case "unchanged":
		return "Unchanged"
	}
	return "Error"
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

func rowLabel(n int) string {
	if n == 0 {
		return "file"
	}
	return strconv.Itoa(n)
}

// count says a count with its word: "1 row", "3 rows".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// summary counts the rows by action: "2 new, 1 update, 0 unchanged rows, 1 error."
func (p ImportPreview) summary() string {
	s := count(p.Created, "new", "new") + ", " + count(p.Updated, "update", "updates") + ", " +
		count(p.Unchanged, "unchanged row", "unchanged rows")
	if p.ErrorCount > 0 {
		s += ", " + count(p.ErrorCount, "error", "errors")
	}
	if p.Skipped > 0 {
		s += "; " + count(p.Skipped, "empty row", "empty rows") + " skipped"
	}
	return s + "."
}
