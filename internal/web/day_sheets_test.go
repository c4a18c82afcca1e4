package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTechnicianStopsDaySheetsOfficeSees: a technician asks on their day
// page not to get day sheets by email (docs/delivery.md, "Stopping day
// sheets"); the request is recorded with its time and audited as theirs,
// their technician page, the technicians list and the board say "Does not
// receive day sheets since …", and an admin (not a member) resumes them.
func TestTechnicianStopsDaySheetsOfficeSees(t *testing.T) {
	t.Parallel()
	f := setup(t) // the clock: Wed 4 Mar 2026 15:00 UTC
	ctx := context.Background()
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	_, err := f.db.Exec(ctx, `UPDATE technicians SET email = 'ana@acme.test' WHERE id = $1`, ana)
	require.NoError(t, err)
	f.dayJob(f.orgA.ID, ana, "Dogwood Bakery", "", "", "", "scheduled", time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC))
	tok := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	anon := f.anon()

	page := anon.get("/t/" + tok)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body, `data-day-sheets="on"`)
	require.Contains(t, page.Body, `action="/t/`+tok+`/day-sheets"`)
	require.Contains(t, page.Body, "Stop emailing me day sheets")

	// A bad token changes nothing: the page's one 404.
	require.Equal(t, http.StatusNotFound, anon.postNoCSRF("/t/"+tok+"x/day-sheets", url.Values{"stop": {"true"}}).Code)

	r := anon.postNoCSRF("/t/"+tok+"/day-sheets", url.Values{"stop": {"true"}})
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, "/t/"+tok+"#day-sheets", r.Header.Get("Location"))
	requireDayLinkHeaders(t, r)
	var stoppedAt *time.Time
	require.NoError(t, f.db.QueryRow(ctx, `SELECT day_sheets_stopped_at FROM technicians WHERE id = $1`, ana).Scan(&stoppedAt))
	require.NotNil(t, stoppedAt)
	require.True(t, stoppedAt.Equal(testStart), "recorded at the request's time: %v", stoppedAt)
	var actor string
	require.NoError(t, f.db.QueryRow(ctx, `SELECT actor_email FROM audit_log WHERE org_id = $1 AND action = 'field.technician.day_sheets_stop'`,
		f.orgA.ID).Scan(&actor))
	require.Equal(t, "ana@acme.test", actor)

	page = anon.get("/t/" + tok)
	require.Contains(t, page.Body, `data-day-sheets="stopped"`)
	require.Contains(t, html.UnescapeString(page.Body), "not to get day sheets by email. Your office sees this.")
	require.Contains(t, page.Body, "Email me day sheets again")

	since := "Does not receive day sheets since "
	anaPath := "/orgs/acme/technicians/" + strconv.FormatInt(ana, 10)
	admin, member := f.as(&f.adminA), f.as(&f.memberA)
	for _, c := range []*client{admin, member} {
		for _, path := range []string{anaPath, "/orgs/acme/technicians", "/orgs/acme/board?date=2026-03-04"} {
			body := c.get(path).Body
			require.Contains(t, body, since, path)
			require.Contains(t, body, `data-day-sheets="stopped"`, path)
		}
	}
	require.Contains(t, admin.get(anaPath).Body, "Resume day sheets")
	require.NotContains(t, member.get(anaPath).Body, "Resume day sheets", "a member reads, an admin resumes")
	require.Equal(t, http.StatusForbidden, member.post(anaPath+"/day-sheets", nil).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(anaPath+"/day-sheets", nil).Code)

	r = admin.post(anaPath+"/day-sheets", nil)
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.NoError(t, f.db.QueryRow(ctx, `SELECT day_sheets_stopped_at FROM technicians WHERE id = $1`, ana).Scan(&stoppedAt))
	require.Nil(t, stoppedAt)
	require.NoError(t, f.db.QueryRow(ctx, `SELECT actor_email FROM audit_log WHERE org_id = $1 AND action = 'field.technician.day_sheets_resume'`,
		f.orgA.ID).Scan(&actor))
	require.Equal(t, "admin@acme.test", actor)
	body := admin.get(r.Header.Get("Location")).Body
	require.NotContains(t, body, since)
	require.Contains(t, body, "Day sheets resumed")
	require.Contains(t, anon.get("/t/"+tok).Body, `data-day-sheets="on"`)
}
