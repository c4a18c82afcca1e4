package views_test

import (
	"github.com/a-h/templ"

	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// The reading side of the import preview for
// coveredPages: how the file was read, the columns step open with every
// kind of choice, ambiguous dates, example rows, the board link.

func init() {
	// The file's headers and encodings are data, not words.
	fixtures = append(fixtures, "Job #", "Tech", "Memo", fieldimport.EncWindows1252, fieldimport.EncUTF8, "en-US", "05/06/2026")
}

func importPreviewReading(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	ip := importPreview(pl, p)
	ip.CanSave = false
	opt := func(v, label string, sel bool) views.ImportOption {
		return views.ImportOption{Value: v, Label: label, Selected: sel}
	}
	headers := func(sel int) []views.ImportOption {
		out := []views.ImportOption{opt("-1", pl.T("import_read.columns_not_in_file"), sel == -1)}
		for i, h := range []string{"Job #", "Tech", "Memo", pl.Tf("import_read.columns_unnamed", map[string]any{"Number": "1004"})} {
			out = append(out, opt(string(rune('0'+i)), h, sel == i))
		}
		return out
	}
	ip.Reading = views.ImportReading{
		ReadAs:       pl.Tf("import_read.read_as_detected", map[string]any{"Encoding": fieldimport.EncWindows1252, "Delimiter": pl.T("import_read.delim_semicolon")}),
		DelimiterURL: "/orgs/acme/import/jobs/u1/delimiter",
		Delimiters: []views.ImportOption{opt("", pl.T("import_read.delim_auto"), true), opt("comma", pl.T("import_read.delim_comma"), false),
			opt("semicolon", pl.T("import_read.delim_semicolon"), false), opt("tab", pl.T("import_read.delim_tab"), false)},
		ColumnsURL:   "/orgs/acme/import/jobs/u1/columns",
		ColumnsOpen:  true,
		ColumnsState: pl.T("import_read.columns_review"),
		Fields: []views.ImportFieldChoice{
			{Name: "external_ref", Required: true, Options: headers(0)},
			{Name: "customer", Required: true, Problem: true, Options: headers(-1)},
			{Name: "technician_ref", Options: headers(1)},
		},
		Unused:       pl.Tf("import_read.columns_unused", map[string]any{"Columns": "Memo"}),
		Dates:        pl.Tf("import_read.dates_month_first", map[string]any{"Locale": "en-US"}),
		DateReadings: []string{pl.Tf("import_read.date_read", map[string]any{"Row": "1005", "Value": "05/06/2026", "Date": "Wednesday, March 4, 2026"}), pl.Tn("import_read.dates_more", 3, map[string]any{"Count": "1006"})},
		Examples:     pl.Tf("import_read.examples", map[string]any{"Rows": "1007"}),
	}
	ip.Problems = []views.ImportProblem{{Row: 1, Column: "customer", Code: fieldimport.CodeColumnAmbiguous,
		Message: pl.Tf("import_read.problem.column_ambiguous", map[string]any{"Value": "Job #, Tech", "Column": "customer"})}}
	ip.ErrorCount = 1
	return views.ImportPreviewView(ip)
}

// importPageBoardLink is the import page after a jobs import, with the
// link to the board of its first day.
func importPageBoardLink(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p = signedInPage(p)
	p.Title = pl.T("import.title")
	return views.ImportPageView(views.ImportPage{Page: p, Base: "/orgs/acme/import",
		Intro:    pl.Tf("import.intro", map[string]any{"MB": 5, "Rows": "1,234", "Ref": "external_ref"}),
		Notice:   pl.Tf("import.notice", map[string]any{"Created": 2, "Updated": 1, "Unchanged": 0}),
		BoardURL: "/orgs/acme/board?date=2026-03-04", BoardLabel: pl.Tf("import_read.board_link", map[string]any{"Date": "Wed, Mar 4"})})
}
