package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// The import preview's updates and matching problems for
// coveredPages, every message from the pseudo-locale as internal/web
// (import_updates.go, problems.go) fills them.

// matchProblemCodes are the problems of matching rows to records, under
// import.match.
var matchProblemCodes = []string{
	fieldimport.CodeTechnicianNotFound, fieldimport.CodeTechnicianAmbiguous,
	fieldimport.CodeEmailRepeated, fieldimport.CodeEmailTaken,
}

func withUpdates(pl *i18n.Localizer, ip views.ImportPreview, overwrite bool) views.ImportPreview {
	field := func(c string) string { return pl.T("import.updates.field." + c) }
	ip.ImportUpdates = views.ImportUpdates{Overwrite: overwrite,
		KeptNote: pl.Tn("import.updates.kept_rows", 2, map[string]any{"Count": 2,
			"Fields": field("technician_ref") + ", " + field("status") + ", " + field("active")}),
		OverwriteLabel: pl.T("import.updates.overwrite"), OverwriteHint: pl.T("import.updates.overwrite_hint")}
	ip.Rows[1].Updates = views.ImportRowUpdates{
		Changes: []views.ImportChange{
			{Column: "external_ref", Text: pl.Tf("import.updates.change", map[string]any{"Column": "external_ref", "Old": pl.T("import.updates.none"), "New": "T-1"})},
			{Column: "arrival_from", Text: pl.Tf("import.updates.change", map[string]any{"Column": "arrival_from", "Old": "Ana Lima", "New": "T-1"})}},
		Kept: []views.ImportKept{{Column: "status", Text: pl.Tf("import.updates.kept_field", map[string]any{
			"Field": field("status"), "Value": "T-1", "File": pl.T("import.updates.none")})}},
	}
	return ip
}

// importPreviewUpdates: an update row's changes, a kept field, the note and
// the tickbox.
func importPreviewUpdates(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	return views.ImportPreviewView(withUpdates(pl, importPreview(pl, p), false))
}

// importPreviewStale: a save that overwrote met rows another save had
// changed: the 409 notice, the tickbox still ticked; and the note when
// overwriting leaves nothing kept.
func importPreviewStale(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	ip := withUpdates(pl, importPreview(pl, p), true)
	ip.Conflict = pl.T("import.updates.stale")
	ip.KeptNote = pl.T("import.updates.overwriting")
	return views.ImportPreviewView(ip)
}

// importPreviewMatchProblems: a problem of each matching code.
func importPreviewMatchProblems(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	ip := importPreview(pl, p)
	ip.CanSave = false
	for i, code := range matchProblemCodes {
		ip.Problems = append(ip.Problems, views.ImportProblem{Row: 1001 + i, Column: "arrival_from", Code: code,
			Message: pl.Tf("import.match."+code, map[string]any{"Column": "arrival_from", "Value": "Ana Lima", "Names": "T-1", "Other": 2})})
	}
	ip.ErrorCount = len(ip.Problems)
	ip.Rows[0].Action = "error"
	return views.ImportPreviewView(ip)
}
