package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testutil"
)

// The JSON API as the web server mounts it, beside the pages: what only
// the whole server shows (a session cookie opens nothing, tokens made and
// revoked on the settings page, the server's own errors as JSON). The
// API's own behaviour is tested in internal/api.

// newToken creates a write token of o (as its first admin would) and returns it.
func (f *fixture) newToken(o tenants.Org, name string) string {
	return apitest.NewToken(f.t, f.store.Tokens, o, name, f.clock.Now())
}

// api is a client of the fixture's API with token.
func (f *fixture) api(token string) *apitest.Client { return apitest.NewClient(f.t, f.ts.URL, token) }

// count runs a count query on the test's database.
func (f *fixture) count(sql string, args ...any) int { return testutil.Count(f.t, f.db, sql, args...) }

// setZone saves an org's briefing settings in zone.
func (f *fixture) setZone(o tenants.Org, zone string) { apitest.SetZone(f.t, f.store.Tenants, o, zone) }

func TestAPIRefusesMissingBadAndCookieOnlyCredentials(t *testing.T) {
	t.Parallel()
	f := setup(t)
	token := f.newToken(f.orgA, "sync")
	require.Equal(t, http.StatusOK, f.api(token).Get("/api/v1/technicians").Code)

	for name, r := range map[string]apitest.Response{
		"no header":      f.api("").Get("/api/v1/technicians"),
		"unknown token":  f.api("fb_" + strings.Repeat("A", 52)).Get("/api/v1/technicians"),
		"not ours":       f.api("ghp_abc").Get("/api/v1/technicians"),
		"basic scheme":   f.api("").Call(http.MethodGet, "/api/v1/technicians", nil, "Authorization", "Basic "+token),
		"token, no type": f.api("").Call(http.MethodGet, "/api/v1/technicians", nil, "Authorization", token),
	} {
		apitest.RequireError(t, r, http.StatusUnauthorized, "unauthorized")
		require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer", name)
	}

	// A signed-in admin's cookies (and CSRF token) get nothing from the API.
	admin := f.as(&f.adminA)
	for _, r := range []response{
		admin.get("/api/v1/technicians"),
		admin.get("/api/v1/briefings/2026-03-04"),
		admin.send(http.MethodPut, "/api/v1/technicians/T-1", url.Values{"name": {"Cookie Monster"}}),
	} {
		require.Equal(t, http.StatusUnauthorized, r.Code, r.Body)
		require.JSONEq(t, `"unauthorized"`, apitest.JSONAt(t, r.Body, "error", "code"))
	}
	require.Zero(t, f.count(`SELECT count(*) FROM technicians`))
	// And the API sets no cookie of its own.
	require.Empty(t, f.api(token).Get("/api/v1/technicians").Header.Values("Set-Cookie"))
}

func TestAPITokenRevokedIsRefusedOnTheNextCall(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	res := admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"Dispatch sync"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	token := between(t, res.Body, `id="api-token-value">`, "<")
	require.True(t, strings.HasPrefix(token, "fb_"), token)

	api := f.api(token)
	require.Equal(t, http.StatusOK, api.Get("/api/v1/technicians").Code)
	// The list shows the token's name and hint, never the token again.
	page := admin.get("/orgs/acme/settings/api-tokens")
	require.Contains(t, page.Body, "Dispatch sync")
	require.Contains(t, page.Body, token[:11])
	require.NotContains(t, page.Body, token)

	var id int64
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT id FROM api_tokens WHERE name = 'Dispatch sync'`).Scan(&id))
	// Another org's admin cannot revoke it (404), nor can a member (403), nor a forged form.
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(fmt.Sprintf("/orgs/globex/settings/api-tokens/%d/revoke", id), nil).Code)
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(fmt.Sprintf("/orgs/acme/settings/api-tokens/%d/revoke", id), nil).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(fmt.Sprintf("/orgs/acme/settings/api-tokens/%d/revoke", id), nil).Code)
	require.Equal(t, http.StatusOK, api.Get("/api/v1/technicians").Code)

	res = admin.htmx().post(fmt.Sprintf("/orgs/acme/settings/api-tokens/%d/revoke", id), nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	require.Contains(t, res.Body, "Revoked")
	apitest.RequireError(t, api.Get("/api/v1/technicians"), http.StatusUnauthorized, "unauthorized")

	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE action = 'api_token.create' AND actor_email = $1`, f.adminA.Email))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE action = 'api_token.revoke' AND actor_email = $1`, f.adminA.Email))
}

func TestAPITokenFormRefusesBadNamesWithNothingSaved(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	res := admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"  "}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, `id="name-error"`)
	require.NotContains(t, res.Body, `id="api-token-value"`)
	require.Zero(t, f.count(`SELECT count(*) FROM api_tokens`))
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post("/orgs/acme/settings/api-tokens", url.Values{"name": {"x"}}).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF("/orgs/acme/settings/api-tokens", url.Values{"name": {"x"}}).Code)
	require.Zero(t, f.count(`SELECT count(*) FROM api_tokens`))
}

func TestAPIErrorsAreJSONEverywhere(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	f.srv.echo.GET("/api/v1/test-panic", func(echo.Context) error { panic("boom") })

	apitest.RequireError(t, api.Get("/api/v1/nope"), http.StatusNotFound, "not_found")
	apitest.RequireError(t, api.Get("/api/v2/technicians"), http.StatusNotFound, "not_found")
	apitest.RequireError(t, api.Get("/api"), http.StatusNotFound, "not_found")
	apitest.RequireError(t, api.Call(http.MethodPost, "/api/v1/jobs/J-1", "{}"), http.StatusMethodNotAllowed, "method_not_allowed")
	apitest.RequireError(t, api.Call(http.MethodPost, "/api/v1/technicians", "{}"), http.StatusMethodNotAllowed, "method_not_allowed")
	r := api.Get("/api/v1/test-panic")
	apitest.RequireError(t, r, http.StatusInternalServerError, "internal")
	require.NotContains(t, r.Body, "boom")
	// A HEAD is answered like the GET, without a body.
	req, err := http.NewRequest(http.MethodHead, f.ts.URL+"/api/v1/technicians", nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

// The tokens page, where an admin starts with the API, links the document.
func TestOpenAPILinkedFromTheTokensPage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	page := f.as(&f.adminA).get("/orgs/acme/settings/api-tokens")
	require.Equal(t, http.StatusOK, page.Code, page.Body)
	require.Contains(t, page.Body, `href="/api/v1/openapi.json"`)
}

// between returns the text after start up to end.
func between(t testing.TB, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	require.True(t, ok, "no %q in %s", start, s)
	v, _, ok := strings.Cut(rest, end)
	require.True(t, ok)
	return v
}

// TestAPITokenScopeChosenOnThePage: a read-only token made on the settings
// page is shown as one and refused a write; a scope other than read or
// write is refused (the API's scopes themselves: internal/api).
func TestAPITokenScopeChosenOnThePage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	// Read only chosen, shown in the list; anything else than read or write refused.
	admin := f.as(&f.adminA)
	res := admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"dashboard"}, "scope": {"read"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	require.Equal(t, "read", f.text(`SELECT scope FROM api_tokens WHERE name = 'dashboard'`))
	require.Equal(t, http.StatusUnprocessableEntity, admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"admin all"}, "scope": {"admin"}}).Code)
	require.Zero(t, f.count(`SELECT count(*) FROM api_tokens WHERE name = 'admin all'`))
	page := admin.get("/orgs/acme/settings/api-tokens")
	var id int64
	require.NoError(t, f.db.QueryRow(ctx, `SELECT id FROM api_tokens WHERE name = 'dashboard'`).Scan(&id))
	row := parseDoc(t, page.Body).find(attrIs("data-token-id", strconv.FormatInt(id, 10)))
	require.NotNil(t, row)
	require.Contains(t, row.text(), "Read only")
	r := f.api(between(t, res.Body, `id="api-token-value">`, "<")).Call(http.MethodPut, "/api/v1/technicians/T-2", map[string]any{"name": "x"})
	apitest.RequireError(t, r, http.StatusForbidden, "insufficient_scope")
}

// mergePatch is the media type of a PATCH body (docs/api.md, "PATCH").
const mergePatch = "application/merge-patch+json"

// text is one text value a query returns.
func (f *fixture) text(sql string, args ...any) string {
	f.t.Helper()
	var s string
	require.NoError(f.t, f.db.QueryRow(f.t.Context(), sql, args...).Scan(&s))
	return s
}

// TestAPITokensPageShowsScopeCreatorAndLastUse: each row of the tokens
// page says what the token may do, who made it, and when it was last used:
// never until a request carries it, then the instant of that request.
func TestAPITokensPageShowsScopeCreatorAndLastUse(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	res := admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"crm"}, "scope": {"write"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	token := between(t, res.Body, `id="api-token-value">`, "<")
	id := strconv.FormatInt(int64(f.count(`SELECT id FROM api_tokens WHERE name = 'crm'`)), 10)
	cells := func() []htmlNode {
		t.Helper()
		page := admin.get("/orgs/acme/settings/api-tokens")
		require.Equal(t, http.StatusOK, page.Code, page.Body)
		row := parseDoc(t, page.Body).find(attrIs("data-token-id", id))
		require.NotNil(t, row, page.Body)
		require.Equal(t, "write", row.find(attrIs("data-scope", "write")).attr("data-scope"), "its scope")
		tds := row.findAll(tagIs("td"))
		require.Len(t, tds, 4)
		require.Contains(t, tds[1].text(), f.adminA.Email, "its creator")
		return tds
	}
	require.Equal(t, "never", strings.ToLower(cells()[2].text()))

	f.advance(3 * time.Hour)
	require.Equal(t, http.StatusOK, f.api(token).Get("/api/v1/org").Code)
	used := cells()[2]
	require.NotContains(t, strings.ToLower(used.text()), "never")
	require.Equal(t, f.clock.Now().UTC().Format(time.RFC3339), used.find(tagIs("time")).attr("datetime"), "the instant of its last request")
}
