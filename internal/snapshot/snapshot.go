// Package snapshot builds a briefing's content for an org-local date: the
// field data of the day, read through internal/field in one batched round
// trip (Day), the summary and action items (Summarize), and the view model
// the briefing page and the email both render (View).
package snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// Snapshot is a briefing's content: the org's field work for one local day,
// as it stood when generated. Times are in the briefing's zone.
type Snapshot struct {
	Date        string          `json:"date"`     // the org-local date, YYYY-MM-DD
	Timezone    string          `json:"timezone"` // the zone recorded on the briefing
	DayStart    time.Time       `json:"day_start"`
	DayEnd      time.Time       `json:"day_end"`
	GeneratedAt time.Time       `json:"generated_at"`
	Technicians []TechnicianDay `json:"technicians"` // active technicians, by name
	Unassigned  []JobLine       `json:"unassigned"`  // the day's jobs with no active technician
	Overdue     []JobLine       `json:"overdue"`     // window ended before the day, not done or cancelled
	OnHold      []JobLine       `json:"on_hold"`
	Yesterday   DayCounts       `json:"yesterday"`
	Totals      Totals          `json:"totals"`

	// Added with the summary and action items (docs/briefing-content.md). Snapshots generated
	// before have neither: Summarize derives both from the fields above.
	Summary     *Summary     `json:"summary,omitempty"`
	ActionItems *ActionItems `json:"action_items,omitempty"`
	Cancelled   []JobLine    `json:"cancelled,omitempty"` // the day's cancelled jobs, shown apart

	// Set when the lists had to be cut below their usual bounds to keep the
	// snapshot under MaxBytes (docs/briefing-content.md, "Bounds").
	Shortened bool `json:"shortened,omitempty"`

	// OwnOverdue says each technician carries their own overdue jobs
	// (TechnicianDay.Overdue). Snapshots generated before have not: a
	// technician's are picked from Overdue, which holds everyone's
	// (OwnOverdueOf).
	OwnOverdue bool `json:"own_overdue,omitempty"`
}

// Summary is the strip at the top of a briefing: the day in counts. The
// action item counts are those of the sections below, so each job is
// counted once (docs/briefing-content.md).
type Summary struct {
	Jobs           int `json:"jobs"`            // the day's jobs, cancelled ones not counted
	Cancelled      int `json:"cancelled"`       // the day's cancelled jobs
	TechniciansOut int `json:"technicians_out"` // active technicians with at least one job that is not cancelled
	Emergencies    int `json:"emergencies"`
	Overdue        int `json:"overdue"`
	Unassigned     int `json:"unassigned"`
	OnHold         int `json:"on_hold"`
}

// ActionItems are the jobs someone must act on, each in exactly one
// section: emergency, then overdue, then unassigned, then on hold.
type ActionItems struct {
	Emergencies []JobLine `json:"emergencies"`
	Overdue     []JobLine `json:"overdue"`
	Unassigned  []JobLine `json:"unassigned"`
	OnHold      []JobLine `json:"on_hold"`
}

// TechnicianDay is one active technician's jobs of the day, in arrival
// order: at most MaxRouteJobs of them (docs/briefing-content.md, "Bounds").
type TechnicianDay struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Phone string `json:"phone,omitempty"`
	// ExternalRef is the technician's reference in the org's own systems
	// (the API's {ref}); empty when they have none, and in older snapshots.
	ExternalRef string    `json:"external_ref,omitempty"`
	Jobs        []JobLine `json:"jobs"`
	// MoreJobs is how many of the technician's jobs of the day Jobs leaves
	// out, cancelled ones not counted.
	MoreJobs int `json:"more_jobs,omitempty"`
	// Overdue is the technician's own jobs overdue on the day, in arrival
	// order: at most MaxListJobs (fewer when many technicians have some:
	// MaxOwnOverdueJobs); MoreOverdue counts the rest. Their email lists
	// them (docs/briefing-content.md, "A technician's own overdue jobs").
	Overdue     []JobLine `json:"overdue,omitempty"`
	MoreOverdue int       `json:"more_overdue,omitempty"`
}

// HasWork says whether the technician has jobs that day, listed or not.
func (t TechnicianDay) HasWork() bool { return len(t.Jobs) > 0 || t.MoreJobs > 0 }

// JobLine is one job as the briefing shows it.
type JobLine struct {
	ID           int64     `json:"id"`
	Customer     string    `json:"customer"`
	Address      string    `json:"address,omitempty"`
	TechnicianID int64     `json:"technician_id,omitempty"`
	Technician   string    `json:"technician,omitempty"`
	ArrivalStart time.Time `json:"arrival_start"` // with the zone's offset
	ArrivalEnd   time.Time `json:"arrival_end"`
	Window       string    `json:"window"` // "09:00–11:00" local; the date is added when not the briefing's day
	Status       string    `json:"status"`

	// Added with the summary and action items; empty in older snapshots.
	JobType       string `json:"job_type,omitempty"`
	Emergency     bool   `json:"emergency,omitempty"`
	CustomerPhone string `json:"customer_phone,omitempty"`
	Notes         string `json:"notes,omitempty"`
	ExternalRef   string `json:"external_ref,omitempty"`
	// TechnicianRef is the assignee's external_ref; empty when they have
	// none, and in older snapshots.
	TechnicianRef string `json:"technician_ref,omitempty"`
}

// DayCounts compares the previous local day's plan with what got done.
type DayCounts struct {
	Date      string `json:"date"`
	Scheduled int    `json:"scheduled"` // jobs whose window started that day, cancelled ones excepted
	Completed int    `json:"completed"` // of those, the ones done
}

// Totals summarise the snapshot for lists and headlines.
type Totals struct {
	Technicians int `json:"technicians"`
	Jobs        int `json:"jobs"` // the day's jobs, assigned or not
	Unassigned  int `json:"unassigned"`
	Overdue     int `json:"overdue"`
	OnHold      int `json:"on_hold"`
}

// Day is the field data of one org-local date, read for a snapshot: the
// date's bounds are computed here, in Go, from the zone the briefing
// recorded, and passed to SQL as instants; the reads themselves are
// internal/field's.
type Day struct {
	Zone       schedule.Zone
	Date       schedule.Date
	Start, End time.Time
	reads      *field.DayReads
}

// QueueDay queues the reads of org's local date d in zone on b: with the
// rest of the batch, one round trip (docs/scheduling.md, "Burst"). The
// batch's transaction should be repeatable read, for one consistent view of
// the org's data.
func QueueDay(b *pgx.Batch, orgID int64, zone schedule.Zone, d schedule.Date) *Day {
	day := &Day{Zone: zone, Date: d}
	day.Start, day.End = schedule.DayBounds(zone.Loc, d)
	prevStart, _ := schedule.DayBounds(zone.Loc, d.AddDays(-1))
	day.reads = field.QueueDay(b, orgID, prevStart, day.Start, day.End, Limits)
	return day
}

// ReadDay reads org's local date d in zone on tx: one round trip.
func ReadDay(ctx context.Context, tx pgx.Tx, orgID int64, zone schedule.Zone, d schedule.Date) (*Day, error) {
	b := &pgx.Batch{}
	day := QueueDay(b, orgID, zone, d)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("read %s of org %d: %w", d, orgID, err)
	}
	return day, nil
}

// Technicians are the day's active technicians, by name.
func (d *Day) Technicians() []field.Technician { return d.reads.Technicians }

// Snapshot builds the briefing's content from the reads: every list at
// most MaxListJobs long, every route at most MaxRouteJobs, and the counts
// of the summary, the totals and each route's MoreJobs over all the org's
// jobs, read in SQL (docs/briefing-content.md, "Bounds").
func (d *Day) Snapshot() Snapshot {
	r := d.reads
	lines := func(l field.JobList) []JobLine {
		out := make([]JobLine, 0, len(l.Jobs))
		for _, j := range l.Jobs {
			out = append(out, d.jobLine(j))
		}
		return out
	}
	snap := Snapshot{Date: d.Date.String(), Timezone: d.Zone.Name, DayStart: d.Start, DayEnd: d.End,
		Technicians: make([]TechnicianDay, 0, len(r.Technicians)), Unassigned: []JobLine{},
		Overdue: lines(r.Overdue), OnHold: lines(r.OnHold),
		Yesterday: DayCounts{Date: d.Date.AddDays(-1).String(), Scheduled: r.PrevScheduled, Completed: r.PrevCompleted}}
	byTech := make(map[int64]int, len(r.Technicians))
	for _, t := range r.Technicians {
		byTech[t.ID] = len(snap.Technicians)
		own := r.OwnOverdue[t.ID]
		snap.Technicians = append(snap.Technicians, TechnicianDay{ID: t.ID, Name: t.Name, Phone: t.Phone, ExternalRef: t.ExternalRef, Jobs: []JobLine{},
			Overdue: lines(own), MoreOverdue: own.More()})
	}
	snap.OwnOverdue = true
	for _, j := range r.Jobs {
		// Route is 0, no technician's, for an unassigned job
		// (field.Job.Unassigned: an inactive technician's too).
		if i, ok := byTech[j.Route()]; ok {
			snap.Technicians[i].Jobs = append(snap.Technicians[i].Jobs, d.jobLine(j))
		} else {
			snap.Unassigned = append(snap.Unassigned, d.jobLine(j))
		}
	}
	var sum Summary
	var jobs int
	for id, g := range r.Groups {
		jobs += g.Jobs
		sum.Jobs += g.NotCancelled
		if _, ok := byTech[id]; ok && id != 0 && g.NotCancelled > 0 {
			sum.TechniciansOut++
		}
	}
	for i := range snap.Technicians {
		t := &snap.Technicians[i]
		t.MoreJobs = max(r.Groups[t.ID].NotCancelled-notCancelled(t.Jobs), 0)
	}
	snap.Totals = Totals{Technicians: len(snap.Technicians), Jobs: jobs, Unassigned: r.Groups[0].Jobs,
		Overdue: r.Overdue.Total, OnHold: r.OnHold.Total}
	sum.Cancelled = r.Cancelled.Total
	sum.Emergencies, sum.Overdue = r.Emergencies.Total, r.OverdueItems.Total
	sum.Unassigned, sum.OnHold = r.UnassignedItems.Total, r.OnHoldItems.Total
	items := ActionItems{Emergencies: lines(r.Emergencies), Overdue: lines(r.OverdueItems),
		Unassigned: lines(r.UnassignedItems), OnHold: lines(r.OnHoldItems)}
	snap.Summary, snap.ActionItems, snap.Cancelled = &sum, &items, lines(r.Cancelled)
	return snap
}

// notCancelled counts the lines that are not cancelled.
func notCancelled(lines []JobLine) int {
	n := 0
	for _, j := range lines {
		if j.Status != field.StatusCancelled {
			n++
		}
	}
	return n
}

// jobLine is a job as the briefing shows it, with times in the day's zone.
func (d *Day) jobLine(j field.Job) JobLine {
	start, end := j.ArrivalStart.In(d.Zone.Loc), j.ArrivalEnd.In(d.Zone.Loc)
	return JobLine{ID: j.ID, Customer: j.Customer, Address: j.Address, TechnicianID: j.TechnicianID, Technician: j.TechnicianName,
		ArrivalStart: start, ArrivalEnd: end, Window: window(start, end, d.Date), Status: j.Status,
		JobType: j.JobType, Emergency: j.Emergency, CustomerPhone: j.CustomerPhone, Notes: j.Notes, ExternalRef: j.ExternalRef,
		TechnicianRef: j.TechnicianRef}
}

// window formats an arrival window in local time, with dates only where they
// are not the briefing's day (overdue jobs, windows across midnight).
func window(start, end time.Time, d schedule.Date) string {
	format := func(t time.Time, ref schedule.Date) string {
		if schedule.DateOf(t) != ref {
			return t.Format("2006-01-02 15:04")
		}
		return t.Format("15:04")
	}
	return format(start, d) + "–" + format(end, schedule.DateOf(start))
}
