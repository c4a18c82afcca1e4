package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/tokens"
)

// GET /api/v1/org: whose records a token reaches, the zone local times are
// read in, the token's scope and the limits it will meet.
func TestAPIOrgSaysWhatAnIntegrationMeets(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setZone(f.orgA, "Europe/Berlin")
	r := f.api(f.newToken(f.orgA, "crm")).Get("/api/v1/org")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, f.orgA.Slug, r.JSON["slug"])
	require.Equal(t, f.orgA.Name, r.JSON["name"])
	require.Equal(t, "Europe/Berlin", r.JSON["timezone"])
	require.Equal(t, "en-US", r.JSON["locale"])
	require.Equal(t, map[string]any{"name": "crm", "scope": "write"}, r.JSON["token"])
	limits := r.JSON["limits"].(map[string]any)
	require.Equal(t, float64(maxAPIBody), limits["body_bytes"])
	require.Equal(t, float64(apiMaxJobPage), limits["jobs_per_page"])
	require.Positive(t, limits["requests_per_second"])
	require.Equal(t, r.Header.Get("X-RateLimit-Limit"), strconv.Itoa(int(limits["burst"].(float64))))

	// Another org's token reads its own org.
	r = f.api(f.newToken(f.orgB, "crm")).Get("/api/v1/org")
	require.Equal(t, f.orgB.Slug, r.JSON["slug"])
}

// Every answer says where the token stands; the request that empties the
// bucket is still served, the next is a 429 that keeps Retry-After.
func TestAPIRateLimitHeaders(t *testing.T) {
	t.Parallel()
	f := setupDeps(t, func(d *Deps) { d.Rate, d.Burst = 1, 3 })
	api := f.api(f.newToken(f.orgA, "poller"))
	for i, left := range []string{"2", "1", "0"} {
		r := api.Get("/api/v1/technicians")
		require.Equal(t, http.StatusOK, r.Code, "request %d", i)
		require.Equal(t, "3", r.Header.Get("X-RateLimit-Limit"))
		require.Equal(t, left, r.Header.Get("X-RateLimit-Remaining"), "request %d", i)
		require.NotEmpty(t, r.Header.Get("X-RateLimit-Reset"))
	}
	r := api.Get("/api/v1/technicians")
	apitest.RequireError(t, r, http.StatusTooManyRequests, "rate_limited")
	require.Equal(t, "0", r.Header.Get("X-RateLimit-Remaining"))
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	require.Equal(t, "3", r.Header.Get("X-RateLimit-Reset"), "three requests at one a second refill the bucket")
}

// A 412 names the record's current ETag, in its header and in the error.
func TestAPIPreconditionFailedNamesTheCurrentETag(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	first := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana"}).Header.Get("ETag")
	now := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Bo"}).Header.Get("ETag")
	r := api.Call(http.MethodPut, "/api/v1/technicians/T-1", map[string]any{"name": "Cy"}, "If-Match", first)
	apitest.RequireError(t, r, http.StatusPreconditionFailed, "precondition_failed")
	require.Equal(t, now, r.Header.Get("ETag"))
	require.Equal(t, now, r.JSON["error"].(map[string]any)["etag"])
}

// A read-only token reads and writes nothing (403 insufficient_scope,
// before its body is read); the page and the command make either kind, and
// the page shows each token's scope.
func TestAPITokenScopes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	_, read, err := f.store.Tokens.Create(ctx, audit.Actor{Email: "admin@acme.test"}, f.orgA.ID, "reports", tokens.ScopeRead, f.clock.Now())
	require.NoError(t, err)
	ro, rw := f.api(read), f.api(f.newToken(f.orgA, "sync"))
	require.Equal(t, http.StatusCreated, rw.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana"}).Code)

	require.Equal(t, http.StatusOK, ro.Get("/api/v1/technicians/T-1").Code)
	require.Equal(t, http.StatusOK, ro.Get("/api/v1/jobs?date=2026-03-09").Code)
	for _, c := range []struct{ method, path, ct, body string }{
		{http.MethodPut, "/api/v1/technicians/T-1", "application/json", `{"name": "Bo"}`},
		{http.MethodPatch, "/api/v1/technicians/T-1", mergePatch, `{"name": "Bo"}`},
		{http.MethodDelete, "/api/v1/technicians/T-1", "", ""},
		{http.MethodPut, "/api/v1/jobs/J-1", "application/json", `{"customer": "x"}`},
		{http.MethodPatch, "/api/v1/jobs/J-1", mergePatch, `{"customer": "x"}`},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		r := ro.Call(c.method, c.path, body, "Content-Type", c.ct)
		apitest.RequireError(t, r, http.StatusForbidden, "insufficient_scope")
	}
	require.Equal(t, "Ana", f.text(`SELECT name FROM technicians WHERE external_ref = 'T-1'`))
	require.Zero(t, f.count(`SELECT count(*) FROM jobs`))

}

// Records without a reference are reached by id, with the same methods and
// version checks; a reference is attached once (and then its path works),
// never changed, never taken from another record; another org's id is 404.
func TestAPIRecordsByID(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	api := f.api(f.newToken(f.orgA, "sync"))
	var tech, job, otherJob int64
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO technicians (org_id, name) VALUES ($1, 'Screen Sam') RETURNING id`, f.orgA.ID).Scan(&tech))
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO jobs (org_id, customer, arrival_start, arrival_end, technician_id, status, notes)
		VALUES ($1, 'Walk-in', '2026-03-09T16:00Z', '2026-03-09T17:00Z', $2, 'done', 'Fixed') RETURNING id`, f.orgA.ID, tech).Scan(&job))
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO jobs (org_id, customer, arrival_start, arrival_end)
		VALUES ($1, 'Globex walk-in', '2026-03-09T16:00Z', '2026-03-09T17:00Z') RETURNING id`, f.orgB.ID).Scan(&otherJob))
	jp := fmt.Sprintf("/api/v1/jobs/by-id/%d", job)
	patch := func(path, body string, headers ...string) apitest.Response {
		return api.Call(http.MethodPatch, path, body, append([]string{"Content-Type", mergePatch}, headers...)...)
	}

	r := api.Get(jp)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, float64(job), r.JSON["id"])
	tag := r.Header.Get("ETag")

	// A patch changes what it names: the field's work stays.
	r = patch(jp, `{"address": "3 Main St"}`, "If-Match", tag)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "done", r.JSON["status"])
	require.Equal(t, "Fixed", r.JSON["notes"])
	require.Equal(t, float64(tech), r.JSON["technician_id"])
	apitest.RequireError(t, patch(jp, `{"address": "4 Main St"}`, "If-Match", tag), http.StatusPreconditionFailed, "precondition_failed")

	// A reference, once: then the /{ref} path reaches it; never changed or removed.
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/jobs/J-TAKEN", map[string]any{"customer": "x",
		"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"}).Code)
	fields := apitest.RequireError(t, patch(jp, `{"external_ref": "J-TAKEN"}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "external_ref")
	r = patch(jp, `{"external_ref": "J-7"}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "J-7", r.JSON["external_ref"])
	require.Equal(t, "3 Main St", api.Get("/api/v1/jobs/J-7").JSON["address"])
	apitest.RequireError(t, patch(jp, `{"external_ref": "J-8"}`), http.StatusUnprocessableEntity, "invalid")
	apitest.RequireError(t, patch(jp, `{"external_ref": null}`), http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, "J-7", f.text(`SELECT external_ref FROM jobs WHERE id = $1`, job))

	// PUT by id replaces (and never creates); the technician likewise, and a delete.
	r = api.Put(jp, map[string]any{"customer": "Walk-in", "arrival_start": "2026-03-09T10:00", "arrival_end": "2026-03-09T11:00"})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "J-7", r.JSON["external_ref"], "a PUT without external_ref keeps the reference")
	require.Equal(t, "scheduled", r.JSON["status"])
	tp := fmt.Sprintf("/api/v1/technicians/by-id/%d", tech)
	r = patch(tp, `{"phone": "+1 555 0100"}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "Screen Sam", r.JSON["name"])
	require.Equal(t, 0, f.count(`SELECT count(*) FROM jobs WHERE technician_id = $1`, tech), "the PUT left the job unassigned")
	r = api.Call(http.MethodDelete, tp, nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, float64(tech), r.JSON["id"])
	apitest.RequireError(t, api.Get(tp), http.StatusNotFound, "not_found")

	// Another org's ids, and ids nobody has, are 404 alike, whatever the method.
	for _, path := range []string{fmt.Sprintf("/api/v1/jobs/by-id/%d", otherJob), "/api/v1/jobs/by-id/4503599627370496", "/api/v1/jobs/by-id/x"} {
		apitest.RequireError(t, api.Get(path), http.StatusNotFound, "not_found")
		apitest.RequireError(t, patch(path, `{"notes": "mine"}`), http.StatusNotFound, "not_found")
		apitest.RequireError(t, api.Put(path, map[string]any{"customer": "mine", "arrival_start": "2026-03-09T10:00", "arrival_end": "2026-03-09T11:00"}),
			http.StatusNotFound, "not_found")
	}
	require.Equal(t, "Globex walk-in", f.text(`SELECT customer FROM jobs WHERE id = $1`, otherJob))
}
