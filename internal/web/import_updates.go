package web

import (
	"strings"

	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// The preview's updates in the reader's words (docs/field-data.md,
// "Updates: old → new, and changes made in fieldbrief are kept"): old → new
// per field, the fields kept because they were changed in fieldbrief since
// the last import, and the overwrite tickbox.

// importUpdates is the note on kept changes and the tickbox's words.
func importUpdates(l *i18n.Localizer, plan fieldimport.Plan) views.ImportUpdates {
	u := views.ImportUpdates{Overwrite: plan.Overwrite,
		OverwriteLabel: l.T("import.updates.overwrite"), OverwriteHint: l.T("import.updates.overwrite_hint")}
	if plan.KeptRows == 0 {
		if plan.Overwrite {
			// Ticked and nothing kept: the tickbox stays, said as overwriting.
			u.KeptNote = l.T("import.updates.overwriting")
		}
		return u
	}
	fields := make([]string, len(plan.KeptColumns))
	for i, c := range plan.KeptColumns {
		fields[i] = l.T("import.updates.field." + c)
	}
	u.KeptNote = l.Tn("import.updates.kept_rows", plan.KeptRows, map[string]any{
		"Count": l.Locale().Number(plan.KeptRows), "Fields": strings.Join(fields, ", ")})
	return u
}

// importRowUpdates is one row's changes and kept fields.
func importRowUpdates(l *i18n.Localizer, r fieldimport.PlannedRow) views.ImportRowUpdates {
	var u views.ImportRowUpdates
	if r.Action == fieldimport.Update {
		for _, ch := range r.Changes {
			c := views.ImportChange{Column: ch.Column, Old: updateValue(l, ch.Column, ch.Old), New: updateValue(l, ch.Column, ch.New)}
			c.Text = l.Tf("import.updates.change", map[string]any{"Column": c.Column, "Old": c.Old, "New": c.New})
			u.Changes = append(u.Changes, c)
		}
	}
	for _, k := range r.Kept {
		u.Kept = append(u.Kept, views.ImportKept{Column: k.Column, Text: l.Tf("import.updates.kept_field", map[string]any{
			"Field": l.T("import.updates.field." + k.Column), "Value": updateValue(l, k.Column, k.Value), "File": updateValue(l, k.Column, k.File)})})
	}
	return u
}

// updateValue is a stored value in the reader's words: a status, yes or
// no, a date as the locale writes it; nothing is said as "(empty)".
func updateValue(l *i18n.Localizer, col, v string) string {
	switch {
	case v == "":
		return l.T("import.updates.none")
	case col == "status" && field.ValidStatus(v):
		return statusName(l, v)
	case (col == "active" || col == "emergency") && (v == "yes" || v == "no"):
		return l.T("import.value_" + v)
	case col == "date":
		if d, err := schedule.ParseDate(v); err == nil {
			return l.Locale().DateYear(d.Time())
		}
	}
	return v
}
