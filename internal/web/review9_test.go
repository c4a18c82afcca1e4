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
