package snapshot

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// TestDaySnapshot builds a briefing's snapshot for a crafted day in New York
// (UTC-4 on 2026-03-10), with jobs placed around the local and UTC day
// boundaries.
func TestDaySnapshot(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("America/New_York", "07:00"))
	ny := mustZone("America/New_York")
	at := func(day, hhmm string) time.Time {
		t, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hhmm, ny)
		require.NoError(f.T, err)
		return t
	}
	hours := func(t time.Time, h int) time.Time { return t.Add(time.Duration(h) * time.Hour) }

	bea, al := f.Tech(org, "Bea", true), f.Tech(org, "Al", true)
	cy := f.Tech(org, "Cy", false)
	other := f.Org("other", "")
	otherTech := f.Tech(other, "Zed", true)

	bea10 := f.Job(org, bea, "Bea at ten", at("2026-03-10", "10:00"), hours(at("2026-03-10", "10:00"), 2), "scheduled")
	bea8 := f.Job(org, bea, "Bea at eight", at("2026-03-10", "08:00"), hours(at("2026-03-10", "08:00"), 1), "in_progress")
	alLate := f.Job(org, al, "Al late", at("2026-03-10", "23:30"), hours(at("2026-03-10", "23:30"), 1), "scheduled") // 03:30Z on the 11th
	unassigned := f.Job(org, 0, "Nobody", at("2026-03-10", "13:00"), hours(at("2026-03-10", "13:00"), 1), "scheduled")
	inactive := f.Job(org, cy, "Cy's", at("2026-03-10", "15:00"), hours(at("2026-03-10", "15:00"), 1), "scheduled")
	f.Job(other, otherTech, "Other org", at("2026-03-10", "09:00"), hours(at("2026-03-10", "09:00"), 1), "scheduled")
	f.Job(other, 0, "Other org overdue", at("2026-03-01", "09:00"), hours(at("2026-03-01", "09:00"), 1), "on_hold")

	// Yesterday, local: 03:30Z on the 10th is still the 9th in New York.
	f.Job(org, al, "Al yesterday late", at("2026-03-09", "23:30"), hours(at("2026-03-09", "23:30"), 1), "scheduled")
	f.Job(org, al, "Done 1", at("2026-03-09", "09:00"), hours(at("2026-03-09", "09:00"), 1), "done")
	f.Job(org, bea, "Done 2", at("2026-03-09", "11:00"), hours(at("2026-03-09", "11:00"), 1), "done")
	f.Job(org, bea, "Cancelled", at("2026-03-09", "12:00"), hours(at("2026-03-09", "12:00"), 1), "cancelled")

	overdue := f.Job(org, al, "Overdue", at("2026-03-08", "09:00"), hours(at("2026-03-08", "09:00"), 2), "scheduled")
	f.Job(org, al, "Old done", at("2026-03-08", "09:00"), hours(at("2026-03-08", "09:00"), 2), "done")
	f.Job(org, al, "Old cancelled", at("2026-03-08", "09:00"), hours(at("2026-03-08", "09:00"), 2), "cancelled")
	heldOld := f.Job(org, 0, "Held old", at("2026-03-07", "09:00"), hours(at("2026-03-07", "09:00"), 2), "on_hold")
	heldLater := f.Job(org, bea, "Held later", at("2026-03-13", "09:00"), hours(at("2026-03-13", "09:00"), 2), "on_hold")

	snap := f.snapshotOf(org, "America/New_York", "2026-03-10")

	idsOf := func(lines []JobLine) []int64 {
		out := []int64{}
		for _, l := range lines {
			out = append(out, l.ID)
		}
		return out
	}
	require.Equal(t, "2026-03-10", snap.Date)
	require.Equal(t, "America/New_York", snap.Timezone)
	require.Equal(t, utc("2026-03-10T04:00:00Z"), snap.DayStart.UTC())
	require.Equal(t, utc("2026-03-11T04:00:00Z"), snap.DayEnd.UTC())
	require.Len(t, snap.Technicians, 2)
	require.Equal(t, "Al", snap.Technicians[0].Name)
	require.Equal(t, []int64{alLate}, idsOf(snap.Technicians[0].Jobs))
	require.Equal(t, "Bea", snap.Technicians[1].Name)
	require.Equal(t, []int64{bea8, bea10}, idsOf(snap.Technicians[1].Jobs))
	require.Equal(t, []int64{unassigned, inactive}, idsOf(snap.Unassigned))
	require.Equal(t, "Cy", snap.Unassigned[1].Technician)
	require.Equal(t, []int64{heldOld, overdue}, idsOf(snap.Overdue))
	require.Equal(t, []int64{heldOld, heldLater}, idsOf(snap.OnHold))
	require.Equal(t, DayCounts{Date: "2026-03-09", Scheduled: 3, Completed: 2}, snap.Yesterday)
	require.Equal(t, Totals{Technicians: 2, Jobs: 5, Unassigned: 2, Overdue: 2, OnHold: 2}, snap.Totals)

	// Local times and windows.
	b8 := snap.Technicians[1].Jobs[0]
	require.Equal(t, "08:00–09:00", b8.Window)
	require.Equal(t, "2026-03-10T08:00:00-04:00", b8.ArrivalStart.Format(time.RFC3339))
	require.Equal(t, "in_progress", b8.Status)
	require.Equal(t, "Bea at eight street", b8.Address)
	require.Equal(t, "23:30–2026-03-11 00:30", snap.Technicians[0].Jobs[0].Window)
	require.Equal(t, "2026-03-07 09:00–11:00", snap.Overdue[0].Window)
}

// TestDayStartAtMidnightGap: where midnight does not exist (Santiago springs
// forward at 24:00), the day starts when the gap ends.
func TestDayStartAtMidnightGap(t *testing.T) {
	t.Parallel()
	loc := mustZone("America/Santiago")
	start := QueueDay(&pgx.Batch{}, 1, schedule.Zone{Name: "America/Santiago", Loc: loc}, date("2025-09-07")).Start
	require.Equal(t, "2025-09-07T01:00:00-03:00", start.In(loc).Format(time.RFC3339))
	require.Equal(t, "2025-09-07T04:00:00Z", start.UTC().Format(time.RFC3339))
}
