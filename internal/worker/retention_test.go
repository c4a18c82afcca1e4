package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/history"
)

// TestRetentionGoesByTheDatabasesClock: a worker whose host clock runs 45
// days ahead drops only the months expired by the database's clock, not a
// month still kept (docs/scheduling.md, "One clock").
func TestRetentionGoesByTheDatabasesClock(t *testing.T) {
	f := setup(t)
	dbNow, err := history.DatabaseNow(f.Ctx, f.DB)
	require.NoError(t, err)
	_, err = history.EnsureMonths(f.Ctx, f.DB, time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	w := f.worker(nil)
	w.Host = func() time.Time { return time.Now().Add(45 * 24 * time.Hour) }
	// Kept from mid-June 2025 by the database's clock; by the host's, the
	// cut would be at the end of July, taking June with it.
	w.HistoryRetention = dbNow.Sub(time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC))
	f.insertTask(history.RetainArgs{})
	_, err = w.RunOnce(f.Ctx, dbNow, time.Minute)
	require.NoError(t, err)

	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'history_retention' AND state = 'completed'`))
	partition := func(name string) int {
		return f.Count(`SELECT count(*) FROM pg_inherits WHERE inhrelid = to_regclass($1)`, name)
	}
	require.Zero(t, partition("ff_briefing_runs_p202505"), "May 2025 is past the retention")
	require.Equal(t, 1, partition("ff_briefing_runs_p202506"), "June 2025 is kept by the database's clock")
}
