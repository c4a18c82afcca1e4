package updates

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An update never announces a job that is already over: its window, as
// the technician's day has it (as it was, for a job taken off it), ended.
func TestNotOver(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return time.Date(2026, 11, 26, h, 0, 0, 0, time.UTC) }
	items := []Item{
		{Kind: Added, JobID: 1, After: JobState{Start: at(9), End: at(10)}},                                                   // over
		{Kind: Added, JobID: 2, After: JobState{Start: at(14), End: at(16)}},                                                  // under way
		{Kind: Changed, JobID: 3, Before: &JobState{Start: at(16), End: at(17)}, After: JobState{Start: at(17), End: at(18)}}, // later
		{Kind: Removed, JobID: 4, Before: &JobState{Start: at(8), End: at(9)}, After: JobState{Start: at(18), End: at(19)}},   // was over on their day
		{Kind: Changed, JobID: 5, Before: &JobState{Start: at(12), End: at(15)}, After: JobState{Start: at(12), End: at(15)}}, // ends now
	}
	var kept []int64
	for _, it := range NotOver(items, now) {
		kept = append(kept, it.JobID)
	}
	require.Equal(t, []int64{2, 3}, kept)
}
