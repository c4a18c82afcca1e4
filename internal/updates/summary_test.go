package updates_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/updates"
)

var eight = time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)

func job(id, tech int64) updates.JobState {
	return updates.JobState{ID: id, TechnicianID: tech, Customer: "Jane", Address: "500 W 2nd St",
		Start: eight, End: eight.Add(2 * time.Hour), Status: "scheduled"}
}

func row(id int64, j int64, tech int64, was, is bool, before *updates.JobState, after updates.JobState) updates.Row {
	return updates.Row{ID: id, JobID: j, TechnicianID: tech, WasOn: was, IsOn: is, Before: before, After: after}
}

func ptr(s updates.JobState) *updates.JobState { return &s }

func TestTold(t *testing.T) {
	t.Parallel()
	a := job(1, 7)
	b := a
	b.Status = "in_progress"
	require.Empty(t, updates.Told(a, b), "their own progress is not news to them")
	require.Equal(t, []string{updates.FieldStatus}, updates.Diff(a, b), "the webhook reports it")
	b.Status = "cancelled"
	require.Equal(t, []string{updates.FieldStatus}, updates.Told(a, b))
	b = a
	b.TechnicianID = 8
	require.Empty(t, updates.Told(a, b), "the technician is told as added or removed, not as a field")
	b = a
	b.Start, b.End = a.Start.Add(time.Hour), a.End.Add(time.Hour)
	b.Notes = "Gate code 1234"
	require.Equal(t, []string{updates.FieldWindow, updates.FieldNotes}, updates.Told(a, b))
}

func TestForTechnician(t *testing.T) {
	t.Parallel()
	moved := job(1, 7)
	moved.Start, moved.End = moved.Start.Add(time.Hour), moved.End.Add(time.Hour)
	back := job(1, 7)
	gone := job(2, 8)
	early := job(3, 7)
	early.Start, early.End = eight.Add(-3*time.Hour), eight.Add(-2*time.Hour)
	items := updates.ForTechnician([]updates.Row{
		// Job 1: moved, then moved back: nothing to tell.
		row(1, 1, 7, true, true, ptr(job(1, 7)), moved),
		row(2, 1, 7, true, true, ptr(moved), back),
		// Job 2: reassigned away from 7.
		row(3, 2, 7, true, false, ptr(job(2, 7)), gone),
		// Job 3: created on the day, then its address changed: one "added".
		row(4, 3, 7, false, true, nil, early),
		row(5, 3, 7, true, true, ptr(early), func() updates.JobState { e := early; e.Address = "1 Elm St"; return e }()),
		// Job 4: assigned and taken away again within the update.
		row(6, 4, 7, false, true, ptr(job(4, 9)), job(4, 7)),
		row(7, 4, 7, true, false, ptr(job(4, 7)), job(4, 9)),
	})
	require.Len(t, items, 2)
	require.Equal(t, updates.Added, items[0].Kind, "in the order of the day: job 3 is earlier")
	require.EqualValues(t, 3, items[0].JobID)
	require.Nil(t, items[0].Before)
	require.Equal(t, "1 Elm St", items[0].After.Address)
	require.Equal(t, updates.Removed, items[1].Kind)
	require.EqualValues(t, 2, items[1].JobID)
	require.EqualValues(t, 7, items[1].Now().TechnicianID, "a removed job shows as the day had it")
	require.EqualValues(t, 8, items[1].After.TechnicianID)
}

func TestForWebhook(t *testing.T) {
	t.Parallel()
	b := job(1, 8)
	changes := updates.ForWebhook([]updates.Row{
		// A reassignment: one row for each technician, one change.
		row(1, 1, 7, true, false, ptr(job(1, 7)), b),
		row(2, 1, 8, false, true, ptr(job(1, 7)), b),
		// A new job.
		row(3, 2, 8, false, true, nil, job(2, 8)),
		// A change undone: nothing.
		row(4, 3, 8, true, true, ptr(job(3, 8)), func() updates.JobState { j := job(3, 8); j.Notes = "x"; return j }()),
		row(5, 3, 8, true, true, ptr(func() updates.JobState { j := job(3, 8); j.Notes = "x"; return j }()), job(3, 8)),
	})
	require.Len(t, changes, 2)
	require.Equal(t, []string{updates.FieldTechnician}, changes[0].Fields)
	require.Equal(t, []int64{7, 8}, changes[0].Technicians)
	require.Nil(t, changes[1].Before)
	require.Empty(t, changes[1].Fields)
}

func TestWait(t *testing.T) {
	t.Parallel()
	now := eight
	d := 2 * time.Minute
	require.Zero(t, updates.Wait(now, now.Add(-5*time.Minute), now.Add(-3*time.Minute), time.Time{}, d), "quiet, no update yet")
	require.Equal(t, 90*time.Second, updates.Wait(now, now.Add(-time.Minute), now.Add(-30*time.Second), time.Time{}, d), "quiet in 90 s")
	require.Equal(t, time.Minute, updates.Wait(now, now.Add(-14*time.Minute), now.Add(-10*time.Second), time.Time{}, d),
		"held 14 minutes: sent at 15 although the edits go on")
	require.Zero(t, updates.Wait(now, now.Add(-20*time.Minute), now, time.Time{}, d), "held past MaxHold: now")
	require.Equal(t, 10*time.Minute, updates.Wait(now, now.Add(-5*time.Minute), now.Add(-3*time.Minute), now.Add(-5*time.Minute), d),
		"the last update was 5 minutes ago")
	require.Zero(t, updates.Wait(now, now.Add(-5*time.Minute), now.Add(-3*time.Minute), now.Add(-15*time.Minute), d))
}
