package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
)

// TestNoJobForADeactivatedTechnician: no way in gives a job to a
// deactivated technician (board, job form, CSV import, API PUT and PATCH):
// 422 with the reason, nothing saved. A job they already had keeps them
// and can still be edited.
func TestNoJobForADeactivatedTechnician(t *testing.T) {
	ff := setupField(t)
	f := ff.fixture
	ctx := context.Background()
	olga, err := ff.st.CreateTechnician(ctx, audit.System, f.orgA.ID, field.TechnicianInput{Name: "Olga Old", Active: false, ExternalRef: "T-olga"})
	require.NoError(t, err)
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(f.orgA.ID, "Initech", day, 0)
	kept := ff.job(f.orgA.ID, "Kept Co", day, ff.ana.ID)
	olgaID := strconv.FormatInt(olga.ID, 10)
	unassigned := func(why string) {
		t.Helper()
		require.Zero(t, ff.storedJob(f.orgA.ID, j.ID).TechnicianID, why)
	}

	// The board's quick assign, with and without htmx.
	assign := fmt.Sprintf("/orgs/acme/jobs/%d/assign", j.ID)
	for _, c := range []*client{ff.admin, ff.admin.htmx()} {
		r := c.post(assign, url.Values{"technician_id": {olgaID}, "date": {"2026-03-04"}})
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
		require.Contains(t, r.Body, "deactivated")
		unassigned("board")
	}
	// The job form: edit and create.
	form := url.Values{"customer": {"Initech"}, "date": {"2026-03-04"}, "from": {"09:00"}, "to": {"11:00"},
		"status": {"scheduled"}, "technician_id": {olgaID}}
	r := ff.admin.post(fmt.Sprintf("/orgs/acme/jobs/%d", j.ID), form)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	require.Contains(t, r.Body, "deactivated")
	unassigned("job form")
	jobs := ff.count(`SELECT count(*) FROM jobs WHERE org_id = $1`, f.orgA.ID)
	r = ff.admin.post("/orgs/acme/jobs", form)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	require.Contains(t, r.Body, "deactivated")
	require.Equal(t, jobs, ff.count(`SELECT count(*) FROM jobs WHERE org_id = $1`, f.orgA.ID), "a job was created")

	// The API: PUT and PATCH, a stable code beside the English message.
	api := f.api(f.newToken(f.orgA, "sync"))
	body := map[string]any{"customer": "Acme", "arrival_start": "2026-03-04T09:00", "arrival_end": "2026-03-04T10:00", "technician_ref": "T-olga"}
	res := api.Put("/api/v1/jobs/J-1", body)
	fields := apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields["technician_ref"], "deactivated")
	require.JSONEq(t, `"technician_inactive"`, apitest.JSONAt(t, res.Body, "error", "codes", "technician_ref"))
	require.Zero(t, ff.count(`SELECT count(*) FROM jobs WHERE external_ref = 'J-1'`))
	delete(body, "technician_ref")
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/jobs/J-1", body).Code)
	res = api.Call(http.MethodPatch, "/api/v1/jobs/J-1", `{"technician_ref": "T-olga"}`, "Content-Type", mergePatch)
	apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	require.JSONEq(t, `"technician_inactive"`, apitest.JSONAt(t, res.Body, "error", "codes", "technician_ref"))
	require.Zero(t, ff.count(`SELECT count(*) FROM jobs WHERE external_ref = 'J-1' AND technician_id IS NOT NULL`))

	// The CSV import: the row's problem, no save.
	loc, doc := previewOf(t, ff.admin, "jobs", "external_ref,customer,date,arrival_from,arrival_to,technician_ref\n"+
		"J-2,Bob,2026-03-09,08:00,10:00,T-olga\n")
	require.Nil(t, doc.byID("import-save"), "an import may give a job to a deactivated technician")
	require.Contains(t, doc.byID("import-problems").text(), "deactivated")
	require.Equal(t, http.StatusUnprocessableEntity, ff.admin.post(loc, url.Values{"digest": {"anything"}}).Code)
	require.Zero(t, ff.count(`SELECT count(*) FROM jobs WHERE external_ref = 'J-2'`))

	// A job they had before they were deactivated keeps them, and can be changed.
	anaPath := "/orgs/acme/technicians/" + strconv.FormatInt(ff.ana.ID, 10)
	require.Equal(t, http.StatusSeeOther, ff.admin.post(anaPath+"/active", url.Values{"active": {"false"}}).Code)
	r = ff.admin.post(fmt.Sprintf("/orgs/acme/jobs/%d/status", kept.ID), url.Values{"status": {"in_progress"}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, ff.ana.ID, ff.storedJob(f.orgA.ID, kept.ID).TechnicianID)
	require.Equal(t, http.StatusOK, api.Put("/api/v1/jobs/J-1", body).Code)
}
