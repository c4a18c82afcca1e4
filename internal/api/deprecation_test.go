package api

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"fieldbrief/internal/httpkit"
	"github.com/stretchr/testify/require"
)

// A document that deprecates two operations the way docs/api.md,
// "Compatibility", says one is deprecated.
const deprecatingDoc = `{"openapi": "3.1.0", "paths": {
  "/api/v1/org": {"get": {"deprecated": true,
    "x-deprecation": {"since": "2027-01-04T00:00:00Z", "sunset": "2027-07-05T00:00:00Z", "link": "https://fieldbrief.example/changes#org"}}},
  "/api/v1/jobs/{ref}": {"parameters": [{"$ref": "#/components/parameters/ref"}],
    "get": {"deprecated": true, "x-deprecation": {"since": "2027-01-04T00:00:00Z"}},
    "put": {"summary": "not deprecated"}},
  "/api/v1/technicians": {"get": {"deprecated": false}}}}`

// TestDeprecatedOperationsAnnounceIt: an operation the document marks
// deprecated answers with Deprecation (RFC 9745), Sunset (RFC 8594) and
// Link rel="deprecation"/"sunset", on every answer (a 401, a 404, a HEAD);
// the path's other methods and other operations do not. The real server
// with its routes and middleware, given the document above.
func TestDeprecatedOperationsAnnounceIt(t *testing.T) {
	t.Parallel()
	dep, err := deprecationsOf([]byte(deprecatingDoc))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"GET /api/v1/org", "GET /api/v1/jobs/:ref"}, slices.Collect(maps.Keys(dep)))

	f := setup(t)
	// The requests go straight to the handler, in this goroutine: no
	// request is in flight while the field is set.
	f.srv.deprecated = dep
	token := f.newToken(f.orgA, "old client")
	do := func(method, path, token, body string) *http.Response {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		httpkit.HeadAsGet(f.echo).ServeHTTP(rec, req)
		return rec.Result()
	}
	const since, sunset = "@1799020800", "Mon, 05 Jul 2027 00:00:00 GMT"
	links := []string{`<https://fieldbrief.example/changes#org>; rel="deprecation"`, `<https://fieldbrief.example/changes#org>; rel="sunset"`}

	for _, r := range []struct {
		method, path, token string
		status              int
	}{
		{http.MethodGet, "/api/v1/org", token, http.StatusOK},
		{http.MethodHead, "/api/v1/org", token, http.StatusOK},
		{http.MethodGet, "/api/v1/org", "", http.StatusUnauthorized},
	} {
		res := do(r.method, r.path, r.token, "")
		require.Equal(t, r.status, res.StatusCode, "%s %s", r.method, r.path)
		require.Equal(t, since, res.Header.Get("Deprecation"), "%s %s", r.method, r.path)
		require.Equal(t, sunset, res.Header.Get("Sunset"), "%s %s", r.method, r.path)
		require.Equal(t, links, res.Header.Values("Link"), "%s %s", r.method, r.path)
	}

	// Deprecated without a sunset or a link: the date alone, on a 404 too.
	res := do(http.MethodGet, "/api/v1/jobs/J-404", token, "")
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.Equal(t, since, res.Header.Get("Deprecation"))
	require.Empty(t, res.Header.Get("Sunset"))
	require.Empty(t, res.Header.Values("Link"))

	// The same path's PUT, and an operation not deprecated, say nothing.
	res = do(http.MethodPut, "/api/v1/jobs/J-1", token, `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"}`)
	require.Equal(t, http.StatusCreated, res.StatusCode)
	require.Empty(t, res.Header.Values("Deprecation"))
	res = do(http.MethodGet, "/api/v1/technicians", token, "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Empty(t, res.Header.Values("Deprecation"))
	require.Empty(t, res.Header.Values("Sunset"))
}

// TestDeprecationsOfTheServedDocument: the server announces what its own
// document deprecates, and only operations it has.
func TestDeprecationsOfTheServedDocument(t *testing.T) {
	t.Parallel()
	dep, err := deprecationsOf(openAPIDoc)
	require.NoError(t, err)
	f := setup(t)
	require.Equal(t, dep, f.srv.deprecated)
	routes := map[string]bool{}
	for _, r := range f.echo.Routes() {
		routes[r.Method+" "+r.Path] = true
	}
	for _, k := range slices.Collect(maps.Keys(dep)) {
		require.True(t, routes[k], "the document deprecates %s, which the server does not have", k)
	}
}

// TestDeprecationHalfMarkedIsRefused: a deprecation the headers cannot say
// right stops the server from starting rather than announcing it wrong.
func TestDeprecationHalfMarkedIsRefused(t *testing.T) {
	t.Parallel()
	for name, op := range map[string]string{
		"no date":              `{"deprecated": true}`,
		"date, not deprecated": `{"x-deprecation": {"since": "2027-01-04T00:00:00Z"}}`,
		"sunset before since":  `{"deprecated": true, "x-deprecation": {"since": "2027-01-04T00:00:00Z", "sunset": "2026-12-31T00:00:00Z"}}`,
		"sunset at since":      `{"deprecated": true, "x-deprecation": {"since": "2027-01-04T00:00:00Z", "sunset": "2027-01-04T00:00:00Z"}}`,
		"not a date":           `{"deprecated": true, "x-deprecation": {"since": "next spring"}}`,
	} {
		_, err := deprecationsOf([]byte(`{"paths": {"/api/v1/org": {"get": ` + op + `}}}`))
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "GET /api/v1/org", name)
	}
}
