package updates

import (
	"cmp"
	"slices"
	"time"

	"fieldbrief/internal/schedule"
)

// Fields a job change can be about, in the order updates list them.
const (
	FieldTechnician    = "technician"
	FieldWindow        = "arrival_window"
	FieldAddress       = "address"
	FieldStatus        = "status"
	FieldCustomer      = "customer"
	FieldCustomerPhone = "customer_phone"
	FieldJobType       = "job_type"
	FieldEmergency     = "emergency"
	FieldNotes         = "notes"
)

// Diff lists the fields that differ between two states of a job, in the
// order above: what the webhook reports.
func Diff(a, b JobState) []string {
	var out []string
	add := func(field string, differ bool) {
		if differ {
			out = append(out, field)
		}
	}
	add(FieldTechnician, a.TechnicianID != b.TechnicianID)
	add(FieldWindow, !a.Start.Equal(b.Start) || !a.End.Equal(b.End))
	add(FieldAddress, a.Address != b.Address)
	add(FieldStatus, a.Status != b.Status)
	add(FieldCustomer, a.Customer != b.Customer)
	add(FieldCustomerPhone, a.CustomerPhone != b.CustomerPhone)
	add(FieldJobType, a.JobType != b.JobType)
	add(FieldEmergency, a.Emergency != b.Emergency)
	add(FieldNotes, a.Notes != b.Notes)
	return out
}

// Told lists what a technician is told about a job that stays on their
// day: Diff, less the technician, and less a status moving between
// scheduled, in progress and done (their own progress, which they know):
// cancelled and on hold, to or from, are told.
func Told(a, b JobState) []string {
	var out []string
	for _, f := range Diff(a, b) {
		switch f {
		case FieldTechnician:
			continue
		case FieldStatus:
			if !tellStatus(a.Status) && !tellStatus(b.Status) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

func tellStatus(s string) bool { return s == "cancelled" || s == "on_hold" }

// Row is one outbox row as the fold and the messages read it.
type Row struct {
	ID, JobID, TechnicianID int64
	Date                    schedule.Date
	WasOn, IsOn             bool
	Before                  *JobState // nil: the change created the job
	After                   JobState
	CreatedAt               time.Time
}

// Item kinds: how a job's place in the technician's day changed.
const (
	Added   = "added"   // now on their day: new, assigned to them, or moved to the date
	Removed = "removed" // no longer: reassigned, unassigned or moved to another date
	Changed = "changed" // still on it, with Fields changed
)

// Item is one job in a technician's update: the net of its rows, from the
// first one's Before to the last one's After.
type Item struct {
	Kind   string
	JobID  int64
	Before *JobState // as it was (nil: new job)
	After  JobState  // as it is
	Fields []string  // Changed: what changed (Told)
}

// Now is the job as the technician's day has it: as it was for Removed,
// as it is otherwise.
func (it Item) Now() JobState {
	if it.Kind == Removed && it.Before != nil {
		return *it.Before
	}
	return it.After
}

// ForTechnician folds one technician's rows of one date (oldest first)
// into their update: per job, the net change from the first row's Before to
// the last row's After; jobs whose changes cancel out are left out. Items
// come in the order of the day (the job's arrival as the day has it).
func ForTechnician(rows []Row) []Item {
	type span struct{ first, last Row }
	byJob := map[int64]*span{}
	var order []int64
	for _, r := range rows {
		if s, ok := byJob[r.JobID]; ok {
			s.last = r
			continue
		}
		byJob[r.JobID] = &span{first: r, last: r}
		order = append(order, r.JobID)
	}
	var out []Item
	for _, id := range order {
		s := byJob[id]
		it := Item{JobID: id, Before: s.first.Before, After: s.last.After}
		switch {
		case !s.first.WasOn && s.last.IsOn:
			it.Kind = Added
		case s.first.WasOn && !s.last.IsOn:
			it.Kind = Removed
		case s.first.WasOn && s.last.IsOn:
			it.Kind, it.Fields = Changed, Told(*s.first.Before, s.last.After)
			if len(it.Fields) == 0 {
				continue
			}
		default:
			continue // came and went within the update
		}
		out = append(out, it)
	}
	slices.SortStableFunc(out, func(a, b Item) int {
		return cmp.Or(a.Now().Start.Compare(b.Now().Start), cmp.Compare(a.JobID, b.JobID))
	})
	return out
}

// NotOver keeps the items whose job is not over at now (its window, as
// the technician's day has it, ends after now): an update never announces
// a visit that is already behind them (docs/delivery.md, "Updates").
func NotOver(items []Item, now time.Time) []Item {
	var out []Item
	for _, it := range items {
		if it.Now().End.After(now) {
			out = append(out, it)
		}
	}
	return out
}

// JobChange is one job in a briefing.updated webhook: the net change of the
// rows announced, and the technicians told.
type JobChange struct {
	JobID       int64
	Before      *JobState // nil: created
	After       JobState
	Fields      []string // Diff; empty for a created job
	Technicians []int64
}

// ForWebhook folds the rows an update announces (oldest first, possibly of
// several technicians: a reassignment's two rows are one change) into one
// entry per job, from the first row's Before to the last one's After; jobs
// that end as they began are left out.
func ForWebhook(rows []Row) []JobChange {
	byJob := map[int64]*JobChange{}
	var order []int64
	for _, r := range rows {
		c, ok := byJob[r.JobID]
		if !ok {
			c = &JobChange{JobID: r.JobID, Before: r.Before}
			byJob[r.JobID] = c
			order = append(order, r.JobID)
		}
		c.After = r.After
		if !slices.Contains(c.Technicians, r.TechnicianID) {
			c.Technicians = append(c.Technicians, r.TechnicianID)
		}
	}
	var out []JobChange
	for _, id := range order {
		c := byJob[id]
		if c.Before != nil {
			if c.Fields = Diff(*c.Before, c.After); len(c.Fields) == 0 {
				continue
			}
		}
		slices.Sort(c.Technicians)
		out = append(out, *c)
	}
	return out
}

// Wait is how long a fold waits before it may send, at now: until delay
// after the newest change (quiet), but no longer than MaxHold after the
// oldest; and until MinGap after the technician's last update (zero: none).
// Zero means fold now.
func Wait(now, oldest, newest, lastSent time.Time, delay time.Duration) time.Duration {
	var wait time.Duration
	if quiet := newest.Add(delay); now.Before(quiet) {
		wait = quiet.Sub(now)
		if hold := oldest.Add(MaxHold).Sub(now); hold < wait {
			wait = max(hold, 0)
		}
	}
	if !lastSent.IsZero() {
		if next := lastSent.Add(MinGap); now.Before(next) {
			wait = max(wait, next.Sub(now))
		}
	}
	return wait
}
