package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRequestIDIsASafeToken: a client's X-Request-Id is kept only when it
// is a short token of safe characters; anything else is replaced by ours,
// so logs and responses never carry what a client made up.
func TestRequestIDIsASafeToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	safe := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	ok := f.anon().with("X-Request-Id", "lb-7f3a.9_Z").get("/healthz")
	require.Equal(t, "lb-7f3a.9_Z", ok.Header.Get("X-Request-Id"))
	for _, bad := range []string{strings.Repeat("a", 65), "<script>alert(1)</script>", "a b", "id\"; x=1", "é"} {
		res := f.anon().with("X-Request-Id", bad).get("/healthz")
		got := res.Header.Get("X-Request-Id")
		require.NotEqual(t, bad, got)
		require.Regexp(t, safe, got, "%q", bad)
	}
}

// TestZoneSearchQueryIsCapped: the picker searches at most the first
// places.MaxQuery (64) characters of q, whatever was sent.
func TestZoneSearchQueryIsCapped(t *testing.T) {
	t.Parallel()
	f := setup(t)
	long := strings.Repeat("x", 5000)
	res := f.as(&f.adminA).get(settingsPath + "/zones?q=" + long)
	require.Equal(t, http.StatusOK, res.Code)
	require.False(t, strings.Contains(res.Body, long[:65]), "the query is cut to 64 characters")
	require.Contains(t, res.Body, long[:64])
	res = f.as(&f.adminA).get(settingsPath + "/zones?q=" + url.QueryEscape(strings.Repeat(" ", 200)+"Paris"))
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, `data-zone="Europe/Paris"`, "spaces around the query do not count")
}
