package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/fieldimport"
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
	p := views.ImportPage{
		Page:   s.page(c, "Import"),
		Base:   importURL(currentMembership(c).Org.Slug),
		Notice: importNotice(c),
	}
	p.Section = "import"
	for _, k := range []fieldimport.Kind{fieldimport.Technicians, fieldimport.Jobs} {
		ik := views.ImportKind{Kind: string(k), Title: importTitle(k), Intro: importIntro(k)}
		for _, col := range fieldimport.Columns(k) {
			ik.Columns = append(ik.Columns, views.ImportColumn{Name: col.Name, Required: col.Required, Help: col.Help})
		}
		if k == refused {
			ik.Error = msg
		}
		p.Kinds = append(p.Kinds, ik)
	}
	return s.render(c, status, views.ImportPageView(p))
}

func importTitle(k fieldimport.Kind) string {
	if k == fieldimport.Technicians {
		return "Technicians"
	}
	return "Jobs"
}

func importIntro(k fieldimport.Kind) string {
	if k == fieldimport.Technicians {
		return "One row per technician. Import technicians before the jobs that name them in technician_ref."
	}
	return "One row per job. Dates and times are local to the org's time zone (Settings); a time that does not exist " +
		"that day (clocks spring forward) is an error, and one that happens twice (clocks go back) means the first."
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
	return "Imported: " + n("created") + " new, " + n("updated") + " updated, " + n("unchanged") + " unchanged."
}

// importTemplate is a CSV with the header and one example row.
func (s *Server) importTemplate(c echo.Context) error {
	k, err := importKind(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+string(k)+`-template.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", fieldimport.Template(k))
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
		return s.renderImportPage(c, http.StatusUnprocessableEntity, k, "Choose a CSV file to upload.")
	}
	if fh.Size > fieldimport.MaxBytes {
		return s.renderImportPage(c, http.StatusRequestEntityTooLarge, k, apperr.Message(fieldimport.ErrTooLarge))
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
	if _, err := fieldimport.Read(bytes.NewReader(content), fieldimport.Columns(k)); err != nil {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, fieldimport.ErrTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		return s.renderImportPage(c, status, k, apperr.Message(err))
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
	plan, err := s.imports.Preview(c.Request().Context(), up, zone.Zone)
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
	plan, err := s.imports.Save(c.Request().Context(), actor(c), m.Org.ID, u, k, c.Param("id"), c.FormValue("digest"), zone.Zone, s.now())
	switch {
	case errors.Is(err, fieldimport.ErrChanged):
		return s.renderPreview(c, http.StatusConflict, c.Param("id"), plan, apperr.Message(err))
	case errors.Is(err, fieldimport.ErrNotSaveable):
		return s.renderPreview(c, http.StatusUnprocessableEntity, c.Param("id"), plan, "")
	case err != nil:
		return err
	}
	to := importURL(currentMembership(c).Org.Slug) + "?notice=imported&created=" + strconv.Itoa(plan.Created) +
		"&updated=" + strconv.Itoa(plan.Updated) + "&unchanged=" + strconv.Itoa(plan.Unchanged)
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
	p := views.ImportPreview{
		Page:      s.page(c, "Import preview"),
		Base:      importURL(slug),
		SaveURL:   importURL(slug) + "/" + string(plan.Kind) + "/" + id,
		Kind:      string(plan.Kind),
		Title:     importTitle(plan.Kind),
		Filename:  plan.Filename,
		Digest:    plan.Digest,
		Expires:   plan.Expires.UTC().Format("15:04 UTC"),
		Conflict:  conflict,
		Columns:   plan.Columns,
		Skipped:   plan.Skipped,
		Created:   plan.Created,
		Updated:   plan.Updated,
		Unchanged: plan.Unchanged,
		CanSave:   plan.OK(),
	}
	p.Section = "import"
	p.Rows = make([]views.ImportRow, len(plan.Rows))
	for i, r := range plan.Rows {
		p.Rows[i] = views.ImportRow{Row: r.Row, Action: string(r.Action), Values: r.Values, Notes: r.Notes}
	}
	p.Problems = make([]views.ImportProblem, len(plan.Problems))
	for i, e := range plan.Problems {
		p.Problems[i] = views.ImportProblem{Row: e.Row, Column: e.Column, Message: e.Message}
	}
	p.ErrorCount = len(plan.Problems)
	return s.render(c, status, views.ImportPreviewView(p))
}
