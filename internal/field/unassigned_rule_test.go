package field_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
)

// The unassigned rule (a job with no technician or an inactive one needs
// someone) is written twice, in Go (Job.Unassigned and Job.Route, for the
// board and the snapshot) and in SQL (unassignedSQL and routeSQL, for the
// day's reads): both say the same of real rows, and the day's reads put an
// inactive technician's job with the unassigned ones.
func TestUnassignedRuleAgrees(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "T-ana")
	gone := b.tech(t, b.acme.ID, "Gone", "T-gone")
	withAna, nobody, withGone := jobInput("Ana's"), jobInput("Nobody's"), jobInput("Gone's")
	withAna.TechnicianID, withGone.TechnicianID = ana.ID, gone.ID
	want := map[int64]int64{ // job → route
		b.job(t, b.acme.ID, withAna).ID:  ana.ID,
		b.job(t, b.acme.ID, nobody).ID:   0,
		b.job(t, b.acme.ID, withGone).ID: 0,
	}
	// Deactivated after the job was theirs: no new job goes to them.
	_, err := b.store.SetTechnicianActive(b.ctx, b.actor, b.acme.ID, gone.ID, false)
	require.NoError(t, err)

	page, err := b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Jobs, len(want))
	for _, j := range page.Jobs {
		var unassigned bool
		var route int64
		require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT `+field.UnassignedSQL+`, `+field.RouteSQL+`
			  FROM jobs j LEFT JOIN technicians t ON t.org_id = j.org_id AND t.id = j.technician_id
			 WHERE j.org_id = $1 AND j.id = $2`, b.acme.ID, j.ID).Scan(&unassigned, &route))
		require.Equal(t, unassigned, j.Unassigned(), j.Customer)
		require.Equal(t, route, j.Route(), j.Customer)
		require.Equal(t, want[j.ID], j.Route(), j.Customer)
	}
	require.False(t, field.Job{TechnicianID: ana.ID, TechnicianActive: true}.Unassigned())
	require.True(t, field.Job{TechnicianID: gone.ID}.Unassigned())
	require.True(t, field.Job{}.Unassigned())

	// The day's reads: the inactive technician's job is counted, listed
	// and an action item with the unassigned ones.
	start := nine.Truncate(24 * time.Hour)
	batch := &pgx.Batch{}
	day := field.QueueDay(batch, b.acme.ID, start.Add(-24*time.Hour), start, start.Add(24*time.Hour),
		field.DayLimits{List: 10, Route: 10, Day: 10, Own: 10, OwnAll: 10})
	require.NoError(t, b.store.DB.SendBatch(b.ctx, batch).Close())
	require.Equal(t, map[int64]field.DayGroup{0: {Jobs: 2, NotCancelled: 2}, ana.ID: {Jobs: 1, NotCancelled: 1}}, day.Groups)
	routes := map[int64]int64{}
	for _, j := range day.Jobs {
		routes[j.ID] = j.Route()
	}
	require.Equal(t, want, routes)
	var items []string
	for _, j := range day.UnassignedItems.Jobs {
		items = append(items, j.Customer)
	}
	require.ElementsMatch(t, []string{"Nobody's", "Gone's"}, items)
	require.Equal(t, 2, day.UnassignedItems.Total)
}
