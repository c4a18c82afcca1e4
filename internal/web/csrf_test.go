package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"fieldbrief/internal/httpkit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

// fingerprint digests every application table, so "nothing changed" is
// checked across the whole database, not table by table.
func fingerprint(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	ctx := context.Background()
	// A partitioned table's digest covers its partitions' rows.
	rows, err := f.db.Query(ctx, `
		SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'goose_db_version'
		 ORDER BY 1`)
	require.NoError(t, err)
	var tables []string
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		tables = append(tables, name)
	}
	require.NoError(t, rows.Err())
	out := map[string]string{}
	for _, table := range tables {
		var digest string
		require.NoError(t, f.db.QueryRow(ctx,
			`SELECT coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM `+table+` t`).Scan(&digest))
		out[table] = digest
	}
	return out
}

// TestEveryWriteNeedsTheCSRFToken walks every non-GET route as each
// signed-in person allowed to use it (and, on public routes, also as an
// anonymous browser that saw the sign-in form), with a valid form but no
// (or a bad) token: 403 once the access checks pass, and not one row
// anywhere changes. Browsers' Sec-Fetch-Site does not stand in for the
// token. (TestRouteMatrix covers those the access checks turn away.)
func TestEveryWriteNeedsTheCSRFToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seedBriefings(t, f)
	anon, memberA, adminA, staff := f.as(nil), f.as(&f.memberA), f.as(&f.adminA), f.as(&f.staff)
	anon.get("/login") // holds a CSRF cookie, like a browser that saw the form
	before := fingerprint(t, f)

	routes := 0
	for _, r := range f.srv.echo.Routes() {
		if r.Method == http.MethodGet || r.Method == echo.RouteNotFound || strings.HasPrefix(r.Path, "/static") {
			continue
		}
		if csrfExempt(r.Method, r.Path) {
			continue
		}
		g, ok := routeAccess(r.Method, r.Path)
		require.True(t, ok, "route %s %s is in no access group", r.Method, r.Path)
		var users []*client
		switch g {
		case public:
			users = []*client{anon, memberA, adminA, staff}
		case signedIn:
			users = []*client{memberA, adminA, staff}
		case member:
			users = []*client{memberA, adminA}
		case admin:
			users = []*client{adminA}
		case staffOnly:
			users = []*client{staff}
		}
		routes++
		path := concrete(r.Path)
		form := plausibleForm(f)
		for _, c := range users {
			for name, attempt := range map[string]func() response{
				"no token":                  func() response { return c.postNoCSRF(path, form) },
				"no token, same-origin":     func() response { return c.with("Sec-Fetch-Site", "same-origin").postNoCSRF(path, form) },
				"no token, fetch site none": func() response { return c.with("Sec-Fetch-Site", "none").postNoCSRF(path, form) },
				"no token, htmx":            func() response { return c.htmx().postNoCSRF(path, form) },
				"wrong token": func() response {
					bad := plausibleForm(f)
					bad.Set("_csrf", "not-the-token")
					return c.postNoCSRF(path, bad)
				},
				"wrong header":          func() response { return c.with(httpkit.CSRFHeader, "not-the-token").postNoCSRF(path, form) },
				"cross-site with token": func() response { return c.with("Sec-Fetch-Site", "cross-site").post(path, form) },
				"same-site with token":  func() response { return c.with("Sec-Fetch-Site", "same-site").post(path, form) },
			} {
				res := attempt()
				require.Equal(t, http.StatusForbidden, res.Code, "%s %s (%s): %s", r.Method, path, name, res.Body)
			}
		}
	}
	require.Greater(t, routes, 5)
	require.Equal(t, before, fingerprint(t, f), "a request without a valid token changed the database")
}

// TestTokenWorksAsFieldAndHeader: the same token is accepted from the
// _csrf form field and from the X-CSRF-Token header htmx sends, and pages
// expose the real token (not echo's Sec-Fetch-Site placeholder).
func TestTokenWorksAsFieldAndHeader(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	page := c.with("Sec-Fetch-Site", "same-origin").get("/staff/flags")
	token := c.csrfToken()
	require.NotEmpty(t, token)
	require.Contains(t, page.Body, `name="_csrf" value="`+token+`"`)
	require.Contains(t, page.Body, `&#34;X-CSRF-Token&#34;:&#34;`+token+`&#34;`)

	res := c.with(httpkit.CSRFHeader, token).htmx().postNoCSRF("/staff/orgs/acme/flags/fieldforce.briefing", map[string][]string{"state": {"off"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	res = c.post("/staff/orgs/acme/flags/fieldforce.briefing", map[string][]string{"state": {"on"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
}

// TestTokenNeverFromTheQueryString: a token in the URL leaks through logs,
// history and Referer, so a write carrying it only there is refused.
func TestTokenNeverFromTheQueryString(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	token := c.csrfToken()
	require.NotEmpty(t, token)
	before := fingerprint(t, f)
	res := c.postNoCSRF("/staff/orgs/acme/flags/fieldforce.briefing?_csrf="+token, map[string][]string{"state": {"off"}})
	require.Equal(t, http.StatusForbidden, res.Code, res.Body)
	res = c.postNoCSRF("/logout?_csrf="+token, map[string][]string{})
	require.Equal(t, http.StatusForbidden, res.Code, res.Body)
	require.Equal(t, before, fingerprint(t, f))
	// The form field still works with a query string beside it.
	res = c.post("/staff/orgs/acme/flags/fieldforce.briefing?_csrf=nonsense", map[string][]string{"state": {"off"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
}

// TestTokenRotatesAtSignInAndOut: the token a browser held before signing
// in (which someone else may have planted or read) is worthless after, and
// signing out starts a fresh one too.
func TestTokenRotatesAtSignInAndOut(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	c.get("/login")
	anonToken := c.csrfToken()
	require.NotEmpty(t, anonToken)
	c.login(f.staff.Email, testPassword)
	signedIn := c.csrfToken()
	require.NotEmpty(t, signedIn)
	require.NotEqual(t, anonToken, signedIn, "sign-in rotates the token")

	old := c.with(httpkit.CSRFHeader, anonToken).htmx()
	res := old.postNoCSRF("/staff/orgs/acme/flags/fieldforce.briefing", map[string][]string{"state": {"off"}})
	require.Equal(t, http.StatusForbidden, res.Code, "the pre-sign-in token no longer works")
	page := c.get("/staff/flags")
	require.Contains(t, page.Body, `name="_csrf" value="`+signedIn+`"`)

	require.Equal(t, http.StatusSeeOther, c.post("/logout", nil).Code)
	require.NotEmpty(t, c.csrfToken())
	require.NotEqual(t, signedIn, c.csrfToken(), "sign-out rotates the token")
}
