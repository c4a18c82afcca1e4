package snapshot

import (
	"encoding/json"
	"fmt"

	"fieldbrief/internal/field"
)

// A briefing stays readable and bounded whatever the org's data
// (docs/briefing-content.md, "Bounds"; docs/guarantees.md, "Bounds").
const (
	// MaxListJobs bounds each list: every action item section, the
	// cancelled jobs, the overdue and on-hold lists, each technician's own
	// overdue jobs. The rest is counted.
	MaxListJobs = 50
	// MaxRouteJobs bounds one technician's day, and the day's jobs with no
	// active technician.
	MaxRouteJobs = 50
	// MaxDayJobs bounds the routes together: each route's first jobs are
	// listed before any route's later ones.
	MaxDayJobs = 1500
	// MaxOwnOverdueJobs bounds the technicians' own overdue lists together
	// (each at most MaxListJobs), as MaxDayJobs their routes: each
	// technician's first jobs are listed before anyone's later ones.
	MaxOwnOverdueJobs = 1500
	// MaxBytes bounds a stored revision, the API's briefing and a
	// webhook's body, and every email (docs/delivery.md): 1 MiB.
	MaxBytes = 1 << 20
	// maxJSON bounds Encode's JSON. PostgreSQL prints a jsonb document with
	// a space after every colon and comma, a few percent more than Go's
	// JSON, and the API and webhooks wrap the snapshot in a small envelope:
	// both fit in MaxBytes with this margin.
	maxJSON = 900 << 10
)

// Every technician's first overdue job, which carries their count, is
// read within MaxOwnOverdueJobs (field.DayLimits): it may not be below an
// org's technicians.
const _ uint = MaxOwnOverdueJobs - field.MaxTechnicians

// Limits are the reads' bounds.
var Limits = field.DayLimits{List: MaxListJobs, Route: MaxRouteJobs, Day: MaxDayJobs, Own: MaxListJobs, OwnAll: MaxOwnOverdueJobs}

// shortening are the smaller bounds Encode tries, in turn, on a snapshot
// whose JSON is over maxJSON with the usual ones (long notes on every line,
// a thousand technicians): {list, route}.
var shortening = [][2]int{{25, 25}, {10, 10}, {5, 5}, {2, 2}, {0, 0}}

// Capped returns s with every list at most list jobs long and every route
// at most route, the first in arrival order (a route's cancelled jobs
// last); what is cut stays counted (the summary, the totals, each route's
// MoreJobs). A snapshot stored before the action items were (no summary)
// gets them first, so its counts are whole. s is not changed.
func (s Snapshot) Capped(list, route int) Snapshot {
	sum, items, cancelled := s.Summarize()
	items.Emergencies, items.Overdue = head(items.Emergencies, list), head(items.Overdue, list)
	items.Unassigned, items.OnHold = head(items.Unassigned, list), head(items.OnHold, list)
	s.Summary, s.ActionItems, s.Cancelled = &sum, &items, head(cancelled, list)
	s.Overdue, s.OnHold, s.Unassigned = head(s.Overdue, list), head(s.OnHold, list), head(s.Unassigned, list)
	techs := make([]TechnicianDay, len(s.Technicians))
	for i, t := range s.Technicians {
		techs[i] = t.capped(route)
		if n := len(t.Overdue); n > list {
			techs[i].Overdue, techs[i].MoreOverdue = head(t.Overdue, list), t.MoreOverdue+n-list
		}
	}
	s.Technicians = techs
	return s
}

// capped is the route's first jobs: at most n, the ones not cancelled
// first, in arrival order.
func (t TechnicianDay) capped(n int) TechnicianDay {
	if len(t.Jobs) <= n {
		return t
	}
	open := notCancelled(t.Jobs)
	keepOpen := min(n, open)
	keepCancelled := n - keepOpen
	jobs := make([]JobLine, 0, n)
	for _, j := range t.Jobs {
		switch {
		case j.Status != field.StatusCancelled && keepOpen > 0:
			keepOpen--
		case j.Status == field.StatusCancelled && keepCancelled > 0:
			keepCancelled--
		default:
			continue
		}
		jobs = append(jobs, j)
	}
	t.MoreJobs += open - notCancelled(jobs)
	t.Jobs = jobs
	return t
}

func head(l []JobLine, n int) []JobLine {
	if len(l) <= n {
		return l
	}
	return l[:n:n]
}

// Encode is s as stored and sent: its JSON, at most maxJSON bytes. A
// snapshot over that with the usual bounds gets smaller ones
// (shortening), then, if even lists of none are too long (thousands of
// technicians with long names), its routes' headings go too; Shortened
// says so. It returns the snapshot the JSON is of.
func Encode(s Snapshot) ([]byte, Snapshot, error) {
	s = s.Capped(MaxListJobs, MaxRouteJobs)
	for i := 0; ; i++ {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, s, fmt.Errorf("encode snapshot of %s: %w", s.Date, err)
		}
		if len(b) <= maxJSON {
			return b, s, nil
		}
		s.Shortened = true
		switch {
		case i < len(shortening):
			s = s.Capped(shortening[i][0], shortening[i][1])
		case len(s.Technicians) > 0:
			s.Technicians = []TechnicianDay{}
		default:
			// Nothing left to cut that could be this long.
			return nil, s, fmt.Errorf("encode snapshot of %s: %d bytes with every list empty", s.Date, len(b))
		}
	}
}
