package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/field"
)

// Records by id (docs/api.md, "Records without a reference"): a technician
// or job made on a screen, by a CSV import without references or by the
// demo has no external_ref, so no /{ref} path reaches it. /by-id/{id}
// takes the id the API shows, with the same methods, version checks and
// answers as /{ref}; a PATCH or PUT there may give the record a reference,
// once, after which its /{ref} path reaches it too. Another org's id is a
// 404 like an id nobody has.

// maxRetries bounds how often a PATCH by id reads the record again when
// another request changed it between its read and its write.
const maxRetries = 3

// apiID is the {id} of a by-id path; one that cannot be an id is a 404.
func apiID(c echo.Context, what string) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "No %s has the id %q.", what, c.Param("id"))
	}
	return id, nil
}

// attachRef is the reference a by-id write leaves on a record stored with
// ref stored, given the body's external_ref (nil: not sent; removing is
// null). A record without one may be given one (ref_taken if another
// record of the org has it); one that has a reference keeps it.
func attachRef(stored string, body *string, null bool) (string, error) {
	switch {
	case null && stored != "":
		return "", refFixed(fmt.Sprintf("is %q: a reference, once given, cannot be removed", stored))
	case body == nil || null:
		return stored, nil
	case stored == "" || *body == stored:
		return *body, nil
	}
	return "", refFixed(fmt.Sprintf("is %q: a reference, once given, cannot be changed", stored))
}

// refFixed is the API's own refusal of a changed reference (English, as
// the API's own words are: docs/i18n.md).
func refFixed(msg string) error {
	return &apperr.Error{Code: apperr.Invalid, Message: msg,
		Fields: []apperr.Field{{Name: "external_ref", Code: "ref_fixed", Message: msg}}}
}

// readPatchByID reads a merge patch for a by-id path into in.
func readPatchByID(c echo.Context, in any) (map[string]json.RawMessage, map[string]bool, error) {
	patch, err := readMergePatch(c)
	if err != nil {
		return nil, nil, err
	}
	nulls, err := decodePatchMembers(patch, in)
	return patch, nulls, err
}

func (a *API) apiGetTechnicianByID(c echo.Context) error {
	id, err := apiID(c, "technician")
	if err != nil {
		return err
	}
	t, err := a.field.Technician(c.Request().Context(), Token(c).OrgID, id)
	if err != nil {
		return err
	}
	if done, err := notModified(c, etagOf(t.ID, t.Version)); done {
		return err
	}
	setETag(c, t.ID, t.Version)
	return c.JSON(http.StatusOK, t)
}

func (a *API) apiGetJobByID(c echo.Context) error {
	id, err := apiID(c, "job")
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
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

// apiPutTechnicianByID replaces a technician's fields (it never creates:
// an id is ours to give). Without If-Match the last write wins, but never
// over a reference given after the record was read: a change meanwhile is
// read again (at most maxRetries times), and its reference checked.
func (a *API) apiPutTechnicianByID(c echo.Context) error {
	id, err := apiID(c, "technician")
	if err != nil {
		return err
	}
	var in apiTechnicianIn
	if err := readAPIBody(c, &in); err != nil {
		return err
	}
	t, err := a.writeTechnicianByID(c, id, func(cur field.Technician) (field.TechnicianInput, error) {
		ref, err := attachRef(cur.ExternalRef, in.ExternalRef, false)
		return technicianInputOf(in, ref), err
	})
	if err != nil {
		return err
	}
	setETag(c, t.ID, t.Version)
	return c.JSON(http.StatusOK, t)
}

// apiPutJobByID replaces a job's fields.
func (a *API) apiPutJobByID(c echo.Context) error {
	id, err := apiID(c, "job")
	if err != nil {
		return err
	}
	var in apiJobIn
	if err := readAPIBody(c, &in); err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	loc, err := a.apiZone(ctx, orgID)
	if err != nil {
		return err
	}
	var warnings []string
	j, err := a.writeJobByID(c, id, func(cur field.Job) (input field.JobInput, err error) {
		ref, err := attachRef(cur.ExternalRef, in.ExternalRef, false)
		if err != nil {
			return input, err
		}
		input, warnings, err = jobInputOf(in, ref, loc)
		return input, err
	})
	if err != nil {
		return err
	}
	setETag(c, j.ID, j.Version)
	return c.JSON(http.StatusOK, apiJob(j, loc, warnings))
}

// apiPatchTechnicianByID changes the members a merge patch names, as the
// /{ref} PATCH does. Without If-Match, a change by another request between
// the read and the write is read again and the patch applied to it.
func (a *API) apiPatchTechnicianByID(c echo.Context) error {
	id, err := apiID(c, "technician")
	if err != nil {
		return err
	}
	var in apiTechnicianIn
	patch, nulls, err := readPatchByID(c, &in)
	if err != nil {
		return err
	}
	t, err := a.writeTechnicianByID(c, id, func(cur field.Technician) (input field.TechnicianInput, err error) {
		input = cur.Input()
		if input.ExternalRef, err = attachRef(cur.ExternalRef, in.ExternalRef, nulls["external_ref"]); err != nil {
			return input, err
		}
		applyTechnicianPatch(&input, patch, in)
		return input, nil
	})
	if err != nil {
		return err
	}
	setETag(c, t.ID, t.Version)
	return c.JSON(http.StatusOK, t)
}

// apiPatchJobByID changes the members of a job a merge patch names.
func (a *API) apiPatchJobByID(c echo.Context) error {
	id, err := apiID(c, "job")
	if err != nil {
		return err
	}
	var in apiJobIn
	patch, nulls, err := readPatchByID(c, &in)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	loc, err := a.apiZone(ctx, orgID)
	if err != nil {
		return err
	}
	var warnings []string
	j, err := a.writeJobByID(c, id, func(cur field.Job) (input field.JobInput, err error) {
		input = cur.Input()
		if input.ExternalRef, err = attachRef(cur.ExternalRef, in.ExternalRef, nulls["external_ref"]); err != nil {
			return input, err
		}
		var bad map[string]string
		if bad, warnings = applyJobPatch(&input, patch, nulls, in, loc); len(bad) > 0 {
			return input, &field.ValidationError{Fields: bad}
		}
		return input, nil
	})
	if err != nil {
		return err
	}
	slices.Sort(warnings)
	setETag(c, j.ID, j.Version)
	return c.JSON(http.StatusOK, apiJob(j, loc, warnings))
}

// writeTechnicianByID is every write by id of a technician: read it, check
// the request's preconditions, and write what build makes of it at the
// version read, also without If-Match (a reference given meanwhile must
// not be written over: it is attached once). Without If-Match, a change
// made meanwhile is read again, at most maxRetries times.
func (a *API) writeTechnicianByID(c echo.Context, id int64, build func(cur field.Technician) (field.TechnicianInput, error)) (field.Technician, error) {
	ctx, orgID, p := c.Request().Context(), Token(c).OrgID, preconditionsOf(c)
	for attempt := 1; ; attempt++ {
		cur, err := a.field.Technician(ctx, orgID, id)
		if err != nil {
			return cur, err
		}
		if _, err := p.on(true, cur.ID, cur.Version); err != nil {
			return cur, p.failed(c, err)
		}
		input, err := build(cur)
		if err != nil {
			return cur, err
		}
		input.Version = cur.Version
		t, err := a.field.UpdateTechnician(ctx, apiActor(c), orgID, id, input)
		if apperr.Code(err) == apperr.Stale && !p.match.present && attempt < maxRetries {
			continue
		}
		if err != nil {
			return t, p.failed(c, err)
		}
		return t, nil
	}
}

// writeJobByID is writeTechnicianByID for a job.
func (a *API) writeJobByID(c echo.Context, id int64, build func(cur field.Job) (field.JobInput, error)) (field.Job, error) {
	ctx, orgID, p := c.Request().Context(), Token(c).OrgID, preconditionsOf(c)
	for attempt := 1; ; attempt++ {
		cur, err := a.field.Job(ctx, orgID, id)
		if err != nil {
			return cur, err
		}
		if _, err := p.on(true, cur.ID, cur.Version); err != nil {
			return cur, p.failed(c, err)
		}
		input, err := build(cur)
		if err != nil {
			return cur, err
		}
		input.Version = cur.Version
		j, err := a.field.UpdateJob(ctx, apiActor(c), a.now(), orgID, id, input)
		if apperr.Code(err) == apperr.Stale && !p.match.present && attempt < maxRetries {
			continue
		}
		if err != nil {
			return j, p.failed(c, err)
		}
		return j, nil
	}
}

// apiDeleteTechnicianByID removes a technician who never had a job.
func (a *API) apiDeleteTechnicianByID(c echo.Context) error {
	id, err := apiID(c, "technician")
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	cur, err := a.field.Technician(ctx, orgID, id)
	if err != nil {
		return err
	}
	p := preconditionsOf(c)
	version, err := p.on(true, cur.ID, cur.Version)
	if err != nil {
		return p.failed(c, err)
	}
	if err := a.field.DeleteTechnician(ctx, apiActor(c), orgID, cur.ID, version); err != nil {
		return p.failed(c, err)
	}
	return c.JSON(http.StatusOK, apiDeletedJSON{ID: cur.ID, ExternalRef: cur.ExternalRef, Deleted: true})
}

// apiDeleteJobByID removes a job by id (another org's, or none, is a 404).
func (a *API) apiDeleteJobByID(c echo.Context) error {
	id, err := apiID(c, "job")
	if err != nil {
		return err
	}
	cur, err := a.field.Job(c.Request().Context(), Token(c).OrgID, id)
	if err != nil {
		return err
	}
	return a.deleteJob(c, cur)
}
