package snapshot

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGenerateActionItems: every job that needs action is in exactly one
// section, by the precedence emergency > overdue > unassigned > on hold;
// cancelled jobs are counted apart (read from real PostgreSQL).
func TestGenerateActionItems(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("America/New_York", "07:00"))
	ny := mustZone("America/New_York")
	at := func(day, hhmm string) time.Time {
		t, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hhmm, ny)
		require.NoError(f.T, err)
		return t
	}
	job := func(tech int64, customer, day, hhmm, status string) int64 {
		return f.Job(org, tech, customer, at(day, hhmm), at(day, hhmm).Add(time.Hour), status)
	}
	emergency := func(id int64) {
		_, err := f.DB.Exec(f.Ctx, `UPDATE jobs SET emergency = true WHERE id = $1`, id)
		require.NoError(t, err)
	}
	al, bea, cy := f.Tech(org, "Al", true), f.Tech(org, "Bea", true), f.Tech(org, "Cy", false)

	e1 := job(0, "Emergency overdue unassigned held", "2026-03-08", "09:00", "on_hold")
	e2 := job(al, "Emergency of the day", "2026-03-10", "11:00", "scheduled")
	e3 := job(al, "Emergency done", "2026-03-10", "07:00", "done")
	e4 := job(0, "Emergency cancelled", "2026-03-10", "12:00", "cancelled")
	for _, id := range []int64{e1, e2, e3, e4} {
		emergency(id)
	}
	o1 := job(al, "Overdue and held", "2026-03-09", "09:00", "on_hold")
	u1 := job(0, "Unassigned and held", "2026-03-10", "09:00", "on_hold")
	u2 := job(cy, "Inactive technician's", "2026-03-10", "10:00", "scheduled")
	u3 := job(0, "Unassigned cancelled", "2026-03-10", "08:00", "cancelled")
	c1 := job(al, "Al cancelled", "2026-03-10", "13:00", "cancelled")
	c2 := job(bea, "Bea cancelled", "2026-03-10", "14:00", "cancelled")      // Bea is not out today
	job(bea, "Held later", "2026-03-12", "09:00", "on_hold")                 // not the day's business: in no section
	h1 := job(al, "Held since last night", "2026-03-09", "23:30", "on_hold") // 23:30–00:30: on hold on the day
	_, err := f.DB.Exec(f.Ctx, `UPDATE jobs SET job_type = 'Boiler repair', customer_phone = '+1 (212) 555-0100',
		notes = 'Gate code 1234', external_ref = 'WO-1' WHERE id = $1`, e2)
	require.NoError(t, err)

	snap := f.snapshotOf(org, "America/New_York", "2026-03-10")

	ids := func(lines []JobLine) []int64 {
		out := []int64{}
		for _, l := range lines {
			out = append(out, l.ID)
		}
		return out
	}
	require.NotNil(t, snap.Summary, "stored with the snapshot")
	require.NotNil(t, snap.ActionItems)
	items := *snap.ActionItems
	require.Equal(t, []int64{e1, e2}, ids(items.Emergencies))
	require.Equal(t, []int64{o1}, ids(items.Overdue))
	require.Equal(t, []int64{u1, u2}, ids(items.Unassigned))
	require.Equal(t, []int64{h1}, ids(items.OnHold))
	seen := map[int64]string{}
	for name, l := range map[string][]JobLine{"emergencies": items.Emergencies, "overdue": items.Overdue,
		"unassigned": items.Unassigned, "on_hold": items.OnHold} {
		for _, j := range l {
			require.Empty(t, seen[j.ID], "job %d in %s and %s", j.ID, seen[j.ID], name)
			seen[j.ID] = name
		}
	}
	require.Equal(t, []int64{u3, e4, c1, c2}, ids(snap.Cancelled), "cancelled apart, in arrival order")
	require.Equal(t, Summary{Jobs: 4, Cancelled: 4, TechniciansOut: 1, Emergencies: 2, Overdue: 1, Unassigned: 2, OnHold: 1},
		*snap.Summary)

	// The fields every snapshot had keep their meaning.
	require.Equal(t, Totals{Technicians: 2, Jobs: 8, Unassigned: 4, Overdue: 2, OnHold: 5}, snap.Totals)
	require.Equal(t, []int64{u3, u1, u2, e4}, ids(snap.Unassigned))
	require.Equal(t, []int64{e3, e2, c1}, ids(snap.Technicians[0].Jobs), "Al's day in arrival order")

	// The new job fields.
	j := snap.Technicians[0].Jobs[1]
	require.Equal(t, "Boiler repair", j.JobType)
	require.True(t, j.Emergency)
	require.Equal(t, "+1 (212) 555-0100", j.CustomerPhone)
	require.Equal(t, "Gate code 1234", j.Notes)
	require.Equal(t, "WO-1", j.ExternalRef)

	// What is stored is what the rule derives.
	sum, derived, cancelled := snap.derive()
	require.Equal(t, *snap.Summary, sum)
	require.Equal(t, ids(items.Emergencies), ids(derived.Emergencies))
	require.Equal(t, ids(items.OnHold), ids(derived.OnHold))
	require.Equal(t, ids(snap.Cancelled), ids(cancelled))
}

// TestSummarizeOldSnapshot: a snapshot stored before summaries (no summary,
// no action items, no job flags) still gets its summary and sections, and
// jobs without ids are never merged.
func TestSummarizeOldSnapshot(t *testing.T) {
	t.Parallel()
	const old = `{"date":"2026-03-03","timezone":"America/New_York",
	 "technicians":[{"id":1,"name":"Ada","jobs":[
	   {"customer":"Initech","window":"08:00–10:00","status":"scheduled","arrival_start":"2026-03-03T08:00:00-05:00"},
	   {"customer":"Gone","window":"09:00–10:00","status":"cancelled","arrival_start":"2026-03-03T09:00:00-05:00"}]},
	  {"id":2,"name":"Bob","jobs":[]}],
	 "unassigned":[{"customer":"Stark","window":"13:00–15:00","status":"scheduled"}],
	 "overdue":[{"customer":"Wayne","window":"2026-03-01 09:00–11:00","status":"on_hold"}],
	 "on_hold":[{"customer":"Wayne","window":"2026-03-01 09:00–11:00","status":"on_hold"},
	            {"id":7,"customer":"Oscorp","window":"2026-03-05 09:00–11:00","status":"on_hold"}],
	 "yesterday":{"date":"2026-03-02","scheduled":5,"completed":3},
	 "totals":{"technicians":2,"jobs":3,"unassigned":1,"overdue":1,"on_hold":2}}`
	var s Snapshot
	require.NoError(t, json.Unmarshal([]byte(old), &s))
	sum, items, cancelled := s.Summarize()
	require.Equal(t, Summary{Jobs: 2, Cancelled: 1, TechniciansOut: 1, Overdue: 1, Unassigned: 1, OnHold: 2}, sum)
	require.Len(t, cancelled, 1)
	require.Empty(t, items.Emergencies)
	require.Equal(t, "Stark", items.Unassigned[0].Customer)
	require.Len(t, items.OnHold, 2, "without ids, two lines are two jobs")
}
