package web

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
)

// A board change whose form names a bad date is refused as a whole: the
// job is not assigned (or its status changed) behind a 422.
func TestBoardChangeWithBadDateChangesNothing(t *testing.T) {
	ff := setupField(t)
	start := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(ff.orgA.ID, "Open Co", start, 0)
	for _, c := range []*client{ff.admin, ff.admin.htmx()} {
		r := c.post(fmt.Sprintf("/orgs/acme/jobs/%d/assign", j.ID), url.Values{"technician_id": {fmt.Sprint(ff.ana.ID)}, "date": {"someday"}})
		require.Equal(t, http.StatusUnprocessableEntity, r.Code)
		require.Zero(t, ff.storedJob(ff.orgA.ID, j.ID).TechnicianID, "assigned behind a 422")
		r = c.post(fmt.Sprintf("/orgs/acme/jobs/%d/status", j.ID), url.Values{"status": {field.StatusDone}, "date": {"someday"}})
		require.Equal(t, http.StatusUnprocessableEntity, r.Code)
		require.Equal(t, field.StatusScheduled, ff.storedJob(ff.orgA.ID, j.ID).Status, "status changed behind a 422")
	}
}

// A window at the very end of year 9999 in the org's zone is past it in
// UTC, which JSON (the audit log's, the API's) cannot write: each of the
// three ways in refuses it as out of range (422, nothing saved) rather than
// failing with a 500 after validation passed.
func TestJobAtTheEndOfYear9999IsOutOfRangeOnEveryPath(t *testing.T) {
	ff := setupField(t) // acme is in America/New_York
	r := ff.admin.post("/orgs/acme/jobs", jobValues("Far Future", "9999-12-31", "23:00", "23:59"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	requireFieldError(t, r, "to", "out of range")

	a := ff.api(ff.newToken(ff.orgA, "sync"))
	res := a.put("/api/v1/jobs/J-far", `{"customer":"Far","arrival_start":"9999-12-31T23:00","arrival_end":"9999-12-31T23:59"}`)
	fields := requireAPIError(t, res, http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields["arrival_end"], "out of range")

	_, doc := previewOf(t, ff.admin, "jobs", "external_ref,customer,date,arrival_from,arrival_to\nJ-far,Far,9999-12-31,23:00,23:59\n")
	require.Equal(t, map[string]string{"2": "error"}, actions(doc))
	require.Contains(t, doc.byID("import-problems").text(), "out of range")
	require.Zero(t, ff.count(`SELECT count(*) FROM jobs`))
}

// PostgreSQL keeps microseconds. A PUT whose times carry nanoseconds was
// compared, as sent, with what was stored, so the same body again was an
// update each time: updated_at moved and the audit log grew per retry.
func TestAPIPutWithNanosecondsIsIdempotent(t *testing.T) {
	ff := setupField(t)
	a := ff.api(ff.newToken(ff.orgA, "sync"))
	body := `{"customer":"Ann","arrival_start":"2026-03-09T13:00:00.123456789Z","arrival_end":"2026-03-09T15:00:00.999999999Z"}`
	r := a.put("/api/v1/jobs/J-1", body)
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	first := jsonAt(t, r.Body, "updated_at")
	ff.advance(time.Minute)
	r = a.put("/api/v1/jobs/J-1", body)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, first, jsonAt(t, r.Body, "updated_at"), "the same body again changed the job")
	require.Equal(t, 0, ff.count(`SELECT count(*) FROM audit_log WHERE action = 'field.job.update'`))
	require.Equal(t, `"2026-03-09T09:00:00.123456-04:00"`, jsonAt(t, r.Body, "arrival_start"))
}
