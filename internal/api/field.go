package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// Technicians and jobs through the API (docs/api.md). Reading, validating
// and storing them is package field's; these handlers turn JSON into its
// inputs and its records into JSON, in the org's time zone.

// apiTechnicianIn is the body of PUT /api/v1/technicians/{ref}. A PUT
// replaces every field: one left out takes its default. A PATCH names the
// fields it changes (versions.go).
type apiTechnicianIn struct {
	Name        string  `json:"name"`
	Email       string  `json:"email"`
	Phone       string  `json:"phone"`
	Active      *bool   `json:"active"`       // default true
	ExternalRef *string `json:"external_ref"` // optional; must equal the path's
	Language    string  `json:"language"`     // en, de, es or fr; "" (default) = the org's
}

// apiJobIn is the body of PUT /api/v1/jobs/{ref}. Arrival times are local
// "YYYY-MM-DDTHH:MM" in the org's zone or RFC 3339 with an offset.
type apiJobIn struct {
	Customer      string  `json:"customer"`
	CustomerPhone string  `json:"customer_phone"`
	Address       string  `json:"address"`
	ArrivalStart  string  `json:"arrival_start"`
	ArrivalEnd    string  `json:"arrival_end"`
	JobType       string  `json:"job_type"`
	Notes         string  `json:"notes"`
	Emergency     bool    `json:"emergency"`
	Status        string  `json:"status"`         // default scheduled
	TechnicianRef string  `json:"technician_ref"` // "" = unassigned
	ExternalRef   *string `json:"external_ref"`   // optional; must equal the path's
}

// apiJobOut is a stored job as the API shows it: arrival times in the
// org's zone, and the note of an ambiguous local time that was read as its
// first occurrence.
type apiJobOut struct {
	field.Job
	Warnings []string `json:"warnings,omitempty"`
}

// Job list paging: the default page and the most one request may ask for.
const (
	apiJobPage    = 100
	apiMaxJobPage = 500
)

// apiRef is the {ref} of the path: an external reference as field
// validates it (unescaped when the client percent-encoded it).
func apiRef(c echo.Context) (string, error) {
	ref := c.Param("ref")
	if c.Request().URL.RawPath != "" {
		var err error
		if ref, err = url.PathUnescape(ref); err != nil {
			return "", apperr.FieldError("external_ref", "is not a valid percent-encoded reference")
		}
	}
	if ref == "" || utf8.RuneCountInString(ref) > field.MaxExternalRef || strings.TrimSpace(ref) != ref {
		return "", apperr.FieldError("external_ref", "the reference in the path must be 1–%d characters without surrounding spaces", field.MaxExternalRef)
	}
	return ref, nil
}

// checkBodyRef refuses a body whose external_ref says something else than
// the path, so a client cannot mean one record and write another.
func checkBodyRef(body *string, ref string) error {
	if body != nil && *body != ref {
		return apperr.FieldError("external_ref", "is %q in the path: leave it out of the body or give the same", ref)
	}
	return nil
}

// apiPutTechnician creates or replaces the technician with this reference:
// 201 created, 200 otherwise, the stored technician in the body.
func (a *API) apiPutTechnician(c echo.Context) error {
	ref, err := apiRef(c)
	if err != nil {
		return err
	}
	var in apiTechnicianIn
	if err := readAPIBody(c, &in); err != nil {
		return err
	}
	if err := checkBodyRef(in.ExternalRef, ref); err != nil {
		return err
	}
	input := technicianInputOf(in, ref)
	p := preconditionsOf(c)
	t, created, err := a.field.PutTechnicianByRef(c.Request().Context(), apiActor(c), Token(c).OrgID, input, p.onRef())
	if err != nil {
		return p.failed(c, err)
	}
	setETag(c, t.ID, t.Version)
	if created {
		setLocation(c, "technicians", ref)
	}
	return c.JSON(createdOrOK(created), t)
}

// technicianInputOf is a PUT body as the technician it describes.
func technicianInputOf(in apiTechnicianIn, ref string) field.TechnicianInput {
	return field.TechnicianInput{Name: in.Name, Email: in.Email, Phone: in.Phone, Active: in.Active == nil || *in.Active, ExternalRef: ref,
		Language: in.Language}
}

// apiPutJob creates or replaces the job with this reference.
func (a *API) apiPutJob(c echo.Context) error {
	ref, err := apiRef(c)
	if err != nil {
		return err
	}
	var in apiJobIn
	if err := readAPIBody(c, &in); err != nil {
		return err
	}
	if err := checkBodyRef(in.ExternalRef, ref); err != nil {
		return err
	}
	ctx := c.Request().Context()
	orgID := Token(c).OrgID
	loc, err := a.apiZone(ctx, orgID)
	if err != nil {
		return err
	}
	input, warnings, err := jobInputOf(in, ref, loc)
	if err != nil {
		return err
	}
	p := preconditionsOf(c)
	j, created, err := a.field.PutJobByRef(ctx, apiActor(c), a.now(), orgID, input, p.onRef())
	if err != nil {
		return p.failed(c, err)
	}
	setETag(c, j.ID, j.Version)
	if created {
		setLocation(c, "jobs", ref)
	}
	return c.JSON(createdOrOK(created), apiJob(j, loc, warnings))
}

// jobInputOf is a PUT body as the job it describes: arrival times read in
// loc (local wall-clock times, or instants with an offset), the notes of
// ambiguous local times, and every problem of the body at once.
func jobInputOf(in apiJobIn, ref string, loc *time.Location) (field.JobInput, []string, error) {
	input := field.JobInput{ExternalRef: ref, Customer: in.Customer, CustomerPhone: in.CustomerPhone, Address: in.Address,
		JobType: in.JobType, Notes: in.Notes, Emergency: in.Emergency, Status: in.Status, TechnicianRef: in.TechnicianRef}
	var warnings []string
	bad := map[string]string{}
	codes := map[string]field.Problem{} // the codes of bad's problems that have one (docs/api.md)
	for _, a := range []struct {
		name, value string
		to          *time.Time
	}{{"arrival_start", in.ArrivalStart, &input.ArrivalStart}, {"arrival_end", in.ArrivalEnd, &input.ArrivalEnd}} {
		if a.value == "" {
			bad[a.name] = "is required"
			codes[a.name] = field.Problem{Code: field.CodeRequired, Message: bad[a.name]}
			continue
		}
		t, note, err := schedule.ParseLocalDateTime(loc, a.value)
		if err != nil {
			bad[a.name] = err.Error()
			continue
		}
		*a.to = t
		if note != "" {
			warnings = append(warnings, a.name+": "+note)
		}
	}
	if len(bad) > 0 {
		// With the rest of the body's problems, so the client fixes all at once.
		input.Normalize()
		var ve *field.ValidationError
		if errors.As(input.Validate(), &ve) {
			for k, v := range ve.Fields {
				if _, ok := bad[k]; !ok && k != "arrival_start" && k != "arrival_end" {
					bad[k] = v
					if p, ok := ve.Problems[k]; ok {
						codes[k] = p
					}
				}
			}
		}
		return field.JobInput{}, nil, &field.ValidationError{Fields: bad, Problems: codes}
	}
	return input, warnings, nil
}

// apiZone is the org's zone's location (zone).
func (a *API) apiZone(ctx context.Context, orgID int64) (*time.Location, error) {
	z, err := a.zone(ctx, orgID)
	return z.Loc, err
}

// zone is the org's zone, the one the screens use: the saved one, else UTC
// (tenants.FieldforceConfig.Zone).
func (a *API) zone(ctx context.Context, orgID int64) (schedule.Zone, error) {
	cfg, err := a.tenants.Fieldforce(ctx, orgID)
	if err != nil {
		return schedule.Zone{}, err
	}
	z, _ := cfg.Zone() // no usable saved zone: UTC, as on the screens
	return z, nil
}

func createdOrOK(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

func apiJob(j field.Job, loc *time.Location, warnings []string) apiJobOut {
	j.ArrivalStart, j.ArrivalEnd = j.ArrivalStart.In(loc), j.ArrivalEnd.In(loc)
	return apiJobOut{Job: j, Warnings: warnings}
}

// apiGetTechnician returns one technician by reference; another org's is
// not found.
func (a *API) apiGetTechnician(c echo.Context) error {
	ref, err := apiRef(c)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	ids, err := field.TechnicianRefs(ctx, database.Reader(ctx, a.db), orgID, []string{ref})
	if err != nil {
		return err
	}
	id, ok := ids[ref]
	if !ok {
		return apperr.Errorf(apperr.NotFound, "No technician has the reference %q.", ref)
	}
	t, err := a.field.Technician(ctx, orgID, id)
	if err != nil {
		return err
	}
	if done, err := notModified(c, etagOf(t.ID, t.Version)); done {
		return err
	}
	setETag(c, t.ID, t.Version)
	return c.JSON(http.StatusOK, t)
}

// apiGetJob returns one job by reference; another org's is not found.
func (a *API) apiGetJob(c echo.Context) error {
	ref, err := apiRef(c)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	ids, err := field.JobRefs(ctx, database.Reader(ctx, a.db), orgID, []string{ref})
	if err != nil {
		return err
	}
	id, ok := ids[ref]
	if !ok {
		return apperr.Errorf(apperr.NotFound, "No job has the reference %q.", ref)
	}
	loc, err := a.apiZone(ctx, orgID)
	if err != nil {
		return err
	}
	j, err := a.field.Job(ctx, orgID, id)
	if err != nil {
		return err
	}
	if done, err := notModified(c, etagOf(j.ID, j.Version)); done {
		return err
	}
	setETag(c, j.ID, j.Version)
	return c.JSON(http.StatusOK, apiJob(j, loc, nil))
}
