package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
		require.Equal(t, http.StatusCreated, api.put("/api/v1/jobs/"+ref, map[string]any{"customer": ref,
			"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00", "status": map[string]string{"J-1": "done", "J-2": "scheduled"}[ref]}).Code)
	}
	for _, q := range []string{
		"/api/v1/jobs?status=done;x=1",
		"/api/v1/jobs?status=done&technician_ref=T%zz",
		"/api/v1/jobs?status%=done",
		"/api/v1/technicians?updated_since=2026-03-01T00:00:00Z;limit=1",
	} {
		r := api.get(q)
		requireAPIError(t, r, http.StatusBadRequest, "bad_request")
	}
	// What it can read still lists.
	r := api.get("/api/v1/jobs?status=done")
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
	for _, rt := range f.srv.echo.Routes() {
		if !strings.HasPrefix(rt.Path, "/api/") || rt.Method == http.MethodGet {
			continue
		}
		path := strings.NewReplacer(":ref", "R-1", ":id", "4503599627370497", ":date", "2026-03-09").Replace(rt.Path)
		ct := "application/json"
		if rt.Method == http.MethodPatch {
			ct = mergePatch
		}
		r := ro.call(rt.Method, path, `{}`, "Content-Type", ct)
		requireAPIError(t, r, http.StatusForbidden, "insufficient_scope")
		writes++
	}
	require.GreaterOrEqual(t, writes, 9, "the API's writes were walked")
}
