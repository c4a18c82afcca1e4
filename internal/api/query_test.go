package api

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/tokens"
)

// A list's query is read whole or refused (docs/api.md, "GET
// /api/v1/jobs": an unknown parameter is a 400 naming it): a pair Go's
// query parser cannot read (a semicolon, a bad percent escape) was dropped
// without a word, so the list answered 200 without the filter the client
// sent, every job of the org where it asked for one technician's or one
// status.
func TestAPIListRefusesAQueryItCannotRead(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	for _, ref := range []string{"J-1", "J-2"} {
		require.Equal(t, http.StatusCreated, api.Put("/api/v1/jobs/"+ref, map[string]any{"customer": ref,
			"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00", "status": map[string]string{"J-1": "done", "J-2": "scheduled"}[ref]}).Code)
	}
	for _, q := range []string{
		"/api/v1/jobs?status=done;x=1",
		"/api/v1/jobs?status=done&technician_ref=T%zz",
		"/api/v1/jobs?status%=done",
		"/api/v1/technicians?updated_since=2026-03-01T00:00:00Z;limit=1",
	} {
		r := api.Get(q)
		apitest.RequireError(t, r, http.StatusBadRequest, "bad_request")
	}
	// What it can read still lists.
	r := api.Get("/api/v1/jobs?status=done")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, []string{"J-1"}, customers(t, r))
}

// Every write the API routes, whatever its path or method, is refused to a
// read-only token (docs/api.md, "Tokens"), the by-id paths included: the
// routes are walked, so a write added later without apiWrites fails here.
func TestAPIReadOnlyTokenWritesNothingOnAnyRoute(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, read, err := f.store.Tokens.Create(context.Background(), audit.Actor{Email: "admin@acme.test"}, f.orgA.ID, "reports", tokens.ScopeRead, f.clock.Now())
	require.NoError(t, err)
	ro := f.api(read)
	writes := 0
	for _, rt := range f.echo.Routes() {
		if !strings.HasPrefix(rt.Path, "/api/") || rt.Method == http.MethodGet {
			continue
		}
		path := strings.NewReplacer(":ref", "R-1", ":id", "4503599627370497", ":date", "2026-03-09").Replace(rt.Path)
		ct := "application/json"
		if rt.Method == http.MethodPatch {
			ct = mergePatch
		}
		r := ro.Call(rt.Method, path, `{}`, "Content-Type", ct)
		apitest.RequireError(t, r, http.StatusForbidden, "insufficient_scope")
		writes++
	}
	require.GreaterOrEqual(t, writes, 9, "the API's writes were walked")
}

// Cursors are the client's to hold, so a hostile one forges them: garbage,
// JSON that is no cursor, one made for another query, one another org's
// token was given, and one whose key and horizon are made up (its query
// key computed as the server does). None reaches past the token's org, none
// is a 500: a cursor only says where in the org's own list to start.
func TestAPIForgedCursorsStayInTheOrg(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a, b := f.api(f.newToken(f.orgA, "sync")), f.api(f.newToken(f.orgB, "sync"))
	for i, api := range []*apitest.Client{a, b, a, b} {
		require.Equal(t, http.StatusCreated, api.Put(fmt.Sprintf("/api/v1/jobs/J-%d", i), map[string]any{"customer": fmt.Sprintf("org%d-%d", i%2, i),
			"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"}).Code)
	}
	const list = "/api/v1/jobs?updated_since=2026-01-01T00:00:00Z&limit=1"
	key := queryKey("/api/v1/jobs", url.Values{"updated_since": {"2026-01-01T00:00:00Z"}})
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []string{"!!!", enc("null"), enc("[1]"), enc(`{"q":"` + key + `","i":-5}`), enc(`{"q":"other","i":1}`),
		enc(`{"q":"` + key + `","a":"yesterday","i":1}`), enc(`{"q":"` + key + `","i":1e30}`)} {
		fields := apitest.RequireError(t, a.Get(list+"&cursor="+url.QueryEscape(c)), http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, fields, "cursor", c)
	}
	// Org B's cursor, and made-up keys and horizons: org A's jobs only.
	bNext, _ := b.Get(list).JSON["next_cursor"].(string)
	require.NotEmpty(t, bNext)
	for _, c := range []string{bNext,
		enc(`{"q":"` + key + `","a":"0001-01-01T00:00:00Z","i":1,"h":"9999-12-31T23:59:59Z"}`),
		enc(`{"q":"` + key + `","a":"2026-01-01T00:00:00Z","i":9007199254740991,"h":"0001-01-01T00:00:01Z"}`)} {
		p := "/api/v1/jobs?updated_since=2026-01-01T00:00:00Z&limit=500&cursor=" + url.QueryEscape(c)
		for _, name := range customers(t, a.Get(p)) {
			require.True(t, strings.HasPrefix(name, "org0-"), "%s read through cursor %s", name, c)
		}
	}
}
