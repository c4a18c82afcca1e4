package fieldimport

import (
	"bytes"
	"encoding/csv"
)

// The file formats, documented in docs/field-data.md ("CSV import") and on
// the import page, which both read these lists. external_ref is required
// in an import: it is what makes importing the same file twice change
// nothing.
var (
	technicianColumns = []Column{
		{Name: "external_ref", Help: "Your own id for the technician, unique in this org (up to 100 characters); empty: matched by email, else by name, and a new technician is given T-1, T-2, …", Example: "T-100"},
		{Name: "name", Required: true, Help: "Full name.", Example: "Dana Reyes"},
		{Name: "email", Help: "Email address, for their own day sheet.", Example: "dana@example.com"},
		{Name: "phone", Help: "Phone number.", Example: "+1 555 0100"},
		{Name: "active", Help: "yes or no (also true/false, 1/0); empty means yes.", Example: "yes"},
		{Name: "language", Help: "Their language for emails and their day page: en, de, es or fr; empty keeps theirs (new technicians: the org's).", Example: "es"},
	}
	jobColumns = []Column{
		{Name: "external_ref", Required: true, Help: "Your own id for the job, unique in this org (up to 100 characters).", Example: "J-2001"},
		{Name: "customer", Required: true, Help: "Customer name.", Example: "Harbor Bakery"},
		{Name: "address", Help: "Street address.", Example: "12 Pier Road, Springfield"},
		{Name: "customer_phone", Help: "Customer's phone number.", Example: "+1 555 0199"},
		{Name: "date", Required: true, Help: "Local date of the visit, YYYY-MM-DD.", Example: "2026-03-09"},
		{Name: "arrival_from", Required: true, Help: "Start of the arrival window, HH:MM (24 h) in the org's time zone.", Example: "08:00"},
		{Name: "arrival_to", Required: true, Help: "End of the arrival window, HH:MM, not before arrival_from.", Example: "10:00"},
		{Name: "job_type", Help: "Kind of work, e.g. repair, install.", Example: "repair"},
		{Name: "status", Help: "scheduled, in_progress, on_hold, done or cancelled; empty means scheduled.", Example: "scheduled"},
		{Name: "technician_ref", Help: "An existing technician of this org: their external_ref, email or exact name; empty means unassigned.", Example: "T-100"},
		{Name: "emergency", Help: "yes or no (also true/false, 1/0); empty means no.", Example: "no"},
		{Name: "notes", Help: "Free text for the technician.", Example: "Side door; ask for Sam"},
	}
)

// Columns is the file format of kind, in the template's order.
func Columns(k Kind) []Column {
	if k == Technicians {
		return technicianColumns
	}
	return jobColumns
}

// Template is a CSV file with the header of kind and one example row.
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
