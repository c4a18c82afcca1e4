package briefing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

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

	// Added with issue 9 (docs/briefing-content.md). Snapshots generated
	// before have neither: Summarize derives both from the fields above.
	Summary     *Summary     `json:"summary,omitempty"`
	ActionItems *ActionItems `json:"action_items,omitempty"`
	Cancelled   []JobLine    `json:"cancelled,omitempty"` // the day's cancelled jobs, shown apart
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

// TechnicianDay is one active technician's jobs of the day, in arrival order.
type TechnicianDay struct {
	ID    int64     `json:"id"`
	Name  string    `json:"name"`
	Phone string    `json:"phone,omitempty"`
	Jobs  []JobLine `json:"jobs"`
}

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

	// Added with issue 9; empty in older snapshots.
	JobType       string `json:"job_type,omitempty"`
	Emergency     bool   `json:"emergency,omitempty"`
	CustomerPhone string `json:"customer_phone,omitempty"`
	Notes         string `json:"notes,omitempty"`
	ExternalRef   string `json:"external_ref,omitempty"`
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

// dayStart is the first instant of local date d: midnight, or the end of a
// DST gap on the days midnight does not exist (Go's time.Date may pick the
// wrong side there; schedule.FireTime does not).
func dayStart(loc *time.Location, d schedule.Date) time.Time {
	t, _ := schedule.FireTime(loc, d, schedule.LocalTime{})
	return t
}

// dayReads are the reads a briefing's snapshot needs, queued on a batch so
// that the whole day costs one round trip (docs/architecture.md, "Burst");
// the batch's transaction sees one consistent view of the org's data
// (repeatable read). The day's bounds are computed here, in Go, from the
// zone the briefing recorded, and passed to SQL as instants.
type dayReads struct {
	zone       schedule.Zone
	date       schedule.Date
	start, end time.Time

	technicians []TechnicianDay
	emails      []technicianEmail // active technicians with an address, by id: the day sheets' recipients
	day         []JobLine
	overdue     []JobLine
	onHold      []JobLine
	yesterday   DayCounts
}

type technicianEmail struct {
	id    int64
	email string
}

// queueDay queues the reads of org's local date d in zone on b.
func queueDay(b *pgx.Batch, orgID int64, zone schedule.Zone, d schedule.Date) *dayReads {
	r := &dayReads{zone: zone, date: d, start: dayStart(zone.Loc, d), end: dayStart(zone.Loc, d.AddDays(1)),
		technicians: []TechnicianDay{}}
	yesterday := d.AddDays(-1)
	r.yesterday.Date = yesterday.String()

	b.Queue(`SELECT id, name, phone, email FROM technicians WHERE org_id = $1 AND active ORDER BY name, id`, orgID).
		Query(func(rows pgx.Rows) error {
			var t TechnicianDay
			var email string
			_, err := pgx.ForEachRow(rows, []any{&t.ID, &t.Name, &t.Phone, &email}, func() error {
				r.technicians = append(r.technicians, TechnicianDay{ID: t.ID, Name: t.Name, Phone: t.Phone, Jobs: []JobLine{}})
				if email != "" {
					r.emails = append(r.emails, technicianEmail{id: t.ID, email: email})
				}
				return nil
			})
			slices.SortFunc(r.emails, func(a, b technicianEmail) int { return cmp.Compare(a.id, b.id) })
			return wrap(err, "technicians")
		})
	queueJobLines(b, &r.day, zone.Loc, d, "jobs of the day", `j.arrival_start >= $2 AND j.arrival_start < $3`, orgID, r.start, r.end)
	queueJobLines(b, &r.overdue, zone.Loc, d, "overdue jobs", `j.arrival_end < $2 AND j.status NOT IN ('done', 'cancelled')`, orgID, r.start)
	queueJobLines(b, &r.onHold, zone.Loc, d, "jobs on hold", `j.status = 'on_hold'`, orgID)
	b.Queue(`
		SELECT count(*) FILTER (WHERE status <> 'cancelled'), count(*) FILTER (WHERE status = 'done')
		  FROM jobs
		 WHERE org_id = $1 AND arrival_start >= $2 AND arrival_start < $3`,
		orgID, dayStart(zone.Loc, yesterday), r.start).
		QueryRow(func(row pgx.Row) error {
			return wrap(row.Scan(&r.yesterday.Scheduled, &r.yesterday.Completed), "yesterday's counts")
		})
	return r
}

// readDay reads org's local date d in zone on tx: one round trip.
func readDay(ctx context.Context, tx pgx.Tx, orgID int64, zone schedule.Zone, d schedule.Date) (*dayReads, error) {
	b := &pgx.Batch{}
	r := queueDay(b, orgID, zone, d)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return r, nil
}

// snapshot builds the briefing's content from the reads.
func (r *dayReads) snapshot() Snapshot {
	snap := Snapshot{Date: r.date.String(), Timezone: r.zone.Name, DayStart: r.start, DayEnd: r.end,
		Technicians: slices.Clone(r.technicians), Unassigned: []JobLine{}, Yesterday: r.yesterday,
		Overdue: r.overdue, OnHold: r.onHold}
	for i := range snap.Technicians {
		snap.Technicians[i].Jobs = []JobLine{}
	}
	byTech := make(map[int64]*TechnicianDay, len(snap.Technicians))
	for i := range snap.Technicians {
		byTech[snap.Technicians[i].ID] = &snap.Technicians[i]
	}
	for _, j := range r.day {
		// Jobs of inactive technicians need someone else: list them as unassigned.
		if tech, ok := byTech[j.TechnicianID]; ok {
			tech.Jobs = append(tech.Jobs, j)
		} else {
			snap.Unassigned = append(snap.Unassigned, j)
		}
	}
	snap.Totals = Totals{Technicians: len(snap.Technicians), Jobs: len(r.day), Unassigned: len(snap.Unassigned),
		Overdue: len(snap.Overdue), OnHold: len(snap.OnHold)}
	sum, items, cancelled := snap.Summarize()
	snap.Summary, snap.ActionItems, snap.Cancelled = &sum, &items, cancelled
	return snap
}

// queueJobLines queues the listing of the org's jobs matching where (which
// may use $2, $3…) in arrival order, with times in loc, into *out.
func queueJobLines(b *pgx.Batch, out *[]JobLine, loc *time.Location, d schedule.Date, what, where string, args ...any) {
	*out = []JobLine{}
	b.Queue(`
		SELECT j.id, coalesce(j.technician_id, 0), coalesce(t.name, ''), j.customer, j.address,
		       j.arrival_start, j.arrival_end, j.status,
		       j.job_type, j.emergency, j.customer_phone, j.notes, coalesce(j.external_ref, '')
		  FROM jobs j
		  LEFT JOIN technicians t ON t.org_id = j.org_id AND t.id = j.technician_id
		 WHERE j.org_id = $1 AND `+where+`
		 ORDER BY j.arrival_start, j.id`, args...).
		Query(func(rows pgx.Rows) error {
			var j JobLine
			_, err := pgx.ForEachRow(rows, []any{&j.ID, &j.TechnicianID, &j.Technician, &j.Customer, &j.Address,
				&j.ArrivalStart, &j.ArrivalEnd, &j.Status,
				&j.JobType, &j.Emergency, &j.CustomerPhone, &j.Notes, &j.ExternalRef}, func() error {
				j.ArrivalStart, j.ArrivalEnd = j.ArrivalStart.In(loc), j.ArrivalEnd.In(loc)
				j.Window = window(j.ArrivalStart, j.ArrivalEnd, d)
				*out = append(*out, j)
				return nil
			})
			return wrap(err, what)
		})
}

// wrap adds what was being read to err, if any.
func wrap(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
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
