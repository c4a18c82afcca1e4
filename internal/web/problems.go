package web

import (
	"strconv"
	"strings"

	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
)

// Problems of field data, from their stable codes (internal/field,
// internal/fieldimport) to the reader's words: the one place that does it,
// for the technician and job forms (a fragment beside the field,
// "fieldproblem.<code>") and the import preview (a sentence naming the
// column, "import.problem.<code>"). The packages keep their English
// messages for the JSON API (developers' convention), which sends the same
// codes; a problem without a code, or one whose code the catalog does not
// know, is said by its English message, so nothing is ever lost.

// fieldCodes are the codes with a message under fieldproblem. and
// import.problem.: internal/field's. TestEveryProblemCodeHasWords checks
// that the list is complete.
var fieldCodes = map[string]bool{
	field.CodeRequired: true, field.CodeNotUTF8: true, field.CodeControlChars: true, field.CodeTooLong: true,
	field.CodeEmailInvalid: true, field.CodeEmailIPLiteral: true, field.CodeEmailDotless: true, field.CodeEmailInternal: true,
	field.CodeLanguageUnknown: true, field.CodeStatusUnknown: true,
	field.CodeTechnicianInvalid: true, field.CodeTechnicianBoth: true, field.CodeTechnicianByRef: true,
	field.CodeTechnicianUnknown: true, field.CodeTechnicianInactive: true, field.CodeWindowReversed: true, field.CodeTooEarly: true,
	field.CodeTooLate: true, field.CodeRefTaken: true, field.CodeRefRepeated: true,
}

// importCodes are fieldimport's own codes, with a message under import.problem.
var importCodes = map[string]bool{
	fieldimport.CodeFileEmpty: true, fieldimport.CodeNoRows: true, fieldimport.CodeRowTooWide: true, fieldimport.CodeHeaderTooWide: true,
	fieldimport.CodeHeaderNotUTF8: true, fieldimport.CodeHeaderUnnamed: true, fieldimport.CodeColumnUnknown: true,
	fieldimport.CodeColumnTwice: true, fieldimport.CodeColumnMissing: true, fieldimport.CodeRowExtraCells: true,
	fieldimport.CodeRowMissingCells: true, fieldimport.CodeCellNotUTF8: true, fieldimport.CodeCellNUL: true,
	fieldimport.CodeCSVBareQuote: true, fieldimport.CodeCSVQuote: true, fieldimport.CodeCSVInvalid: true,
	fieldimport.CodeYesNo: true, fieldimport.CodeDateInvalid: true, fieldimport.CodeTimeInvalid: true,
	fieldimport.CodeTimeGap:         true,
	fieldimport.CodeColumnAmbiguous: true, // CSVIN: words in import_read.problem. (readProblemIDs)
	fieldimport.CodeColumnNotChosen: true,
	// Matching rows to records (CSVM): under import.match.
	fieldimport.CodeTechnicianNotFound: true, fieldimport.CodeTechnicianAmbiguous: true,
	fieldimport.CodeEmailRepeated: true, fieldimport.CodeEmailTaken: true,
}

// matchCodes are the import codes whose message is under import.match.
var matchCodes = map[string]bool{
	fieldimport.CodeTechnicianNotFound: true, fieldimport.CodeTechnicianAmbiguous: true,
	fieldimport.CodeEmailRepeated: true, fieldimport.CodeEmailTaken: true,
}

// problemData is a problem's parameters for its message. Counts and
// bounds are numbers in the reader's locale; a year is written as a year.
func problemData(l *i18n.Localizer, code, column, value string, limit, count, other int) map[string]any {
	lo := l.Locale()
	lim := lo.Number(limit)
	if code == field.CodeTooEarly || code == field.CodeTooLate {
		lim = strconv.Itoa(limit)
	}
	return map[string]any{
		"Column": column, "Value": value, "Limit": lim, "Count": lo.Number(count), "Other": lo.Number(other),
		"Languages": strings.Join(i18n.Languages(), ", "), "Statuses": statusWords(l),
		"Default": statusName(l, field.StatusScheduled),
	}
}

// fieldProblem is one form field's problem beside it, in l's words.
func fieldProblem(l *i18n.Localizer, ve *field.ValidationError, name string) string {
	p, ok := ve.Problem(name)
	if !ok || !fieldCodes[p.Code] {
		return ve.Fields[name]
	}
	return l.Tf("fieldproblem."+p.Code, problemData(l, p.Code, name, p.Value, p.Limit, 0, p.Other))
}

// importProblem is one problem of an import preview, in l's words.
func importProblem(l *i18n.Localizer, k fieldimport.Kind, p fieldimport.Problem) string {
	if !fieldCodes[p.Code] && !importCodes[p.Code] {
		return p.Message
	}
	data := problemData(l, p.Code, fieldLabel(l, k, p.Column), p.Value, p.Limit, p.Count, p.Other)
	data["Columns"] = columnNames(l, k)
	if matchCodes[p.Code] {
		data["Names"] = p.Names
		if p.Suggest != "" {
			data["Ref"], data["Name"] = p.Suggest, p.SuggestName
			return l.Tf("import.match.technician_not_found_suggest", data)
		}
		return l.Tf("import.match."+p.Code, data)
	}
	if p.Code == fieldimport.CodeTimeGap {
		if p.Gap == nil {
			return p.Message
		}
		data["Gap"] = gapOf(l, p.Gap)
	}
	if id, ok := readProblemIDs[p.Code]; ok {
		return l.Tf(id, data)
	}
	return l.Tf("import.problem."+p.Code, data)
}

// gapOf says a *schedule.GapError in l's words and clock; its Wall is the
// date and time asked for, "2026-03-08 02:30".
func gapOf(l *i18n.Localizer, gap *schedule.GapError) string {
	ds, ts, _ := strings.Cut(gap.Wall, " ")
	d, err1 := schedule.ParseDate(ds)
	at, err2 := schedule.ParseLocalTime(ts)
	if err1 != nil || err2 != nil {
		return gap.Error()
	}
	return gapMessage(l, d, at, gap)
}

func columnNames(l *i18n.Localizer, k fieldimport.Kind) string {
	cols := fieldimport.Columns(k)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = fieldLabel(l, k, c.Name)
	}
	return strings.Join(names, ", ")
}

// fieldLabel is one of our fields of kind k as the reader calls it
// ("Job number", "Auftragsnummer"), never its code name
// (docs/field-data.md, "The file"); "" stays "" (a problem of the row).
func fieldLabel(l *i18n.Localizer, k fieldimport.Kind, name string) string {
	if name == "" {
		return ""
	}
	// The field store names a job's technician by id; a file, by reference.
	if k == fieldimport.Jobs && name == "technician_id" {
		name = "technician_ref"
	}
	return l.T("import.field." + string(k) + "." + name)
}

// statusWords are the statuses in the reader's words: "Scheduled, In
// progress, On hold, Done, Cancelled".
func statusWords(l *i18n.Localizer) string {
	names := make([]string, len(field.Statuses))
	for i, st := range field.Statuses {
		names[i] = statusName(l, st)
	}
	return strings.Join(names, ", ")
}
