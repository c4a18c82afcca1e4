package web

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// Shared by the field data screens (technicians.go, jobs.go, board.go):
// the org's zone, reading a job form in it, and showing jobs in it.

func orgBase(slug string) string { return "/orgs/" + slug }

// orgZone is the zone the org's field data is entered and shown in
// (tenants.FieldforceConfig.Zone) and the org's today in it.
type orgZone struct {
	schedule.Zone
	Today schedule.Date
	// note is the catalog id saying why the zone is UTC when the org has
	// no usable saved zone; every zone label shows it, so nobody reads
	// UTC times as their own without being told.
	note string
}

// orgZone is the zone of the org in the URL, read once per request and
// kept with the membership (orgScope): every later call is free.
func (s *Server) orgZone(c echo.Context) (orgZone, error) {
	sc := scope(c)
	if sc.zone == nil {
		z, err := s.zoneOf(c.Request().Context(), sc.m.Org.ID)
		if err != nil {
			return z, err
		}
		sc.zone = &z
	}
	return *sc.zone, nil
}

// zoneOf reads an org's zone and works out its today.
func (s *Server) zoneOf(ctx context.Context, orgID int64) (orgZone, error) {
	cfg, err := s.tenants.Fieldforce(ctx, orgID)
	if err != nil {
		return orgZone{}, err
	}
	sz, err := cfg.Zone()
	z := orgZone{Zone: sz, Today: schedule.DateOf(s.now().In(sz.Loc)), note: zoneNoteID(err)}
	return z, nil
}

// zoneNoteID is the catalog id of why an org has no zone of its own
// (cfg.Zone's error), "" when it has one.
func zoneNoteID(err error) string {
	switch {
	case errors.Is(err, tenants.ErrZoneNotSaved):
		return "fieldzone.not_saved"
	case errors.Is(err, tenants.ErrZoneInvalid):
		return "fieldzone.invalid"
	}
	return ""
}

// zoneLabel names the zone as people know it, in l's language, on date d
// (CLDR's metazone name and city: "Eastern Time (New York)",
// "Nordamerikanische Ostküstenzeit (New York)"), or says why it is UTC. Its
// IANA id and the abbreviation in force that day ("EST", as the windows
// write it) go in small print after it (zone.ID "" when the name is the id
// already: a zone CLDR does not name).
func zoneLabel(l *i18n.Localizer, z orgZone, d schedule.Date) views.ZoneLabel {
	start, _ := schedule.DayBounds(z.Loc, d)
	noon := start.Add(12 * time.Hour).In(z.Loc)
	zl := views.ZoneLabel{Name: l.Locale().ZoneName(z.Name, noon), ID: z.Name, Abbr: schedule.ZoneAbbr(noon)}
	if zl.Abbr == z.Name {
		zl.Abbr = ""
	}
	if zl.Name == zl.ID {
		zl.ID = ""
		if zl.Abbr != "" {
			zl.Name += " (" + zl.Abbr + ")"
			zl.Abbr = ""
		}
	}
	if z.note != "" {
		zl.Name = l.Tf(z.note, map[string]any{"Zone": zl.Name})
	}
	return zl
}

// idParam reads a numeric id from the path; anything else is not found,
// like an id that does not exist.
func idParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "Not found.")
	}
	return id, nil
}

// technicianOptions lists the technicians a job may be given on screens:
// the active ones, plus keep, the job's current one, even if inactive.
func technicianOptions(l *i18n.Localizer, list []field.Technician, keep int64) []views.Option {
	var out []views.Option
	for _, t := range list {
		if t.Active || t.ID == keep {
			label := t.Name
			if !t.Active {
				label = l.Tf("jobs.inactive", map[string]any{"Name": t.Name})
			}
			out = append(out, views.Option{Value: strconv.FormatInt(t.ID, 10), Label: label})
		}
	}
	return out
}

// jobRow is a job as lists and the board show it to the reader l, on local day d.
func jobRow(l *i18n.Localizer, loc *time.Location, j field.Job, d schedule.Date) views.JobRow {
	return views.JobRow{
		ID: j.ID, Date: schedule.DateOf(j.ArrivalStart.In(loc)).String(),
		Window:   window(l.Locale(), loc, j.ArrivalStart, j.ArrivalEnd, d),
		Start:    j.ArrivalStart.In(loc).Format("15:04"),
		Customer: j.Customer, Address: j.Address, JobType: j.JobType, Emergency: j.Emergency,
		Status: j.Status, StatusLabel: statusName(l, j.Status),
		TechnicianID: j.TechnicianID, Technician: j.TechnicianName, Ref: j.ExternalRef, Version: j.Version,
	}
}

// newJobForm is the empty form for a new job on day d: the one place its
// defaults are written (09:00 to 11:00, scheduled); next is where saving
// returns to, "board" or "jobs".
func newJobForm(d schedule.Date, next string) views.JobForm {
	return views.JobForm{Date: d.String(), From: "09:00", To: "11:00", Status: field.StatusScheduled, Next: next}
}

// jobFormOf is the form showing a stored job, with a note for each time
// that happens twice that night (the first was taken).
func jobFormOf(l *i18n.Localizer, z orgZone, j field.Job) views.JobForm {
	start, end := j.ArrivalStart.In(z.Loc), j.ArrivalEnd.In(z.Loc)
	d := schedule.DateOf(start)
	f := views.JobForm{
		Customer: j.Customer, CustomerPhone: j.CustomerPhone, Address: j.Address,
		Date: d.String(), From: start.Format("15:04"), To: end.Format("15:04"), ToDate: laterDay(d, end),
		JobType: j.JobType, Notes: j.Notes, Emergency: j.Emergency, Status: j.Status, Ref: j.ExternalRef,
		Version: j.Version,
	}
	f.Zone = zoneLabel(l, z, d)
	if j.TechnicianID != 0 {
		f.TechnicianID = strconv.FormatInt(j.TechnicianID, 10)
	}
	for _, t := range []time.Time{start, end} {
		at := schedule.LocalTime{Hour: t.Hour(), Minute: t.Minute()}
		if first, note, err := schedule.LocalDateTime(z.Loc, schedule.DateOf(t), at); err == nil && note != "" && first.Equal(t) {
			f.DSTNotes = append(f.DSTNotes, twiceNote(l, z.Loc, schedule.DateOf(t), at, first))
		}
	}
	return f
}

// laterDay is end's local date when it is not d: a window that ends on a
// later day shows (and is read back with) its end's date.
func laterDay(d schedule.Date, end time.Time) string {
	if e := schedule.DateOf(end); e != d {
		return e.String()
	}
	return ""
}

// jobForm is a submitted job form: what was typed, to show again, and the
// input it makes.
type jobForm struct {
	view  views.JobForm
	in    field.JobInput
	errs  views.FormErrors // problems found before the store saw it
	ambig bool             // a time happened twice: the first was taken
}

// readJobForm reads a job form, its window in zone z by the rule for typed times (docs/decisions/0002-dst-resolution.md): a
// time the clocks skip is an error naming the zone and the gap, a time that
// happens twice is the first.
func readJobForm(c echo.Context, z orgZone) jobForm {
	l := localizer(c)
	v := func(name string) string { return c.FormValue(name) }
	f := jobForm{errs: views.FormErrors{}}
	f.view = views.JobForm{
		Customer: v("customer"), CustomerPhone: v("customer_phone"), Address: v("address"),
		Date: strings.TrimSpace(v("date")), From: strings.TrimSpace(v("from")), To: strings.TrimSpace(v("to")),
		ToDate:  strings.TrimSpace(v("to_date")),
		JobType: v("job_type"), Notes: v("notes"), Emergency: v("emergency") == "true",
		Status: v("status"), TechnicianID: strings.TrimSpace(v("technician_id")), Ref: v("external_ref"),
		Next: nextPage(v("next")),
	}
	f.in = field.JobInput{
		ExternalRef: f.view.Ref, Customer: f.view.Customer, CustomerPhone: f.view.CustomerPhone,
		Address: f.view.Address, JobType: f.view.JobType, Notes: f.view.Notes, Emergency: f.view.Emergency,
		Status: f.view.Status,
	}
	if f.view.TechnicianID != "" {
		id, err := strconv.ParseInt(f.view.TechnicianID, 10, 64)
		if err != nil || id <= 0 {
			f.errs["technician_id"] = l.T("board.not_technician")
		}
		f.in.TechnicianID = id
	}
	d, err := schedule.ParseDate(f.view.Date)
	if err != nil {
		f.errs["date"] = l.T("jobform.date_invalid")
		return f
	}
	f.view.Zone = zoneLabel(l, z, d)
	endDay := d // "to" is on the window's date unless the form names its end's
	if f.view.ToDate != "" {
		if endDay, err = schedule.ParseDate(f.view.ToDate); err != nil {
			f.errs["to_date"] = l.T("jobform.to_date_invalid")
			return f
		}
	}
	for _, t := range []struct {
		name, value string
		day         schedule.Date
		dst         *time.Time
	}{{"from", f.view.From, d, &f.in.ArrivalStart}, {"to", f.view.To, endDay, &f.in.ArrivalEnd}} {
		at, err := schedule.ParseLocalTime(t.value)
		if err != nil {
			f.errs[t.name] = l.T("jobform.time_invalid")
			continue
		}
		instant, note, err := schedule.LocalDateTime(z.Loc, t.day, at)
		var gap *schedule.GapError
		switch {
		case errors.As(err, &gap):
			f.errs[t.name] = gapMessage(l, t.day, at, gap)
		case err != nil:
			f.errs[t.name] = err.Error()
		default:
			*t.dst = instant
			f.ambig = f.ambig || note != ""
		}
	}
	return f
}

// nextPage keeps a form's "next" to the two pages it may name.
func nextPage(next string) string {
	if next == "board" {
		return "board"
	}
	return "jobs"
}

// problems merges the form's own errors with the store's validation ones,
// renamed to the form's fields; ok is false for any other error.
func (f jobForm) problems(l *i18n.Localizer, err error) (views.FormErrors, bool) {
	out := views.FormErrors{}
	for k, v := range f.errs {
		out[k] = v
	}
	var ve *field.ValidationError
	if err != nil && !errors.As(err, &ve) {
		return nil, false
	}
	if ve != nil {
		for k := range ve.Fields {
			name := map[string]string{"arrival_start": "from", "arrival_end": "to", "technician_ref": "technician_id"}[k]
			if name == "" {
				name = k
			}
			if _, taken := out[name]; !taken {
				out[name] = fieldProblem(l, ve, k)
			}
		}
	}
	return out, true
}

// validate is the store's validation run on the form's input before it is
// saved, so a form with a bad date still reports every other field too.
func (f jobForm) validate() error {
	in := f.in
	in.Normalize()
	// A time already refused stands in as a valid one, so it is not
	// reported twice.
	if in.ArrivalStart.IsZero() {
		in.ArrivalStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if !in.ArrivalEnd.IsZero() && in.ArrivalEnd.Before(in.ArrivalStart) {
			in.ArrivalStart = in.ArrivalEnd
		}
	}
	if in.ArrivalEnd.IsZero() {
		in.ArrivalEnd = in.ArrivalStart
	}
	return in.Validate()
}

// fieldFormErrors returns a form's field errors in l's words, or ok false
// when err is not a validation error.
func fieldFormErrors(l *i18n.Localizer, err error) (views.FormErrors, bool) {
	var ve *field.ValidationError
	if !errors.As(err, &ve) {
		return nil, false
	}
	errs := views.FormErrors{}
	for name := range ve.Fields {
		errs[name] = fieldProblem(l, ve, name)
	}
	return errs, true
}
