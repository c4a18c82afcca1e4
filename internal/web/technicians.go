package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// technicianList shows the org's technicians; admins also get the add form.
func (s *Server) technicianList(c echo.Context) error {
	return s.renderTechnicians(c, http.StatusOK, views.TechnicianForm{Active: true, Languages: languageOptions()})
}

// technicianCreate adds a technician; bad input re-renders the list with
// the form and its errors (422) and saves nothing.
func (s *Server) technicianCreate(c echo.Context) error {
	m := currentMembership(c)
	in := technicianInput(c)
	_, err := s.field.CreateTechnician(c.Request().Context(), actor(c), m.Org.ID, in)
	if errs, ok := fieldFormErrors(localizer(c), err); ok {
		return s.renderTechnicians(c, http.StatusUnprocessableEntity, technicianFormOf(in, errs))
	}
	if err != nil {
		return err
	}
	return redirect(c, orgBase(m.Org.Slug)+"/technicians?notice=technician-added")
}

func (s *Server) renderTechnicians(c echo.Context, status int, form views.TechnicianForm) error {
	m := currentMembership(c)
	list, err := s.field.ListTechnicians(c.Request().Context(), m.Org.ID)
	if err != nil {
		return err
	}
	base := orgBase(m.Org.Slug)
	l := localizer(c)
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	p := views.TechniciansPage{Page: s.page(c, l.T("technicians.title")), Base: base, CanEditField: m.CanEditField(), Notice: pageNotice(c)}
	p.Section = "technicians"
	for _, t := range list {
		p.List = append(p.List, technicianRow(l, t, z.Loc))
	}
	form.Action = base + "/technicians"
	form.Errors = technicianErrors(l, form.Errors)
	p.Form = form
	return s.render(c, status, views.Technicians(p))
}

// technicianShow is one technician: the edit form for admins.
func (s *Server) technicianShow(c echo.Context) error {
	t, err := s.technician(c)
	if err != nil {
		return err
	}
	return s.renderTechnician(c, http.StatusOK, t, technicianFormOf(t.Input(), nil))
}

// technicianUpdate saves the edit form; bad input is a 422 with the form
// as typed, and nothing saved; a save over a newer version than the form's
// is a 409 with the form as typed and the stored values beside it
// (docs/versions.md), nothing saved.
func (s *Server) technicianUpdate(c echo.Context) error {
	t, err := s.technician(c)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	in := technicianInput(c)
	if in.Version, err = formVersion(c, 0); err != nil {
		return err
	}
	_, err = s.field.UpdateTechnician(c.Request().Context(), actor(c), m.Org.ID, t.ID, in)
	if isStale(err) {
		now, err := s.field.Technician(c.Request().Context(), m.Org.ID, t.ID)
		if err != nil {
			return err
		}
		l := localizer(c)
		typed := technicianFormOf(in, nil)
		typed.Version = now.Version // seen what differs: the next save overwrites, knowingly
		stale := &views.StaleNotice{Reload: orgBase(m.Org.Slug) + "/technicians/" + strconv.FormatInt(t.ID, 10),
			Changes: technicianChanges(l, now.Input(), in)}
		return s.renderTechnicianPage(c, http.StatusConflict, now, typed, stale)
	}
	if errs, ok := fieldFormErrors(localizer(c), err); ok {
		return s.renderTechnician(c, http.StatusUnprocessableEntity, t, technicianFormOf(in, errs))
	}
	if err != nil {
		return err
	}
	return redirect(c, orgBase(m.Org.Slug)+"/technicians/"+strconv.FormatInt(t.ID, 10)+"?notice=saved")
}

// technicianSetActive deactivates or reactivates a technician (field
// active, "true" or not).
func (s *Server) technicianSetActive(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	active := c.FormValue("active") == "true"
	if _, err := s.field.SetTechnicianActive(c.Request().Context(), actor(c), m.Org.ID, id, active); err != nil {
		return err
	}
	code := "technician-deactivated"
	if active {
		code = "technician-activated"
	}
	return redirect(c, orgBase(m.Org.Slug)+"/technicians?notice="+code)
}

// technicianRevokeLinks ends every day link the technician was sent so
// far (docs/security.md, "Access ends with its reason"): htmx gets the
// section back with the notice, a plain form the page.
func (s *Server) technicianRevokeLinks(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	t, err := s.field.RevokeDayLinks(c.Request().Context(), actor(c), m.Org.ID, id)
	if err != nil {
		return err
	}
	base := orgBase(m.Org.Slug)
	if isHTMX(c) {
		l := localizer(c)
		return s.render(c, http.StatusOK, views.TechnicianDayLinks(s.page(c, t.Name), base, technicianRow(l, t, time.UTC), l.T("fieldnotice.day_links_revoked")))
	}
	return redirect(c, base+"/technicians/"+strconv.FormatInt(t.ID, 10)+"?notice=day-links-revoked")
}

// technician loads the technician in the URL; another org's is not found.
func (s *Server) technician(c echo.Context) (field.Technician, error) {
	id, err := idParam(c)
	if err != nil {
		return field.Technician{}, err
	}
	return s.field.Technician(c.Request().Context(), currentMembership(c).Org.ID, id)
}

func (s *Server) renderTechnician(c echo.Context, status int, t field.Technician, form views.TechnicianForm) error {
	return s.renderTechnicianPage(c, status, t, form, nil)
}

func (s *Server) renderTechnicianPage(c echo.Context, status int, t field.Technician, form views.TechnicianForm, stale *views.StaleNotice) error {
	m := currentMembership(c)
	base := orgBase(m.Org.Slug)
	form.Action = base + "/technicians/" + strconv.FormatInt(t.ID, 10)
	l := localizer(c)
	form.Errors = technicianErrors(l, form.Errors)
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	p := views.TechnicianPage{Page: s.page(c, t.Name), Base: base, CanEditField: m.CanEditField(), OrgAdmin: m.IsAdmin(), Notice: pageNotice(c),
		Tech: technicianRow(l, t, z.Loc), Form: form, Stale: stale}
	p.Section = "technicians"
	return s.render(c, status, views.Technician(p))
}

func technicianInput(c echo.Context) field.TechnicianInput {
	return field.TechnicianInput{
		Name: c.FormValue("name"), Email: c.FormValue("email"), Phone: c.FormValue("phone"),
		ExternalRef: c.FormValue("external_ref"), Active: c.FormValue("active") == "true",
		Language: c.FormValue("language"),
	}
}

func technicianFormOf(in field.TechnicianInput, errs views.FormErrors) views.TechnicianForm {
	return views.TechnicianForm{Name: in.Name, Email: in.Email, Phone: in.Phone, Ref: in.ExternalRef, Active: in.Active,
		Language: in.Language, Languages: languageOptions(), Errors: errs, Version: in.Version}
}

// languageOptions are the languages a person or technician may choose,
// each named in itself, for a select.
func languageOptions() []views.Option {
	var out []views.Option
	for _, o := range i18n.LanguageOptions() {
		out = append(out, views.Option{Value: o.Tag, Label: o.Name})
	}
	return out
}

// technicianRow is t as the pages show it, times in loc (the org's zone).
func technicianRow(l *i18n.Localizer, t field.Technician, loc *time.Location) views.TechnicianRow {
	r := views.TechnicianRow{ID: t.ID, Name: t.Name, Email: t.Email, Phone: t.Phone, Ref: t.ExternalRef, Active: t.Active,
		Jobs: t.Jobs, JobCount: l.Locale().Number(t.Jobs)}
	if t.DaySheetsStoppedAt != nil {
		r.NoDaySheetsSince = stamp(l.Locale(), *t.DaySheetsStoppedAt, loc)
	}
	return r
}

// technicianResumeDaySheets is an admin's "Resume day sheets" for a
// technician who asked not to receive them (docs/delivery.md, "Stopping
// day sheets"): audited as the admin's; the next briefing mails them.
func (s *Server) technicianResumeDaySheets(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	if _, err := s.field.SetDaySheets(c.Request().Context(), actor(c), m.Org.ID, id, false, s.now()); err != nil {
		return err
	}
	return redirect(c, orgBase(m.Org.Slug)+"/technicians/"+strconv.FormatInt(id, 10)+"?notice=day-sheets-resumed")
}

// technicianErrors puts the form's language error in the reader's words:
// the field package says it in English for the API (docs/i18n.md).
func technicianErrors(l *i18n.Localizer, errs views.FormErrors) views.FormErrors {
	if errs.Error("language") != "" {
		errs["language"] = l.T("technicians.language_invalid")
	}
	return errs
}
