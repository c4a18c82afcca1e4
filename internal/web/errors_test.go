package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/httpkit"
)

// A failure on our side shows a member a plain message and the request id
// to quote (the same as the X-Request-Id header and the log line), never
// the database's own words; for htmx requests too.
func TestInternalErrorsShowAPlainMessageAndRequestID(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberA)
	_, err := f.db.Exec(context.Background(), `ALTER TABLE ff_briefings RENAME TO ff_briefings_gone`)
	require.NoError(t, err)

	for _, c := range []*client{c, c.htmx()} {
		res := c.get("/orgs/acme/briefings")
		require.Equal(t, http.StatusInternalServerError, res.Code)
		id := res.Header.Get("X-Request-Id")
		require.NotEmpty(t, id)
		require.Contains(t, res.Body, "Something went wrong on our side")
		require.Contains(t, res.Body, "Request id: "+id)
		for _, raw := range []string{"ff_briefings", "relation", "SQLSTATE", "does not exist", "42P01"} {
			require.NotContains(t, res.Body, raw)
		}
	}
}

// Error pages are in the layout, say what happened in words and offer a way
// back: to the org when the person is its member, else to the start (or to
// sign in). No internal message reaches them.
func TestErrorPagesInWords(t *testing.T) {
	t.Parallel()
	f := setup(t)
	member, staff, anon := f.as(&f.memberA), f.as(&f.staff), f.anon()
	for _, tc := range []struct {
		c      *client
		method string
		path   string
		status int
		want   []string
	}{
		{member, "GET", "/orgs/bergmann/briefings", 404, []string{"<h1 id=\"error-title\">Page not found</h1>", "We could not find that page.", `<a href="/">Back to the start</a>`}},
		{member, "GET", "/orgs/globex/briefings", 404, []string{"We could not find that page.", `<a href="/">Back to the start</a>`}},
		{member, "GET", "/orgs/acme/nothing-here", 404, []string{"We could not find that page.", `<a href="/orgs/acme/briefings">Back to Acme Field Services</a>`}},
		{member, "GET", "/orgs/acme/briefings/2031-01-01", 404, []string{"There is no briefing for 2031-01-01.", "Back to Acme Field Services"}},
		{anon, "GET", "/no/such/page", 404, []string{"Page not found", `<a href="/login">Sign in</a>`}},
		{member, "GET", "/staff/flags", 403, []string{"<h1 id=\"error-title\">No access</h1>", "The staff console is for platform staff only."}},
		{staff, "POST", "/staff/flags/no.such.flag", 404, []string{"We could not find that page."}},
		{anon, "PUT", "/login", 405, []string{"Not possible here", "This address does not take that kind of request."}},
	} {
		var res response
		if tc.method == "POST" {
			res = tc.c.post(tc.path, url.Values{"enabled": {"on"}, "reason": {"x"}})
		} else {
			res = tc.c.do(tc.method, tc.path, nil)
		}
		name := tc.method + " " + tc.path
		require.Equal(t, tc.status, res.Code, name)
		require.Contains(t, res.Body, `<header class="topbar">`, "%s: in the layout", name)
		require.Contains(t, res.Body, `<link rel="icon" href="/static/favicon.svg"`, name)
		for _, w := range tc.want {
			require.Contains(t, res.Body, w, name)
		}
		for _, raw := range []string{`no org`, `bergmann`, `no flag`, "Not Found", "Method Not Allowed"} {
			require.NotContains(t, res.Body, raw, name)
		}
	}

	// htmx gets the words alone; the API keeps its JSON.
	res := member.htmx().get("/orgs/globex/briefings")
	require.Equal(t, http.StatusNotFound, res.Code)
	require.Equal(t, "We could not find that page. Check the address, or go back and follow a link from there.", res.Body)
	res = anon.get("/api/v1/nothing")
	require.Equal(t, http.StatusNotFound, res.Code)
	require.Contains(t, res.Header.Get("Content-Type"), "application/json")
	require.Contains(t, res.Body, `"error":{"code":`)
}

func TestFavicon(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	for path, typ := range map[string]string{"/static/favicon.svg": "image/svg+xml", "/static/favicon.png": "image/png"} {
		res := c.get(path)
		require.Equal(t, http.StatusOK, res.Code, path)
		require.Equal(t, typ, res.Header.Get("Content-Type"), path)
		require.Equal(t, "public, max-age=86400", res.Header.Get("Cache-Control"), path)
		require.NotEmpty(t, res.Body)
	}
	require.Contains(t, c.get("/login").Body, `<link rel="icon" href="/static/favicon.png" type="image/png" sizes="32x32">`)
}

// One place decides what a person reads of an error: an application
// error's own message, written for people; else the words for its status.
// Nothing is guessed from a message's text.
func TestMessageOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{apperr.Errorf(apperr.NotFound, "There is no briefing for 2031-01-01."), "There is no briefing for 2031-01-01."},
		{apperr.Detailf(apperr.NotFound, "no org %q", "bergmann"), "fallback"},
		{apperr.Errorf(apperr.Conflict, "lower case is fine: it was written to be shown"), "lower case is fine: it was written to be shown"},
		{echo.ErrNotFound, "fallback"},
		{errors.New(`relation "ff_briefings" does not exist`), apperr.InternalMessage},
		{fmt.Errorf("wrapped: %w", apperr.Errorf(apperr.Internal, "no detail for people")), apperr.InternalMessage},
	} {
		require.Equal(t, tc.want, httpkit.MessageOf(tc.err, "fallback"), tc.err.Error())
	}
}

// A refusal that says how long it lasts (apperr.Throttled) is a 429 with
// Retry-After in whole seconds, rounded up, and its wait in words; on a
// page, for htmx and in the API alike.
func TestThrottledSaysWhenInWordsAndRetryAfter(t *testing.T) {
	t.Parallel()
	f := setup(t)
	refuse := func(echo.Context) error {
		return apperr.Throttled(12*time.Minute+300*time.Millisecond, "You can generate again in 13 minutes.")
	}
	f.srv.echo.GET("/test-throttled", refuse)
	f.srv.echo.GET("/api/v1/test-throttled", refuse)
	for _, r := range []response{f.anon().get("/test-throttled"), f.anon().htmx().get("/test-throttled"), f.anon().get("/api/v1/test-throttled")} {
		require.Equal(t, http.StatusTooManyRequests, r.Code)
		require.Equal(t, "721", r.Header.Get("Retry-After"))
		require.Contains(t, r.Body, "You can generate again in 13 minutes.")
	}
}
