package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSignInFromDeepLinkLandsThere: a signed-out visit of a page (the
// email's "Open the briefing") goes to the sign-in form, which comes back
// to that page, query and all, once signed in.
func TestSignInFromDeepLinkLandsThere(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, page := range []string{"/orgs/acme/briefings/2026-03-04", "/orgs/acme/jobs?status=on_hold&technician=1"} {
		c := f.anon()
		r := c.get(page)
		require.Equal(t, http.StatusSeeOther, r.Code, page)
		loc := r.Header.Get("Location")
		require.Equal(t, "/login?next="+url.QueryEscape(page), loc)

		form := c.get(loc)
		require.Equal(t, http.StatusOK, form.Code)
		require.Contains(t, form.Body, `<input type="hidden" name="next" value="`+strings.ReplaceAll(page, "&", "&amp;")+`">`)
		r = c.post("/login", url.Values{"email": {f.adminA.Email}, "password": {testPassword}, "next": {page}})
		require.Equal(t, http.StatusSeeOther, r.Code)
		require.Equal(t, page, r.Header.Get("Location"))

		// Signed in already, the form itself sends them on.
		r = c.get(loc)
		require.Equal(t, http.StatusSeeOther, r.Code)
		require.Equal(t, page, r.Header.Get("Location"))
	}

	// A wrong password keeps the way back in the form.
	c := f.anon()
	r := c.post("/login", url.Values{"email": {f.adminA.Email}, "password": {"wrong"}, "next": {"/orgs/acme/board"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, r.Body, `name="next" value="/orgs/acme/board"`)
}

// TestSignInNextIsLocalOnly: the way back is a path on this site and
// nothing else, whatever the request or the form says.
func TestSignInNextIsLocalOnly(t *testing.T) {
	t.Parallel()
	for target, want := range map[string]string{
		"/orgs/acme/briefings":          "/login?next=%2Forgs%2Facme%2Fbriefings",
		"/orgs/acme/%2F%2Fevil.example": "/login?next=%2Forgs%2Facme%2F%252F%252Fevil.example",
		"/":                             "/login",
		"/orgs/acme/" + strings.Repeat("x", maxNextLen): "/login",
	} {
		require.Equal(t, want, loginFor(httptest.NewRequest(http.MethodGet, target, nil)), target)
	}
	// Paths a browser would read as another host never come back; a
	// backslash comes back escaped, a path of this site.
	for raw, want := range map[string]string{
		"//evil.example/": "/login", "///evil.example": "/login", "/\\evil.example": "/login?next=%2F%255Cevil.example",
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL = &url.URL{Path: raw}
		require.Equal(t, want, loginFor(r), raw)
	}
	require.Equal(t, "/login", loginFor(httptest.NewRequest(http.MethodPost, "/orgs/acme/jobs", nil)), "a POST cannot be made again")

	f := setup(t)
	for next, want := range map[string]string{
		"/orgs/acme/board?date=2026-03-04": "/orgs/acme/board?date=2026-03-04",
		"///evil.example":                  "/",
		"/\\/evil.example":                 "/",
		"http:/evil.example":               "/",
		"https:evil.example":               "/",
		" /orgs/acme":                      "/",
		"/orgs\r\nSet-Cookie: x=1":         "/",
		"\\\\evil.example":                 "/",
		"%2F%2Fevil.example":               "/",
	} {
		c := f.anon()
		res := c.post("/login", url.Values{"email": {f.adminA.Email}, "password": {testPassword}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, res.Code, next)
		require.Equal(t, want, res.Header.Get("Location"), "next=%q", next)
	}
}
