package api

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

// If-None-Match: * on PUT creates only (docs/api.md, "Syncing from another
// system"): a reference that exists is a 412 carrying its ETag, and
// nothing changes; of many create-only PUTs of one new reference at once,
// exactly one creates it.
func TestAPIIfNoneMatchStarCreatesOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	createOnly := func(path string, body map[string]any) apitest.Response {
		return api.Call(http.MethodPut, path, body, "If-None-Match", "*")
	}

	job := map[string]any{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"}
	r := createOnly("/api/v1/jobs/J-1", job)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "/api/v1/jobs/J-1", r.Header.Get("Location"))
	tag := r.Header.Get("ETag")

	job["customer"] = "Someone else"
	r = createOnly("/api/v1/jobs/J-1", job)
	apitest.RequireError(t, r, http.StatusPreconditionFailed, "precondition_failed")
	require.Equal(t, tag, r.Header.Get("ETag"), "a 412 carries the record's ETag")
	require.Equal(t, "Mrs Jones", f.text(`SELECT customer FROM jobs WHERE external_ref = 'J-1'`))
	require.Equal(t, 1, f.count(`SELECT version FROM jobs WHERE external_ref = 'J-1'`))

	// A technician the same way, and an ETag list fails only on a match.
	r = createOnly("/api/v1/technicians/T-1", map[string]any{"name": "Ana"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "/api/v1/technicians/T-1", r.Header.Get("Location"))
	techTag := r.Header.Get("ETag")
	apitest.RequireError(t, createOnly("/api/v1/technicians/T-1", map[string]any{"name": "Bo"}), http.StatusPreconditionFailed, "precondition_failed")
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/technicians/T-1", map[string]any{"name": "Bo"}, "If-None-Match", techTag),
		http.StatusPreconditionFailed, "precondition_failed")
	require.Equal(t, "Ana", f.text(`SELECT name FROM technicians WHERE external_ref = 'T-1'`))
	r = api.Call(http.MethodPut, "/api/v1/technicians/T-1", map[string]any{"name": "Bo"}, "If-None-Match", `"1-1"`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Empty(t, r.Header.Get("Location"), "only a created record has a Location")

	// Eight at once: one 201, seven 412, one job.
	codes := make([]int, 8)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			codes[i] = createOnly("/api/v1/jobs/J-RACE", map[string]any{"customer": fmt.Sprintf("client %d", i),
				"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"}).Code
		})
	}
	wg.Wait()
	created := 0
	for _, c := range codes {
		require.Contains(t, []int{http.StatusCreated, http.StatusPreconditionFailed}, c)
		if c == http.StatusCreated {
			created++
		}
	}
	require.Equal(t, 1, created, "%v", codes)
	require.Equal(t, 1, f.count(`SELECT version FROM jobs WHERE external_ref = 'J-RACE'`), "a create-only PUT changed the record another made")
}

// A merge patch sent with PUT would be read as a whole record and reset
// every member it leaves out: 415, nothing changed.
func TestAPIPutRefusesAMergePatch(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	r := api.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones", "notes": "Gate code 4411",
		"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00", "status": "done"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	r = api.Call(http.MethodPut, "/api/v1/jobs/J-1", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"}`,
		"Content-Type", mergePatch)
	apitest.RequireError(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
	require.Contains(t, r.JSON["error"].(map[string]any)["message"], "PATCH")
	require.Equal(t, "done Gate code 4411 1", f.text(`SELECT status || ' ' || notes || ' ' || version FROM jobs WHERE external_ref = 'J-1'`))
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/technicians/T-1", `{"name": "Ana"}`, "Content-Type", mergePatch),
		http.StatusUnsupportedMediaType, "unsupported_media_type")
	require.Zero(t, f.count(`SELECT count(*) FROM technicians WHERE external_ref = 'T-1'`))
}

// PATCH of a reference nobody has creates it from a whole record (201,
// Location, ETag); a patch that is not whole is a 404 naming what is
// missing, and If-Match on it a 412; nothing is made by either.
func TestAPIPatchCreatesFromAWholeRecord(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setZone(f.orgA, "America/New_York")
	api := f.api(f.newToken(f.orgA, "sync"))
	patch := func(path, body string, headers ...string) apitest.Response {
		return api.Call(http.MethodPatch, path, body, append([]string{"Content-Type", mergePatch}, headers...)...)
	}

	fields := apitest.RequireError(t, patch("/api/v1/jobs/J-1", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00"}`),
		http.StatusNotFound, "not_found")
	require.Empty(t, fields)
	r := patch("/api/v1/jobs/J-1", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": null}`)
	require.Contains(t, r.JSON["error"].(map[string]any)["message"], "arrival_end")
	apitest.RequireError(t, patch("/api/v1/jobs/J-1", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"}`,
		"If-Match", "*"), http.StatusPreconditionFailed, "precondition_failed")
	require.Zero(t, f.count(`SELECT count(*) FROM jobs`))

	r = patch("/api/v1/jobs/J-1", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00", "notes": "Side door"}`)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "/api/v1/jobs/J-1", r.Header.Get("Location"))
	require.Regexp(t, `^"\d+-1"$`, r.Header.Get("ETag"))
	require.Equal(t, "scheduled", r.JSON["status"])
	require.Equal(t, "Side door", r.JSON["notes"])
	require.Equal(t, "2026-03-09T08:00:00-04:00", r.JSON["arrival_start"])

	// The same patch again changes nothing and creates nothing.
	r = patch("/api/v1/jobs/J-1", `{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00", "notes": "Side door"}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, float64(1), r.JSON["version"])

	// A technician needs its name; If-None-Match: * on a PATCH creates only.
	apitest.RequireError(t, patch("/api/v1/technicians/T-1", `{"phone": "1"}`), http.StatusNotFound, "not_found")
	r = patch("/api/v1/technicians/T-1", `{"name": "Ana", "phone": "1"}`, "If-None-Match", "*")
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, true, r.JSON["active"])
	apitest.RequireError(t, patch("/api/v1/technicians/T-1", `{"name": "Bo"}`, "If-None-Match", "*"), http.StatusPreconditionFailed, "precondition_failed")
	require.Equal(t, "Ana", f.text(`SELECT name FROM technicians WHERE external_ref = 'T-1'`))

	// Another org's reference is not found, whole or not: each org has its own.
	b := f.api(f.newToken(f.orgB, "b"))
	r = b.Call(http.MethodPatch, "/api/v1/jobs/J-1", `{"notes": "mine"}`, "Content-Type", mergePatch)
	apitest.RequireError(t, r, http.StatusNotFound, "not_found")
	require.Equal(t, "Side door", f.text(`SELECT notes FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, f.orgA.ID))
}

// The nightly sync of docs/api.md: PATCH with the members the other system
// owns creates a new job and, on a job the field has worked since, changes
// those members and nothing else: status, notes and technician stay.
func TestAPINightlySyncKeepsTheFieldsWork(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "crm"))
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana"}).Code)
	sync := func(address string) apitest.Response {
		return api.Call(http.MethodPatch, "/api/v1/jobs/CRM-7", fmt.Sprintf(`{"customer": "Mrs Jones", "address": %q,
			"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"}`, address), "Content-Type", mergePatch)
	}
	require.Equal(t, http.StatusCreated, sync("12 Elm St").Code)

	// The field works the job: assigned, done, a note.
	r := api.Call(http.MethodPatch, "/api/v1/jobs/CRM-7", `{"technician_ref": "T-1", "status": "done", "notes": "Replaced the valve"}`,
		"Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, r.Code, r.Body)

	r = sync("14 Elm St")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "14 Elm St", r.JSON["address"])
	require.Equal(t, "done", r.JSON["status"])
	require.Equal(t, "Replaced the valve", r.JSON["notes"])
	require.Equal(t, "T-1", r.JSON["technician_ref"])
}

// GET with the ETag one holds: 304, no body, the tag again; after a change
// the record comes back.
func TestAPIGetAnswersNotModified(t *testing.T) {
	t.Parallel()
	f := setup(t)
	token := f.newToken(f.orgA, "poll")
	api := f.api(token)
	r := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana"})
	require.Equal(t, http.StatusCreated, r.Code)
	tag := r.Header.Get("ETag")
	getAt := func(path, etag string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, f.ts.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("If-None-Match", etag)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.NoError(t, res.Body.Close())
		return res
	}
	get := func(etag string) *http.Response { return getAt("/api/v1/technicians/T-1", etag) }
	res := get(tag)
	require.Equal(t, http.StatusNotModified, res.StatusCode)
	require.Equal(t, tag, res.Header.Get("ETag"))
	require.Equal(t, http.StatusNotModified, get("W/"+tag).StatusCode, "If-None-Match compares weakly")
	require.Equal(t, http.StatusOK, api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Bo"}).Code)
	res = get(tag)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotEqual(t, tag, res.Header.Get("ETag"))

	// A job too, by its reference and by its id.
	r = api.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	tag = r.Header.Get("ETag")
	for _, path := range []string{"/api/v1/jobs/J-1", fmt.Sprintf("/api/v1/jobs/by-id/%.0f", r.JSON["id"])} {
		res = getAt(path, tag)
		require.Equal(t, http.StatusNotModified, res.StatusCode, path)
		require.Equal(t, tag, res.Header.Get("ETag"), path)
		require.Equal(t, http.StatusOK, getAt(path, `"1-1"`).StatusCode, path)
	}
}
