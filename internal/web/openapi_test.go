package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tokens"
)

// openAPICheck drives the real API and validates each request and answer
// against openapi.json with libopenapi-validator (OpenAPI 3.1).
type openAPICheck struct {
	t        *testing.T
	f        *fixture
	v        validator.Validator
	errorDoc *base.Schema
	token    string
	seen     map[string]bool // "METHOD path-template status" checked
}

// exchange is one request and its answer, both kept to be validated.
type exchange struct {
	req  *http.Request
	res  *http.Response
	body []byte
	JSON map[string]any
}

func (c *openAPICheck) do(method, path, body string, headers ...string) exchange {
	c.t.Helper()
	newReq := func() *http.Request {
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, c.f.ts.URL+path, r)
		require.NoError(c.t, err)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		for i := 0; i+1 < len(headers); i += 2 {
			if headers[i+1] == "" {
				req.Header.Del(headers[i])
				continue
			}
			req.Header.Set(headers[i], headers[i+1])
		}
		return req
	}
	res, err := http.DefaultClient.Do(newReq())
	require.NoError(c.t, err)
	raw, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	res.Body.Close()
	// The validators read the bodies: give them fresh copies.
	req := newReq()
	res.Body = io.NopCloser(bytes.NewReader(raw))
	res.Request = req
	x := exchange{req: req, res: res, body: raw}
	if res.StatusCode == http.StatusNotModified { // no body, no type
		require.Empty(c.t, raw)
		return x
	}
	require.Equal(c.t, "application/json", strings.Split(res.Header.Get("Content-Type"), ";")[0], "%s %s: %s", method, path, raw)
	require.NoError(c.t, json.Unmarshal(raw, &x.JSON), "%s %s: %s", method, path, raw)
	return x
}

// valid sends a request the document allows and checks the answer has
// status want and is what the document says it is.
func (c *openAPICheck) valid(want int, method, path, body string, headers ...string) exchange {
	c.t.Helper()
	x := c.do(method, path, body, headers...)
	ok, errs := c.v.ValidateHttpRequest(x.req)
	require.True(c.t, ok, "%s %s: the document refuses the request: %s", method, path, describe(errs))
	c.checkAnswer(want, x)
	return x
}

// invalid sends a request the document refuses (an unknown member, a
// content type not taken, a missing field) and checks the server refuses
// it too, with an answer the document describes.
func (c *openAPICheck) invalid(want int, method, path, body string, headers ...string) exchange {
	c.t.Helper()
	x := c.do(method, path, body, headers...)
	ok, _ := c.v.ValidateHttpRequest(x.req)
	require.False(c.t, ok, "%s %s: the document takes a request the server refuses (%d)", method, path, x.res.StatusCode)
	c.checkAnswer(want, x)
	return x
}

func (c *openAPICheck) checkAnswer(want int, x exchange) {
	c.t.Helper()
	method, path := x.req.Method, x.req.URL.RequestURI()
	require.Equal(c.t, want, x.res.StatusCode, "%s %s: %s", method, path, x.body)
	x.res.Body = io.NopCloser(bytes.NewReader(x.body))
	ok, errs := c.v.ValidateHttpResponse(x.req, x.res)
	require.True(c.t, ok, "%s %s %d: the answer is not what the document says: %s\n%s", method, path, want, describe(errs), x.body)
	c.seen[fmt.Sprintf("%s %d", method, want)] = true
}

// outside checks an answer for a request no operation describes (an
// unknown path, a method a path does not take): the Error envelope.
func (c *openAPICheck) outside(want int, code, method, path string) exchange {
	c.t.Helper()
	x := c.do(method, path, "")
	require.Equal(c.t, want, x.res.StatusCode, string(x.body))
	ok, errs := schema_validation.NewSchemaValidator().ValidateSchemaBytes(c.errorDoc, x.body)
	require.True(c.t, ok, "%s %s: not the Error envelope: %s\n%s", method, path, describe(errs), x.body)
	require.Equal(c.t, code, x.JSON["error"].(map[string]any)["code"])
	c.seen[fmt.Sprintf("%s %d", method, want)] = true
	return x
}

// describe lists the validator's errors with their reasons.
func describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  %s: %s", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n    %s: %s", s.FieldPath, s.Reason)
		}
	}
	return b.String()
}

func TestOpenAPIDescribesTheAPI(t *testing.T) {
	t.Parallel()
	doc, err := libopenapi.NewDocument(openAPIDoc)
	require.NoError(t, err)
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	require.Empty(t, errs)
	ok, verrs := v.ValidateDocument()
	require.True(t, ok, "openapi.json is not a valid OpenAPI 3.1 document: %s", describe(verrs))
	model, err := doc.BuildV3Model()
	require.NoError(t, err)
	require.Equal(t, "3.1.0", model.Model.Version)

	f := setup(t)
	f.setZone(f.orgA, "America/New_York")
	c := &openAPICheck{t: t, f: f, v: v, errorDoc: model.Model.Components.Schemas.GetOrZero("Error").Schema(),
		token: f.newToken(f.orgA, "sync"), seen: map[string]bool{}}

	// Every route of /api/v1 is in the document, and nothing else is.
	var routes []string
	for _, r := range f.srv.echo.Routes() {
		if strings.HasPrefix(r.Path, "/api/v1/") && !strings.HasSuffix(r.Path, "/*") {
			routes = append(routes, r.Method+" "+strings.NewReplacer(":ref", "{ref}", ":date", "{date}", ":id", "{id}").Replace(r.Path))
		}
	}
	var described []string
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			described = append(described, strings.ToUpper(method)+" "+path)
		}
	}
	require.ElementsMatch(t, routes, described)

	// The document is served as it is written, without a token.
	x := c.valid(http.StatusOK, http.MethodGet, "/api/v1/openapi.json", "", "Authorization", "")
	require.JSONEq(t, string(openAPIDoc), string(x.body))

	// Technicians: create, replace, list, read, patch, delete.
	x = c.valid(http.StatusCreated, http.MethodPut, "/api/v1/technicians/T-100",
		`{"name": "Ana Lima", "email": "ana@example.com", "phone": "+1 555 0100", "language": "es"}`)
	c.valid(http.StatusOK, http.MethodPut, "/api/v1/technicians/T-100",
		`{"name": "Ana Lima", "email": "ana@example.com", "phone": "+1 555 0199", "active": true, "external_ref": "T-100"}`,
		"If-Match", x.res.Header.Get("ETag"))
	c.valid(http.StatusCreated, http.MethodPut, "/api/v1/technicians/T-200", `{"name": "Bo"}`)
	c.valid(http.StatusOK, http.MethodGet, "/api/v1/technicians", "")
	x = c.valid(http.StatusOK, http.MethodGet, "/api/v1/technicians/T-200", "")
	bo := x.res.Header.Get("ETag")
	x = c.valid(http.StatusOK, http.MethodPatch, "/api/v1/technicians/T-200", `{"phone": "+1 555 0142", "language": null}`,
		"Content-Type", mergePatch, "If-Match", bo)
	c.valid(http.StatusPreconditionFailed, http.MethodPatch, "/api/v1/technicians/T-200", `{"phone": "+1 555 0143"}`,
		"Content-Type", mergePatch, "If-Match", bo)
	c.valid(http.StatusPreconditionFailed, http.MethodPut, "/api/v1/technicians/T-200", `{"name": "Bo"}`, "If-Match", bo)
	c.valid(http.StatusPreconditionFailed, http.MethodDelete, "/api/v1/technicians/T-200", "", "If-Match", bo)
	c.valid(http.StatusOK, http.MethodDelete, "/api/v1/technicians/T-200", "", "If-Match", x.res.Header.Get("ETag"))
	c.valid(http.StatusNotFound, http.MethodGet, "/api/v1/technicians/T-200", "")
	c.valid(http.StatusNotFound, http.MethodPatch, "/api/v1/technicians/T-200", `{"phone": "1"}`, "Content-Type", mergePatch)
	c.valid(http.StatusNotFound, http.MethodDelete, "/api/v1/technicians/T-200", "")

	// Jobs: create (a local time, an instant, an ambiguous local time),
	// list a page at a time, read, patch.
	c.valid(http.StatusCreated, http.MethodPut, "/api/v1/jobs/J-2001", `{"customer": "Mrs Jones", "customer_phone": "+1 555 0142",
		"address": "12 Elm St", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00",
		"job_type": "Boiler service", "technician_ref": "T-100", "status": "scheduled"}`)
	c.valid(http.StatusCreated, http.MethodPut, "/api/v1/jobs/J-2002", `{"customer": "Corner Bakery", "arrival_start": "2026-03-09T14:00:00Z",
		"arrival_end": "2026-03-09T15:30:00Z", "emergency": true, "notes": "Walk-in freezer"}`)
	x = c.valid(http.StatusCreated, http.MethodPut, "/api/v1/jobs/J-2003", `{"customer": "Night shift", "arrival_start": "2026-11-01T01:30",
		"arrival_end": "2026-11-01T03:00"}`)
	require.NotEmpty(t, x.JSON["warnings"])
	x = c.valid(http.StatusOK, http.MethodGet, "/api/v1/jobs?date=2026-03-09&limit=1", "")
	c.valid(http.StatusOK, http.MethodGet, "/api/v1/jobs?date=2026-03-09&limit=1&cursor="+x.JSON["next_cursor"].(string), "")
	x = c.valid(http.StatusOK, http.MethodGet, "/api/v1/jobs/J-2001", "")
	x = c.valid(http.StatusOK, http.MethodPatch, "/api/v1/jobs/J-2001", `{"customer_phone": "+1 555 0199", "notes": null, "status": "in_progress"}`,
		"Content-Type", mergePatch, "If-Match", x.res.Header.Get("ETag"))
	require.Equal(t, "12 Elm St", x.JSON["address"])
	x = c.valid(http.StatusOK, http.MethodPatch, "/api/v1/jobs/J-2002", `{"technician_ref": "T-100", "status": null}`, "Content-Type", mergePatch)
	c.valid(http.StatusPreconditionFailed, http.MethodPut, "/api/v1/jobs/J-2002", `{"customer": "Corner Bakery", "arrival_start": "2026-03-09T14:00:00Z",
		"arrival_end": "2026-03-09T15:30:00Z"}`, "If-Match", `"1-1", W/`+x.res.Header.Get("ETag"))
	c.valid(http.StatusNotFound, http.MethodGet, "/api/v1/jobs/J-9999", "")

	// A technician with jobs cannot be deleted.
	c.valid(http.StatusConflict, http.MethodDelete, "/api/v1/technicians/T-100", "")

	// The org; records without a reference, by id; a GET that has not changed.
	c.valid(http.StatusOK, http.MethodGet, "/api/v1/org", "")
	var techID, jobID int64
	require.NoError(t, f.db.QueryRow(t.Context(), `INSERT INTO technicians (org_id, name) VALUES ($1, 'Screen Sam') RETURNING id`, f.orgA.ID).Scan(&techID))
	require.NoError(t, f.db.QueryRow(t.Context(), `INSERT INTO jobs (org_id, customer, arrival_start, arrival_end)
		VALUES ($1, 'Walk-in', '2026-03-09T16:00Z', '2026-03-09T17:00Z') RETURNING id`, f.orgA.ID).Scan(&jobID))
	tp, jp := fmt.Sprintf("/api/v1/technicians/by-id/%d", techID), fmt.Sprintf("/api/v1/jobs/by-id/%d", jobID)
	x = c.valid(http.StatusOK, http.MethodGet, tp, "")
	c.valid(http.StatusNotModified, http.MethodGet, tp, "", "If-None-Match", x.res.Header.Get("ETag"))
	x = c.valid(http.StatusOK, http.MethodPatch, tp, `{"phone": "+1 555 0177", "external_ref": "T-300"}`, "Content-Type", mergePatch)
	c.valid(http.StatusOK, http.MethodPut, tp, `{"name": "Screen Sam", "active": false}`, "If-Match", x.res.Header.Get("ETag"))
	c.valid(http.StatusOK, http.MethodDelete, tp, "")
	c.valid(http.StatusNotFound, http.MethodGet, tp, "")
	x = c.valid(http.StatusOK, http.MethodGet, jp, "")
	x = c.valid(http.StatusOK, http.MethodPatch, jp, `{"notes": "Back door"}`, "Content-Type", mergePatch, "If-Match", x.res.Header.Get("ETag"))
	c.valid(http.StatusPreconditionFailed, http.MethodPut, jp, `{"customer": "Walk-in", "arrival_start": "2026-03-09T12:00", "arrival_end": "2026-03-09T13:00"}`,
		"If-Match", `"1-1"`)
	c.valid(http.StatusOK, http.MethodPut, jp, `{"customer": "Walk-in", "arrival_start": "2026-03-09T12:00", "arrival_end": "2026-03-09T13:00"}`,
		"If-Match", x.res.Header.Get("ETag"))
	c.valid(http.StatusNotFound, http.MethodGet, "/api/v1/jobs/by-id/1", "")
	c.valid(http.StatusCreated, http.MethodPatch, "/api/v1/jobs/J-2010", `{"customer": "Patched in", "arrival_start": "2026-03-09T12:00",
		"arrival_end": "2026-03-09T13:00"}`, "Content-Type", mergePatch)
	readOnly := c.token
	c.token = func() string {
		_, tok, err := f.store.Tokens.Create(t.Context(), audit.Actor{Email: "admin@acme.test"}, f.orgA.ID, "reports", tokens.ScopeRead, f.clock.Now())
		require.NoError(t, err)
		return tok
	}()
	c.valid(http.StatusForbidden, http.MethodPatch, jp, `{"notes": "x"}`, "Content-Type", mergePatch)
	c.valid(http.StatusOK, http.MethodGet, jp, "")
	c.token = readOnly

	// The briefing, as the worker stores it from the data above: technicians
	// and assignees by external_ref too.
	zone, err := schedule.LoadZone("America/New_York")
	require.NoError(t, err)
	var content []byte
	require.NoError(t, pgx.BeginFunc(t.Context(), f.db, func(tx pgx.Tx) error {
		day, err := snapshot.ReadDay(t.Context(), tx, f.orgA.ID, zone, schedule.Date{Year: 2026, Month: time.March, Day: 9})
		if err != nil {
			return err
		}
		snap := day.Snapshot()
		snap.GeneratedAt = time.Date(2026, 3, 9, 11, 0, 0, 0, time.UTC)
		content, _, err = snapshot.Encode(snap)
		return err
	}))
	_, err = f.db.Exec(t.Context(), `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, revision, generated_at, content)
		VALUES ($1, '2026-03-09', 'America/New_York', 'ready', 1, '2026-03-09T11:00:00Z', $2)`, f.orgA.ID, content)
	require.NoError(t, err)
	x = c.valid(http.StatusOK, http.MethodGet, "/api/v1/briefings/2026-03-09", "")
	var briefing struct {
		Content struct {
			Technicians []struct {
				ExternalRef string `json:"external_ref"`
				Jobs        []struct {
					TechnicianRef string `json:"technician_ref"`
				} `json:"jobs"`
			} `json:"technicians"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(x.body, &briefing))
	require.Len(t, briefing.Content.Technicians, 1, string(x.body))
	require.Equal(t, "T-100", briefing.Content.Technicians[0].ExternalRef)
	require.Equal(t, "T-100", briefing.Content.Technicians[0].Jobs[0].TechnicianRef)
	c.valid(http.StatusNotFound, http.MethodGet, "/api/v1/briefings/2026-03-10", "")

	// Errors: each in the envelope, each as the document says.
	c.token = "fb_" + strings.Repeat("A", 52)
	x = c.valid(http.StatusUnauthorized, http.MethodGet, "/api/v1/technicians", "")
	require.Contains(t, x.res.Header.Get("WWW-Authenticate"), "Bearer")
	c.valid(http.StatusUnauthorized, http.MethodPut, "/api/v1/jobs/J-1", `{"customer": "x", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"}`)
	c.token = f.newToken(f.orgA, "sync 2")
	c.outside(http.StatusNotFound, "not_found", http.MethodGet, "/api/v1/nope")
	x = c.outside(http.StatusMethodNotAllowed, "method_not_allowed", http.MethodDelete, "/api/v1/jobs/J-2001")
	require.Contains(t, x.res.Header.Get("Allow"), http.MethodPatch)
	c.outside(http.StatusMethodNotAllowed, "method_not_allowed", http.MethodPost, "/api/v1/technicians")
	c.invalid(http.StatusUnsupportedMediaType, http.MethodPatch, "/api/v1/jobs/J-2001", `{"notes": "x"}`)
	c.invalid(http.StatusUnsupportedMediaType, http.MethodPut, "/api/v1/jobs/J-2001", `{"customer": "x"}`, "Content-Type", "text/csv")
	x = c.invalid(http.StatusUnprocessableEntity, http.MethodPut, "/api/v1/technicians/T-101", `{"name": "Bo", "colour": "blue"}`)
	require.Contains(t, x.JSON["error"].(map[string]any)["fields"], "colour")
	c.invalid(http.StatusUnprocessableEntity, http.MethodPut, "/api/v1/jobs/J-2004", `{"customer": "", "arrival_start": "2026-03-08T02:30", "arrival_end": "2026-03-08T04:00"}`)
	c.invalid(http.StatusUnprocessableEntity, http.MethodPatch, "/api/v1/jobs/J-2001", `{"arrival_start": null}`, "Content-Type", mergePatch)
	c.invalid(http.StatusUnprocessableEntity, http.MethodGet, "/api/v1/jobs?date=yesterday", "")
	c.valid(http.StatusUnprocessableEntity, http.MethodPut, "/api/v1/jobs/J-2005", `{"customer": "x", "arrival_start": "2026-03-08T02:30", "arrival_end": "2026-03-08T04:00"}`)
	c.invalid(http.StatusRequestEntityTooLarge, http.MethodPut, "/api/v1/technicians/T-102", `{"name": "`+strings.Repeat("a", maxAPIBody)+`"}`)

	for _, want := range []string{"GET 200", "PUT 200", "PUT 201", "PATCH 200", "DELETE 200", "GET 401", "GET 404", "DELETE 405",
		"DELETE 409", "PUT 412", "PATCH 412", "DELETE 412", "PATCH 415", "PUT 415", "PUT 422", "PATCH 422", "PUT 413",
		"GET 304", "PATCH 201", "PATCH 403"} {
		require.True(t, c.seen[want], "not checked: %s", want)
	}
}

// The tokens page, where an admin starts with the API, links the document.
func TestOpenAPILinkedFromTheTokensPage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	page := f.as(&f.adminA).get("/orgs/acme/settings/api-tokens")
	require.Equal(t, http.StatusOK, page.Code, page.Body)
	require.Contains(t, page.Body, `href="/api/v1/openapi.json"`)
}
