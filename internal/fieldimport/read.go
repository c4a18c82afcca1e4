// Package fieldimport reads CSV files of technicians and jobs, shows what
// importing them would do (the preview), and saves exactly that in one
// transaction (docs/field-data.md, "CSV import"). Reading, limits and the
// column contract live here; the meaning of each field, its validation and
// all technician and job SQL belong to internal/field.
package fieldimport

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/schedule"
)

// Limits of one import file, enforced while reading: a larger file is
// refused before more than MaxBytes+1 bytes were read, a longer one at its
// MaxRows+1st row. The header row is bounded before the CSV reader sees
// it (checkShape): at most MaxHeaderBytes and MaxColumns columns.
const (
	MaxBytes       = 5 << 20 // 5 MB
	MaxRows        = 50_000
	MaxHeaderBytes = 64 << 10 // 64 KiB
	MaxColumns     = 200      // in the header and in any row
)

// ErrTooLarge, ErrTooManyRows, ErrHeaderTooLong and ErrHeaderTooWide
// refuse a whole file, with the limit it is over (i18n.Refusal says it).
var (
	ErrHeaderTooLong = apperr.Refuse(apperr.Invalid, "import_header_too_long", apperr.Args{"KB": MaxHeaderBytes >> 10})
	ErrHeaderTooWide = apperr.Refuse(apperr.Invalid, "import_header_too_wide", apperr.Args{"Columns": MaxColumns})
	ErrTooLarge      = apperr.Refuse(apperr.Invalid, "import_too_large", apperr.Args{"MB": MaxBytes >> 20})
	ErrTooManyRows   = apperr.Refuse(apperr.Invalid, "import_too_many_rows", apperr.Args{"Rows": MaxRows})
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
	Row    int
	Column string
	Code   string
	Value  string             // the cell or column name refused, when the message names it
	Limit  int                // a bound: the header's columns, the most characters, a year
	Count  int                // what the file has: a row's or the header's columns, a column's position, a CSV line
	Other  int                // another row: the first one with the same external_ref (or email)
	Names  string             // CodeTechnicianAmbiguous, CodeEmailTaken: the technicians meant, by reference (CSVM)
	Gap    *schedule.GapError // CodeTimeGap: the clocks' jump
	// CodeTechnicianNotFound: the technician the cell most likely means
	// (a near miss: "T1" for "T-1"), by reference, and their name.
	Suggest, SuggestName string
	Message              string
}

// Problem codes of a file and its cells (a value's own rules are
// internal/field's codes). Stable: pages and tests switch on them, and
// the reader keeps them.
const (
	CodeFileEmpty  = "file_empty"   // no header row
	CodeNoRows     = "no_rows"      // a header and nothing below it
	CodeRowTooWide = "row_too_wide" // Limit: MaxColumns; nothing from this row on is read
	// Since the columns step these five are no longer
	// reported: every file is UTF-8 once decoded, an unnamed or unknown
	// column is simply not imported (the columns step lists it), a
	// column twice is a field two columns could be (CodeColumnAmbiguous),
	// and a header too wide refuses the file (ErrHeaderTooWide).
	// They stay for pages and links that name them.
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

// More problem codes of the reader.
const (
	CodeColumnAmbiguous = "column_ambiguous" // Column: our field; Value: the file's headers that could be it, quoted, comma-separated
	// A column of the file no field takes, and the admin has not yet
	// chosen what to do with it (a field, or "don't import"): the save
	// waits for the choice, so nothing is dropped unseen.
	CodeColumnNotChosen = "column_not_chosen" // Value: the file's header; Count: its position, from 1
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
	Header   []string // our field names the file has, in the file's order
	Records  []Record
	Problems []Problem
	Skipped  int // rows with every cell empty (spreadsheets export them)
	// How the file was read (the preview says it): its encoding (Enc*),
	// the delimiter and whether it was detected, and the columns step.
	Encoding  string
	Delimiter rune
	Detected  bool
	Match     Match
	// Examples are the rows that are the template's example (not imported).
	Examples []int
}

// ReadOptions are the admin's choices for one file: a delimiter (0:
// detect it) and the org's remembered mapping for a header row (nil: none).
type ReadOptions struct {
	Delimiter  rune
	Remembered func(headerHash string) Mapping
}

// Read reads a CSV file of kind k: converted to UTF-8 from what it is
// written in (decode), its cells separated by the delimiter given or
// detected, its header matched to our fields (matchHeader), the template's
// example row left out. A file over MaxBytes or with more than MaxRows
// data rows is refused with ErrTooLarge or ErrTooManyRows; anything else
// wrong is a Problem, all of them at once where the file can be read on:
// a header problem (a required field missing) does not stop the rows
// from being read and checked. opts' zero value detects the delimiter and
// remembers no mapping.
func Read(r io.Reader, k Kind, opts ReadOptions) (Table, error) {
	raw, err := io.ReadAll(&capped{r: r, left: MaxBytes})
	if errors.Is(err, errCapped) {
		return Table{}, ErrTooLarge
	}
	if err != nil {
		return Table{}, fmt.Errorf("read import file: %w", err)
	}
	return readContent(raw, k, opts)
}

// readContent is Read of a file already in memory (a stored upload,
// read again by every preview, the columns step and the save), without
// a copy of it.
func readContent(raw []byte, k Kind, opts ReadOptions) (Table, error) {
	if len(raw) > MaxBytes {
		return Table{}, ErrTooLarge
	}
	var t Table
	text, enc, err := decode(raw)
	if err != nil {
		return Table{}, err
	}
	t.Encoding = enc
	t.Delimiter = opts.Delimiter
	if t.Delimiter == 0 {
		t.Delimiter, t.Detected = detectDelimiter(text), true
	}
	wideRow, err := checkShape(text, t.Delimiter)
	if err != nil {
		return Table{}, err
	}
	cr := csv.NewReader(bytes.NewReader(text))
	cr.Comma = t.Delimiter
	cr.FieldsPerRecord = -1 // column counts are checked here, per row, with a message
	cr.ReuseRecord = false

	header, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		t.Problems = append(t.Problems, Problem{Row: 1, Code: CodeFileEmpty, Message: "The file is empty: the first row must name the columns."})
		return t, nil
	case err != nil:
		t.Problems = append(t.Problems, syntaxProblem(1, err))
		return t, nil
	}
	var remembered Mapping
	if opts.Remembered != nil {
		remembered = opts.Remembered(HeaderHash(header))
	}
	t.Match = matchHeader(k, header, remembered)
	t.Problems = append(t.Problems, headerProblems(t.Match)...)
	// byIndex: the file's column i holds field byIndex[i] ("" for none).
	byIndex := make([]string, len(header))
	for _, f := range t.Match.Fields {
		if f.Index != NotInFile {
			byIndex[f.Index] = f.Name
			t.Header = append(t.Header, f.Name)
		}
	}
	example := exampleRow(k)

	for row := 2; ; row++ {
		if row == wideRow {
			t.Problems = append(t.Problems, Problem{Row: row, Code: CodeRowTooWide, Limit: MaxColumns, Message: fmt.Sprintf(
				"This row has more than %d columns. Nothing after it was read.", MaxColumns)})
			break
		}
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
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
		case len(rec) > len(header) && !allEmpty(rec[len(header):]):
			// Empty cells past the header are a spreadsheet's trailing
			// delimiters, not data.
			t.Problems = append(t.Problems, Problem{Row: row, Code: CodeRowExtraCells, Count: len(rec), Limit: len(header), Message: fmt.Sprintf(
				"This row has %d columns but the header has %d: remove the extra cells (or quote a cell that contains a comma).",
				len(rec), len(header))})
		case len(rec) < len(header):
			t.Problems = append(t.Problems, Problem{Row: row, Code: CodeRowMissingCells, Count: len(rec), Limit: len(header), Message: fmt.Sprintf(
				"This row has %d columns but the header has %d: every row needs a cell for every column, even an empty one.",
				len(rec), len(header))})
		}
		for i, name := range byIndex {
			if name == "" || i >= len(rec) {
				continue
			}
			v := rec[i]
			if !utf8.ValidString(v) { // only a UTF-16 file with a broken surrogate pair gets here
				t.Problems = append(t.Problems, Problem{Row: row, Column: name, Code: CodeCellNotUTF8, Message: "This cell is not valid UTF-8 text: save the file as CSV UTF-8 and upload it again."})
				continue
			}
			if strings.ContainsRune(v, 0) {
				t.Problems = append(t.Problems, Problem{Row: row, Column: name, Code: CodeCellNUL, Message: "This cell contains a NUL character."})
				continue
			}
			r.Cells[name] = strings.TrimSpace(v)
		}
		if isExample(r.Cells, example) {
			t.Examples = append(t.Examples, row)
			continue
		}
		t.Records = append(t.Records, r)
	}
	if len(t.Records) == 0 && !slices.ContainsFunc(t.Problems, func(p Problem) bool { return p.Row > 1 }) {
		t.Problems = append(t.Problems, Problem{Row: 2, Code: CodeNoRows, Message: "The file has no rows below the header: there is nothing to import."})
	}
	return t, nil
}

// headerProblems are the columns step's problems: a required field the
// file has no column for, a field two columns could be.
func headerProblems(m Match) []Problem {
	var probs []Problem
	for _, f := range m.Fields {
		switch {
		case len(f.Ambiguous) > 0:
			names := make([]string, len(f.Ambiguous))
			for i, idx := range f.Ambiguous {
				names[i] = strconv.Quote(strings.TrimSpace(m.Header[idx]))
			}
			list := strings.Join(names, ", ")
			probs = append(probs, Problem{Row: 1, Column: f.Name, Code: CodeColumnAmbiguous, Value: list,
				Message: fmt.Sprintf("Columns %s could each be %q: choose one in the columns step.", list, f.Name)})
		case f.Required && f.Index == NotInFile:
			probs = append(probs, Problem{Row: 1, Column: f.Name, Code: CodeColumnMissing,
				Message: fmt.Sprintf("Missing required column %q: choose the file's column for it in the columns step.", f.Name)})
		}
	}
	if !m.Remembered {
		for _, i := range m.Unused {
			h := strings.TrimSpace(m.Header[i])
			probs = append(probs, Problem{Row: 1, Code: CodeColumnNotChosen, Value: h, Count: i + 1,
				Message: fmt.Sprintf("Column %q is not imported yet: choose a field for it, or \"don't import\", in the columns step.", h)})
		}
	}
	return probs
}

// blocksRows reports whether a header problem leaves the rows out of the
// batch: a field missing or ambiguous leaves every row without a value
// the batch would refuse on each. A column not chosen yet does not: the
// rows are run, and the save waits for the choice.
func blocksRows(p Problem) bool {
	return p.Row == 1 && p.Code != CodeColumnNotChosen
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
