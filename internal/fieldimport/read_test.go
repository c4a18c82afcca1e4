package fieldimport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func readString(t *testing.T, s string) Table {
	t.Helper()
	tab, err := Read(strings.NewReader(s), Technicians, ReadOptions{})
	require.NoError(t, err)
	return tab
}

func TestReadBOMAndCRLF(t *testing.T) {
	tab := readString(t, "\uFEFFexternal_ref,Name ,active\r\nT-1,Dana Reyes,yes\r\n\"T-2\",\"Sam \"\"Fix\"\" Lee\",no\r\n")
	require.Empty(t, tab.Problems)
	require.Equal(t, []string{"external_ref", "name", "active"}, tab.Header)
	require.Equal(t, []Record{
		{Row: 2, Cells: map[string]string{"external_ref": "T-1", "name": "Dana Reyes", "active": "yes"}},
		{Row: 3, Cells: map[string]string{"external_ref": "T-2", "name": `Sam "Fix" Lee`, "active": "no"}},
	}, tab.Records)
}

func TestReadProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		want Problem // the one problem expected; Message is matched as a substring
	}{
		{"missing required column", "external_ref,phone\nT-1,555\n", Problem{Code: CodeColumnMissing, Row: 1, Column: "name", Message: `Missing required column "name"`}},
		{"column twice", "external_ref,name,Name\nT-1,Dana,Dana\n", Problem{Code: CodeColumnAmbiguous, Row: 1, Column: "name", Message: `Columns "name", "Name" could each be "name"`}},
		{"two synonyms of one field", "external_ref,Full Name,Technician\nT-1,Dana,Dana\n", Problem{Code: CodeColumnAmbiguous, Row: 1, Column: "name", Message: `Columns "Full Name", "Technician" could each be "name"`}},
		{"too many columns", "external_ref,name\nT-1,Dana\nT-2,Sam,extra\n", Problem{Code: CodeRowExtraCells, Row: 3, Message: "This row has 3 columns but the header has 2"}},
		{"too few columns", "external_ref,name,phone\nT-1,Dana\n", Problem{Code: CodeRowMissingCells, Row: 2, Message: "This row has 2 columns but the header has 3"}},
		{"NUL in a cell", "external_ref,name\nT-1,Da\x00na\n", Problem{Code: CodeCellNUL, Row: 2, Column: "name", Message: "NUL"}},
		{"bare quote", "external_ref,name\nT-1,Dana\nT-2,Sam \"Fix\" Lee\n", Problem{Code: CodeCSVBareQuote, Row: 3, Message: "not valid CSV: a cell that is not in quotes contains a quote (put the cell in quotes and double each quote inside it) (line 3"}},
		{"unclosed quote", "external_ref,name\nT-1,\"Dana\n", Problem{Code: CodeCSVQuote, Row: 2, Message: "a quoted cell is not closed"}},
		{"empty file", "", Problem{Code: CodeFileEmpty, Row: 1, Message: "The file is empty"}},
		{"header only", "external_ref,name\r\n,\r\n", Problem{Code: CodeNoRows, Row: 2, Message: "no rows below the header"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := readString(t, tc.file)
			require.Len(t, tab.Problems, 1, "%+v", tab.Problems)
			got := tab.Problems[0]
			require.Equal(t, tc.want.Row, got.Row)
			require.Equal(t, tc.want.Column, got.Column)
			require.Contains(t, got.Message, tc.want.Message)
			require.Equal(t, tc.want.Code, got.Code, "the problem's stable code")
		})
	}
}

// A quoted cell may span lines; rows are still counted as a spreadsheet
// shows them, and rows with every cell empty are skipped.
func TestReadRowNumbers(t *testing.T) {
	tab := readString(t, "external_ref,name\nT-1,\"Dana\nReyes\"\n,\n\nT-2,Sam\n")
	require.Empty(t, tab.Problems)
	require.Equal(t, 1, tab.Skipped)
	require.Len(t, tab.Records, 2)
	require.Equal(t, 2, tab.Records[0].Row)
	require.Equal(t, "Dana\nReyes", tab.Records[0].Cells["name"])
	require.Equal(t, 4, tab.Records[1].Row) // the blank line is no row at all; ",\n" is row 3
}

func TestReadLimits(t *testing.T) {
	rows := func(n int) *bytes.Buffer {
		var b bytes.Buffer
		b.WriteString("external_ref,name\n")
		for i := range n {
			fmt.Fprintf(&b, "T-%d,N\n", i)
		}
		return &b
	}
	_, err := Read(rows(MaxRows), Technicians, ReadOptions{})
	require.NoError(t, err, "exactly the limit is allowed")
	_, err = Read(rows(MaxRows+1), Technicians, ReadOptions{})
	require.ErrorIs(t, err, ErrTooManyRows)

	big := bytes.NewBufferString("external_ref,name\nT-1,")
	big.WriteString(strings.Repeat("x", MaxBytes-big.Len()))
	require.Equal(t, MaxBytes, big.Len())
	_, err = Read(bytes.NewReader(big.Bytes()), Technicians, ReadOptions{})
	require.NoError(t, err, "exactly 5 MB is allowed")
	big.WriteString("x")
	_, err = Read(big, Technicians, ReadOptions{})
	require.ErrorIs(t, err, ErrTooLarge)
}

// The limit holds while reading: an endless source is refused after at
// most MaxBytes+1 bytes.
func TestReadStopsAtTheLimit(t *testing.T) {
	src := &countingReader{}
	_, err := Read(src, Technicians, ReadOptions{})
	require.ErrorIs(t, err, ErrTooLarge)
	require.LessOrEqual(t, src.n, int64(MaxBytes+1))
}

type countingReader struct{ n int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestTemplateReadsBack(t *testing.T) {
	for _, k := range []Kind{Technicians, Jobs} {
		tab, err := Read(bytes.NewReader(Template(k)), k, ReadOptions{})
		require.NoError(t, err)
		// Its one row is the example: never imported, so nothing is.
		require.Equal(t, []int{2}, tab.Examples)
		require.Empty(t, tab.Records)
		require.Len(t, tab.Problems, 1)
		require.Equal(t, CodeNoRows, tab.Problems[0].Code)
		require.Len(t, tab.Header, len(Columns(k)))
		require.False(t, tab.Match.NeedsReview())
	}
}

// A header of a million empty columns (a 1 MB line of commas) refuses the
// file before it is parsed (TestReadRefusesWideHeader): no problem per
// column for the preview to list.
func TestReadHeaderWithHugelyManyColumnsIsRefused(t *testing.T) {
	_, err := Read(strings.NewReader(strings.Repeat(",", 1<<20)+"\n"), Technicians, ReadOptions{})
	require.ErrorIs(t, err, ErrHeaderTooLong)
	_, err = Read(strings.NewReader("external_ref,name"+strings.Repeat(",colour", 50_000)+"\nT-1,Dana\n"), Technicians, ReadOptions{})
	require.ErrorIs(t, err, ErrHeaderTooLong)
	_, err = Read(strings.NewReader("external_ref,name"+strings.Repeat(",c", MaxColumns)+"\nT-1,Dana\n"), Technicians, ReadOptions{})
	require.ErrorIs(t, err, ErrHeaderTooWide)
	// A header with a few columns we don't know is read: the columns step
	// lists them, and each waits for the admin's choice (a field, or
	// "don't import") before the file can be saved.
	tab := readString(t, "external_ref,name,a,b,c\nT-1,Dana,1,2,3\n")
	require.Len(t, tab.Problems, 3)
	for i, pr := range tab.Problems {
		require.Equal(t, CodeColumnNotChosen, pr.Code)
		require.Equal(t, i+3, pr.Count)
	}
	require.Equal(t, []int{2, 3, 4}, tab.Match.Unused)
	require.True(t, tab.Match.NeedsReview())
}
