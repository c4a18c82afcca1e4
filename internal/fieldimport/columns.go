package fieldimport

import (
	"bytes"
	"encoding/csv"
	"strings"
)

// The file formats, documented in docs/field-data.md ("CSV import") and on
// the import page, which both read these lists. external_ref is required
// in an import: it is what makes importing the same file twice change
// nothing.
var (
	technicianColumns = []Column{
		{Name: "external_ref", Help: "Your own id for the technician, unique in this org (up to 100 characters); empty: matched by email, else by name, and a new technician is given T-1, T-2, …", Example: "EXAMPLE-T-100"},
		{Name: "name", Required: true, Help: "Full name.", Example: "Dana Reyes (example)"},
		{Name: "email", Help: "Email address, for their own day sheet.", Example: "dana@example.com"},
		{Name: "phone", Help: "Phone number.", Example: "+1 555 0100"},
		{Name: "active", Help: "yes or no (also true/false, 1/0); empty means yes.", Example: "yes"},
		{Name: "language", Help: "Their language for emails and their day page: en, de, es or fr; empty keeps theirs (new technicians: the org's).", Example: "es"},
	}
	jobColumns = []Column{
		{Name: "external_ref", Required: true, Help: "Your own id for the job, unique in this org (up to 100 characters).", Example: "EXAMPLE-J-2001"},
		{Name: "customer", Required: true, Help: "Customer name.", Example: "Harbor Bakery"},
		{Name: "address", Help: "Street address.", Example: "12 Pier Road, Springfield"},
		{Name: "customer_phone", Help: "Customer's phone number.", Example: "+1 555 0199"},
		{Name: "date", Required: true, Help: "Local date of the visit: 2026-11-26, or as your org's locale writes dates (11/26/2026 in en-US; 26/11/2026 or 26.11.2026 elsewhere).", Example: "2026-03-09"},
		{Name: "arrival_from", Required: true, Help: "Start of the arrival window in the org's time zone: 08:00, 8:00 AM, 9am, 0830 or 14h30.", Example: "08:00"},
		{Name: "arrival_to", Required: true, Help: "End of the arrival window, written the same ways, not before arrival_from.", Example: "10:00"},
		{Name: "job_type", Help: "Kind of work, e.g. repair, install.", Example: "repair"},
		{Name: "status", Help: "scheduled, in_progress, on_hold, done or cancelled; empty means scheduled.", Example: "scheduled"},
		{Name: "technician_ref", Help: "An existing technician of this org: their external_ref, email or exact name; empty means unassigned.", Example: "T-100"},
		{Name: "emergency", Help: "yes or no (also true/false, 1/0); empty means no.", Example: "no"},
		{Name: "notes", Help: "Free text for the technician.", Example: "Example row: it is never imported. Replace it with your own rows or leave it."},
	}
)

// Columns is the file format of kind, in the template's order.
func Columns(k Kind) []Column {
	if k == Technicians {
		return technicianColumns
	}
	return jobColumns
}

// Template is a CSV file with the header of kind (our field names) and
// one example row, comma-separated: the format of the docs.
func Template(k Kind) []byte {
	cols := Columns(k)
	header := make([]string, len(cols))
	example := make([]string, len(cols))
	for i, c := range cols {
		header[i], example[i] = c.Name, c.Example
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.WriteAll([][]string{header, example}) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// TemplateSpec is a template in an org's language and formats
// (docs/field-data.md, "The file"): its delimiter (a semicolon where the
// locale writes decimals with a comma, as Excel there does), and the
// header and example row in Columns(k) order, in the org's language.
type TemplateSpec struct {
	Delimiter       rune
	Header, Example []string
}

// LocalTemplate is the template as the org's spreadsheet opens it: UTF-8
// with a byte order mark (Excel reads a file without one as the
// computer's code page, and "Müller" breaks), CRLF line ends, spec's
// delimiter, header and example row.
func LocalTemplate(spec TemplateSpec) []byte {
	var buf bytes.Buffer
	buf.Write([]byte{0xEF, 0xBB, 0xBF})
	w := csv.NewWriter(&buf)
	w.Comma = spec.Delimiter
	w.UseCRLF = true
	_ = w.WriteAll([][]string{spec.Header, spec.Example}) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// The template's example row is never imported (docs/field-data.md, "CSV import"): a row
// is the example when its external_ref starts with ExamplePrefix (any
// case), which the template's row has in its first column, where a
// spreadsheet user sees it and does not delete it by accident; or, in a
// file without an external_ref column, when every cell it has is the
// template's example value. The preview lists it as skipped.
const ExamplePrefix = "EXAMPLE-"

// ExamplePrefixes are the marker in the four languages: a template in
// the org's language marks its example row in that language.
var ExamplePrefixes = []string{ExamplePrefix, "BEISPIEL-", "EJEMPLO-", "EXEMPLE-"}

// IsExampleRef reports whether ref marks the template's example row.
func IsExampleRef(ref string) bool {
	for _, p := range ExamplePrefixes {
		if len(ref) >= len(p) && strings.EqualFold(ref[:len(p)], p) {
			return true
		}
	}
	return false
}

// exampleRow is kind's example values by column name.
func exampleRow(k Kind) map[string]string {
	out := map[string]string{}
	for _, c := range Columns(k) {
		out[c.Name] = c.Example
	}
	return out
}

func isExample(cells, example map[string]string) bool {
	if ref, ok := cells["external_ref"]; ok {
		return IsExampleRef(ref)
	}
	n := 0
	for name, v := range cells {
		if v != example[name] {
			return false
		}
		n++
	}
	return n >= 2
}
