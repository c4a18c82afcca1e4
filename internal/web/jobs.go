package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// jobsPerPage is one page of the job list; maxJobPages bounds how deep a
// client can page (the offset).
const (
	jobsPerPage = 100
	maxJobPages = 200
)

// jobFilter is the job list's query: an org-local date, a status and a
// technician ("none" = unassigned), and a page.
type jobFilter struct {
	date       schedule.Date
	status     string
	technician string
	page       int
}

// readJobFilter reads the list's query; the date defaults to the org's
// today. Bad values are named.
func (s *Server) readJobFilter(c echo.Context, z orgZone) (jobFilter, field.JobFilter, views.FormErrors) {
	l := localizer(c)
	errs := views.FormErrors{}
	q := jobFilter{date: z.Today, status: c.QueryParam("status"),
		technician: c.QueryParam("technician"), page: 1}
	if v := c.QueryParam("date"); v != "" {
		d, err := schedule.ParseDate(v)
		if err != nil {
			errs["date"] = l.T("jobs.date_invalid")
		} else {
			q.date = d
		}
	}
	from, to := schedule.DayBounds(z.Loc, q.date)
	f := field.JobFilter{From: from, To: to, Status: q.status, Limit: jobsPerPage}
	if q.status != "" && !field.ValidStatus(q.status) {
		errs["status"] = l.T("jobs.status_invalid")
		f.Status = ""
	}
	switch q.technician {
	case "":
	case "none":
		f.Unassigned = true
	default:
		id, err := strconv.ParseInt(q.technician, 10, 64)
		if err != nil || id <= 0 {
			errs["technician"] = l.T("jobs.technician_invalid")
		} else {
			f.TechnicianID = id
		}
	}
	if v := c.QueryParam("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxJobPages {
			errs["page"] = l.T("jobs.page_invalid")
		} else {
			q.page = n
		}
	}
	f.Offset = (q.page - 1) * jobsPerPage
	return q, f, errs
}

func (q jobFilter) url(base string, page int) string {
	v := url.Values{"date": {q.date.String()}}
	if q.status != "" {
		v.Set("status", q.status)
	}
	if q.technician != "" {
		v.Set("technician", q.technician)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return base + "/jobs?" + v.Encode()
}

// jobList shows one org-local day's jobs, filtered and paged; admins also
// get the add form. A bad filter is a 422 naming it.
func (s *Server) jobList(c echo.Context) error {
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	q, _, _ := s.readJobFilter(c, z)
	form := newJobForm(q.date, "jobs")
	return s.renderJobs(c, http.StatusOK, z, form)
}

func (s *Server) renderJobs(c echo.Context, status int, z orgZone, form views.JobForm) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	base := orgBase(m.Org.Slug)
	q, f, ferrs := s.readJobFilter(c, z)
	if len(ferrs) > 0 && status == http.StatusOK {
		status = http.StatusUnprocessableEntity
	}
	techs, err := s.field.ListTechnicians(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	l := localizer(c)
	p := views.JobsPage{Page: s.page(c, l.T("jobs.title")), Base: base, CanEditField: m.CanEditField(), Notice: pageNotice(c),
		Date: q.date.String(), Status: q.status, Technician: q.technician,
		FilterErrors: ferrs, Technicians: technicianOptions(l, techs, 0)}
	p.Zone = zoneLabel(l, z, q.date)
	p.Section = "jobs"
	if _, searching := c.QueryParams()["q"]; searching && status == http.StatusOK {
		if p.Search, err = s.searchJobs(c, z, q.date); err != nil {
			return err
		}
		if p.Search.Error != "" {
			status = http.StatusUnprocessableEntity
		}
	} else if len(ferrs) == 0 {
		page, err := s.field.ListJobs(ctx, m.Org.ID, f)
		if err != nil {
			return err
		}
		for _, j := range page.Jobs {
			p.Jobs = append(p.Jobs, jobRow(l, z.Loc, j, q.date))
		}
		if q.page > 1 {
			p.PrevPage = q.url(base, q.page-1)
		}
		if page.More && q.page < maxJobPages {
			p.NextPage = q.url(base, q.page+1)
		}
	}
	form.Action = base + "/jobs"
	form.Technicians = technicianOptions(l, techs, 0)
	if form.Zone.Name == "" {
		form.Zone = zoneLabel(l, z, q.date)
	}
	p.Form = form
	return s.render(c, status, views.Jobs(p))
}

// jobCreate adds a job from the jobs page or the board. Bad input
// re-renders the page it came from with the form's errors (422); nothing
// is saved.
func (s *Server) jobCreate(c echo.Context) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	f := readJobForm(c, z)
	var j field.Job
	if len(f.errs) > 0 {
		err = f.validate()
	} else if j, err = s.field.CreateJob(ctx, actor(c), s.now(), m.Org.ID, f.in); err == nil {
		return s.afterJobSaved(c, z, j, f, "job-added")
	}
	errs, ok := f.problems(localizer(c), err)
	if !ok {
		return err
	}
	f.view.Errors = errs
	if f.view.Next == "board" {
		return s.renderBoardFor(c, http.StatusUnprocessableEntity, z, f.view)
	}
	return s.renderJobs(c, http.StatusUnprocessableEntity, z, f.view)
}

// afterJobSaved sends the admin on: to the job's own page when a time was
// ambiguous (it says which occurrence was taken), else back where the form was.
func (s *Server) afterJobSaved(c echo.Context, z orgZone, j field.Job, f jobForm, code string) error {
	base := orgBase(currentMembership(c).Org.Slug)
	d := schedule.DateOf(j.ArrivalStart.In(z.Loc)).String()
	switch {
	case f.ambig:
		return redirect(c, base+"/jobs/"+strconv.FormatInt(j.ID, 10)+"?notice=ambiguous")
	case f.view.Next == "board":
		return redirect(c, base+"/board?date="+d+"&notice="+code)
	}
	return redirect(c, base+"/jobs?date="+d+"&notice="+code)
}

// jobShow is one job: the edit form for admins, its details for members.
func (s *Server) jobShow(c echo.Context) error {
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	j, err := s.job(c)
	if err != nil {
		return err
	}
	return s.renderJob(c, http.StatusOK, z, j, jobFormOf(localizer(c), z, j))
}

// jobUpdate saves the edit form; bad input is a 422 with the form as
// typed, and nothing saved. The form carries the version it was read at: a
// save over a newer one is a 409 with the form as typed, the stored job's
// values beside it (docs/versions.md), and nothing saved.
func (s *Server) jobUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	z, err := s.orgZone(c)
	if err != nil {
		return err
	}
	j, err := s.job(c)
	if err != nil {
		return err
	}
	f := readJobForm(c, z)
	if f.in.Version, err = formVersion(c, 0); err != nil {
		return err
	}
	f.view.Version = f.in.Version
	var saved field.Job
	if len(f.errs) > 0 {
		err = f.validate()
	} else if saved, err = s.field.UpdateJob(ctx, actor(c), s.now(), m.Org.ID, j.ID, f.in); err == nil {
		return s.afterJobSaved(c, z, saved, f, "saved")
	}
	if isStale(err) {
		return s.jobStale(c, z, j.ID, f.view)
	}
	errs, ok := f.problems(localizer(c), err)
	if !ok {
		return err
	}
	f.view.Errors = errs
	return s.renderJob(c, http.StatusUnprocessableEntity, z, j, f.view)
}

// jobStale answers a job form saved over a newer version: 409, the form as
// typed but at the stored version (its next save overwrites, knowingly),
// and what differs from the stored job.
func (s *Server) jobStale(c echo.Context, z orgZone, id int64, typed views.JobForm) error {
	ctx, m := c.Request().Context(), currentMembership(c)
	now, err := s.field.Job(ctx, m.Org.ID, id)
	if err != nil {
		return err
	}
	techs, err := s.field.ListTechnicians(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	l := localizer(c)
	typed.Version = now.Version
	stale := &views.StaleNotice{Reload: orgBase(m.Org.Slug) + "/jobs/" + strconv.FormatInt(id, 10),
		Changes: jobChanges(l, technicianNames(techs), jobFormOf(l, z, now), typed)}
	return s.renderJobPage(c, http.StatusConflict, z, now, typed, stale)
}

// job loads the job in the URL; another org's is not found.
func (s *Server) job(c echo.Context) (field.Job, error) {
	id, err := idParam(c)
	if err != nil {
		return field.Job{}, err
	}
	return s.field.Job(c.Request().Context(), currentMembership(c).Org.ID, id)
}

func (s *Server) renderJob(c echo.Context, status int, z orgZone, j field.Job, form views.JobForm) error {
	return s.renderJobPage(c, status, z, j, form, nil)
}

func (s *Server) renderJobPage(c echo.Context, status int, z orgZone, j field.Job, form views.JobForm, stale *views.StaleNotice) error {
	m := currentMembership(c)
	base := orgBase(m.Org.Slug)
	techs, err := s.field.ListTechnicians(c.Request().Context(), m.Org.ID)
	if err != nil {
		return err
	}
	l := localizer(c)
	day := schedule.DateOf(j.ArrivalStart.In(z.Loc))
	row := jobRow(l, z.Loc, j, day)
	form.Action = base + "/jobs/" + strconv.FormatInt(j.ID, 10)
	form.Technicians = technicianOptions(l, techs, j.TechnicianID)
	if form.Zone.Name == "" { // the form's date was not a date
		form.Zone = zoneLabel(l, z, day)
	}
	if form.Next == "" {
		form.Next = "jobs"
	}
	if form.Told, err = s.told(c, z, j, techs); err != nil {
		return err
	}
	p := views.JobPage{Page: s.page(c, j.Customer), Base: base, CanEditField: m.CanEditField(), Notice: pageNotice(c),
		Job: row, JobDate: l.Locale().Date(day.Time()), Notes: j.Notes, Phone: j.CustomerPhone, Form: form, Stale: stale}
	p.Section = "jobs"
	return s.render(c, status, views.Job(p))
}

// searchJobs is the jobs page's search across days (docs/field-data.md,
// "Finding work"): ?q= and ?page=, SearchPageSize jobs a page, newest
// first, within the org. A query shorter than field.SearchMinLen is
// refused with a hint, and a page out of range is the first or last one
// allowed. day is the day list's date, for the way back.
func (s *Server) searchJobs(c echo.Context, z orgZone, day schedule.Date) (*views.JobSearch, error) {
	l, m := localizer(c), currentMembership(c)
	lc, base := l.Locale(), orgBase(m.Org.Slug)
	query, n := field.SearchQuery(c.QueryParam("q"))
	res := &views.JobSearch{Query: query, MinLen: field.SearchMinLen, DayLabel: lc.DateYear(day.Time())}
	if n < field.SearchMinLen {
		res.Error = l.Tf("jobsearch.too_short", map[string]any{"Count": field.SearchMinLen})
		return res, nil
	}
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = min(max(page, 1), field.SearchMaxPages)
	found, err := s.field.SearchJobs(c.Request().Context(), m.Org.ID, query, page)
	if err != nil {
		return nil, err
	}
	for _, j := range found.Jobs {
		d := schedule.DateOf(j.ArrivalStart.In(z.Loc))
		res.Rows = append(res.Rows, views.JobSearchRow{JobRow: jobRow(l, z.Loc, j, d),
			DateLabel: lc.DateYear(j.ArrivalStart.In(z.Loc)), BoardURL: base + "/board?date=" + d.String()})
	}
	at := func(page int) string {
		return base + "/jobs?" + url.Values{"q": {query}, "page": {strconv.Itoa(page)}}.Encode()
	}
	if page > 1 {
		res.PrevPage = at(page - 1)
	}
	if found.More {
		res.NextPage = at(page + 1)
	}
	return res, nil
}

// jobDelete deletes a job from its page (an admin, or a dispatcher: who
// edits jobs), at the version the page was read at (a newer one is a 409,
// nothing deleted), and goes back to the jobs list with a notice. Its
// tombstone and job.deleted event are the API's (docs/field-data.md).
func (s *Server) jobDelete(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	version, err := formVersion(c, 0)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	if err := s.field.DeleteJob(c.Request().Context(), actor(c), s.now(), m.Org.ID, id, version); err != nil {
		return err
	}
	return redirect(c, orgBase(m.Org.Slug)+"/jobs?notice=job-deleted")
}

// told says, on a job's form, who a saved change is emailed to
// (docs/delivery.md, "Updates"): its technician, once their day sheet of
// the date has gone out (and the new one too on a reassignment); nobody
// when it is unassigned, when they have no address or asked not to
// receive day sheets, or when the org sends technicians no email or no
// updates.
func (s *Server) told(c echo.Context, z orgZone, j field.Job, techs []field.Technician) (string, error) {
	l := localizer(c)
	cfg, err := s.tenants.Fieldforce(c.Request().Context(), currentMembership(c).Org.ID)
	if err != nil {
		return "", err
	}
	d := cfg.Config.Delivery
	if !cfg.Found || cfg.Err != nil || d == nil || d.Email == nil || !d.Email.Technicians || !d.UpdatesOn() {
		return l.T("jobform.told_off"), nil
	}
	i := slices.IndexFunc(techs, func(t field.Technician) bool { return t.ID == j.TechnicianID })
	if j.Unassigned() || i < 0 {
		return l.T("jobform.told_nobody"), nil
	}
	t := techs[i]
	switch {
	case t.Email == "":
		return l.Tf("jobform.told_no_email", map[string]any{"Name": t.Name}), nil
	case t.DaySheetsStoppedAt != nil:
		return l.Tf("jobform.told_stopped", map[string]any{"Name": t.Name, "When": stamp(l.Locale(), *t.DaySheetsStoppedAt, z.Loc)}), nil
	}
	return l.Tf("jobform.told", map[string]any{"Name": t.Name}), nil
}
