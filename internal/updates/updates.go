// Package updates keeps technicians current after their day is sent: once a
// technician's briefing email for a date has gone out, a change to a job of
// that date that is or was theirs is written to an outbox (ff_job_changes)
// in the transaction that changed the job, with a briefing_update task; the
// task (delivery.UpdateHandler) later folds the changes into one update
// (docs/delivery.md, "Updates"; docs/worker.md, "Updates after
// sending"). While a date's briefing is being made every technician's
// changes of it are recorded, and Prune later drops those its emails
// already have (their transaction is in the revision's read snapshot) and
// those of technicians who got no email.
//
// The package sits below internal/field, which calls Open and Watch.Record
// from every job write, so it knows no field type: a job is a JobState.
package updates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"fieldbrief/internal/database"
	"fieldbrief/internal/pglock"
	"fieldbrief/internal/schedule"
)

// Timing of updates (docs/delivery.md, "Updates").
const (
	// DefaultDelay is BRIEFING_UPDATE_DELAY's default: the quiet time after
	// the newest change before an update is sent, so a burst of edits makes
	// one message.
	DefaultDelay = 2 * time.Minute
	// MaxDelay bounds BRIEFING_UPDATE_DELAY.
	MaxDelay = time.Hour
	// MinGap is the least time between two updates to one technician:
	// changes in between fold into the next.
	MinGap = 15 * time.Minute
	// MaxHold bounds the wait for quiet: changes held this long are sent
	// although edits go on, so a day edited every minute still gets its
	// updates.
	MaxHold = 15 * time.Minute
)

// JobState is a job as a technician's update shows it, stored as JSON in
// the outbox. Times are instants; they are shown in the briefing's zone.
type JobState struct {
	ID            int64     `json:"id"`
	ExternalRef   string    `json:"external_ref,omitempty"`
	TechnicianID  int64     `json:"technician_id,omitempty"` // 0: unassigned
	Technician    string    `json:"technician,omitempty"`    // the assignee's name
	TechnicianRef string    `json:"technician_ref,omitempty"`
	Customer      string    `json:"customer"`
	CustomerPhone string    `json:"customer_phone,omitempty"`
	Address       string    `json:"address,omitempty"`
	Start         time.Time `json:"arrival_start"`
	End           time.Time `json:"arrival_end"`
	JobType       string    `json:"job_type,omitempty"`
	Notes         string    `json:"notes,omitempty"`
	Emergency     bool      `json:"emergency,omitempty"`
	Status        string    `json:"status"`
}

// Edit is one job written: as it was (nil: created) and as it is.
type Edit struct {
	Before *JobState
	After  JobState
}

// day is one technician's date.
type day struct {
	tech int64
	date schedule.Date
}

// Watch is what a job-changing transaction needs to know to record its
// changes: the org's zone and the technicians' dates, today or later, whose
// briefing email went out (or is on its way), and the dates whose
// scheduled briefing has fired but not delivered yet, where every
// technician is watched. Open returns nil when there are none, which is
// most of the time: then nothing more is read.
type Watch struct {
	orgID int64
	loc   *time.Location
	now   time.Time
	days  map[day]bool
	// firing: dates whose scheduled generation is under way. A change
	// committed while it runs may be missing from its snapshot, so it is
	// recorded for whichever technician it concerns; the fold later drops
	// what the email turned out to have, and what concerns a technician who
	// got no email (Prune).
	firing map[schedule.Date]bool
}

// firingUnderway is true of a briefing b whose scheduled firing happened
// and has not delivered, and whose generation has not failed for good
// (its last attempt recorded a failed run): its deliveries are still to
// be made.
const firingUnderway = `b.scheduled_at IS NOT NULL AND b.delivered_revision IS NULL
	AND NOT EXISTS (SELECT FROM ff_briefing_runs r
	                 WHERE r.org_id = b.org_id AND r.briefing_id = b.id AND r.trigger = 'schedule' AND r.outcome = 'failed')`

// Open reads, on q (the changing transaction), which of the org's
// technicians' dates are watched at now. It is nil, with no error, when
// none is: no technician email for today or later and no scheduled
// briefing of today or later under way, or delivery.updates off, or no
// valid config.
//
// It first takes the org's firing lock, shared, for the rest of the
// transaction (HoldFirings): the tick cannot record a firing of the org
// between this read and the commit, so a change either sees the firing
// here or is committed before the firing, and so before the generation's
// snapshot (docs/worker.md, "Updates after sending"). q must be a
// read-committed transaction, whose next statement reads after the lock.
func Open(ctx context.Context, q database.Querier, orgID int64, now time.Time) (*Watch, error) {
	if err := HoldFirings(ctx, q, orgID); err != nil {
		return nil, err
	}
	// Every zone's today is at least the UTC date before now's: the dates
	// are narrowed to the org's today in Go, once its zone is known.
	from := schedule.DateOf(now.UTC()).AddDays(-1)
	rows, err := q.Query(ctx, `
		SELECT DISTINCT d.technician_id, b.briefing_date
		  FROM ff_briefings b
		  JOIN ff_deliveries d ON d.org_id = b.org_id AND d.briefing_id = b.id
		 WHERE b.org_id = $1 AND b.briefing_date >= $2
		   AND d.audience = 'technician' AND d.update_id IS NULL AND d.technician_id IS NOT NULL
		   AND d.state IN ('pending', 'sent')
		UNION ALL
		SELECT NULL, b.briefing_date
		  FROM ff_briefings b
		 WHERE b.org_id = $1 AND b.briefing_date >= $2 AND `+firingUnderway, orgID, from.Time())
	if err != nil {
		return nil, fmt.Errorf("technicians' days sent in org %d: %w", orgID, err)
	}
	var sent []day
	var firing []schedule.Date
	var tech *int64
	var date time.Time
	if _, err := pgx.ForEachRow(rows, []any{&tech, &date}, func() error {
		if tech == nil {
			firing = append(firing, schedule.DateOf(date))
		} else {
			sent = append(sent, day{*tech, schedule.DateOf(date)})
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("technicians' days sent in org %d: %w", orgID, err)
	}
	if len(sent) == 0 && len(firing) == 0 {
		return nil, nil
	}
	var raw []byte
	err = q.QueryRow(ctx, `SELECT config_json FROM org_module_configs WHERE org_id = $1 AND module = $2`,
		orgID, schedule.Module).Scan(&raw)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("config of org %d: %w", orgID, err)
	}
	cfg, sch, err := schedule.ParseConfig(raw)
	if err != nil || !cfg.Delivery.UpdatesOn() {
		return nil, nil // an invalid config sends nothing; updates off sends no update
	}
	w := &Watch{orgID: orgID, loc: sch.Zone.Loc, now: now, days: map[day]bool{}, firing: map[schedule.Date]bool{}}
	today := schedule.DateOf(now.In(w.loc))
	for _, d := range sent {
		if !d.date.Before(today) {
			w.days[d] = true
		}
	}
	if e := cfg.Delivery.Email; e != nil && e.Technicians {
		// Without technicians' emails the firing sends no technician
		// anything to update.
		for _, d := range firing {
			if !d.Before(today) {
				w.firing[d] = true
			}
		}
	}
	if len(w.days) == 0 && len(w.firing) == 0 {
		return nil, nil
	}
	return w, nil
}

// HoldFirings takes the org's firing lock, shared, for the rest of the
// transaction: job writes hold it (Open), and the tick takes it exclusively
// to record the org's scheduled firings (internal/tick), so a firing is
// never recorded while a job write that read the org's watched days
// before it is still uncommitted. Job writes do not block each other.
func HoldFirings(ctx context.Context, q database.Querier, orgID int64) error {
	if err := pglock.XactLockShared(ctx, q, pglock.LockFirings, orgID); err != nil {
		return fmt.Errorf("firing lock of org %d: %w", orgID, err)
	}
	return nil
}

// watched reports whether d is a watched day.
func (w *Watch) watched(d day) bool {
	return w.days[d] || w.firing[d.date]
}

// Span is the instants a job's arrival must start in to be on one of the
// watched dates, and the technicians watched: a batch reads only the old
// jobs there. all is true when a date is watched for every technician (its
// scheduled briefing is under way); techs is then nil. Zero times when w
// is nil.
func (w *Watch) Span() (from, to time.Time, techs []int64, all bool) {
	if w == nil {
		return
	}
	widen := func(date schedule.Date) {
		start, end := schedule.DayBounds(w.loc, date)
		if from.IsZero() || start.Before(from) {
			from = start
		}
		if end.After(to) {
			to = end
		}
	}
	seen := map[int64]bool{}
	for d := range w.days {
		widen(d.date)
		if !seen[d.tech] {
			seen[d.tech] = true
			techs = append(techs, d.tech)
		}
	}
	for date := range w.firing {
		widen(date)
	}
	if len(w.firing) > 0 {
		return from, to, nil, true
	}
	slices.Sort(techs)
	return from, to, techs, false
}

// dayOf is the technician's date a job state puts it on; ok is false when
// it is unassigned.
func (w *Watch) dayOf(j *JobState) (day, bool) {
	if j == nil || j.TechnicianID == 0 {
		return day{}, false
	}
	return day{j.TechnicianID, schedule.DateOf(j.Start.In(w.loc))}, true
}

// Touches reports whether writing e concerns a watched day: the job was or
// is on one. A nil Watch touches nothing.
func (w *Watch) Touches(e Edit) bool {
	if w == nil {
		return false
	}
	b, okB := w.dayOf(e.Before)
	a, okA := w.dayOf(&e.After)
	return (okB && w.watched(b)) || (okA && w.watched(a))
}

// change is one outbox row to write.
type change struct {
	day
	jobID         int64
	wasOn, isOn   bool
	before, after []byte
}

// changes are the outbox rows of e: one per watched day the job was or is
// on, when something a technician cares about changed (Told).
func (w *Watch) changes(e Edit) ([]change, error) {
	var days []day
	if d, ok := w.dayOf(e.Before); ok && w.watched(d) {
		days = append(days, d)
	}
	if d, ok := w.dayOf(&e.After); ok && w.watched(d) && (len(days) == 0 || days[0] != d) {
		days = append(days, d)
	}
	if len(days) == 0 {
		return nil, nil
	}
	var before []byte
	if e.Before != nil {
		var err error
		if before, err = json.Marshal(e.Before); err != nil {
			return nil, fmt.Errorf("encode job %d: %w", e.After.ID, err)
		}
	}
	after, err := json.Marshal(e.After)
	if err != nil {
		return nil, fmt.Errorf("encode job %d: %w", e.After.ID, err)
	}
	var out []change
	for _, d := range days {
		bd, okB := w.dayOf(e.Before)
		ad, _ := w.dayOf(&e.After)
		c := change{day: d, jobID: e.After.ID, wasOn: okB && bd == d, isOn: ad == d && e.After.TechnicianID != 0,
			before: before, after: after}
		if c.wasOn && c.isOn && len(Told(*e.Before, e.After)) == 0 {
			continue // nothing the technician is told about changed
		}
		out = append(out, c)
	}
	return out, nil
}

// Record writes the outbox rows of edits, in the job-changing transaction
// q, and makes sure a briefing_update task is pending for each technician's
// date they concern (one per (org, technician, date): River's unique
// insert). Edits on no watched day write nothing; a nil Watch does nothing.
//
// It takes the org's update lock (LockOrg) first, as the fold does, so a
// change either is seen by a running fold or finds its task finished and
// inserts a new one: none is left behind a task that is already done.
func (w *Watch) Record(ctx context.Context, q database.Querier, edits []Edit) error {
	if w == nil {
		return nil
	}
	var rows []change
	for _, e := range edits {
		cs, err := w.changes(e)
		if err != nil {
			return err
		}
		rows = append(rows, cs...)
	}
	if len(rows) == 0 {
		return nil
	}
	if err := LockOrg(ctx, q, w.orgID); err != nil {
		return err
	}
	n := len(rows)
	techs, dates, jobs := make([]int64, n), make([]time.Time, n), make([]int64, n)
	was, is := make([]bool, n), make([]bool, n)
	befores, afters := make([]*string, n), make([]string, n)
	tasks := map[day]bool{}
	var params []river.InsertManyParams
	for i, c := range rows {
		techs[i], dates[i], jobs[i], was[i], is[i] = c.tech, c.date.Time(), c.jobID, c.wasOn, c.isOn
		if c.before != nil {
			s := string(c.before)
			befores[i] = &s
		}
		afters[i] = string(c.after)
		if !tasks[c.day] {
			tasks[c.day] = true
			params = append(params, river.InsertManyParams{Args: BriefingUpdateArgs{OrgID: w.orgID, TechnicianID: c.tech, Date: c.date.String()}})
		}
	}
	if _, err := q.Exec(ctx, `
		INSERT INTO ff_job_changes (org_id, technician_id, briefing_date, job_id, was_on, is_on, before, after, created_at)
		SELECT $1, t.tech, t.day, t.job, t.was_on, t.is_on, t.old, t.new, $9
		  FROM unnest($2::bigint[], $3::date[], $4::bigint[], $5::bool[], $6::bool[], $7::jsonb[], $8::jsonb[])
		       AS t(tech, day, job, was_on, is_on, old, new)`,
		w.orgID, techs, dates, jobs, was, is, befores, afters, w.now); err != nil {
		return fmt.Errorf("record %d job changes of org %d: %w", n, w.orgID, err)
	}
	tx, ok := q.(pgx.Tx)
	if !ok {
		return fmt.Errorf("record job changes of org %d: not in a transaction", w.orgID)
	}
	client, err := database.InsertClient()
	if err != nil {
		return err
	}
	if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("insert update tasks of org %d: %w", w.orgID, err)
	}
	return nil
}

// LockOrg takes the org's update lock for the rest of the transaction:
// recording changes and folding them take it, so the two never interleave
// (see Record).
func LockOrg(ctx context.Context, q database.Querier, orgID int64) error {
	if err := pglock.XactLock(ctx, q, pglock.LockUpdates, orgID); err != nil {
		return fmt.Errorf("lock updates of org %d: %w", orgID, err)
	}
	return nil
}

// BriefingUpdateArgs folds one technician's pending changes of one date
// into an update (delivery.UpdateHandler, which runs it). The args live
// here, below internal/field, because every job write inserts them.
type BriefingUpdateArgs struct {
	OrgID        int64  `json:"org_id" river:"unique"`
	TechnicianID int64  `json:"technician_id" river:"unique"`
	Date         string `json:"date" river:"unique"` // YYYY-MM-DD
}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (BriefingUpdateArgs) Kind() string { return "briefing_update" }

// InsertOpts: one unfinished task per (org, technician, date), so many
// edits make one; a task that has finished (its fold committed) no longer
// counts, and the next change inserts a new one. River requires running
// among the states: a change made while a task runs finds it, and the task
// either folds that change or snoozes and comes back for it (LockOrg).
func (BriefingUpdateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		MaxAttempts: 10,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		}},
	}
}
