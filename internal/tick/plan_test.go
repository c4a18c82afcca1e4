package tick

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
)

// Past a UTC midnight the scan's window holds dates newer than what
// ANALYZE last saw, and PostgreSQL cannot look up the real newest date in
// the partial indexes: it expects no rows there. The hinted scan's per-org
// lookup of fired dates must still take the org-led index: with the
// date-led one, each org's lookup walked the whole window (5.5 s a steady
// tick at 1M orgs instead of 27 ms; candidates.go, datesPerOrg).
func TestHintedScanKeepsTheOrgIndexPastMidnight(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := database.Connect(ctx, testdb.URL(t), database.NoJIT())
	require.NoError(t, err)
	t.Cleanup(db.Close)

	// History of the two days before yesterday, analyzed; then the window's
	// days fill after ANALYZE, as a day's firings do.
	now := time.Date(2026, 3, 10, 0, 1, 0, 0, time.UTC)
	seedTickBench(t, db, 20_000, now.Add(-24*time.Hour), false)
	_, err = db.Exec(ctx, `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, fired_at, scheduled_at, generated_at, content)
		SELECT g, $1::date - d, 'UTC', 'ready', $1::date - d, $1::date - d, $1::date - d, '{}'
		  FROM generate_series(1, 20000, 2) g, generate_series(0, 1) d`, now)
	require.NoError(t, err)

	from, to := scanWindow(now)
	rows, err := db.Query(ctx, "EXPLAIN "+hintedScanSQL, schedule.Module, schedule.FlagKey, from.Time(), to.Time(), now,
		firingMinutes(now.Add(-time.Minute), now))
	require.NoError(t, err)
	var plan []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan = append(plan, line)
	}
	require.NoError(t, rows.Err())
	text := strings.Join(plan, "\n")
	require.Contains(t, text, "ff_briefings_scheduled_idx", text)
	require.NotContains(t, text, "ff_briefings_scheduled_date_idx", text)
}
