package fieldimport

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// What spreadsheets write (docs/field-data.md, "CSV
// import"): Excel's "CSV UTF-8" starts with a byte order mark, its plain
// "CSV" is Windows-1252 and, in locales whose decimal separator is a comma
// (de, fr, es), separates cells with semicolons; "Unicode text" is UTF-16LE
// with a BOM and tabs; LibreOffice and Google Sheets write UTF-8 without a
// BOM. The file is converted to UTF-8 once, before the CSV reader sees it.

// Encodings a file is read as (Table.Encoding; the preview names it).
const (
	EncUTF8        = "UTF-8"
	EncUTF8BOM     = "UTF-8 (BOM)"
	EncUTF16LE     = "UTF-16LE"
	EncUTF16BE     = "UTF-16BE"
	EncWindows1252 = "Windows-1252"
)

// Delimiters a file's cells can be separated by.
var Delimiters = []rune{',', ';', '\t'}

// DelimiterName is the delimiter's name in forms and URLs.
func DelimiterName(d rune) string {
	switch d {
	case ';':
		return "semicolon"
	case '\t':
		return "tab"
	}
	return "comma"
}

// ParseDelimiter reads a DelimiterName or the character itself; "" (or
// anything else) is 0: detect it.
func ParseDelimiter(s string) rune {
	switch s {
	case "comma", ",":
		return ','
	case "semicolon", ";":
		return ';'
	case "tab", "\t":
		return '\t'
	}
	return 0
}

// decode returns content as UTF-8 (content itself, without a copy, when
// it is UTF-8 already) and the encoding it was read as.
//
//   - a BOM decides: UTF-8, UTF-16LE or UTF-16BE (the BOM is dropped);
//   - without one, valid UTF-8 is UTF-8 (ASCII included);
//   - otherwise it is Windows-1252. Bytes that are not valid UTF-8 and have
//     no BOM are, in practice, a legacy Windows export ("CSV (Comma
//     delimited)" from Excel in Western Europe and the Americas, the
//     locales fieldbrief supports): Windows-1252 maps every byte to a
//     character (its five unassigned bytes to U+FFFD-free C1 controls here
//     too, since x/text maps them through), so the file is always readable
//     and "Müller" is not refused. ISO-8859-1 is a subset of it for every
//     printable character, so it is read correctly as well. UTF-16 without
//     a BOM is not guessed: spreadsheets always write the BOM.
func decode(content []byte) ([]byte, string, error) {
	switch {
	case bytes.HasPrefix(content, []byte{0xEF, 0xBB, 0xBF}):
		return content[3:], EncUTF8BOM, nil
	case bytes.HasPrefix(content, []byte{0xFF, 0xFE}):
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(content)
		if err != nil {
			return nil, "", fmt.Errorf("decode UTF-16LE: %w", err)
		}
		return out, EncUTF16LE, nil
	case bytes.HasPrefix(content, []byte{0xFE, 0xFF}):
		out, err := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(content)
		if err != nil {
			return nil, "", fmt.Errorf("decode UTF-16BE: %w", err)
		}
		return out, EncUTF16BE, nil
	case utf8.Valid(content):
		return content, EncUTF8, nil
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(content)
	if err != nil {
		return nil, "", fmt.Errorf("decode Windows-1252: %w", err)
	}
	return out, EncWindows1252, nil
}

// detectDelimiter picks the delimiter from the header row and the first
// lines: the candidate that splits the header into the most cells and,
// among those, splits the next lines into the same number of cells as the
// header (so a comma inside a "Smith, John" cell of a semicolon file does
// not win). Quoted text is skipped while counting. A file with no
// candidate at all is comma-separated (one column).
func detectDelimiter(text []byte) rune {
	// The first lines are enough: 64 KB holds them in any file we read.
	lines := firstLines(string(text[:min(len(text), 64<<10)]), 6)
	if len(lines) == 0 {
		return ','
	}
	best, bestScore := ',', -1
	for _, d := range Delimiters {
		n := countOutsideQuotes(lines[0], d)
		if n == 0 {
			continue
		}
		score := n * 10
		for _, l := range lines[1:] {
			if countOutsideQuotes(l, d) == n {
				score += 5 // consistent with the header
			}
		}
		if score > bestScore {
			best, bestScore = d, score
		}
	}
	return best
}

// checkShape bounds a file's records before the CSV reader sees them
// (docs/field-data.md, "CSV import"): the reader allocates per cell, so a
// 5 MB line of delimiters would cost it hundreds of megabytes, again on
// every preview. One pass, no allocation: the header record (after any
// empty lines, which the reader skips too) is at most MaxHeaderBytes and
// MaxColumns cells, or the file is refused (ErrHeaderTooLong,
// ErrHeaderTooWide); wideRow is the position (the header being 1) of the
// first record with more than MaxColumns cells, 0 if none, where reading
// stops. Delimiters are counted outside quotes, and a newline inside
// quotes continues the record, as the reader does for valid CSV; where
// quotes are not valid the reader refuses the row anyway.
func checkShape(text []byte, d rune) (wideRow int, err error) {
	delim := byte(d) // Delimiters are ASCII
	for rec, i := 1, 0; i < len(text); rec++ {
		for i < len(text) && (text[i] == '\n' || text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n') {
			i++ // an empty line is not a record
		}
		start, cells, quoted := i, 1, false
		for ; i < len(text); i++ {
			c := text[i]
			if c == '\n' && !quoted {
				break
			}
			if rec == 1 && i-start >= MaxHeaderBytes {
				return 0, ErrHeaderTooLong
			}
			switch {
			case c == '"':
				quoted = !quoted
			case c == delim && !quoted:
				cells++
			}
		}
		i++
		if cells > MaxColumns {
			if rec == 1 {
				return 0, ErrHeaderTooWide
			}
			return rec, nil
		}
	}
	return 0, nil
}

// firstLines is up to n non-empty lines of text (a quoted cell spanning
// lines only makes a later line count differently, which lowers every
// candidate's score alike).
func firstLines(text string, n int) []string {
	var out []string
	for len(out) < n && text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

func countOutsideQuotes(line string, d rune) int {
	n, quoted := 0, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case r == d && !quoted:
			n++
		}
	}
	return n
}
