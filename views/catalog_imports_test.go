package views_test

import (
	"strconv"

	"github.com/a-h/templ"

	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// The import pages, the unsubscribe pages and the day link's errors
// for coveredPages: their models as internal/web fills them,
// every message from the pseudo-locale.

// importProblemCodes is every problem an import preview can show, by code:
// the file's (internal/fieldimport) and a value's (internal/field).
// internal/web TestEveryProblemCodeHasWords checks the web knows each one.
var importProblemCodes = []string{
	fieldimport.CodeFileEmpty, fieldimport.CodeNoRows, fieldimport.CodeRowTooWide, fieldimport.CodeHeaderTooWide, fieldimport.CodeHeaderNotUTF8,
	fieldimport.CodeHeaderUnnamed, fieldimport.CodeColumnUnknown, fieldimport.CodeColumnTwice, fieldimport.CodeColumnMissing,
	fieldimport.CodeRowExtraCells, fieldimport.CodeRowMissingCells, fieldimport.CodeCellNotUTF8, fieldimport.CodeCellNUL,
	fieldimport.CodeCSVBareQuote, fieldimport.CodeCSVQuote, fieldimport.CodeCSVInvalid, fieldimport.CodeYesNo,
	fieldimport.CodeDateInvalid, fieldimport.CodeTimeInvalid, fieldimport.CodeTimeGap,
	field.CodeRequired, field.CodeNotUTF8, field.CodeControlChars, field.CodeTooLong, field.CodeEmailInvalid,
	field.CodeEmailIPLiteral, field.CodeEmailDotless, field.CodeEmailInternal,
	field.CodeLanguageUnknown, field.CodeStatusUnknown, field.CodeTechnicianInvalid, field.CodeTechnicianBoth,
	field.CodeTechnicianByRef, field.CodeTechnicianUnknown, field.CodeWindowReversed, field.CodeTooEarly,
	field.CodeTooLate, field.CodeRefTaken, field.CodeRefRepeated,
}

// The file format's column names (identifiers a file must use as they
// are, in every language) and an uploaded file's row numbers (1001 on, so
// that no other page's text is taken for them) are data, not words.
func init() {
	for _, k := range []fieldimport.Kind{fieldimport.Technicians, fieldimport.Jobs} {
		for _, c := range fieldimport.Columns(k) {
			fixtures = append(fixtures, c.Name)
		}
	}
	for n := 1001; n <= 1050; n++ {
		fixtures = append(fixtures, strconv.Itoa(n))
	}
}

func importPage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p = signedInPage(p)
	p.Title = pl.T("import.title")
	ip := views.ImportPage{Page: p, Base: "/orgs/acme/import",
		Intro:  pl.Tf("import.intro", map[string]any{"MB": 5, "Rows": "1,234", "Ref": "external_ref"}),
		Notice: pl.Tf("import.notice", map[string]any{"Created": 2, "Updated": 1, "Unchanged": 0})}
	for _, k := range []fieldimport.Kind{fieldimport.Technicians, fieldimport.Jobs} {
		ik := views.ImportKind{Kind: string(k), Title: pl.T("import.kind_" + string(k)), Intro: pl.T("import.intro_" + string(k)),
			FileLabel: pl.T("import.file_" + string(k))}
		for _, c := range fieldimport.Columns(k) {
			ik.Columns = append(ik.Columns, views.ImportColumn{Name: c.Name, Required: c.Required,
				Help: pl.T("import.help." + string(k) + "." + c.Name)})
		}
		if k == fieldimport.Jobs {
			ik.Error = pl.Tf("import.too_large", map[string]any{"MB": 5})
		}
		ip.Kinds = append(ip.Kinds, ik)
	}
	return views.ImportPageView(ip)
}

// importPreviewProblems is a preview that cannot be saved, with a problem
// of every code, in its message as internal/web words it.
func importPreviewProblems(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	ip := importPreview(pl, p)
	ip.CanSave = false
	for i, code := range importProblemCodes {
		data := map[string]any{"Column": "arrival_from", "Value": "T-1", "Limit": 100, "Count": 3, "Other": 2,
			"Columns": "external_ref, name", "Languages": "en, de, es, fr", "Statuses": "scheduled, done"}
		if code == fieldimport.CodeTimeGap {
			data["Gap"] = pl.Tf("jobform.gap", map[string]any{"Wall": "Wed, Mar 4", "Zone": "America/New_York",
				"From": "9:00 – 11:00 AM EST", "To": "9:00 – 11:00 AM EST", "FromZone": "EST", "ToZone": "EST"})
		}
		ip.Problems = append(ip.Problems, views.ImportProblem{Row: 1001 + i, Column: "arrival_from", Code: code,
			Message: pl.Tf("import.problem."+code, data)})
	}
	ip.ErrorCount = len(ip.Problems)
	ip.Rows[0].Action = "error"
	return views.ImportPreviewView(ip)
}

// importPreviewSaveable is a preview that can be saved, after a save found
// the data changed, with a row's note and a skipped empty row.
func importPreviewSaveable(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	ip := importPreview(pl, p)
	ip.Conflict = pl.T("import.changed")
	ip.Rows[1].Notes = []string{pl.Tf("import.note", map[string]any{"Column": "arrival_from",
		"Note": pl.Tf("jobform.twice", map[string]any{"Wall": "Wed, Mar 4", "Zone": "America/New_York",
			"First": "9:00 – 11:00 AM EST", "Second": "9:00 – 11:00 AM EST"})})}
	return views.ImportPreviewView(ip)
}

func importPreview(pl *i18n.Localizer, p views.Page) views.ImportPreview {
	p = signedInPage(p)
	p.Title = pl.T("import.preview_title")
	counts := pl.Tn("import.count_new", 1, nil) + ", " + pl.Tn("import.count_updates", 1, nil) + ", " +
		pl.Tn("import.count_unchanged", 1, nil) + ", " + pl.Tn("import.count_errors", 1, nil)
	return views.ImportPreview{Page: p, Base: "/orgs/acme/import", SaveURL: "/orgs/acme/import/technicians/u1",
		Kind: "technicians", Title: pl.T("import.kind_technicians"), Filename: "T-1", Digest: "d",
		Expires:   "9:00 – 11:00 AM EST",
		Summary:   pl.Tf("import.summary_skipped", map[string]any{"Counts": counts, "Skipped": pl.Tn("import.count_skipped", 2, nil)}),
		SaveLabel: pl.Tn("import.save", 3, nil), CanSave: true,
		Columns: []string{"external_ref", "arrival_from"},
		Rows: []views.ImportRow{
			{Row: 1002, Action: "create", Values: []string{"T-1", "Ana Lima"}},
			{Row: 1003, Action: "update", Values: []string{"T-1", "Ana Lima"}},
			{Row: 1004, Action: "unchanged", Values: []string{"T-1", "Ana Lima"}},
		},
		Created: 1, Updated: 1, Unchanged: 1}
}

func unsubscribeConfirm(p views.Page) templ.Component {
	p.Title = i18n.Pseudo().T("unsubscribe.title")
	return views.UnsubscribeConfirmPage(views.Unsubscribe{Page: p, Token: "tok", Email: "ana@acme.test", OrgName: "Acme Field Services"})
}

func unsubscribeDone(p views.Page) templ.Component {
	p.Title = i18n.Pseudo().T("unsubscribe.done_title")
	return views.UnsubscribedPage(views.Unsubscribe{Page: p, Email: "ana@acme.test", OrgName: "Acme Field Services"})
}

// signedInPage is p with an admin of acme signed in (coveredPages' signedIn).
func signedInPage(p views.Page) views.Page {
	p.User = &views.User{Email: "ada@acme.test"}
	p.Orgs = []views.OrgLink{{Slug: "acme", Name: "Acme Field Services", Admin: true}}
	p.Org = &p.Orgs[0]
	return p
}
