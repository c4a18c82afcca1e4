package fieldimport

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
)

// Files as spreadsheets write them built byte by byte.

func readBytes(t *testing.T, k Kind, b []byte) Table {
	t.Helper()
	tab, err := Read(bytes.NewReader(b), k, ReadOptions{})
	require.NoError(t, err)
	return tab
}

// utf16Bytes is s in UTF-16 with its BOM, as Excel's "Unicode text" writes it.
func utf16Bytes(s string, order binary.ByteOrder) []byte {
	var buf bytes.Buffer
	_ = binary.Write(&buf, order, uint16(0xFEFF))
	for _, u := range utf16.Encode([]rune(s)) {
		_ = binary.Write(&buf, order, u)
	}
	return buf.Bytes()
}

func TestReadExcelUTF8BOMSemicolons(t *testing.T) {
	// Excel's "CSV UTF-8" in a German or French locale: BOM, semicolons,
	// CRLF, a comma inside a cell, a trailing empty column.
	file := append([]byte{0xEF, 0xBB, 0xBF}, []byte("Personalnummer;Name;E-Mail;Telefon;\r\nT-1;Müller, Jörg;jm@example.com;+49 30 1234;\r\n")...)
	tab := readBytes(t, Technicians, file)
	require.Empty(t, tab.Problems)
	require.Equal(t, EncUTF8BOM, tab.Encoding)
	require.Equal(t, ';', tab.Delimiter)
	require.True(t, tab.Detected)
	require.Equal(t, []Record{{Row: 2, Cells: map[string]string{"external_ref": "T-1", "name": "Müller, Jörg", "email": "jm@example.com", "phone": "+49 30 1234"}}}, tab.Records)
	require.False(t, tab.Match.NeedsReview(), "the trailing unnamed column is not a column to review")
}

func TestReadUTF16Tabs(t *testing.T) {
	for name, order := range map[string]binary.ByteOrder{EncUTF16LE: binary.LittleEndian, EncUTF16BE: binary.BigEndian} {
		t.Run(name, func(t *testing.T) {
			file := utf16Bytes("external_ref\tname\tphone\r\nT-1\tRenée Café\t555, 0100\r\n", order)
			tab := readBytes(t, Technicians, file)
			require.Empty(t, tab.Problems)
			require.Equal(t, name, tab.Encoding)
			require.Equal(t, '\t', tab.Delimiter)
			require.Equal(t, "Renée Café", tab.Records[0].Cells["name"])
			require.Equal(t, "555, 0100", tab.Records[0].Cells["phone"])
		})
	}
}

func TestReadWindows1252(t *testing.T) {
	// Excel's plain "CSV" on Windows: 0xFC is ü, 0xE9 é, 0x80 the euro sign.
	tab, err := Read(bytes.NewReader(append([]byte("external_ref,customer,notes,date,arrival_from,arrival_to\r\n"),
		[]byte("J-1,M\xfcller,Caf\xe9 \x80 5,2026-11-26,08:00,09:00\r\n")...)), Jobs, ReadOptions{})

	require.NoError(t, err)
	require.Empty(t, tab.Problems)
	require.Equal(t, EncWindows1252, tab.Encoding)
	require.Equal(t, "Müller", tab.Records[0].Cells["customer"])
	require.Equal(t, "Café € 5", tab.Records[0].Cells["notes"])
	// And a header in Windows-1252: "Téléphone" matches phone.
	tab = readBytes(t, Technicians, []byte("R\xe9f\xe9rence;Nom;T\xe9l\xe9phone\nT-1;Ren\xe9e;555\n"))
	require.Empty(t, tab.Problems)
	require.Equal(t, map[string]string{"external_ref": "T-1", "name": "Renée", "phone": "555"}, tab.Records[0].Cells)
}

func TestDetectDelimiter(t *testing.T) {
	for _, tc := range []struct {
		file string
		want rune
	}{
		{"a,b,c\n1,2,3\n", ','},
		{"a;b;c\n1;2,5;3\n", ';'},            // a decimal comma in a semicolon file
		{"a;b\n\"Smith, John\";2\n", ';'},    // a quoted comma
		{"name,notes\n\"a;b;c;d\",x\n", ','}, // semicolons only inside quotes
		{"a\tb\tc\n1\t2\t3\n", '\t'},
		{"external_ref\n1\n", ','}, // one column: nothing to detect
		{"a;b,c;d\n1;2,3;4\n", ';'},
	} {
		require.Equal(t, string(tc.want), string(detectDelimiter([]byte(tc.file))), tc.file)
	}
	// The admin's choice wins over detection.
	tab, err := Read(bytes.NewReader([]byte("external_ref;name\nT-1;Dana\n")), Technicians, ReadOptions{Delimiter: ','})
	require.NoError(t, err)
	require.False(t, tab.Detected)
	require.Equal(t, ',', tab.Delimiter)
	// One column named "external_ref;name": name is missing.
	require.True(t, slices.ContainsFunc(tab.Problems, func(p Problem) bool { return p.Code == CodeColumnMissing && p.Column == "name" }), "%+v", tab.Problems)
}

func TestHeaderSynonyms(t *testing.T) {
	for _, tc := range []struct {
		kind   Kind
		header string
		want   string
	}{
		{Jobs, "Job #", "external_ref"}, {Jobs, "Job Number", "external_ref"}, {Jobs, "job no.", "external_ref"},
		{Jobs, "Auftrags-Nr.", "external_ref"}, {Jobs, "Nº de trabajo", "external_ref"},
		{Jobs, "Tech", "technician_ref"}, {Jobs, "Technician", "technician_ref"}, {Jobs, "Técnico", "technician_ref"},
		{Jobs, "Start", "arrival_from"}, {Jobs, "Start Time", "arrival_from"}, {Jobs, "Heure de début", "arrival_from"},
		{Jobs, "End", "arrival_to"}, {Jobs, "Bis", "arrival_to"},
		{Jobs, "Customer Name", "customer"}, {Jobs, "Kunde", "customer"}, {Jobs, "Cliente", "customer"}, {Jobs, "Client", "customer"},
		{Jobs, "Telefon", "customer_phone"}, {Jobs, "Téléphone", "customer_phone"}, {Jobs, "TELEFONO", "customer_phone"},
		{Jobs, "Date", "date"}, {Jobs, "Datum", "date"}, {Jobs, "Fecha", "date"},
		{Jobs, "Arrival_From", "arrival_from"}, {Jobs, " external_ref ", "external_ref"},
		{Technicians, "Email", "email"}, {Technicians, "E-Mail", "email"}, {Technicians, "Correo", "email"}, {Technicians, "Courriel", "email"},
		{Technicians, "Teléfono", "phone"}, {Technicians, "Full Name", "name"},
	} {
		got, ok := fieldByHeader[tc.kind][normHeader(tc.header)]
		require.True(t, ok, "%q", tc.header)
		require.Equal(t, tc.want, got, "%q", tc.header)
	}
	for _, h := range []string{"Colour", "Memo2", ""} {
		_, ok := fieldByHeader[Jobs][normHeader(h)]
		require.False(t, ok, h)
	}
	// A file of headers people write, matched without a step to review.
	tab := readBytes(t, Jobs, []byte("Job #,Customer Name,Address,Phone,Date,Start,End,Tech,Notes\nJ-1,Ann,1 Main St,555,2026-11-26,9am,10:30 AM,Dana,x\n"))
	require.Empty(t, tab.Problems)
	require.False(t, tab.Match.NeedsReview())
	require.Equal(t, map[string]string{"external_ref": "J-1", "customer": "Ann", "address": "1 Main St", "customer_phone": "555",
		"date": "2026-11-26", "arrival_from": "9am", "arrival_to": "10:30 AM", "technician_ref": "Dana", "notes": "x"}, tab.Records[0].Cells)
}

// A required field the file lacks is one problem of the header, and the
// rows are still read and checked: every problem in the first preview.
func TestHeaderProblemDoesNotStopTheRows(t *testing.T) {
	tab := readBytes(t, Jobs, []byte("ref,date,start,end\nJ-1,2026-11-26,8:00,9:00\nJ-2,x,8:00\n"))
	codes := []string{}
	for _, p := range tab.Problems {
		codes = append(codes, p.Code)
	}
	require.Equal(t, []string{CodeColumnMissing, CodeRowMissingCells}, codes)
	require.Len(t, tab.Records, 2)
}

func TestTemplateExampleNeverImported(t *testing.T) {
	tab := readBytes(t, Jobs, append(Template(Jobs), []byte("J-1,Ann,,,2026-11-26,08:00,09:00,,,,,\n")...))
	require.Empty(t, tab.Problems)
	require.Equal(t, []int{2}, tab.Examples)
	require.Len(t, tab.Records, 1)
	require.Equal(t, "J-1", tab.Records[0].Cells["external_ref"])
	// The marker in any case; a file without external_ref: the example's values.
	tab = readBytes(t, Technicians, []byte("external_ref,name\nexample-t-1,Dana\nT-2,Sam\n"))
	require.Equal(t, []int{2}, tab.Examples)
	tab = readBytes(t, Technicians, []byte("name,email\nDana Reyes (example),dana@example.com\nSam,sam@example.com\n"))
	require.Equal(t, []int{2}, tab.Examples)
	require.Len(t, tab.Records, 1)
}

func TestDatesPerLocale(t *testing.T) {
	us, gb, de, fr, es := locale.Nearest("en-US"), locale.Nearest("en-GB"), locale.Nearest("de-DE"), locale.Nearest("fr-FR"), locale.Nearest("es-MX")
	nov26 := schedule.Date{Year: 2026, Month: 11, Day: 26}
	for _, tc := range []struct {
		loc  locale.Locale
		in   string
		want schedule.Date // zero: refused
	}{
		{us, "2026-11-26", nov26}, {de, "2026-11-26", nov26}, {us, "2026/11/26", nov26},
		{us, "11/26/2026", nov26}, {us, "11/26/26", nov26}, {us, "11-26-2026", nov26},
		{us, "11/26/2026 0:00", nov26}, // a spreadsheet's date cell with its midnight
		{gb, "26/11/2026", nov26}, {de, "26.11.2026", nov26}, {fr, "26/11/2026", nov26}, {es, "26/11/2026", nov26},
		{de, "26.11.26", nov26}, {de, "26.11.2026.", nov26},
		{us, "26/11/2026", nov26}, // only one order reads it
		{de, "11/26/2026", nov26},
		{us, "2/30/2026", schedule.Date{}}, {de, "31.04.2026", schedule.Date{}}, {us, "tomorrow", schedule.Date{}},
		{us, "13/13/2026", schedule.Date{}}, {us, "1/2/3/4", schedule.Date{}}, {us, "11/26/202", schedule.Date{}},
		{us, "", schedule.Date{}},
	} {
		d, ok := newCellReader(tc.loc).date(2, tc.in)
		require.Equal(t, !tc.want.IsZero(), ok, "%s %q", tc.loc, tc.in)
		require.Equal(t, tc.want, d, "%s %q", tc.loc, tc.in)
	}
	// 05/06/2026 is 6 May in en-US and 5 June elsewhere; the reader keeps
	// the reading, once per value, for the preview.
	cr := newCellReader(us)
	d, _ := cr.date(3, "05/06/2026")
	require.Equal(t, schedule.Date{Year: 2026, Month: 5, Day: 6}, d)
	_, _ = cr.date(4, "05/06/2026")
	require.Equal(t, []DateReading{{Row: 3, Value: "05/06/2026", Date: d}}, cr.ambiguous)
	require.Equal(t, 2, cr.ambiguousCount)
	cr = newCellReader(gb)
	d, _ = cr.date(3, "05/06/2026")
	require.Equal(t, schedule.Date{Year: 2026, Month: 6, Day: 5}, d)
	require.Len(t, cr.ambiguous, 1)
	// 06/06/2026 reads the same both ways: not ambiguous.
	cr = newCellReader(us)
	_, _ = cr.date(3, "06/06/2026")
	require.Empty(t, cr.ambiguous)
}

func TestTimes(t *testing.T) {
	for _, loc := range []locale.Locale{locale.Nearest("en-US"), locale.Nearest("de-DE"), locale.Nearest("fr-FR")} {
		cr := newCellReader(loc)
		for in, want := range map[string]schedule.LocalTime{
			"9am": {Hour: 9}, "10:30 AM": {Hour: 10, Minute: 30}, "8:00": {Hour: 8}, "0830": {Hour: 8, Minute: 30},
			"14h30": {Hour: 14, Minute: 30}, "08:00": {Hour: 8}, "2:15 pm": {Hour: 14, Minute: 15}, "08:30:00": {Hour: 8, Minute: 30},
			"10:30:00 AM": {Hour: 10, Minute: 30}, "12 pm": {Hour: 12},
		} {
			got, ok := cr.clock(in)
			require.True(t, ok, "%s %q", loc, in)
			require.Equal(t, want, got, "%s %q", loc, in)
		}
		for _, in := range []string{"25:00", "13 pm", "noon-ish", "", "8:60", "08:30:15"} {
			_, ok := cr.clock(in)
			require.False(t, ok, "%s %q", loc, in)
		}
	}
}
