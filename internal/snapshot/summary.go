package snapshot

import (
	"slices"

	"fieldbrief/internal/field"
)

// Summarize returns what a briefing shows above and beside the routes: the
// summary strip, the action items and the day's cancelled jobs. A snapshot
// generated since they were added carries them as they were decided then; an older
// one has them derived here from the fields every snapshot has, with the
// same rule, so old briefings still render (docs/briefing-content.md).
func (s Snapshot) Summarize() (Summary, ActionItems, []JobLine) {
	if s.Summary != nil && s.ActionItems != nil {
		items := *s.ActionItems
		for _, l := range []*[]JobLine{&items.Emergencies, &items.Overdue, &items.Unassigned, &items.OnHold} {
			*l = nonNil(*l)
		}
		return *s.Summary, items, nonNil(s.Cancelled)
	}
	return s.derive()
}

// derive applies the one-section-only rule: a job that needs action is
// listed once, in the first section that fits it, in this order:
//
//  1. emergencies: emergency jobs not done or cancelled, of the day or
//     overdue or on hold (begun by the day's end);
//  2. overdue: window ended before the day, not done or cancelled;
//  3. unassigned: the day's jobs without an active technician, not done or
//     cancelled;
//  4. on hold, the window begun by the day's end.
//
// An emergency also stays in its technician's route: the route is the
// technician's whole day, the action items are what the dispatcher acts on.
func (s Snapshot) derive() (Summary, ActionItems, []JobLine) {
	open := func(j JobLine) bool { return field.Open(j.Status) }
	var day []JobLine // the day's jobs, assigned or not
	var sum Summary
	for _, t := range s.Technicians {
		out := false
		for _, j := range t.Jobs {
			out = out || j.Status != field.StatusCancelled
		}
		if out {
			sum.TechniciansOut++
		}
		day = append(day, t.Jobs...)
	}
	day = append(day, s.Unassigned...)
	byArrival := func(a, b JobLine) int { return a.ArrivalStart.Compare(b.ArrivalStart) }
	slices.SortStableFunc(day, byArrival)

	cancelled := []JobLine{}
	for _, j := range day {
		if j.Status == field.StatusCancelled {
			cancelled = append(cancelled, j)
		} else {
			sum.Jobs++
		}
	}

	// Old snapshots made by hand or by tests may lack ids: a job without
	// one is never taken for another.
	listed := map[int64]bool{}
	take := func(j JobLine) bool {
		if j.ID == 0 {
			return true
		}
		if listed[j.ID] {
			return false
		}
		listed[j.ID] = true
		return true
	}
	items := ActionItems{Emergencies: []JobLine{}, Overdue: []JobLine{}, Unassigned: []JobLine{}, OnHold: []JobLine{}}
	// On hold on the day: its window has begun by the day's end (the rule
	// of internal/field's onHoldOnDay; a snapshot without DayEnd lists
	// them all, as it always did).
	var onHold []JobLine
	for _, j := range s.OnHold {
		if s.DayEnd.IsZero() || j.ArrivalStart.Before(s.DayEnd) {
			onHold = append(onHold, j)
		}
	}
	for _, j := range slices.Concat(s.Overdue, day, onHold) {
		if j.Emergency && open(j) && take(j) {
			items.Emergencies = append(items.Emergencies, j)
		}
	}
	slices.SortStableFunc(items.Emergencies, byArrival)
	for _, j := range s.Overdue {
		if open(j) && take(j) {
			items.Overdue = append(items.Overdue, j)
		}
	}
	for _, j := range s.Unassigned {
		if open(j) && take(j) {
			items.Unassigned = append(items.Unassigned, j)
		}
	}
	for _, j := range onHold {
		if take(j) {
			items.OnHold = append(items.OnHold, j)
		}
	}
	sum.Cancelled = len(cancelled)
	sum.Emergencies, sum.Overdue = len(items.Emergencies), len(items.Overdue)
	sum.Unassigned, sum.OnHold = len(items.Unassigned), len(items.OnHold)
	return sum, items, cancelled
}

func nonNil(l []JobLine) []JobLine {
	if l == nil {
		return []JobLine{}
	}
	return l
}
