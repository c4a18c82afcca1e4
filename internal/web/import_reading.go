package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// The reading side of the CSV import's preview (docs/field-data.md, "CSV import"): how the file was read, a delimiter to
// read it again with, the columns step (remembered per org), how
// ambiguous dates were read, the template's example rows, and after a
// save the link to the board of the first day imported.

// importDelimiter keeps the delimiter chosen on the preview for the
// upload and shows the preview again, read with it ("" detects it again).
func (s *Server) importDelimiter(c echo.Context) error {
	up, err := s.loadUpload(c)
	if err != nil {
		return err
	}
	if err := s.imports.SetDelimiter(c.Request().Context(), up, fieldimport.ParseDelimiter(c.FormValue("delimiter"))); err != nil {
		return err
	}
	return redirect(c, previewURL(c, up))
}

// importColumns remembers the columns chosen for the upload's header row,
// for the org's later files with the same header, and shows the preview
// again. A choice that does not fit (a column for two fields) is 422 with
// the preview as it was.
func (s *Server) importColumns(c echo.Context) error {
	up, err := s.loadUpload(c)
	if err != nil {
		return err
	}
	m := fieldimport.Mapping{}
	for _, col := range fieldimport.Columns(up.Kind) {
		v := c.FormValue("col." + col.Name)
		i, err := strconv.Atoi(v)
		switch {
		case v == "":
			i = fieldimport.NotInFile // a field the form leaves out
		case err != nil:
			i = -2 // not a column: refused by RememberMapping
		}
		m[col.Name] = i
	}
	// The file's columns no field took: each needs a choice, a field
	// (which then takes it) or "don't import" (docs/field-data.md, "The file").
	unchosen, twice := false, false
	var skipped []int
	byColumn := map[string]bool{} // fields a column of the file was chosen for
	for name, vals := range c.Request().PostForm {
		idx, ok := strings.CutPrefix(name, "file.")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(idx)
		v := strings.Join(vals, "")
		switch _, known := m[v]; {
		case err != nil:
			unchosen = true
		case v == skipColumn:
			skipped = append(skipped, i)
		case known:
			twice = twice || byColumn[v]
			byColumn[v], m[v] = true, i
		default:
			unchosen = true
		}
	}
	if !unchosen && !twice {
		err = s.imports.ChooseColumns(c.Request().Context(), up, m, skipped, s.now())
	}
	if unchosen || fieldimport.IsColumnsUnchosen(err) {
		return s.previewAgain(c, up, http.StatusUnprocessableEntity, localizer(c).T("import_read.columns_unchosen"))
	}
	if twice || fieldimport.IsMappingInvalid(err) {
		return s.previewAgain(c, up, http.StatusUnprocessableEntity, localizer(c).T("import_read.columns_invalid"))
	}
	if err != nil {
		return err
	}
	return redirect(c, previewURL(c, up))
}

// skipColumn is the columns step's "don't import" for a column of the file.
const skipColumn = "-"

// previewAgain answers a refused choice with the preview as it was and
// the reason above it; nothing was kept.
func (s *Server) previewAgain(c echo.Context, up fieldimport.Upload, status int, msg string) error {
	zone, err := s.orgZone(c)
	if err != nil {
		return err
	}
	plan, err := s.imports.Preview(c.Request().Context(), up, zone.Zone, s.now(), false)
	if err != nil {
		return err
	}
	return s.renderPreview(c, status, up.ID, plan, msg)
}

// importSuggestion accepts "did you mean T-1 (Dana O'Neil)?" for every
// row of the upload whose technician cell is from (from and to repeat:
// "accept every suggestion"), and shows the preview again. A technician
// that is not one of the org's is 422 with the preview as it was.
func (s *Server) importSuggestion(c echo.Context) error {
	up, err := s.loadUpload(c)
	if err != nil {
		return err
	}
	from, to := c.Request().PostForm["from"], c.Request().PostForm["to"]
	accept := map[string]string{}
	for i := range from {
		if i < len(to) {
			accept[from[i]] = to[i]
		}
	}
	if len(from) != len(to) {
		accept = nil
	}
	err = s.imports.AcceptSuggestions(c.Request().Context(), up, accept)
	if fieldimport.IsAliasInvalid(err) {
		return s.previewAgain(c, up, http.StatusUnprocessableEntity, localizer(c).T("import.suggest_invalid"))
	}
	if err != nil {
		return err
	}
	return redirect(c, previewURL(c, up))
}

func previewURL(c echo.Context, up fieldimport.Upload) string {
	return importURL(currentMembership(c).Org.Slug) + "/" + string(up.Kind) + "/" + up.ID
}

// importReading is the preview's reading part in l's words.
func importReading(l *i18n.Localizer, saveURL string, plan fieldimport.Plan) views.ImportReading {
	r := plan.Reading
	out := views.ImportReading{DelimiterURL: saveURL + "/delimiter", ColumnsURL: saveURL + "/columns"}
	enc := r.Encoding
	if enc == fieldimport.EncUTF8BOM {
		enc = l.Tf("import_read.enc_bom", map[string]any{"Encoding": fieldimport.EncUTF8})
	}
	delim := l.T("import_read.delim_" + fieldimport.DelimiterName(r.Delimiter))
	id := "import_read.read_as"
	if r.Detected {
		id = "import_read.read_as_detected"
	}
	out.ReadAs = l.Tf(id, map[string]any{"Encoding": enc, "Delimiter": delim})
	out.Delimiters = []views.ImportOption{{Value: "", Label: l.T("import_read.delim_auto"), Selected: r.Detected}}
	for _, d := range fieldimport.Delimiters {
		name := fieldimport.DelimiterName(d)
		out.Delimiters = append(out.Delimiters, views.ImportOption{Value: name, Label: l.T("import_read.delim_" + name),
			Selected: !r.Detected && d == r.Delimiter})
	}

	m := r.Match
	out.ColumnsOpen = m.NeedsReview()
	switch {
	case len(m.Header) == 0:
		out.ColumnsState = ""
	case out.ColumnsOpen:
		out.ColumnsState = l.T("import_read.columns_review")
	case m.Remembered:
		out.ColumnsState = l.T("import_read.columns_remembered")
	default:
		out.ColumnsState = l.T("import_read.columns_matched")
	}
	if len(m.Unused) > 0 {
		names := make([]string, len(m.Unused))
		for i, idx := range m.Unused {
			names[i] = "“" + headerLabel(m.Header[idx]) + "”"
		}
		out.Unused = l.Tf("import_read.columns_unused", map[string]any{"Columns": strings.Join(names, ", ")})
	}
	for _, i := range m.Unused {
		if m.Remembered {
			break // chosen: the hint above names them
		}
		uc := views.ImportUnchosen{Index: i, Header: headerLabel(m.Header[i])}
		uc.Options = append(uc.Options, views.ImportOption{Value: "", Label: l.T("import_read.columns_choose"), Selected: true},
			views.ImportOption{Value: skipColumn, Label: l.T("import_read.columns_skip")})
		for _, f := range m.Fields {
			uc.Options = append(uc.Options, views.ImportOption{Value: f.Name, Label: fieldLabel(l, plan.Kind, f.Name)})
		}
		out.Unchosen = append(out.Unchosen, uc)
	}
	for _, f := range m.Fields {
		fc := views.ImportFieldChoice{Name: f.Name, Label: fieldLabel(l, plan.Kind, f.Name), Required: f.Required,
			Problem: len(f.Ambiguous) > 0 || (f.Required && f.Index == fieldimport.NotInFile)}
		fc.Options = append(fc.Options, views.ImportOption{Value: strconv.Itoa(fieldimport.NotInFile),
			Label: l.T("import_read.columns_not_in_file"), Selected: f.Index == fieldimport.NotInFile})
		for i, h := range m.Header {
			label := headerLabel(h)
			if label == "" {
				label = l.Tf("import_read.columns_unnamed", map[string]any{"Number": strconv.Itoa(i + 1)})
			}
			fc.Options = append(fc.Options, views.ImportOption{Value: strconv.Itoa(i), Label: label, Selected: f.Index == i})
		}
		out.Fields = append(out.Fields, fc)
	}

	if plan.Kind == fieldimport.Jobs && len(m.Header) > 0 {
		lo := l.Locale()
		order := "import_read.dates_day_first"
		if r.Order == fieldimport.MonthFirst {
			order = "import_read.dates_month_first"
		}
		out.Dates = l.Tf(order, map[string]any{"Locale": r.Locale})
		for _, d := range r.Dates {
			out.DateReadings = append(out.DateReadings, l.Tf("import_read.date_read", map[string]any{
				"Row": lo.Number(d.Row), "Value": d.Value, "Date": lo.LongDate(d.Date.Time())}))
		}
		if more := r.AmbiguousDates - len(r.Dates); more > 0 {
			out.DateReadings = append(out.DateReadings, l.Tn("import_read.dates_more", more, map[string]any{"Count": lo.Number(more)}))
		}
	}
	if n := len(r.Examples); n > 0 {
		rows := make([]string, n)
		for i, row := range r.Examples {
			rows[i] = strconv.Itoa(row)
		}
		out.Examples = l.Tf("import_read.examples", map[string]any{"Rows": strings.Join(rows, ", ")})
	}
	return out
}

// firstDay is the earliest day of a saved jobs import, in the org's zone.
func firstDay(z orgZone, plan fieldimport.Plan) (schedule.Date, bool) {
	var first schedule.Date
	for _, r := range plan.Rows {
		t, ok := r.Times["arrival_from"]
		if !ok {
			continue
		}
		d := schedule.DateOf(t.In(z.Loc))
		if first.IsZero() || d.Before(first) {
			first = d
		}
	}
	return first, !first.IsZero()
}

// importBoardLink is the import page's link to the board of the day in the
// redirect's query (a date only: a link cannot put words on the page).
func importBoardLink(c echo.Context) (url, label string) {
	if c.QueryParam("notice") != "imported" {
		return "", ""
	}
	d, err := schedule.ParseDate(c.QueryParam("day"))
	if err != nil {
		return "", ""
	}
	l := localizer(c)
	return orgBase(currentMembership(c).Org.Slug) + "/board?date=" + d.String(),
		l.Tf("import_read.board_link", map[string]any{"Date": l.Locale().DateYear(d.Time())})
}

// readProblemIDs are the catalog ids of fieldimport's codes added by the
// reader, whose words live in the catalogs' CSVIN block.
var readProblemIDs = map[string]string{
	fieldimport.CodeColumnAmbiguous: "import_read.problem.column_ambiguous",
	fieldimport.CodeColumnNotChosen: "import_read.problem.column_not_chosen",
}

// maxHeaderLabel bounds how much of a header cell the columns step shows:
// each label is printed in every field's select, so a file of huge header
// cells made a preview of many times its size (found in review).
const maxHeaderLabel = 80

// headerLabel is a file's header cell as the columns step shows it:
// trimmed, at most maxHeaderLabel characters, "…" when cut.
func headerLabel(h string) string {
	h = strings.TrimSpace(h)
	if r := []rune(h); len(r) > maxHeaderLabel {
		return string(r[:maxHeaderLabel-1]) + "…"
	}
	return h
}
