package snapshot

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/testutil"
)

func lineIDs(lines []JobLine) []int64 {
	out := []int64{}
	for _, l := range lines {
		out = append(out, l.ID)
	}
	return out
}

// TestSectionsSQLAgreesWithDerive: the sections and counts the snapshot
// reads in SQL (internal/field/day.go) are those Snapshot.derive finds in
// its lists, over random days whose lists are within their bounds:
// random statuses, emergencies, active and inactive technicians, windows
// before, on and after the day.
func TestSectionsSQLAgreesWithDerive(t *testing.T) {
	f := setup(t)
	ny := mustZone("America/New_York")
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, ny)
	statuses := field.Statuses
	for round := range 8 {
		rng := rand.New(rand.NewPCG(uint64(round), 17))
		org := f.Org(fmt.Sprintf("org-%d", round), config("America/New_York", "07:00"))
		techs := []int64{0, f.Tech(org, "Al", true), f.Tech(org, "Bea", true), f.Tech(org, "Cy", false)}
		for i := range 45 {
			// A distinct minute per job: arrival order is the whole order.
			start := day.AddDate(0, 0, []int{-3, -1, 0, 0, 0, 0, 1, 2}[rng.IntN(8)]).Add(time.Duration(6*60+i*7) * time.Minute)
			end := start.Add(time.Duration(rng.IntN(3)) * time.Hour)
			id := f.Job(org, techs[rng.IntN(len(techs))], fmt.Sprintf("Job %d", i), start, end, statuses[rng.IntN(len(statuses))])
			if rng.IntN(6) == 0 {
				_, err := f.DB.Exec(f.Ctx, `UPDATE jobs SET emergency = true WHERE id = $1`, id)
				require.NoError(t, err)
			}
		}
		snap := f.snapshotOf(org, "America/New_York", "2026-03-10")
		sum, items, cancelled := snap.derive()
		msg := fmt.Sprintf("round %d", round)
		require.Equal(t, sum, *snap.Summary, msg)
		require.Equal(t, lineIDs(items.Emergencies), lineIDs(snap.ActionItems.Emergencies), msg)
		require.Equal(t, lineIDs(items.Overdue), lineIDs(snap.ActionItems.Overdue), msg)
		require.Equal(t, lineIDs(items.Unassigned), lineIDs(snap.ActionItems.Unassigned), msg)
		require.Equal(t, lineIDs(items.OnHold), lineIDs(snap.ActionItems.OnHold), msg)
		require.Equal(t, lineIDs(cancelled), lineIDs(snap.Cancelled), msg)
		jobs := len(snap.Unassigned)
		for _, tech := range snap.Technicians {
			jobs += len(tech.Jobs)
			require.Zero(t, tech.MoreJobs, msg)
		}
		require.Equal(t, Totals{Technicians: 2, Jobs: jobs, Unassigned: len(snap.Unassigned), Overdue: len(snap.Overdue),
			OnHold: len(snap.OnHold)}, snap.Totals, msg)
	}
}

// TestDayBounded: every list holds at most MaxListJobs jobs and a route at
// most MaxRouteJobs (its cancelled ones left out first), the counts are
// the whole day's, and the view says how many more there are and where.
func TestDayBounded(t *testing.T) {
	f := setup(t)
	org := f.Org("busy", config("America/New_York", "07:00"))
	al := f.Tech(org, "Al", true)
	dayStart := utc("2026-03-10T04:00:00Z") // midnight in New York
	// 120 overdue jobs, every tenth on hold, one (the 97th) an emergency.
	require.NoError(t, testutil.InsertOverdueJobs(f.Ctx, f.DB, org, []int64{al}, 120, dayStart))
	// Al's day: 54 visits and 3 cancelled ones, the cancelled first; 53 jobs nobody has.
	_, err := f.DB.Exec(f.Ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, arrival_start, arrival_end, status)
		SELECT $1, CASE WHEN k <= 57 THEN $2::bigint END, 'Today ' || k,
		       $3::timestamptz + interval '6 hours' + k * interval '5 minutes', $3::timestamptz + interval '7 hours' + k * interval '5 minutes',
		       CASE WHEN k <= 3 THEN 'cancelled' ELSE 'scheduled' END
		  FROM generate_series(1, 110) k`, org, al, dayStart)
	require.NoError(t, err)

	snap := f.snapshotOf(org, "America/New_York", "2026-03-10")
	require.Len(t, snap.Overdue, MaxListJobs)
	require.Len(t, snap.ActionItems.Overdue, MaxListJobs)
	require.Len(t, snap.Unassigned, MaxListJobs)
	require.Len(t, snap.ActionItems.Unassigned, MaxListJobs)
	require.Len(t, snap.OnHold, 12, "within the bound: all")
	require.Equal(t, Totals{Technicians: 1, Jobs: 110, Unassigned: 53, Overdue: 120, OnHold: 12}, snap.Totals)
	require.Equal(t, Summary{Jobs: 107, Cancelled: 3, TechniciansOut: 1, Emergencies: 1, Overdue: 119, Unassigned: 53}, *snap.Summary)
	route := snap.Technicians[0]
	require.Len(t, route.Jobs, MaxRouteJobs)
	require.Zero(t, MaxRouteJobs-notCancelled(route.Jobs), "the cancelled jobs are the first left out")
	require.Equal(t, 4, route.MoreJobs)
	require.True(t, route.HasWork())
	for i := 1; i < len(snap.Overdue); i++ {
		require.False(t, snap.Overdue[i].ArrivalStart.Before(snap.Overdue[i-1].ArrivalStart), "the first in arrival order")
	}
	b, _, err := Encode(snap)
	require.NoError(t, err)
	require.Less(t, len(b), 110<<10) // 104,960 bytes since ids have 16 digits (migration 00043)

	v := View(snap, mustZone("America/New_York"))
	v.Link("/orgs/busy")
	require.Equal(t, 69, v.ActionItems.MoreOverdue)
	require.Equal(t, 3, v.ActionItems.MoreUnassigned)
	require.Zero(t, v.ActionItems.MoreEmergencies)
	require.Equal(t, 173, v.ActionItems.Count())
	require.Equal(t, 4, v.Routes[0].More)
	require.Equal(t, "/orgs/busy/board?date=2026-03-10#overdue", v.ActionItems.OverdueURL)
	require.Equal(t, "/orgs/busy/jobs?date=2026-03-10&technician=none", v.ActionItems.UnassignedURL)
	require.Equal(t, fmt.Sprintf("/orgs/busy/jobs?date=2026-03-10&technician=%d", al), v.Routes[0].MoreURL)
	for _, s := range v.ActionItems.Sections() {
		require.LessOrEqual(t, len(s.Jobs), MaxListJobs)
	}
}

// TestDayReadsLimits: the reads load no more rows than their limits —
// each route's first jobs before any route's later ones — and count all.
func TestDayReadsLimits(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "07:00"))
	techs := []int64{f.Tech(org, "Al", true), f.Tech(org, "Bea", true), f.Tech(org, "Cy", true)}
	day := utc("2026-03-10T00:00:00Z")
	for i, tech := range append(techs, 0) {
		for k := range 4 {
			start := day.Add(time.Duration(8+k) * time.Hour).Add(time.Duration(i) * time.Minute)
			f.Job(org, tech, fmt.Sprintf("T%d-%d", i, k), start, start.Add(time.Hour), "scheduled")
		}
	}
	require.NoError(t, testutil.InsertOverdueJobs(f.Ctx, f.DB, org, nil, 7, day))
	// Own overdue jobs: Al 4, Bea 3, Cy 1.
	_, err := f.DB.Exec(f.Ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, arrival_start, arrival_end, status)
		SELECT $1, ($2::bigint[])[k], 'Own ' || k, $3::timestamptz - k * interval '1 day', $3::timestamptz - k * interval '1 day' + interval '1 hour', 'scheduled'
		  FROM generate_series(1, 8) k`, org, []int64{techs[0], techs[0], techs[0], techs[0], techs[1], techs[1], techs[1], techs[2]}, day)
	require.NoError(t, err)
	var r *field.DayReads
	err = pgx.BeginTxFunc(f.Ctx, f.DB, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		r = field.QueueDay(b, org, day.Add(-24*time.Hour), day, day.Add(24*time.Hour), field.DayLimits{List: 2, Route: 3, Day: 5, Own: 2, OwnAll: 4})
		return tx.SendBatch(f.Ctx, b).Close()
	})
	require.NoError(t, err)
	require.Len(t, r.Jobs, 5)
	perGroup := map[int64]int{}
	for _, j := range r.Jobs {
		perGroup[j.TechnicianID]++
	}
	require.Len(t, perGroup, 4, "every route's first job before any second one")
	four := field.DayGroup{Jobs: 4, NotCancelled: 4}
	require.Equal(t, map[int64]field.DayGroup{techs[0]: four, techs[1]: four, techs[2]: four, 0: four}, r.Groups)
	require.Len(t, r.Overdue.Jobs, 2)
	require.Equal(t, 15, r.Overdue.Total)
	require.Equal(t, 13, r.Overdue.More())
	// Each technician's first overdue job before anyone's second, 4 in all:
	// Bea's second (older) before Al's.
	own := map[int64][2]int{}
	for id, l := range r.OwnOverdue {
		own[id] = [2]int{len(l.Jobs), l.Total}
		for _, j := range l.Jobs {
			require.Equal(t, id, j.TechnicianID)
		}
	}
	require.Equal(t, map[int64][2]int{techs[0]: {1, 4}, techs[1]: {2, 3}, techs[2]: {1, 1}}, own)
	require.Equal(t, 4, r.UnassignedItems.Total)
}

// bigSnapshot is a made-up day of techs technicians with jobs jobs each,
// every job with notes of noteLen characters.
func bigSnapshot(techs, jobs, noteLen int) Snapshot {
	ny := mustZone("America/New_York")
	start := time.Date(2026, 3, 10, 8, 0, 0, 0, ny)
	notes := strings.Repeat("Bring the long ladder & <gloves>. ", noteLen/34+1)[:noteLen]
	s := Snapshot{Date: "2026-03-10", Timezone: "America/New_York", Technicians: []TechnicianDay{},
		Unassigned: []JobLine{}, Overdue: []JobLine{}, OnHold: []JobLine{}}
	id := int64(0)
	for i := range techs {
		t := TechnicianDay{ID: int64(i + 1), Name: fmt.Sprintf("Technician %d", i), Phone: "+1 512 555 0100"}
		for k := range jobs {
			id++
			t.Jobs = append(t.Jobs, JobLine{ID: id, Customer: fmt.Sprintf("Customer %d", id), Address: "500 W 2nd St, Austin, TX 78701",
				TechnicianID: t.ID, Technician: t.Name, ArrivalStart: start.Add(time.Duration(k) * time.Minute),
				ArrivalEnd: start.Add(time.Duration(k+60) * time.Minute), Window: "08:00–09:00", Status: "scheduled", Notes: notes})
		}
		s.Technicians = append(s.Technicians, t)
	}
	sum, items, cancelled := s.derive()
	s.Summary, s.ActionItems, s.Cancelled = &sum, &items, cancelled
	return s
}

// TestEncodeShortens: a snapshot whose JSON would be over the bound with
// the usual lists (long notes on a busy day) is stored with shorter ones,
// says so, and keeps its counts; one within it is stored as it is.
func TestEncodeShortens(t *testing.T) {
	t.Parallel()
	small := bigSnapshot(3, 5, 40)
	b, got, err := Encode(small)
	require.NoError(t, err)
	require.False(t, got.Shortened)
	want, err := json.Marshal(small)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(b))

	big := bigSnapshot(60, 50, 2000) // 6 MB of notes
	b, got, err = Encode(big)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), maxJSON)
	require.True(t, got.Shortened)
	var stored Snapshot
	require.NoError(t, json.Unmarshal(b, &stored))
	require.True(t, stored.Shortened)
	require.Equal(t, 3000, stored.Summary.Jobs)
	for _, tech := range stored.Technicians {
		require.Equal(t, 50, len(tech.Jobs)+tech.MoreJobs, "each route counts what it leaves out")
		require.Less(t, len(tech.Jobs), 50)
	}

	// Thousands of technicians with long names: even their headings go.
	crowd := bigSnapshot(6000, 0, 0)
	for i := range crowd.Technicians {
		crowd.Technicians[i].Name = strings.Repeat("N", 200)
	}
	b, got, err = Encode(crowd)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), maxJSON)
	require.Empty(t, got.Technicians)
	require.True(t, got.Shortened)
}

// TestOldSnapshotCapped: a snapshot stored before the bounds, with
// thousands of overdue jobs and no summary, is read with its lists cut and
// its counts whole.
func TestOldSnapshotCapped(t *testing.T) {
	t.Parallel()
	s := Snapshot{Date: "2026-03-10", Timezone: "America/New_York", Technicians: []TechnicianDay{}}
	for i := range 5000 {
		s.Overdue = append(s.Overdue, JobLine{ID: int64(i + 1), Customer: "Old", Window: "2026-03-01 09:00–10:00", Status: "scheduled"})
	}
	s.Totals.Overdue = 5000
	c := s.Capped(MaxListJobs, MaxRouteJobs)
	require.Len(t, c.Overdue, MaxListJobs)
	require.Len(t, c.ActionItems.Overdue, MaxListJobs)
	require.Equal(t, 5000, c.Summary.Overdue)
	require.Len(t, s.Overdue, 5000, "the original is not changed")
	v := View(s, mustZone("America/New_York"))
	require.Len(t, v.ActionItems.Overdue, MaxListJobs)
	require.Equal(t, 4950, v.ActionItems.MoreOverdue)
}

// TestOwnOverdue: each active technician carries their own overdue jobs,
// the first MaxListJobs in arrival order and the count of the rest,
// whatever the org's overdue list holds; an inactive technician's and
// another org's are nobody's; a technician without any has none.
func TestOwnOverdue(t *testing.T) {
	f := setup(t)
	org := f.Org("busy", config("America/New_York", "07:00"))
	ana, ben, cy := f.Tech(org, "Ana", true), f.Tech(org, "Ben", true), f.Tech(org, "Cy", true)
	gone := f.Tech(org, "Gone", false)
	other := f.Org("other", "")
	zed := f.Tech(other, "Zed", true)
	dayStart := utc("2026-03-10T04:00:00Z") // midnight in New York
	// 200 of Ben's and Gone's, up to a year old; Ana's 60 the last 60 days'.
	require.NoError(t, testutil.InsertOverdueJobs(f.Ctx, f.DB, org, []int64{ben, gone}, 200, dayStart))
	require.NoError(t, testutil.InsertOverdueJobs(f.Ctx, f.DB, other, []int64{zed}, 10, dayStart))
	_, err := f.DB.Exec(f.Ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, arrival_start, arrival_end, status)
		SELECT $1, $2, 'Ana overdue ' || k, $3::timestamptz - k * interval '1 day', $3::timestamptz - k * interval '1 day' + interval '1 hour',
		       CASE WHEN k > 60 THEN 'done' ELSE 'scheduled' END
		  FROM generate_series(1, 70) k`, org, ana, dayStart)
	require.NoError(t, err)

	snap := f.snapshotOf(org, "America/New_York", "2026-03-10")
	require.True(t, snap.OwnOverdue)
	require.Len(t, snap.Overdue, MaxListJobs)
	for _, j := range snap.Overdue {
		require.NotEqual(t, ana, j.TechnicianID, "the org's list is the oldest 50: none of Ana's")
	}
	byID := map[int64]TechnicianDay{}
	for _, tech := range snap.Technicians {
		byID[tech.ID] = tech
	}
	require.Len(t, byID[ana].Overdue, MaxListJobs)
	require.Equal(t, 10, byID[ana].MoreOverdue)
	require.Equal(t, "Ana overdue 60", byID[ana].Overdue[0].Customer, "the oldest first")
	require.Equal(t, "Ana overdue 11", byID[ana].Overdue[49].Customer)
	for _, j := range byID[ana].Overdue {
		require.Equal(t, ana, j.TechnicianID)
		require.Equal(t, "Ana", j.Technician)
	}
	require.Len(t, byID[ben].Overdue, MaxListJobs)
	require.Equal(t, 50, byID[ben].MoreOverdue, "100 of the 200 are Ben's")
	require.Empty(t, byID[cy].Overdue)
	require.Zero(t, byID[cy].MoreOverdue)

	lines, more := snap.OwnOverdueOf(ana)
	require.Len(t, lines, MaxListJobs)
	require.Equal(t, 10, more)

	// Stored and read back; an old snapshot (no own lists) picks a
	// technician's from the org's list.
	b, stored, err := Encode(snap)
	require.NoError(t, err)
	require.False(t, stored.Shortened)
	var back Snapshot
	require.NoError(t, json.Unmarshal(b, &back))
	lines, more = back.OwnOverdueOf(ana)
	require.Len(t, lines, MaxListJobs)
	require.Equal(t, 10, more)
	var old Snapshot
	require.NoError(t, json.Unmarshal(b, &old))
	anas := old.Technicians[0].Overdue[0]
	old.OwnOverdue = false
	for i := range old.Technicians {
		old.Technicians[i].Overdue, old.Technicians[i].MoreOverdue = nil, 0
	}
	old.Overdue = append(old.Overdue, anas)
	lines, more = old.OwnOverdueOf(ana)
	require.Equal(t, []int64{anas.ID}, lineIDs(lines))
	require.Zero(t, more)

	// Shortened, each technician's list is cut and counted.
	c := snap.Capped(5, 5)
	require.Len(t, c.Technicians[0].Overdue, 5)
	require.Equal(t, 55, c.Technicians[0].MoreOverdue)
	require.Len(t, snap.Technicians[0].Overdue, MaxListJobs, "the original is not changed")
}
