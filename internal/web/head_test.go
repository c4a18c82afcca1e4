package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHeadWhereverGet: HEAD answers like GET, headers and status, with no
// body, on every GET route (monitors and link checkers use it).
func TestHeadWhereverGet(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seedBriefings(t, f)
	staff := f.as(&f.staff)
	for _, r := range f.srv.echo.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		path := concrete(r.Path)
		if path == "/static*" {
			path = "/static/app.css"
		}
		get, head := staff.get(path), staff.do(http.MethodHead, path, nil)
		require.Equal(t, get.Code, head.Code, "HEAD %s", path)
		require.Equal(t, get.Header.Get("Content-Type"), head.Header.Get("Content-Type"), "HEAD %s", path)
		require.Empty(t, head.Body, "HEAD %s", path)
		requireSecurityHeaders(t, "HEAD "+path, head)
	}
	require.Equal(t, http.StatusSeeOther, f.anon().do(http.MethodHead, "/", nil).Code)
	require.Equal(t, http.StatusMethodNotAllowed, f.anon().do(http.MethodHead, "/logout", nil).Code)
}

// TestStaticDirectoryIsNotFound: the static directory itself is a 404,
// not a redirect that the trailing-slash rule sends back (a loop).
func TestStaticDirectoryIsNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	for _, path := range []string{"/static/", "/static", "/static//"} {
		require.Equal(t, http.StatusNotFound, c.get(path).Code, path)
	}
	require.Equal(t, http.StatusOK, c.get("/static/app.css").Code)
}
