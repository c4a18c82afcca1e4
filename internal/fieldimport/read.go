// Package fieldimport reads CSV files of technicians and jobs, shows what
// importing them would do (the preview), and saves exactly that in one
// transaction (docs/field-data.md, "CSV import"). Reading, limits and the
// column contract live here; the meaning of each field, its validation and
// all technician and job SQL belong to internal/field.
package fieldimport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/schedule"
)

// Limits of one import file, enforced while reading: a larger file is
// refused before more than MaxBytes+1 bytes were read, a longer one at its
// MaxRows+1st row.
const (
	MaxBytes   = 5 << 20 // 5 MB
	MaxRows    = 50_000
	MaxColumns = 50 // in the header: a file's rows have no more (a row with more is a problem)
)

// ErrTooLarge and ErrTooManyRows refuse a whole file, with a message for
// the person who uploaded it.
var (
	ErrTooLarge = apperr.Errorf(apperr.Invalid,
		"The file is larger than %d MB, so it was not read. Split it into smaller files and import them one by one.", MaxBytes>>20)
	// "50,000": MaxRows is written with its thousands separator (it is
	// between a thousand and a million).
	ErrTooManyRows = apperr.Errorf(apperr.Invalid,
		"The file has more than %d,%03d rows, so it was not read. Split it into smaller files and import them one by one.", MaxRows/1000, MaxRows%1000)
)

// Kind is what a file holds: technicians or jobs.
type Kind string

const (
	Technicians Kind = "technicians"
	Jobs        Kind = "jobs"
)

// ParseKind accepts the two kinds by name (they appear in URLs).
func ParseKind(s string) (Kind, bool) {
	switch Kind(s) {
	case Technicians, Jobs:
		return Kind(s), true
	}
	return "", false
}

// Column is one column of the documented file format.
type Column struct {
	Name     string
	Required bool   // the header must have it and every row must fill it
	Help     string // one line for the page's help text
	Example  string // the template's example row
}

// Problem is one error, by row and column. Row is the spreadsheet row
// number (the header is row 1); Column is empty when it concerns the row
// or the file as a whole.
//
// Code says what is wrong as a stable code (Code* here, and internal/field's
// for a value its rules refuse), with its parameters, so that a page says
// it in the reader's language (internal/web/problems.go); Message says it in
// English (logs, tests, the API's convention).
type Problem struct {
	Row     int
	Column  string
	Code    string
	Value   string             // the cell or column name refused, when the message names it
	Limit   int                // a bound: the header's columns, the most characters, a year
	Count   int                // what the file has: a row's or the header's columns, a column's position, a CSV line
	Other   int                // another row: the first one with the same external_ref (or email)
	Names   string             // CodeTechnicianAmbiguous, CodeEmailTaken: the technicians meant, by reference (CSVM)
	Gap     *schedule.GapError // CodeTimeGap: the clocks' jump
	Message string
}

// Problem codes of a file and its cells (a value's own rules are
// internal/field's codes). Stable: pages and tests switch on them, and
// issue 19's reader keeps them.
const (
	CodeFileEmpty       = "file_empty"        // no header row
	CodeNoRows          = "no_rows"           // a header and nothing below it
	CodeHeaderTooWide   = "header_too_wide"   // Count: the header's columns; Limit: the format's
	CodeHeaderNotUTF8   = "header_not_utf8"   // Count: the column's position, from 1
	CodeHeaderUnnamed   = "header_unnamed"    // Count: the column's position, from 1
	CodeColumnUnknown   = "column_unknown"    // Column, Value: the name
	CodeColumnTwice     = "column_twice"      // Column
	CodeColumnMissing   = "column_missing"    // Column: a required one
	CodeRowExtraCells   = "row_extra_cells"   // Count: the row's cells; Limit: the header's
	CodeRowMissingCells = "row_missing_cells" // Count: the row's cells; Limit: the header's
	CodeCellNotUTF8     = "cell_not_utf8"     // Column
	CodeCellNUL         = "cell_nul"          // Column
	CodeCSVBareQuote    = "csv_bare_quote"    // Count: the line of the file
	CodeCSVQuote        = "csv_quote"         // Count: the line of the file
	CodeCSVInvalid      = "csv_invalid"       // Count: the line of the file, 0 when unknown
	CodeYesNo           = "yes_no"            // Column, Value
	CodeDateInvalid     = "date_invalid"      // Column, Value
	CodeTimeInvalid     = "time_invalid"      // Column, Value
	CodeTimeGap         = "time_gap"          // Column, Value: the time; Gap
)

// Record is one data row: its spreadsheet row number and its cells by
// column name (only the columns the header has).
type Record struct {
	Row   int
	Cells map[string]string
}

// Table is what Read found in a file: the header's columns in file order,
// the rows that could be read, and the problems of the file's structure.
type Table struct {
	Header   []string
	Records  []Record
	Problems []Problem
	Skipped  int // rows with every cell empty (spreadsheets export them)
}

// Read reads a CSV file whose first row names its columns, each one of
// cols (in any order; optional ones may be left out). It accepts a UTF-8
// byte order mark and CRLF or LF line ends. A file over MaxBytes or with
// more than MaxRows data rows is refused with ErrTooLarge or
// ErrTooManyRows; anything else wrong is a Problem, so the preview can
// show every one of them at once.
func Read(r io.Reader, cols []Column) (Table, error) {
	var t Table
	br := bufio.NewReader(&capped{r: r, left: MaxBytes})
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte("\uFEFF")) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // column counts are checked here, per row, with a message
	cr.ReuseRecord = false

	header, err := cr.Read()
	switch {
	case errors.Is(err, errCapped):
		return Table{}, ErrTooLarge
	case errors.Is(err, io.EOF):
		t.Problems = append(t.Problems, Problem{Row: 1, Code: CodeFileEmpty, Message: "The file is empty: the first row must name the columns."})
		return t, nil
	case err != nil:
		t.Problems = append(t.Problems, syntaxProblem(1, err))
		return t, nil
	}
	t.Header, t.Problems = readHeader(header, cols)
	if len(t.Problems) > 0 {
		return t, nil // rows can't be read against a header that is wrong
	}

	for row := 2; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errCapped) {
			return Table{}, ErrTooLarge
		}
		if err != nil {
			t.Problems = append(t.Problems, syntaxProblem(row, err))
			break // the CSV reader's position after a syntax error is not reliable
		}
		// csv counts lines; a quoted cell may span several, so the row
		// number a spreadsheet shows is the record's position.
		if row-1 > MaxRows {
			return Table{}, ErrTooManyRows
		}
		if allEmpty(rec) {
			t.Skipped++
			continue
		}
		r := Record{Row: row, Cells: make(map[string]string, len(t.Header))}
		switch {
		case len(rec) > len(t.Header):
			t.Problems = append(t.Problems, Problem{Row: row, Code: CodeRowExtraCells, Count: len(rec), Limit: len(t.Header), Message: fmt.Sprintf(
				"This row has %d columns but the header has %d: remove the extra cells (or quote a cell that contains a comma).",
				len(rec), len(t.Header))})
		case len(rec) < len(t.Header):
			t.Problems = append(t.Problems, Problem{Row: row, Code: CodeRowMissingCells, Count: len(rec), Limit: len(t.Header), Message: fmt.Sprintf(
				"This row has %d columns but the header has %d: every row needs a cell for every column, even an empty one.",
				len(rec), len(t.Header))})
		}
		for i, name := range t.Header {
			if i >= len(rec) {
				break
			}
			v := rec[i]
			if !utf8.ValidString(v) {
				t.Problems = append(t.Problems, Problem{Row: row, Column: name, Code: CodeCellNotUTF8, Message: "This cell is not valid UTF-8 text: save the file as CSV UTF-8 and upload it again."})
				continue
			}
			if strings.ContainsRune(v, 0) {
				t.Problems = append(t.Problems, Problem{Row: row, Column: name, Code: CodeCellNUL, Message: "This cell contains a NUL character."})
				continue
			}
			r.Cells[name] = strings.TrimSpace(v)
		}
		t.Records = append(t.Records, r)
	}
	if len(t.Records) == 0 && len(t.Problems) == 0 {
		t.Problems = append(t.Problems, Problem{Row: 2, Code: CodeNoRows, Message: "The file has no rows below the header: there is nothing to import."})
	}
	return t, nil
}

// readHeader checks the first row: known names only, each once, every
// required one present. Names are matched without case and surrounding
// spaces.
func readHeader(header []string, cols []Column) ([]string, []Problem) {
	if len(header) > MaxColumns {
		// One problem, not one per column: a line of a million commas
		// would otherwise be a million problems for the preview to list.
		return nil, []Problem{{Row: 1, Code: CodeHeaderTooWide, Count: len(header), Limit: len(cols), Message: fmt.Sprintf(
			"The first row has %d columns; the format has %d at most: %s.", len(header), len(cols), columnList(cols))}}
	}
	var probs []Problem
	names := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		if !utf8.ValidString(h) {
			probs = append(probs, Problem{Row: 1, Code: CodeHeaderNotUTF8, Count: i + 1, Message: fmt.Sprintf("Column %d's name is not valid UTF-8 text: save the file as CSV UTF-8 and upload it again.", i+1)})
			continue
		}
		name := strings.ToLower(strings.TrimSpace(h))
		names[i] = name
		switch {
		case name == "":
			probs = append(probs, Problem{Row: 1, Code: CodeHeaderUnnamed, Count: i + 1, Message: fmt.Sprintf("Column %d has no name: the first row must name every column.", i+1)})
		case !slices.ContainsFunc(cols, func(c Column) bool { return c.Name == name }):
			probs = append(probs, Problem{Row: 1, Column: name, Code: CodeColumnUnknown, Value: name, Message: fmt.Sprintf("Unknown column %q. The columns are: %s.", name, columnList(cols))})
		case seen[name]:
			probs = append(probs, Problem{Row: 1, Column: name, Code: CodeColumnTwice, Message: fmt.Sprintf("Column %q appears twice.", name)})
		}
		seen[name] = true
	}
	for _, c := range cols {
		if c.Required && !seen[c.Name] {
			probs = append(probs, Problem{Row: 1, Column: c.Name, Code: CodeColumnMissing, Message: fmt.Sprintf("Missing required column %q.", c.Name)})
		}
	}
	return names, probs
}

func columnList(cols []Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func allEmpty(rec []string) bool {
	return !slices.ContainsFunc(rec, func(v string) bool { return strings.TrimSpace(v) != "" })
}

// syntaxProblem turns the CSV reader's error into a problem on its row.
func syntaxProblem(row int, err error) Problem {
	msg := "This row is not valid CSV"
	p := Problem{Row: row, Code: CodeCSVInvalid}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(pe.Err, csv.ErrBareQuote):
			p.Code = CodeCSVBareQuote
			msg += ": a cell that is not in quotes contains a quote (put the cell in quotes and double each quote inside it)"
		case errors.Is(pe.Err, csv.ErrQuote):
			p.Code = CodeCSVQuote
			msg += ": a quoted cell is not closed, or text follows its closing quote"
		}
		p.Count = pe.Line
		msg += fmt.Sprintf(" (line %d of the file)", pe.Line)
	}
	p.Message = msg + ". Nothing after it was read."
	return p
}

var errCapped = errors.New("import file over the size limit")

// capped reads at most left bytes and fails on the next one: the size
// limit holds while reading, whatever the source (an upload's length is
// the client's word).
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errCapped
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, errCapped
	}
	return n, err
}
