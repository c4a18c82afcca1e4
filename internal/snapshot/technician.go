package snapshot

import (
	"context"
	"fmt"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/views/briefview"
)

// OwnOverdueOf is technician techID's own overdue jobs as s recorded them,
// in arrival order, and how many more it counted. A snapshot generated
// before technicians carried their own (OwnOverdue false) has them picked
// from the org's overdue list, which may leave some out uncounted
// (docs/briefing-content.md, "A technician's own overdue jobs").
func (s Snapshot) OwnOverdueOf(techID int64) (lines []JobLine, more int) {
	if s.OwnOverdue {
		for _, t := range s.Technicians {
			if t.ID == techID {
				return nonNil(t.Overdue), t.MoreOverdue
			}
		}
		return []JobLine{}, 0
	}
	lines = []JobLine{}
	for _, j := range s.Overdue {
		if j.TechnicianID == techID && j.Status != "done" && j.Status != "cancelled" {
			lines = append(lines, j)
		}
	}
	return lines, 0
}

// MaxTechnicianJobs bounds one technician's day as the day link page reads
// it, and their overdue jobs there: far more visits than a person makes in
// a day, and more than their email lists (MaxListJobs), so its "and N
// more" finds the rest there.
const MaxTechnicianJobs = 200

// TechnicianJobs is one technician's day as it is now, not as a briefing
// recorded it: their jobs whose window starts on the org-local date d in
// zone, in arrival order, each as a briefing shows it (times in zone with
// their abbreviation, in lc's clock: LocalWindow), the cancelled ones apart. At most MaxTechnicianJobs;
// more says some were left off. The technician's day link page reads it
// (docs/delivery.md, "Day links").
func TechnicianJobs(ctx context.Context, q database.Querier, orgID, technicianID int64, zone schedule.Zone, d schedule.Date, lc locale.Locale) (jobs, cancelled []briefview.Job, more bool, err error) {
	day := &Day{Zone: zone, Date: d}
	day.Start, day.End = schedule.DayBounds(zone.Loc, d)
	page, err := field.ListJobs(ctx, q, orgID, field.JobFilter{
		From: day.Start, To: day.End, TechnicianID: technicianID, Limit: MaxTechnicianJobs})
	if err != nil {
		return nil, nil, false, fmt.Errorf("day of technician %d on %s: %w", technicianID, d, err)
	}
	jobs, cancelled = []briefview.Job{}, []briefview.Job{}
	for _, j := range page.Jobs {
		line := day.jobLine(j)
		v := viewJob(line, zone.Loc)
		v.Technician = "" // the reader
		if !line.ArrivalStart.IsZero() && !line.ArrivalEnd.IsZero() {
			v.Window = LocalWindow(lc, line.ArrivalStart, line.ArrivalEnd, d, zone.Loc) // in the reader's clock
			v.Zone = lc.ZoneAbbrs(line.ArrivalStart.In(zone.Loc), line.ArrivalEnd.In(zone.Loc))
		}
		if j.Status == "cancelled" {
			cancelled = append(cancelled, v)
		} else {
			jobs = append(jobs, v)
		}
	}
	return jobs, cancelled, page.More, nil
}

// TechnicianOverdue is one technician's own jobs overdue on the org-local
// date d in zone (field's overdue rule), as they are now, in arrival
// order, each as a briefing shows it (in lc's clock). At most MaxTechnicianJobs; more says
// some were left off. The day link page reads it, below the day's jobs.
func TechnicianOverdue(ctx context.Context, q database.Querier, orgID, technicianID int64, zone schedule.Zone, d schedule.Date, lc locale.Locale) (jobs []briefview.Job, more bool, err error) {
	day := &Day{Zone: zone, Date: d}
	day.Start, day.End = schedule.DayBounds(zone.Loc, d)
	page, err := field.ListJobs(ctx, q, orgID, field.JobFilter{
		OverdueAt: day.Start, TechnicianID: technicianID, Limit: MaxTechnicianJobs})
	if err != nil {
		return nil, false, fmt.Errorf("overdue jobs of technician %d on %s: %w", technicianID, d, err)
	}
	jobs = make([]briefview.Job, 0, len(page.Jobs))
	for _, j := range page.Jobs {
		line := day.jobLine(j)
		v := viewJob(line, zone.Loc)
		v.Technician = "" // the reader
		if !line.ArrivalStart.IsZero() && !line.ArrivalEnd.IsZero() {
			v.Window = LocalWindow(lc, line.ArrivalStart, line.ArrivalEnd, d, zone.Loc) // in the reader's clock
			v.Zone = lc.ZoneAbbrs(line.ArrivalStart.In(zone.Loc), line.ArrivalEnd.In(zone.Loc))
		}
		jobs = append(jobs, v)
	}
	return jobs, page.More, nil
}
