package web

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/snapshot"
)

// TestHugeBriefingIsBounded: a briefing stored before the bounds, with
// 30,000 overdue jobs in its lists (12 MB), reads bounded: the API's answer
// is under 1 MiB with 50 overdue jobs and the whole count, and the page
// lists 50 and says how many more, with a link to the board
// (docs/briefing-content.md, "Bounds").
func TestHugeBriefingIsBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, revision, generated_at, content)
		SELECT $1, '2026-03-04', 'America/New_York', 'ready', 1, '2026-03-04T11:00:00Z',
		       jsonb_build_object('date', '2026-03-04', 'timezone', 'America/New_York', 'technicians', '[]'::jsonb,
		         'overdue', jsonb_agg(jsonb_build_object('id', g, 'customer', 'Customer ' || g,
		           'address', g || ' West Elm Street, Austin, TX 78701', 'window', '2026-02-01 09:00–11:00',
		           'status', 'scheduled', 'notes', 'Gate code ' || g || '. Call the customer 30 minutes before arriving.')),
		         'totals', jsonb_build_object('overdue', 30000))
		  FROM generate_series(1, 30000) g`, f.orgA.ID)
	require.NoError(t, err)

	r := f.api(f.newToken(f.orgA, "sync")).Get("/api/v1/briefings/2026-03-04")
	require.Equal(t, http.StatusOK, r.Code)
	require.LessOrEqual(t, len(r.Body), snapshot.MaxBytes)
	var got struct {
		Content snapshot.Snapshot `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Body), &got))
	require.Len(t, got.Content.Overdue, snapshot.MaxListJobs)
	require.Len(t, got.Content.ActionItems.Overdue, snapshot.MaxListJobs)
	require.Equal(t, 30000, got.Content.Summary.Overdue)
	require.Equal(t, 30000, got.Content.Totals.Overdue)

	page := f.as(&f.memberA).get("/orgs/acme/briefings/2026-03-04")
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body, "Overdue (30,000)") // grouped as the en-US reader writes numbers
	require.Contains(t, page.Body, `data-more="29950"`)
	require.Contains(t, page.Body, `href="/orgs/acme/board?date=2026-03-04#overdue"`)
	require.Less(t, len(page.Body), 200<<10)
}
