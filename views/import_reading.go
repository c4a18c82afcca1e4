package views

// The reading side of a CSV import's preview (docs/field-data.md, "CSV import"): how the file was read (encoding, delimiter, with a select
// to read it again), the columns step, how ambiguous dates were read and
// which rows were the template's example. Its own components
// (import_reading.templ), so the preview's row list stays apart.

// ImportReading is the preview's "how the file was read" part. Its words
// are the reader's, put together by the web.
type ImportReading struct {
	ReadAs       string // "Read as Windows-1252, cells separated by semicolons (detected)."
	DelimiterURL string // POST: delimiter
	Delimiters   []ImportOption
	ColumnsURL   string // POST: col.<field> = the file's column index, or -1
	ColumnsOpen  bool   // something is unmatched or ambiguous: the step is shown open
	ColumnsState string // why it is open or closed, in words
	Fields       []ImportFieldChoice
	Unchosen     []ImportUnchosen // the file's columns no field takes, each waiting for a choice
	Unused       string           // "Not imported: colour, Memo."
	Dates        string           // how dates like 05/06/2026 are read in the org's locale
	DateReadings []string
	Examples     string // "Row 2 is the template's example row: it is not imported."
}

// ImportOption is one option of a select.
type ImportOption struct {
	Value    string
	Label    string
	Selected bool
}

// ImportUnchosen is a column of the file no field takes: its select
// (file.<Index>) offers "choose…", "don't import" and each of our fields.
type ImportUnchosen struct {
	Index   int
	Header  string
	Options []ImportOption
}

// ImportFieldChoice is one of our fields in the columns step.
type ImportFieldChoice struct {
	Name     string
	Label    string // in the reader's language
	Required bool
	Problem  bool // unmatched and required, or ambiguous
	Options  []ImportOption
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
