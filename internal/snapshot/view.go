package snapshot

import (
	"strings"
	"time"

	"fieldbrief/internal/field"
	"fieldbrief/views/briefview"
)

// View is a snapshot as people read it, on the briefing page and in the
// email alike: the summary, the action items (one section per job), each
// technician's route without its cancelled jobs, and the cancelled jobs
// apart. Times are in loc, the briefing's zone. Every list is bounded
// (MaxListJobs, MaxRouteJobs; a snapshot stored before the bounds is cut
// here) and says how many jobs it leaves out; the caller links them
// (briefview.Content.Link).
func View(s Snapshot, loc *time.Location) briefview.Content {
	s = s.Capped(MaxListJobs, MaxRouteJobs)
	sum, items, cancelled := s.Summarize()
	jobs := func(lines []JobLine) []briefview.Job {
		out := make([]briefview.Job, 0, len(lines))
		for _, j := range lines {
			out = append(out, viewJob(j, loc))
		}
		return out
	}
	v := briefview.Content{
		Date:     s.Date,
		Timezone: s.Timezone,
		Zone:     zoneAbbrevs(s.DayStart, s.DayEnd, loc),
		Summary: briefview.Summary{Jobs: sum.Jobs, Cancelled: sum.Cancelled, TechniciansOut: sum.TechniciansOut,
			Unassigned: sum.Unassigned, Overdue: sum.Overdue, Emergencies: sum.Emergencies, OnHold: sum.OnHold,
			Technicians: len(s.Technicians)},
		ActionItems: briefview.ActionItems{Emergencies: jobs(items.Emergencies), Overdue: jobs(items.Overdue),
			Unassigned: jobs(items.Unassigned), OnHold: jobs(items.OnHold),
			MoreEmergencies: more(sum.Emergencies, items.Emergencies), MoreOverdue: more(sum.Overdue, items.Overdue),
			MoreUnassigned: more(sum.Unassigned, items.Unassigned), MoreOnHold: more(sum.OnHold, items.OnHold)},
		Routes:        make([]briefview.Route, 0, len(s.Technicians)),
		Cancelled:     jobs(cancelled),
		MoreCancelled: more(sum.Cancelled, cancelled),
		Shortened:     s.Shortened,
		Yesterday:     briefview.Yesterday{Date: s.Yesterday.Date, Scheduled: s.Yesterday.Scheduled, Completed: s.Yesterday.Completed},
	}
	for _, t := range s.Technicians {
		r := briefview.Route{TechnicianID: t.ID, Technician: t.Name, Phone: t.Phone, Jobs: []briefview.Job{}, More: t.MoreJobs}
		for _, j := range t.Jobs {
			if j.Status != field.StatusCancelled {
				vj := viewJob(j, loc)
				vj.Technician = "" // the route's heading says who
				r.Jobs = append(r.Jobs, vj)
			}
		}
		v.Routes = append(v.Routes, r)
	}
	return v
}

// more is how many of a list's count it leaves out.
func more(count int, listed []JobLine) int { return max(count-len(listed), 0) }

// viewJob is one job line ready to show: the window as generated, with the
// abbreviation in force at its start (and at its end when it differs, a
// window across a DST change).
func viewJob(j JobLine, loc *time.Location) briefview.Job {
	v := briefview.Job{
		ID: j.ID, Window: j.Window, Customer: j.Customer, Address: j.Address, MapURL: briefview.MapURL(j.Address),
		Phone: j.CustomerPhone, Type: j.JobType, Technician: j.Technician,
		Status: strings.ReplaceAll(j.Status, "_", " "), StatusCode: j.Status, Notes: j.Notes, Emergency: j.Emergency,
	}
	if !j.ArrivalStart.IsZero() {
		start, end := j.ArrivalStart.In(loc), j.ArrivalEnd.In(loc)
		v.Date = start.Format(time.DateOnly)
		v.Zone = start.Format("MST")
		if !j.ArrivalEnd.IsZero() && end.Format("MST") != v.Zone {
			v.Zone += "/" + end.Format("MST")
		}
	}
	return v
}

// zoneAbbrevs names the abbreviations in force during the day: "EST", or
// "EST/EDT" on the day the clocks change. "" when the snapshot has no
// bounds (made by hand).
func zoneAbbrevs(start, end time.Time, loc *time.Location) string {
	if start.IsZero() || end.IsZero() {
		return ""
	}
	first, last := start.In(loc).Format("MST"), end.Add(-time.Second).In(loc).Format("MST")
	if first == last {
		return first
	}
	return first + "/" + last
}

// ViewJobs is lines as View shows each job (an email's own selection of
// them: a technician's overdue jobs, say).
func ViewJobs(lines []JobLine, loc *time.Location) []briefview.Job {
	out := make([]briefview.Job, 0, len(lines))
	for _, j := range lines {
		out = append(out, viewJob(j, loc))
	}
	return out
}
