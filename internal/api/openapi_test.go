package api

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
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tokens"
)

// openAPICheck drives the real API and validates each request and answer
// against openapi.json with libopenapi-validator (OpenAPI 3.1), its
// answers closed (closedAnswers): a member the server sends that the
// document does not name fails the test, though the document lets clients
// expect new ones.
type openAPICheck struct {
	t     *testing.T
	f     *fixture
	v     validator.Validator
	token string
	// outsideAnswers are the document's answers to a request no operation
	// describes, by status: 404 NotFound, 405 MethodNotAllowed.
	outsideAnswers map[int]*v3.Response
	seen           map[string]bool // "METHOD path-template status" checked
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
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
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
// unknown path, a method a path does not take) against the document's
// answer for it (components.responses NotFound, MethodNotAllowed): the
// Error envelope and the headers it requires.
func (c *openAPICheck) outside(want int, code, method, path string) exchange {
	c.t.Helper()
	x := c.do(method, path, "")
	require.Equal(c.t, want, x.res.StatusCode, string(x.body))
	answer := c.outsideAnswers[want]
	require.NotNil(c.t, answer, "the document describes no answer %d to a request outside its operations", want)
	ok, errs := schema_validation.NewSchemaValidator().ValidateSchemaBytes(answer.Content.GetOrZero("application/json").Schema.Schema(), x.body)
	require.True(c.t, ok, "%s %s: not the Error envelope: %s\n%s", method, path, describe(errs), x.body)
	for name, h := range answer.Headers.FromOldest() {
		if h.Required {
			require.NotEmpty(c.t, x.res.Header.Get(name), "%s %s: no %s header", method, path, name)
		}
	}
	require.Equal(c.t, code, x.JSON["error"].(map[string]any)["code"])
	c.seen[fmt.Sprintf("%s %d", method, want)] = true
	return x
}

// allowHeader is the methods a 405's Allow header lists.
func allowHeader(x exchange) []string {
	var methods []string
	for _, m := range strings.Split(x.res.Header.Get("Allow"), ",") {
		methods = append(methods, strings.TrimSpace(m))
	}
	return methods
}

// closedAnswers is the document with every answer's objects closed
// (additionalProperties: false wherever an object lists its properties,
// in every schema but the request bodies, *Put and *Patch, strict
// already): the served document lets clients expect new members (docs/api.md,
// "Compatibility"), the test holds the server to the members it names.
func closedAnswers(t *testing.T, doc []byte) []byte {
	t.Helper()
	var d map[string]any
	require.NoError(t, json.Unmarshal(doc, &d))
	var closeObjects func(v any)
	closeObjects = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["properties"]; ok {
				if _, set := v["additionalProperties"]; !set {
					v["additionalProperties"] = false
				}
			}
			for _, e := range v {
				closeObjects(e)
			}
		case []any:
			for _, e := range v {
				closeObjects(e)
			}
		}
	}
	for name, s := range d["components"].(map[string]any)["schemas"].(map[string]any) {
		if !strings.HasSuffix(name, "Put") && !strings.HasSuffix(name, "Patch") {
			closeObjects(s)
		}
	}
	out, err := json.Marshal(d)
	require.NoError(t, err)
	return out
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
	doc, err := libopenapi.NewDocument(closedAnswers(t, openAPIDoc))
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
	responses := model.Model.Components.Responses
	c := &openAPICheck{t: t, f: f, v: v, token: f.newToken(f.orgA, "sync"), seen: map[string]bool{},
		outsideAnswers: map[int]*v3.Response{http.StatusNotFound: responses.GetOrZero("NotFound"),
			http.StatusMethodNotAllowed: responses.GetOrZero("MethodNotAllowed")}}

	// Every route of /api/v1 is in the document, and nothing else is.
	var routes []string
	for _, r := range f.echo.Routes() {
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
	c.valid(http.StatusPreconditionFailed, http.MethodPatch, jp, `{"notes": "Front door"}`, "Content-Type", mergePatch, "If-None-Match", "*")
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
	c.valid(http.StatusForbidden, http.MethodDelete, jp, "")
	c.valid(http.StatusOK, http.MethodGet, jp, "")
	c.token = readOnly

	// A job is deleted, by id and by reference, at the version If-Match
	// names; then it is not found.
	x = c.valid(http.StatusOK, http.MethodGet, jp, "")
	etag := x.res.Header.Get("ETag")
	x = c.valid(http.StatusPreconditionFailed, http.MethodDelete, jp, "", "If-Match", `"1-1"`)
	require.Equal(t, etag, x.res.Header.Get("ETag"), "a 412 carries the current ETag")
	x = c.valid(http.StatusOK, http.MethodDelete, jp, "", "If-Match", x.res.Header.Get("ETag"))
	require.Equal(t, true, x.JSON["deleted"])
	c.valid(http.StatusNotFound, http.MethodDelete, jp, "")
	x = c.valid(http.StatusOK, http.MethodDelete, "/api/v1/jobs/J-2010", "")
	require.Equal(t, "J-2010", x.JSON["external_ref"])
	c.valid(http.StatusNotFound, http.MethodDelete, "/api/v1/jobs/J-2010", "")

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
	c.outside(http.StatusNotFound, "not_found", http.MethodPut, "/api/v1/jobs/J-2001/notes")
	x = c.outside(http.StatusMethodNotAllowed, "method_not_allowed", http.MethodPost, "/api/v1/jobs/J-2001")
	require.Subset(t, allowHeader(x), []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete})
	require.NotContains(t, allowHeader(x), http.MethodPost)
	x = c.outside(http.StatusMethodNotAllowed, "method_not_allowed", http.MethodPost, "/api/v1/technicians")
	require.Contains(t, allowHeader(x), http.MethodGet)
	c.outside(http.StatusMethodNotAllowed, "method_not_allowed", http.MethodDelete, "/api/v1/org")
	// A path below a record is no record's (apiWholeSegments): not job
	// "J-2001/notes", which a PUT would otherwise have made. A reference
	// with a slash is sent percent-encoded.
	for _, p := range []string{"/api/v1/jobs/J-2001/notes", "/api/v1/technicians/T-100/jobs/x", "/api/v1/jobs/by-id/5/x", "/api/v1/briefings/2026-03-09/x"} {
		c.outside(http.StatusNotFound, "not_found", http.MethodGet, p)
	}
	x = c.do(http.MethodPut, "/api/v1/jobs/J-2001/notes", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"}`)
	require.Equal(t, http.StatusNotFound, x.res.StatusCode, string(x.body))
	var made int
	require.NoError(t, f.db.QueryRow(t.Context(), `SELECT count(*) FROM jobs WHERE org_id = $1 AND external_ref LIKE '%/%'`, f.orgA.ID).Scan(&made))
	require.Zero(t, made)
	x = c.do(http.MethodPut, "/api/v1/technicians/T%2F400", `{"name": "Slash"}`)
	require.Equal(t, http.StatusCreated, x.res.StatusCode, string(x.body))
	require.Equal(t, "T/400", x.JSON["external_ref"])
	// Without a token too: the router answers before any operation's checks.
	c.token = ""
	c.outside(http.StatusNotFound, "not_found", http.MethodGet, "/api/v1/nope")
	c.outside(http.StatusMethodNotAllowed, "method_not_allowed", http.MethodPost, "/api/v1/jobs")
	c.token = f.newToken(f.orgA, "sync 3")
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

// TestOpenAPIAnswersAllowNewMembers: no schema an answer or a webhook
// event reaches closes an object (additionalProperties or
// unevaluatedProperties false), so a
// client generated from the document keeps working when v1 adds a member;
// every request body stays strict, as the server is (an unknown member is
// a 422). docs/api.md, "Compatibility".
func TestOpenAPIAnswersAllowNewMembers(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(openAPIDoc, &doc))
	components := doc["components"].(map[string]any)
	resolve := func(v map[string]any) map[string]any {
		for {
			ref, ok := v["$ref"].(string)
			if !ok {
				return v
			}
			kind, name, _ := strings.Cut(strings.TrimPrefix(ref, "#/components/"), "/")
			v = components[kind].(map[string]any)[name].(map[string]any)
		}
	}
	// closed walks a schema and every schema it reaches, $refs followed.
	seen := map[string]bool{}
	var closed func(where string, v any) []string
	closed = func(where string, v any) []string {
		var found []string
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if seen[ref] {
					return nil
				}
				seen[ref] = true
				return closed(ref, resolve(v))
			}
			for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
				if v[k] == false {
					found = append(found, where+": "+k+": false")
				}
			}
			for k, e := range v {
				found = append(found, closed(where+"/"+k, e)...)
			}
		case []any:
			for i, e := range v {
				found = append(found, closed(fmt.Sprintf("%s/%d", where, i), e)...)
			}
		}
		return found
	}
	var answers, bodies int
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			where := strings.ToUpper(method) + " " + path
			for status, r := range op["responses"].(map[string]any) {
				for _, media := range mapOf(resolve(r.(map[string]any))["content"]) {
					require.Empty(t, closed(where+" "+status, mapOf(media)["schema"]), "an answer that refuses new members")
					answers++
				}
			}
			if body, ok := op["requestBody"].(map[string]any); ok {
				for media, m := range mapOf(resolve(body)["content"]) {
					schema := resolve(mapOf(mapOf(m)["schema"]))
					require.Equal(t, false, schema["additionalProperties"], "%s %s: the request body must refuse unknown members, as the server does", where, media)
					bodies++
				}
			}
		}
	}
	// The events the webhooks section describes are what we send, as
	// answers are: their payloads may gain members too.
	for name, item := range mapOf(doc["webhooks"]) {
		for method, op := range mapOf(item) {
			for _, media := range mapOf(resolve(mapOf(mapOf(op)["requestBody"]))["content"]) {
				require.Empty(t, closed("webhook "+name+" "+method, mapOf(media)["schema"]), "an event payload that refuses new members")
			}
		}
	}
	require.NotZero(t, answers)
	require.NotZero(t, bodies)
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// TestOpenAPITagsEveryOperation: each operation has an operationId, a
// summary, a description and one tag, a resource the document's tags list
// and describe; every tag is used.
func TestOpenAPITagsEveryOperation(t *testing.T) {
	t.Parallel()
	var doc struct {
		Tags []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tags"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(openAPIDoc, &doc))
	tags := map[string]int{}
	for _, tag := range doc.Tags {
		require.NotEmpty(t, tag.Description, "tag %s", tag.Name)
		_, twice := tags[tag.Name]
		require.False(t, twice, "tag %s listed twice", tag.Name)
		tags[tag.Name] = 0
	}
	ids := map[string]bool{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct {
				OperationID string   `json:"operationId"`
				Summary     string   `json:"summary"`
				Description string   `json:"description"`
				Tags        []string `json:"tags"`
			}
			require.NoError(t, json.Unmarshal(raw, &op))
			where := strings.ToUpper(method) + " " + path
			require.NotEmpty(t, op.OperationID, where)
			require.False(t, ids[op.OperationID], "%s: operationId %s used twice", where, op.OperationID)
			ids[op.OperationID] = true
			require.NotEmpty(t, op.Summary, where)
			require.NotEmpty(t, op.Description, where)
			require.Len(t, op.Tags, 1, where)
			n, ok := tags[op.Tags[0]]
			require.True(t, ok, "%s: tag %s is not in the document's tags", where, op.Tags[0])
			tags[op.Tags[0]] = n + 1
		}
	}
	for tag, n := range tags {
		require.NotZero(t, n, "tag %s tags no operation", tag)
	}
}
