package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// Versions through the API (docs/api.md, "Versions: ETag and If-Match";
// docs/versions.md): every technician and job answer carries an ETag made
// of the record's id and version; If-Match on PUT, PATCH and DELETE makes
// the write conditional (412 precondition_failed, nothing saved, when the
// record moved on); PATCH takes a JSON Merge Patch (RFC 7396).
//
// The ETag is strong and names the stored record at a version, not the
// bytes of one answer: the job's technician_name or the org's zone may
// change what a GET shows without a new version. It is what If-Match
// compares. If-None-Match is sync.go's: create-only writes and GET's
// 304.

// mimeMergePatch is the one Content-Type PATCH takes.
const mimeMergePatch = "application/merge-patch+json"

// etagOf is a record's ETag: its id and version, quoted. The id keeps a
// record that was deleted and made again under the same reference (back at
// version 1) from matching the old one's ETag.
func etagOf(id, version int64) string {
	return `"` + strconv.FormatInt(id, 10) + "-" + strconv.FormatInt(version, 10) + `"`
}

func setETag(c echo.Context, id, version int64) {
	c.Response().Header().Set("ETag", etagOf(id, version))
}

// tagList is a conditional header's value (RFC 9110, 13.1), parsed: "*"
// or a list of entity tags, over one or more header lines.
type tagList struct {
	present bool
	any     bool     // "*"
	tags    []string // entity tags as sent, quotes included
}

func tagListOf(c echo.Context, header string) tagList {
	values := c.Request().Header.Values(header)
	if len(values) == 0 {
		return tagList{}
	}
	m := tagList{present: true}
	for _, v := range values {
		for tag := range strings.SplitSeq(v, ",") {
			switch tag = strings.TrimSpace(tag); tag {
			case "":
			case "*":
				m.any = true
			default:
				m.tags = append(m.tags, tag)
			}
		}
	}
	return m
}

// ifMatch is a request's If-Match header (RFC 9110, 13.1.1).
type ifMatch tagList

func ifMatchOf(c echo.Context) ifMatch { return ifMatch(tagListOf(c, "If-Match")) }

// version is the version the request's If-Match holds the record to: 0
// without If-Match (last write wins), the record's own version when it
// matches ("*", or its ETag among the tags, compared strongly: a weak
// W/"…" tag never matches). A record that does not exist (exists false)
// or has moved on fails the precondition.
func (m ifMatch) version(exists bool, id, version int64) (int64, error) {
	if !m.present {
		return 0, nil
	}
	if exists && (m.any || slices.Contains(m.tags, etagOf(id, version))) {
		return version, nil
	}
	return 0, errPrecondition(exists, id, version)
}

func errPrecondition(exists bool, id, version int64) error {
	if !exists {
		return apperr.Errorf(apperr.Precondition,
			"If-Match names a record, but none has this reference now; nothing was saved.")
	}
	return apperr.Errorf(apperr.Precondition,
		"The record was changed after the version If-Match names: it is now %s. Nothing was saved; GET it again, and send the change with its new ETag.",
		etagOf(id, version))
}

// preconditionOf turns the store's stale refusal of a write that If-Match
// made conditional into the API's 412.
func preconditionOf(err error, m ifMatch) error {
	if m.present && apperr.Code(err) == apperr.Stale {
		return apperr.Errorf(apperr.Precondition, "The record was changed after the version If-Match names; nothing was saved.")
	}
	return err
}

// preconditions are a write's If-Match and If-None-Match.
type preconditions struct {
	match     ifMatch
	noneMatch ifNoneMatch
	etag      string // the record's ETag when a check read it: a 412 carries it
}

func preconditionsOf(c echo.Context) *preconditions {
	return &preconditions{match: ifMatchOf(c), noneMatch: ifNoneMatchOf(c)}
}

// onRef holds a PUT by reference to both: field checks them against the
// record with the reference, locked so that nothing changes it between the
// check and the write (no read without either), and the write's outcome
// against If-None-Match: *.
func (p *preconditions) onRef() field.RefConditions {
	cond := field.RefConditions{Created: p.created}
	if p.match.present || p.noneMatch.present {
		cond.Check = p.on
	}
	return cond
}

// on checks both against a record read (and locked) by the caller.
func (p *preconditions) on(exists bool, id, version int64) (int64, error) {
	if exists {
		p.etag = etagOf(id, version)
	}
	if err := p.noneMatch.check(exists, id, version); err != nil {
		return 0, err
	}
	return p.match.version(exists, id, version)
}

// created checks a write's outcome: If-None-Match: * holds only if the
// write made the record (another request may have made it since the
// check: an absent row has nothing to lock). The write is rolled back; its
// version is not the record's, so no ETag is given.
func (p *preconditions) created(created bool) error {
	if p.noneMatch.any && !created {
		p.etag = ""
		return apperr.Errorf(apperr.Precondition,
			"Another request made a record with this reference a moment ago, and If-None-Match: * creates only. Nothing was saved; GET it, and PATCH it to change it.")
	}
	return nil
}

// failed is the error to answer with: a stale refusal of a conditional
// write becomes the 412, and a 412 carries the record's ETag.
func (p *preconditions) failed(c echo.Context, err error) error {
	err = preconditionOf(err, p.match)
	preconditionETag(c, err, p.etag)
	return err
}

// readMergePatch reads a PATCH body: Content-Type application/merge-patch+json
// (415 otherwise, with Accept-Patch saying what is taken), at most
// maxAPIBody bytes, one JSON object (RFC 7396: a patch that is not an
// object would replace the whole record, which PUT is for). Its members,
// null ones included, are checked by decodePatchMembers.
// The bytes are read and checked as every body is (readJSONObject).
func readMergePatch(c echo.Context) (map[string]json.RawMessage, error) {
	r := c.Request()
	mt, params, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if err != nil || mt != mimeMergePatch {
		c.Response().Header().Set("Accept-Patch", mimeMergePatch)
		return nil, apperr.Errorf(apperr.Unsupported, "Send a PATCH body as a JSON Merge Patch, with Content-Type: %s.", mimeMergePatch)
	}
	if err := utf8Only(params); err != nil {
		return nil, err
	}
	body, err := readJSONObject(c, "A merge patch must be one JSON object.")
	if err != nil {
		return nil, err
	}
	var patch map[string]json.RawMessage
	if err := decodeOne(body, &patch, false); err != nil {
		return nil, err
	}
	return patch, nil
}

// decodePatchMembers checks a patch's member names against the fields of
// in (a pointer to the PUT body's struct: its json tags, exactly, not in
// another case) and decodes the members that are not null into it, as a
// PUT body would be; the names of those that are null are returned, for
// the caller to reset.
func decodePatchMembers(patch map[string]json.RawMessage, in any) (nulls map[string]bool, err error) {
	known := jsonNames(in)
	bad := map[string]string{}
	nulls = map[string]bool{}
	set := map[string]json.RawMessage{}
	for name, raw := range patch {
		switch {
		case !known[name]:
			bad[name] = "unknown field: see docs/api.md for the fields this endpoint takes"
		case bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
			nulls[name] = true
		default:
			set[name] = raw
		}
	}
	if len(bad) > 0 {
		return nil, &field.ValidationError{Fields: bad}
	}
	b, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("re-encode patch: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		return nil, jsonError(err)
	}
	return nulls, nil
}

// jsonNames is the set of JSON member names of the struct v points to.
func jsonNames(v any) map[string]bool {
	names := map[string]bool{}
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// present reports whether a patch names member (with a value or null).
func present(patch map[string]json.RawMessage, member string) bool {
	_, ok := patch[member]
	return ok
}

// patchRef checks a patch's external_ref: the path's, or left out. It
// cannot be removed (null) or changed.
func patchRef(patch map[string]json.RawMessage, nulls map[string]bool, body *string, ref string) error {
	if nulls["external_ref"] {
		return apperr.FieldError("external_ref", "is the reference in the path: it cannot be removed")
	}
	if present(patch, "external_ref") {
		return checkBodyRef(body, ref)
	}
	return nil
}

// readPatch reads a merge patch for the record at the path's reference
// into in: its members, which were null, and the reference check (a body's
// external_ref, bodyRef once decoded, must be the path's).
func readPatch(c echo.Context, in any, bodyRef func() *string) (ref string, patch map[string]json.RawMessage, nulls map[string]bool, err error) {
	if ref, err = apiRef(c); err != nil {
		return "", nil, nil, err
	}
	if patch, err = readMergePatch(c); err != nil {
		return "", nil, nil, err
	}
	if nulls, err = decodePatchMembers(patch, in); err != nil {
		return "", nil, nil, err
	}
	if err = patchRef(patch, nulls, bodyRef(), ref); err != nil {
		return "", nil, nil, err
	}
	return ref, patch, nulls, nil
}

// checkPatchTarget checks what a PATCH writes over: the stored record,
// locked, or, for a reference nobody has, nothing (exists false), which the
// patch may create when it is a whole record (If-Match then fails: it names
// a record). notFound is the refusal of a patch that is not whole.
func checkPatchTarget(p *preconditions, exists bool, id, version int64, missing []string, notFound func(missing []string) error) error {
	if _, err := p.on(exists, id, version); err != nil {
		return err
	}
	if !exists && len(missing) > 0 {
		return notFound(missing)
	}
	return nil
}

// apiPatchTechnician changes the members of a technician a merge patch
// names: a value sets it, null takes it back to its default (as a PUT that
// leaves it out would: "" or active true); the rest stay as stored. For a
// reference nobody has, a patch naming every required member (name)
// creates the technician (201).
func (a *API) apiPatchTechnician(c echo.Context) error {
	var in apiTechnicianIn
	ref, patch, nulls, err := readPatch(c, &in, func() *string { return in.ExternalRef })
	if err != nil {
		return err
	}
	p := preconditionsOf(c)
	t, created, err := a.field.EditTechnicianByRef(c.Request().Context(), apiActor(c), Token(c).OrgID, ref,
		func(cur *field.Technician) (field.TechnicianInput, error) {
			input := field.TechnicianInput{ExternalRef: ref, Active: true}
			var id, version int64
			if cur != nil {
				input, id, version = cur.Input(), cur.ID, cur.Version // at cur.Version, which the lock keeps
			}
			if err := checkPatchTarget(p, cur != nil, id, version, missingForCreate(patch, nulls, "name"), func(missing []string) error {
				return apperr.Errorf(apperr.NotFound,
					"No technician has the reference %q. A PATCH creates one only from a whole record: send %s too.", ref, strings.Join(missing, ", "))
			}); err != nil {
				return input, err
			}
			applyTechnicianPatch(&input, patch, in)
			return input, nil
		})
	if err != nil {
		return p.failed(c, err)
	}
	setETag(c, t.ID, t.Version)
	if created {
		setLocation(c, "technicians", ref)
	}
	return c.JSON(createdOrOK(created), t)
}

// apiPatchJob changes the members of a job a merge patch names. null takes
// an optional member back to its default (technician_ref null unassigns
// the job; status null is scheduled); the arrival times and the customer
// are required, so null for them is a 422. An unnamed technician stays
// assigned, even one without a reference (assigned on the board). For a
// reference nobody has, a patch naming every required member (customer,
// arrival_start, arrival_end) creates the job (201).
func (a *API) apiPatchJob(c echo.Context) error {
	var in apiJobIn
	ref, patch, nulls, err := readPatch(c, &in, func() *string { return in.ExternalRef })
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	loc, err := a.apiZone(ctx, orgID)
	if err != nil {
		return err
	}
	p := preconditionsOf(c)
	var warnings []string
	j, created, err := a.field.EditJobByRef(ctx, apiActor(c), a.now(), orgID, ref, func(cur *field.Job) (field.JobInput, error) {
		warnings = nil
		input := field.JobInput{ExternalRef: ref}
		var id, version int64
		if cur != nil {
			input, id, version = cur.Input(), cur.ID, cur.Version
		}
		if err := checkPatchTarget(p, cur != nil, id, version, missingForCreate(patch, nulls, "customer", "arrival_start", "arrival_end"),
			func(missing []string) error {
				return apperr.Errorf(apperr.NotFound,
					"No job has the reference %q. A PATCH creates one only from a whole record: send %s too.", ref, strings.Join(missing, ", "))
			}); err != nil {
			return input, err
		}
		var bad map[string]string
		bad, warnings = applyJobPatch(&input, patch, nulls, in, loc)
		if len(bad) > 0 {
			return input, &field.ValidationError{Fields: bad}
		}
		return input, nil
	})
	if err != nil {
		return p.failed(c, err)
	}
	slices.Sort(warnings)
	setETag(c, j.ID, j.Version)
	if created {
		setLocation(c, "jobs", ref)
	}
	return c.JSON(createdOrOK(created), apiJob(j, loc, warnings))
}

// applyTechnicianPatch sets the members a merge patch names (decoded into
// in) on input; null takes one back to its default.
func applyTechnicianPatch(input *field.TechnicianInput, patch map[string]json.RawMessage, in apiTechnicianIn) {
	for name := range patch {
		switch name {
		case "name":
			input.Name = in.Name
		case "email":
			input.Email = in.Email
		case "phone":
			input.Phone = in.Phone
		case "language":
			input.Language = in.Language
		case "active":
			input.Active = in.Active == nil || *in.Active
		}
	}
}

// applyJobPatch sets the members a merge patch names (decoded into in) on
// input, arrival times read in loc; the problems of those it cannot take,
// and the notes of ambiguous local times.
func applyJobPatch(input *field.JobInput, patch map[string]json.RawMessage, nulls map[string]bool, in apiJobIn, loc *time.Location) (bad map[string]string, warnings []string) {
	bad = map[string]string{}
	for name := range patch {
		switch name {
		case "customer":
			input.Customer = in.Customer
		case "customer_phone":
			input.CustomerPhone = in.CustomerPhone
		case "address":
			input.Address = in.Address
		case "job_type":
			input.JobType = in.JobType
		case "notes":
			input.Notes = in.Notes
		case "emergency":
			input.Emergency = in.Emergency
		case "status":
			input.Status = in.Status
		case "technician_ref":
			input.TechnicianID, input.TechnicianRef = 0, in.TechnicianRef
		case "arrival_start", "arrival_end":
			to, value := &input.ArrivalStart, in.ArrivalStart
			if name == "arrival_end" {
				to, value = &input.ArrivalEnd, in.ArrivalEnd
			}
			if nulls[name] || value == "" {
				bad[name] = "is required"
				continue
			}
			t, note, err := schedule.ParseLocalDateTime(loc, value)
			if err != nil {
				bad[name] = err.Error()
				continue
			}
			*to = t
			if note != "" {
				warnings = append(warnings, name+": "+note)
			}
		}
	}
	return bad, warnings
}

// apiDeletedJSON is a DELETE's answer (as Stripe's API answers one): what
// was deleted, so that every answer stays a JSON object.
type apiDeletedJSON struct {
	ID          int64  `json:"id"`
	ExternalRef string `json:"external_ref"`
	Deleted     bool   `json:"deleted"`
}

// apiDeleteTechnician removes a technician who never had a job (409
// otherwise: deactivate them with PATCH {"active": false}).
func (a *API) apiDeleteTechnician(c echo.Context) error {
	ref, err := apiRef(c)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	cur, err := field.TechnicianByRef(ctx, database.Reader(ctx, a.db), orgID, ref, false)
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
	return c.JSON(http.StatusOK, apiDeletedJSON{ID: cur.ID, ExternalRef: ref, Deleted: true})
}

// apiDeleteJob removes a job by reference (another org's, or none, is a
// 404), at the version If-Match names (412 with the current ETag when
// stale). Its tombstone joins the feed's deleted list and the org's
// endpoints get job.deleted (docs/api.md, "`DELETE /api/v1/jobs/{ref}`").
func (a *API) apiDeleteJob(c echo.Context) error {
	ref, err := apiRef(c)
	if err != nil {
		return err
	}
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	cur, err := field.JobByRef(ctx, database.Reader(ctx, a.db), orgID, ref, false)
	if err != nil {
		return err
	}
	return a.deleteJob(c, cur)
}

// deleteJob deletes cur, read by reference or by id, under the request's
// preconditions, and answers as a DELETE of a technician does.
func (a *API) deleteJob(c echo.Context, cur field.Job) error {
	ctx, orgID := c.Request().Context(), Token(c).OrgID
	p := preconditionsOf(c)
	version, err := p.on(true, cur.ID, cur.Version)
	if err != nil {
		return p.failed(c, err)
	}
	if err := a.field.DeleteJob(ctx, apiActor(c), a.now(), orgID, cur.ID, version); err != nil {
		return p.failed(c, err)
	}
	return c.JSON(http.StatusOK, apiDeletedJSON{ID: cur.ID, ExternalRef: cur.ExternalRef, Deleted: true})
}
