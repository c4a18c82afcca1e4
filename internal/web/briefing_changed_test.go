package web

import (
	"context"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/snapshot"
)

// TestBriefingChangedSinceItWasMade (docs/briefing-content.md, "Changed
// since it was made"): today's briefing whose day's jobs changed after it
// was made says so at the top, read or printed, with a link to the board;
// one whose jobs did not change, or of a day gone by, says nothing.
func TestBriefingChangedSinceItWasMade(t *testing.T) {
	t.Parallel()
	f := setup(t) // the clock: Wed 4 Mar 2026 15:00 UTC, 10:00 in New York
	ctx := context.Background()
	for _, d := range []string{"2026-03-03", "2026-03-04"} {
		insertBriefing(t, f, f.orgA.ID, briefingRow{Date: d, Content: &snapshot.Snapshot{Date: d, Timezone: "America/New_York"}})
	}
	admin := f.as(&f.adminA)
	require.NotContains(t, admin.get("/orgs/acme/briefings/2026-03-04").Body, "data-changed")

	// Made at 13:01 UTC; a job kept as it was then, and one changed after.
	kept := f.dayJob(f.orgA.ID, 0, "Kept", "", "", "", "scheduled", time.Date(2026, 3, 4, 17, 0, 0, 0, time.UTC))
	_, err := f.db.Exec(ctx, `UPDATE jobs SET updated_at = '2026-03-04T12:00:00Z' WHERE id = $1`, kept)
	require.NoError(t, err)
	require.NotContains(t, admin.get("/orgs/acme/briefings/2026-03-04").Body, "data-changed")
	f.dayJob(f.orgA.ID, 0, "Added later", "", "", "", "scheduled", time.Date(2026, 3, 4, 18, 0, 0, 0, time.UTC))
	f.dayJob(f.orgA.ID, 0, "Yesterday's, added later", "", "", "", "scheduled", time.Date(2026, 3, 3, 18, 0, 0, 0, time.UTC))

	for _, c := range []*client{admin, f.as(&f.memberA)} {
		body := html.UnescapeString(c.get("/orgs/acme/briefings/2026-03-04").Body)
		require.Contains(t, body, "Since this briefing was made (")
		require.Contains(t, body, "1 job of this day was added or changed: it shows the day as it was then.")
		require.Contains(t, body, `href="/orgs/acme/board?date=2026-03-04"`)
		require.Less(t, strings.Index(body, "data-changed"), strings.Index(body, "briefing-meta"), "at the top")
	}
	require.NotContains(t, admin.get("/orgs/acme/briefings/2026-03-03").Body, "data-changed", "a day gone by is its record")
}
