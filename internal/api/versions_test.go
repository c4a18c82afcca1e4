package api

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

const mergePatch = "application/merge-patch+json"

// ETag and If-Match (docs/api.md, "Versions: ETag and If-Match"): a stale If-Match is 412 and
// nothing is saved; the current ETag and "*" work; without If-Match a PUT
// is last write wins.
func TestAPIIfMatchRefusesStaleWrites(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))

	r := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana", "phone": "1"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	first := r.Header.Get("ETag")
	require.Regexp(t, `^"\d+-1"$`, first)
	require.Equal(t, float64(1), r.JSON["version"])
	g := api.Get("/api/v1/technicians/T-1")
	require.Equal(t, first, g.Header.Get("ETag"))

	// Someone else changes the phone: the version moves on.
	r = api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana", "phone": "2"})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	second := r.Header.Get("ETag")
	require.NotEqual(t, first, second)
	require.Equal(t, float64(2), r.JSON["version"])

	// A write at the first version: 412, in the envelope, and nothing saved.
	for _, c := range []struct {
		method, ct string
		body       any
	}{
		{http.MethodPut, "application/json", map[string]any{"name": "Ana", "phone": "stale"}},
		{http.MethodPatch, mergePatch, `{"phone": "stale"}`},
		{http.MethodDelete, "", nil},
	} {
		headers := []string{"If-Match", first}
		if c.ct != "" {
			headers = append(headers, "Content-Type", c.ct)
		}
		r := api.Call(c.method, "/api/v1/technicians/T-1", c.body, headers...)
		apitest.RequireError(t, r, http.StatusPreconditionFailed, "precondition_failed")
		require.Equal(t, "2", f.text(`SELECT phone FROM technicians WHERE external_ref = 'T-1'`), c.method)
	}
	// A weak tag never matches; a list holding the current one does.
	apitest.RequireError(t, api.Call(http.MethodPatch, "/api/v1/technicians/T-1", `{"phone": "weak"}`,
		"Content-Type", mergePatch, "If-Match", "W/"+second), http.StatusPreconditionFailed, "precondition_failed")
	r = api.Call(http.MethodPatch, "/api/v1/technicians/T-1", `{"phone": "3"}`,
		"Content-Type", mergePatch, "If-Match", first+", "+second)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	third := r.Header.Get("ETag")
	require.Regexp(t, `^"\d+-3"$`, third)
	// "*" matches any version of a record that exists, and no record that does not.
	r = api.Call(http.MethodPut, "/api/v1/technicians/T-1", `{"name": "Ana", "phone": "4"}`, "If-Match", "*")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/technicians/T-2", `{"name": "Bo"}`, "If-Match", "*"),
		http.StatusPreconditionFailed, "precondition_failed")
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/technicians/T-2", `{"name": "Bo"}`, "If-Match", third),
		http.StatusPreconditionFailed, "precondition_failed")
	require.Zero(t, f.count(`SELECT count(*) FROM technicians WHERE external_ref = 'T-2'`))
	// Without If-Match, PUT is last write wins.
	r = api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana", "phone": "5"})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "5", f.text(`SELECT phone FROM technicians WHERE external_ref = 'T-1'`))

	// Jobs too: a change on the board makes an integration's ETag stale.
	r = api.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones", "address": "12 Elm St",
		"arrival_start": "2026-03-09T08:00:00Z", "arrival_end": "2026-03-09T10:00:00Z"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	jobTag := r.Header.Get("ETag")
	require.Equal(t, jobTag, api.Get("/api/v1/jobs/J-1").Header.Get("ETag"))
	_, err := f.db.Exec(t.Context(), `UPDATE jobs SET status = 'done' WHERE external_ref = 'J-1'`)
	require.NoError(t, err)
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones",
		"arrival_start": "2026-03-09T08:00:00Z", "arrival_end": "2026-03-09T10:00:00Z"}, "If-Match", jobTag),
		http.StatusPreconditionFailed, "precondition_failed")
	require.Equal(t, "done", f.text(`SELECT status FROM jobs WHERE external_ref = 'J-1'`))
	require.Equal(t, "12 Elm St", f.text(`SELECT address FROM jobs WHERE external_ref = 'J-1'`))

	// Delete at the current version; a technician with jobs is a 409.
	r = api.Put("/api/v1/technicians/T-9", map[string]any{"name": "Cy"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	r = api.Call(http.MethodDelete, "/api/v1/technicians/T-9", nil, "If-Match", r.Header.Get("ETag"))
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, true, r.JSON["deleted"])
	apitest.RequireError(t, api.Get("/api/v1/technicians/T-9"), http.StatusNotFound, "not_found")
	require.Equal(t, http.StatusOK, api.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones", "technician_ref": "T-1",
		"arrival_start": "2026-03-09T08:00:00Z", "arrival_end": "2026-03-09T10:00:00Z"}).Code)
	apitest.RequireError(t, api.Call(http.MethodDelete, "/api/v1/technicians/T-1", nil), http.StatusConflict, "conflict")
}

// PATCH with a JSON Merge Patch changes only what it names (docs/api.md,
// "PATCH: change some fields").
func TestAPIPatchChangesOnlyTheGivenMembers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	other := f.api(f.newToken(f.orgB, "sync"))
	f.setZone(f.orgA, "America/New_York")
	patch := func(a *apitest.Client, path, body string) apitest.Response {
		return a.Call(http.MethodPatch, path, body, "Content-Type", mergePatch)
	}

	require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana", "email": "ana@example.com"}).Code)
	r := api.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones", "customer_phone": "+1 555 0100",
		"address": "12 Elm St", "notes": "dog", "technician_ref": "T-1",
		"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)

	// The phone alone: the address, notes and assignee stay.
	r = patch(api, "/api/v1/jobs/J-1", `{"customer_phone": "+1 555 0199"}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "+1 555 0199", r.JSON["customer_phone"])
	require.Equal(t, "12 Elm St", r.JSON["address"])
	require.Equal(t, "T-1", r.JSON["technician_ref"])
	require.Equal(t, "2026-03-09T08:00:00-04:00", r.JSON["arrival_start"])
	require.Regexp(t, `^"\d+-2"$`, r.Header.Get("ETag"))
	require.Equal(t, "12 Elm St", f.text(`SELECT address FROM jobs WHERE external_ref = 'J-1'`))

	// null removes an optional member: notes empty, the job unassigned.
	r = patch(api, "/api/v1/jobs/J-1", `{"notes": null, "technician_ref": null, "arrival_end": "2026-03-09T11:00"}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "", r.JSON["notes"])
	require.Nil(t, r.JSON["technician_ref"])
	require.Equal(t, "2026-03-09T11:00:00-04:00", r.JSON["arrival_end"])
	require.Equal(t, 1, f.count(`SELECT count(*) FROM jobs WHERE external_ref = 'J-1' AND technician_id IS NULL AND notes = '' AND address = '12 Elm St'`))

	// A job assigned on the board to a technician without a reference
	// stays assigned through a patch that does not name the assignee.
	_, err := f.db.Exec(t.Context(), `INSERT INTO technicians (org_id, name) VALUES ($1, 'Board Only')`, f.orgA.ID)
	require.NoError(t, err)
	_, err = f.db.Exec(t.Context(), `UPDATE jobs SET technician_id = (SELECT id FROM technicians WHERE name = 'Board Only') WHERE external_ref = 'J-1'`)
	require.NoError(t, err)
	r = patch(api, "/api/v1/jobs/J-1", `{"emergency": true}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "Board Only", r.JSON["technician_name"])

	// Technicians: the email stays, null active is its default (true).
	r = patch(api, "/api/v1/technicians/T-1", `{"phone": "+1 555 0101", "active": false}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "ana@example.com", r.JSON["email"])
	require.Equal(t, false, r.JSON["active"])
	r = patch(api, "/api/v1/technicians/T-1", `{"active": null, "phone": null}`)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, true, r.JSON["active"])
	require.Equal(t, "", r.JSON["phone"])
	require.Equal(t, "ana@example.com", r.JSON["email"])

	// Refusals, each saving nothing.
	before := f.text(`SELECT row_to_json(j)::text FROM jobs j WHERE external_ref = 'J-1'`)
	fields := apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"colour": "blue", "notes": "x"}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "colour")
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"Notes": "x"}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "Notes", "member names are matched exactly")
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"customer": null, "arrival_start": null}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "arrival_start")
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"customer": null}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "customer")
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"external_ref": "J-2"}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "external_ref")
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"emergency": "yes"}`), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "emergency")
	apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `[{"op": "replace"}]`), http.StatusUnprocessableEntity, "invalid")
	// A patch is read as strictly as any body: the last of two notes
	// does not win, and bytes that are not UTF-8 do not become U+FFFD.
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", `{"notes": "a", "notes": "b"}`), http.StatusUnprocessableEntity, "duplicate_member")
	require.Contains(t, fields, "notes")
	fields = apitest.RequireError(t, patch(api, "/api/v1/jobs/J-1", "{\"notes\": \"caf\xe9\"}"), http.StatusUnprocessableEntity, "invalid_utf8")
	require.Contains(t, fields, "notes")
	// Another content type is 415 and says what is taken; so is a PUT's.
	r = api.Call(http.MethodPatch, "/api/v1/jobs/J-1", `{"notes": "x"}`)
	apitest.RequireError(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
	require.Equal(t, mergePatch, r.Header.Get("Accept-Patch"))
	apitest.RequireError(t, api.Call(http.MethodPatch, "/api/v1/jobs/J-1", `[]`, "Content-Type", "application/json-patch+json"),
		http.StatusUnsupportedMediaType, "unsupported_media_type")
	// Another org's record, or none, is not found.
	apitest.RequireError(t, patch(other, "/api/v1/jobs/J-1", `{"notes": "x"}`), http.StatusNotFound, "not_found")
	apitest.RequireError(t, patch(other, "/api/v1/technicians/T-1", `{"phone": "x"}`), http.StatusNotFound, "not_found")
	apitest.RequireError(t, other.Call(http.MethodDelete, "/api/v1/technicians/T-1", nil), http.StatusNotFound, "not_found")
	apitest.RequireError(t, other.Call(http.MethodPut, "/api/v1/technicians/T-1", `{"name": "x"}`, "If-Match", "*"),
		http.StatusPreconditionFailed, "precondition_failed")
	apitest.RequireError(t, patch(api, "/api/v1/jobs/J-404", `{"notes": "x"}`), http.StatusNotFound, "not_found")
	require.Equal(t, before, f.text(`SELECT row_to_json(j)::text FROM jobs j WHERE external_ref = 'J-1'`))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM technicians WHERE external_ref = 'T-1'`))
}

// text is one text value a query returns.
func (f *fixture) text(sql string, args ...any) string {
	f.t.Helper()
	var s string
	require.NoError(f.t, f.db.QueryRow(f.t.Context(), sql, args...).Scan(&s))
	return s
}

// Writers racing with the same If-Match: exactly one wins, every other
// gets 412, and the version moved on by one.
func TestAPIIfMatchRaceHasOneWinner(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	r := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	tag := r.Header.Get("ETag")
	const writers = 8
	codes := make(chan int, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			write := func() int {
				if i%2 == 0 {
					return api.Call(http.MethodPatch, "/api/v1/technicians/T-1", fmt.Sprintf(`{"phone": "%d"}`, i),
						"Content-Type", mergePatch, "If-Match", tag).Code
				}
				return api.Call(http.MethodPut, "/api/v1/technicians/T-1", fmt.Sprintf(`{"name": "Ana", "phone": "%d"}`, i), "If-Match", tag).Code
			}
			// A 503 (a bound met on a busy machine: the writers queue on
			// one row) is retried, as clients do; the retry with the same
			// tag is then 412 or the win.
			code := write()
			for try := 0; code == http.StatusServiceUnavailable && try < 20; try++ {
				time.Sleep(50 * time.Millisecond)
				code = write()
			}
			codes <- code
		})
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for c := range codes {
		got[c]++
	}
	require.Equal(t, map[int]int{http.StatusOK: 1, http.StatusPreconditionFailed: writers - 1}, got)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM technicians WHERE external_ref = 'T-1' AND version = 2`))
}
