package fieldimport

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A header is bounded before it is parsed (docs/field-data.md, "CSV
// import"): a first line longer than MaxHeaderBytes or with more than
// MaxColumns columns refuses the whole file, whatever its encoding.
func TestReadRefusesWideHeader(t *testing.T) {
	wide := strings.Repeat("c,", MaxColumns) + "c\r\nx\r\n" // MaxColumns+1 columns, short
	for name, tc := range map[string]struct {
		file []byte
		want error
	}{
		"5 MB of commas":            {bytes.Repeat([]byte{','}, MaxBytes), ErrHeaderTooLong},
		"a long line, no delimiter": {append(bytes.Repeat([]byte{'x'}, MaxHeaderBytes+1), "\nx\n"...), ErrHeaderTooLong},
		"a quoted newline goes on":  {append(append([]byte(`"a`+"\n"), bytes.Repeat([]byte{'x'}, MaxHeaderBytes)...), "\"\nx\n"...), ErrHeaderTooLong},
		"too many columns":          {[]byte(wide), ErrHeaderTooWide},
		"too many semicolons":       {[]byte(strings.ReplaceAll(wide, ",", ";")), ErrHeaderTooWide},
		"too many, UTF-16":          {utf16Bytes(wide, binary.LittleEndian), ErrHeaderTooWide},
		"too long, UTF-16":          {utf16Bytes(strings.Repeat(",", MaxHeaderBytes+1)+"\r\n", binary.BigEndian), ErrHeaderTooLong},
		"too many, Windows-1252":    {[]byte("M\xfcller," + wide), ErrHeaderTooWide},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.file), Jobs, ReadOptions{})
			require.ErrorIs(t, err, tc.want)
			for _, d := range Delimiters {
				_, err = Read(bytes.NewReader(tc.file), Jobs, ReadOptions{Delimiter: d})
				if tc.want == ErrHeaderTooWide && !bytes.ContainsRune(tc.file, d) {
					require.NoError(t, err, "one column of %q", d)
					continue
				}
				require.ErrorIs(t, err, tc.want, "with %q chosen", d)
			}
		})
	}

	// At the bounds, a file is read.
	atMost := strings.Repeat("c,", MaxColumns-1) + "external_ref\r\nx\r\n"
	tab, err := Read(strings.NewReader(atMost), Technicians, ReadOptions{})
	require.NoError(t, err)
	require.Len(t, tab.Match.Header, MaxColumns)
	long := `"` + strings.Repeat("y", MaxHeaderBytes-len("\"\",name")) + `",name` + "\nx,Dana\n"
	tab, err = Read(strings.NewReader(long), Technicians, ReadOptions{})
	require.NoError(t, err)
	require.Len(t, tab.Match.Header, 2)
}

// A row below the header with more than MaxColumns cells is where reading
// stops, with one problem: the CSV reader never sees it.
func TestReadStopsAtWideRow(t *testing.T) {
	file := append([]byte("external_ref,name\n\nT-1,Dana\n\"T-2\",\"Sam,\nLee\"\n"), bytes.Repeat([]byte{','}, MaxBytes-100)...)
	tab, err := Read(bytes.NewReader(append(file, "\nT-4,Kim\n"...)), Technicians, ReadOptions{})
	require.NoError(t, err)
	require.Len(t, tab.Records, 2)
	require.Equal(t, []Problem{{Row: 4, Code: CodeRowTooWide, Limit: MaxColumns,
		Message: "This row has more than 200 columns. Nothing after it was read."}}, tab.Problems)
}
