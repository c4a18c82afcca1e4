package demo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// The jobs that need attention (on hold, cancelled, overdue) read as
// separate stories: each at a different customer.
func TestPlanSpreadsTroubleOverCustomers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	for _, o := range demoOrgs {
		z, err := schedule.LoadZone(o.zone)
		require.NoError(t, err)
		loc := z.Loc
		y, m, d := now.In(loc).Date()
		today := time.Date(y, m, d, 0, 0, 0, 0, loc)
		seen := map[string]bool{}
		jobs := plan(o, loc, now)
		require.Len(t, jobs, 3*len(slots)+2, o.slug)
		for _, j := range jobs {
			overdue := j.end.Before(today) && j.status != "done" && j.status != "cancelled"
			if j.status == "on_hold" || j.status == "cancelled" || overdue {
				require.False(t, seen[j.customer.name], "%s: %s has two troubled jobs", o.slug, j.customer.name)
				seen[j.customer.name] = true
			}
			require.Equal(t, j.status == "done", j.completedAt != nil, "%s: completed_at iff done", o.slug)
		}
		require.GreaterOrEqual(t, len(seen), 6, o.slug)
	}
}
