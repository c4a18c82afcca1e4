package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// CSV import of technicians and jobs (docs/field-data.md, "CSV import"):
// upload → stored for a short time → preview (every row and every error) →
// save (all or nothing, exactly what the preview showed).

func importURL(slug string) string { return "/orgs/" + slug + "/import" }

// importKind is the :kind of the URL; anything else is 404.
func importKind(c echo.Context) (fieldimport.Kind, error) {
	k, ok := fieldimport.ParseKind(c.Param("kind"))
	if !ok {
		return "", echo.ErrNotFound
	}
	return k, nil
}

// importPage shows both upload forms with their columns.
func (s *Server) importPage(c echo.Context) error {
	return s.renderImportPage(c, http.StatusOK, "", "")
}

// renderImportPage renders the page, with a refused upload's message
// beside the form of its kind.
func (s *Server) renderImportPage(c echo.Context, status int, refused fieldimport.Kind, msg string) error {
	l := localizer(c)
	lo := l.Locale()
	p := views.ImportPage{
		Page:   s.page(c, l.T("import.title")),
		Base:   importURL(currentMembership(c).Org.Slug),
		Notice: importNotice(c),
		Intro: l.Tf("import.intro", map[string]any{
			"MB": lo.Number(fieldimport.MaxBytes >> 20), "Rows": lo.Number(fieldimport.MaxRows),
			"Ref": fieldLabel(l, fieldimport.Jobs, "external_ref")}),
	}
	p.Section = "import"
	p.BoardURL, p.BoardLabel = importBoardLink(c)
	for _, k := range []fieldimport.Kind{fieldimport.Technicians, fieldimport.Jobs} {
		ik := views.ImportKind{Kind: string(k), Title: importTitle(l, k), Intro: l.T("import.intro_" + string(k)),
			FileLabel: l.T("import.file_" + string(k))}
		for _, col := range fieldimport.Columns(k) {
			// Each column's help is import.help.<kind>.<column> (a new column
			// needs one: TestImportColumnsHaveWords); col.Help is the English
			// of docs and the template.
			ik.Columns = append(ik.Columns, views.ImportColumn{Name: col.Name, Label: fieldLabel(l, k, col.Name), Required: col.Required,
				Help: l.T("import.help." + string(k) + "." + col.Name)})
		}
		if k == refused {
			ik.Error = msg
		}
		p.Kinds = append(p.Kinds, ik)
	}
	return s.render(c, status, views.ImportPageView(p))
}

func importTitle(l *i18n.Localizer, k fieldimport.Kind) string {
	return l.T("import.kind_" + string(k))
}

// uploadRefusal is why a whole file was refused, in l's words.
func uploadRefusal(l *i18n.Localizer, err error) string {
	return l.Message(err)
}

// importNotice is the saved import's counts, from the redirect's query:
// numbers only, so a link cannot put words on the page.
func importNotice(c echo.Context) string {
	if c.QueryParam("notice") != "imported" {
		return ""
	}
	n := func(name string) string {
		v, err := strconv.Atoi(c.QueryParam(name))
		if err != nil || v < 0 {
			return "0"
		}
		return strconv.Itoa(v)
	}
	return localizer(c).Tf("import.notice", map[string]any{"Created": n("created"), "Updated": n("updated"), "Unchanged": n("unchanged")})
}

// importTemplate is a CSV with the header and one example row, as the
// org's spreadsheet writes one (docs/field-data.md, "The file"): in the
// org's language and formats, separated by semicolons where the org's
// locale writes decimals with a comma.
func (s *Server) importTemplate(c echo.Context) error {
	k, err := importKind(c)
	if err != nil {
		return err
	}
	org := i18n.Resolve("", currentMembership(c).Org.Locale, "")
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+string(k)+`-template.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", fieldimport.LocalTemplate(templateSpec(org, k)))
}

// templateSpec is kind's template in l's language and formats.
func templateSpec(l *i18n.Localizer, k fieldimport.Kind) fieldimport.TemplateSpec {
	lo := l.Locale()
	spec := fieldimport.TemplateSpec{Delimiter: ','}
	if lo.DecimalSeparator() == "," {
		spec.Delimiter = ';'
	}
	example := schedule.Date{Year: 2026, Month: time.March, Day: 9}
	for _, col := range fieldimport.Columns(k) {
		spec.Header = append(spec.Header, fieldLabel(l, k, col.Name))
		v := col.Example
		switch col.Name {
		case "external_ref", "customer", "address", "job_type", "notes", "name":
			v = l.T("import.example." + string(k) + "." + col.Name)
		case "date":
			v = fieldimport.FormatDate(lo, example)
		case "arrival_from":
			v = lo.Clock(8, 0)
		case "arrival_to":
			v = lo.Clock(10, 0)
		case "status":
			v = statusName(l, field.StatusScheduled)
		case "active":
			v = l.T("import.value_yes")
		case "emergency":
			v = l.T("import.value_no")
		case "language":
			v = l.Language()
		}
		spec.Example = append(spec.Example, v)
	}
	return spec
}

// importUpload stores the file and sends the admin to its preview. A file
// over the limits is refused here, before it is stored.
func (s *Server) importUpload(c echo.Context) error {
	k, err := importKind(c)
	if err != nil {
		return err
	}
	fh, err := c.FormFile("file")
	if err != nil {
		return s.renderImportPage(c, http.StatusUnprocessableEntity, k, localizer(c).T("import.choose_file"))
	}
	if fh.Size > fieldimport.MaxBytes {
		return s.renderImportPage(c, http.StatusRequestEntityTooLarge, k, uploadRefusal(localizer(c), fieldimport.ErrTooLarge))
	}
	f, err := fh.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, fieldimport.MaxBytes+1))
	if err != nil {
		return err
	}
	if _, err := fieldimport.Read(bytes.NewReader(content), k, fieldimport.ReadOptions{}); err != nil {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, fieldimport.ErrTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		return s.renderImportPage(c, status, k, uploadRefusal(localizer(c), err))
	}
	m := currentMembership(c)
	up, err := s.imports.SaveUpload(c.Request().Context(), m.Org.ID, currentUserID(c), k, fh.Filename, content, s.now())
	if err != nil {
		return err
	}
	return redirect(c, importURL(m.Org.Slug)+"/"+string(k)+"/"+up.ID)
}

// importPreview shows what saving the upload would do.
func (s *Server) importPreview(c echo.Context) error {
	up, err := s.loadUpload(c)
	if err != nil {
		return err
	}
	zone, err := s.orgZone(c)
	if err != nil {
		return err
	}
	plan, err := s.imports.Preview(c.Request().Context(), up, zone.Zone, s.now(), false)
	if errors.Is(err, fieldimport.ErrHeaderTooLong) || errors.Is(err, fieldimport.ErrHeaderTooWide) {
		// Read with a delimiter chosen on the preview, or stored before the
		// header's bounds: refused as an upload would be, on the import page.
		return s.renderImportPage(c, http.StatusUnprocessableEntity, up.Kind, uploadRefusal(localizer(c), err))
	}
	if err != nil {
		return err
	}
	return s.renderPreview(c, http.StatusOK, up.ID, plan, "")
}

// importSave saves the upload if it still means what the preview showed;
// otherwise it shows the new preview (409) to confirm again.
func (s *Server) importSave(c echo.Context) error {
	k, err := importKind(c)
	if err != nil {
		return err
	}
	zone, err := s.orgZone(c)
	if err != nil {
		return err
	}
	m, u := currentMembership(c), currentUserID(c)
	plan, err := s.imports.Save(c.Request().Context(), actor(c), m.Org.ID, u, k, c.Param("id"), c.FormValue("digest"), zone.Zone, s.now(),
		c.FormValue("overwrite") == "1")
	switch {
	case errors.Is(err, fieldimport.ErrChanged):
		return s.renderPreview(c, http.StatusConflict, c.Param("id"), plan, localizer(c).T("import.updates.stale"))
	case errors.Is(err, fieldimport.ErrNotSaveable):
		return s.renderPreview(c, http.StatusUnprocessableEntity, c.Param("id"), plan, "")
	case err != nil:
		return err
	}
	to := importURL(currentMembership(c).Org.Slug) + "?notice=imported&created=" + strconv.Itoa(plan.Created) +
		"&updated=" + strconv.Itoa(plan.Updated) + "&unchanged=" + strconv.Itoa(plan.Unchanged)
	if d, ok := firstDay(zone, plan); ok {
		to += "&day=" + d.String() // the board of the first day imported (CSVIN)
	}
	return redirect(c, to)
}

// loadUpload is the signed-in admin's own unexpired upload named in the
// URL, in this org; anyone else's is 404.
func (s *Server) loadUpload(c echo.Context) (fieldimport.Upload, error) {
	k, err := importKind(c)
	if err != nil {
		return fieldimport.Upload{}, err
	}
	return s.imports.LoadUpload(c.Request().Context(), currentMembership(c).Org.ID, currentUserID(c), k, c.Param("id"), s.now())
}

func currentUserID(c echo.Context) int64 {
	u, _ := currentUser(c)
	return u.ID
}

// renderPreview shows the plan of upload id.
func (s *Server) renderPreview(c echo.Context, status int, id string, plan fieldimport.Plan, conflict string) error {
	slug := currentMembership(c).Org.Slug
	l := localizer(c)
	zone, err := s.orgZone(c)
	if err != nil {
		return err
	}
	p := views.ImportPreview{
		Page:      s.page(c, l.T("import.preview_title")),
		Base:      importURL(slug),
		SaveURL:   importURL(slug) + "/" + string(plan.Kind) + "/" + id,
		Kind:      string(plan.Kind),
		Title:     importTitle(l, plan.Kind),
		Filename:  plan.Filename,
		Digest:    plan.Digest,
		Expires:   expiresAt(l, zone, plan.Expires),
		Summary:   importSummary(l, plan),
		SaveLabel: l.Tn("import.save", plan.Created+plan.Updated+plan.Unchanged, map[string]any{"Count": l.Locale().Number(plan.Created + plan.Updated + plan.Unchanged)}),
		Conflict:  conflict,
		Columns:   slices.Clone(plan.Columns),
		Skipped:   plan.Skipped,
		Created:   plan.Created,
		Updated:   plan.Updated,
		Unchanged: plan.Unchanged,
		CanSave:   plan.OK() && !plan.Nothing(),
	}
	if plan.Nothing() {
		p.Nothing = l.T("import.nothing")
	}
	p.Blocked = l.T("import.blocked")
	if answerable(plan) {
		p.Blocked = l.T("import.blocked_choices")
	}
	for i, c := range p.Columns {
		p.Columns[i] = fieldLabel(l, plan.Kind, c)
	}
	p.Suggestions, p.SuggestURL = importSuggestions(l, plan), p.SaveURL+"/technicians"
	if n := len(plan.Past); n > 0 {
		p.Past = l.Tn("import.past", n, map[string]any{"Count": l.Locale().Number(n), "Rows": rowList(plan.Past),
			"Today": l.Locale().DateYear(plan.Today.Time())})
	}
	p.Reading = importReading(l, p.SaveURL, plan)
	p.Section = "import"
	p.Rows = make([]views.ImportRow, len(plan.Rows))
	for i, r := range plan.Rows {
		p.Rows[i] = views.ImportRow{Row: r.Row, Action: string(r.Action), Values: shownValues(l, zone, plan.Columns, r),
			Notes: importNotes(l, zone, r), Updates: importRowUpdates(l, r)}
	}
	p.ImportUpdates = importUpdates(l, plan)
	p.Problems = make([]views.ImportProblem, len(plan.Problems))
	for i, e := range plan.Problems {
		p.Problems[i] = views.ImportProblem{Row: e.Row, Column: e.Column, Label: fieldLabel(l, plan.Kind, e.Column), Code: e.Code,
			Message: importProblem(l, plan.Kind, e)}
	}
	p.ErrorCount = len(plan.Problems)
	return s.render(c, status, views.ImportPreviewView(p))
}

// importSummary counts the rows by action in l's words: "2 new, 1 update,
// 0 unchanged rows, 1 error."
func importSummary(l *i18n.Localizer, plan fieldimport.Plan) string {
	lo := l.Locale()
	n := func(id string, count int) string {
		return l.Tn(id, count, map[string]any{"Count": lo.Number(count)})
	}
	parts := []string{n("import.count_new", plan.Created), n("import.count_updates", plan.Updated), n("import.count_unchanged", plan.Unchanged)}
	if len(plan.Problems) > 0 {
		parts = append(parts, n("import.count_errors", len(plan.Problems)))
	}
	counts := strings.Join(parts, ", ")
	if plan.Skipped > 0 {
		return l.Tf("import.summary_skipped", map[string]any{"Counts": counts, "Skipped": n("import.count_skipped", plan.Skipped)})
	}
	return l.Tf("import.summary", map[string]any{"Counts": counts})
}

// expiresAt is when an upload is dropped, in the org's zone and the
// reader's clock: "3:15 PM EST", "15:15 MEZ" (today), with its date on
// another day.
func expiresAt(l *i18n.Localizer, z orgZone, t time.Time) string {
	lo := l.Locale()
	t = t.In(z.Loc)
	s := lo.Time(t) + " " + schedule.ZoneAbbr(t)
	if schedule.DateOf(t) != z.Today {
		s = lo.MonthDay(t) + ", " + s
	}
	return s
}

// importNotes are a row's notes in l's words: each time that happens twice
// that night, and the occurrence taken.
func importNotes(l *i18n.Localizer, z orgZone, r fieldimport.PlannedRow) []string {
	if len(r.Twice) == 0 {
		return r.Notes // none, or notes the package has no data for (English)
	}
	out := make([]string, len(r.Twice))
	for i, tw := range r.Twice {
		out[i] = l.Tf("import.note", map[string]any{"Column": tw.Column, "Note": twiceNote(l, z.Loc, tw.Date, tw.At, tw.First)})
	}
	return out
}

// shownValues are a row's values as the reader reads them: its times in
// the reader's clock ("8:00 AM EST", "08:00 EST"), its date as the locale
// writes it, yes and no and a status in the reader's words. The file's own
// text stays where it was not read (a row with an error shows what it
// holds). Only the page changes: the plan, its digest and what is saved
// do not.
func shownValues(l *i18n.Localizer, z orgZone, cols []string, r fieldimport.PlannedRow) []string {
	lo := l.Locale()
	out := make([]string, len(r.Values))
	copy(out, r.Values)
	for i, col := range cols {
		if i >= len(out) {
			break
		}
		v := out[i]
		switch col {
		case "arrival_from", "arrival_to":
			if t, ok := r.Times[col]; ok {
				t = t.In(z.Loc)
				out[i] = lo.Time(t) + " " + schedule.ZoneAbbr(t)
			}
		case "date":
			if d, err := schedule.ParseDate(v); err == nil {
				out[i] = lo.DateYear(d.Time())
			}
		case "active", "emergency":
			if v == "yes" || v == "no" {
				out[i] = l.T("import.value_" + v)
			}
		case "status":
			if field.ValidStatus(v) {
				out[i] = statusName(l, v)
			}
		}
	}
	return out
}

// rowList is rows as a page lists them: "2, 5, 9", at most 20 and "…".
func rowList(rows []int) string {
	const most = 20
	out := make([]string, 0, min(len(rows), most)+1)
	for i, r := range rows {
		if i == most {
			out = append(out, "…")
			break
		}
		out = append(out, strconv.Itoa(r))
	}
	return strings.Join(out, ", ")
}

// importSuggestions are the plan's near-miss technicians in l's words,
// each with what its one click accepts.
func importSuggestions(l *i18n.Localizer, plan fieldimport.Plan) []views.ImportSuggestion {
	out := make([]views.ImportSuggestion, len(plan.Suggestions))
	for i, sg := range plan.Suggestions {
		data := map[string]any{"Value": sg.Value, "Ref": sg.Ref, "Name": sg.Name, "Rows": rowList(sg.Rows),
			"Count": l.Locale().Number(len(sg.Rows))}
		out[i] = views.ImportSuggestion{From: sg.Value, To: sg.Ref, Text: l.Tn("import.suggest", len(sg.Rows), data),
			Accept: l.Tf("import.suggest_accept", data)}
	}
	return out
}

// answerable reports whether every problem of the plan is answered on the
// page (a column's choice, a suggested technician), not in the file.
func answerable(plan fieldimport.Plan) bool {
	for _, pr := range plan.Problems {
		if pr.Code != fieldimport.CodeColumnNotChosen && pr.Suggest == "" {
			return false
		}
	}
	return true
}
