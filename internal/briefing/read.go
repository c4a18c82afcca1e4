package briefing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/orgs"
	"fieldbrief/internal/schedule"
)

// Briefing statuses, as stored in ff_briefings.status.
const (
	StatusPending = "pending"
	StatusReady   = "ready"
	StatusFailed  = "failed"
)

// Briefing is one org's briefing for one local date.
type Briefing struct {
	ID          int64
	OrgID       int64
	Date        schedule.Date // org-local date when it was decided; never remapped
	Timezone    string        // the zone that decided it, and that its content is in
	FiredAt     time.Time     // the tick instant (or "generate now" request) that created it
	Trigger     string        // TriggerSchedule or TriggerManual
	Status      string        // StatusPending, StatusReady or StatusFailed
	Content     *Snapshot     // nil until generated
	GeneratedAt time.Time     // zero until generated
	LastError   string        // why the last attempt failed, "" otherwise
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// JobRun is one generation job of a briefing: its attempts and outcome.
type JobRun struct {
	ID          int64
	State       string // JobAvailable, "running" (claimed, under a lease), JobCompleted or JobFailed
	Attempt     int
	MaxAttempts int
	RunAfter    time.Time // when it may run (next), after backoff
	LockedBy    string    // the worker holding or that last held it
	LockedUntil time.Time // lease end while running, zero otherwise
	LastError   string
	CreatedAt   time.Time
	FinishedAt  time.Time // zero until completed or failed
}

// Store reads briefings for the web. Every query is scoped by org id, so an
// id or date from another org reads as not found.
type Store struct {
	DB *pgxpool.Pool
}

const briefingColumns = `id, org_id, briefing_date, timezone, fired_at, trigger, status, content,
	generated_at, last_error, created_at, updated_at`

// listColumns are briefingColumns without the snapshot: lists show status,
// not content, and decoding every snapshot was most of the list's cost.
const listColumns = `id, org_id, briefing_date, timezone, fired_at, trigger, status, NULL::jsonb,
	generated_at, last_error, created_at, updated_at`

func scanBriefing(row pgx.Row) (Briefing, error) {
	var b Briefing
	var date time.Time
	var content []byte
	var generatedAt *time.Time
	err := row.Scan(&b.ID, &b.OrgID, &date, &b.Timezone, &b.FiredAt, &b.Trigger, &b.Status, &content,
		&generatedAt, &b.LastError, &b.CreatedAt, &b.UpdatedAt)
	if err != nil {
		return b, err
	}
	b.Date = schedule.DateOf(date)
	b.GeneratedAt = deref(generatedAt)
	if content != nil {
		b.Content = new(Snapshot)
		if err := json.Unmarshal(content, b.Content); err != nil {
			return b, fmt.Errorf("decode briefing %d content: %w", b.ID, err)
		}
	}
	return b, nil
}

// List returns the org's briefings dated from..to inclusive, newest first,
// without their Content (Get reads that); a zero date leaves that end open.
func (s *Store) List(ctx context.Context, orgID int64, from, to schedule.Date) ([]Briefing, error) {
	rows, err := s.DB.Query(ctx, `SELECT `+listColumns+` FROM ff_briefings
		 WHERE org_id = $1 AND ($2::date IS NULL OR briefing_date >= $2) AND ($3::date IS NULL OR briefing_date <= $3)
		 ORDER BY briefing_date DESC`, orgID, dateArg(from), dateArg(to))
	if err != nil {
		return nil, fmt.Errorf("list briefings of org %d: %w", orgID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Briefing, error) { return scanBriefing(row) })
	if err != nil {
		return nil, fmt.Errorf("list briefings of org %d: %w", orgID, err)
	}
	return out, nil
}

// deref maps NULL timestamps to the zero time, which templates test with IsZero.
func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func dateArg(d schedule.Date) any {
	if d.IsZero() {
		return nil
	}
	return d.Time()
}

// Get returns the org's briefing for a local date, or an apperr NotFound.
func (s *Store) Get(ctx context.Context, orgID int64, date schedule.Date) (Briefing, error) {
	b, err := scanBriefing(s.DB.QueryRow(ctx, `SELECT `+briefingColumns+` FROM ff_briefings
		 WHERE org_id = $1 AND briefing_date = $2`, orgID, date.Time()))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, apperr.Errorf(apperr.NotFound, "There is no briefing for %s.", date)
	}
	if err != nil {
		return b, fmt.Errorf("get briefing %s of org %d: %w", date, orgID, err)
	}
	return b, nil
}

// Runs returns a briefing's generation jobs, oldest first: the first from
// its creation, one more per retry. Every briefing has at least one, so none
// means the briefing is not the org's (apperr NotFound).
func (s *Store) Runs(ctx context.Context, orgID, briefingID int64) ([]JobRun, error) {
	rows, err := s.DB.Query(ctx, `
		SELECT id, state, attempt, max_attempts, run_after, locked_by, locked_until,
		       last_error, created_at, finished_at
		  FROM ff_briefing_jobs
		 WHERE org_id = $1 AND briefing_id = $2
		 ORDER BY id`, orgID, briefingID)
	if err != nil {
		return nil, fmt.Errorf("runs of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	var r JobRun
	var lockedUntil, finishedAt *time.Time
	var runs []JobRun
	_, err = pgx.ForEachRow(rows, []any{&r.ID, &r.State, &r.Attempt, &r.MaxAttempts, &r.RunAfter, &r.LockedBy,
		&lockedUntil, &r.LastError, &r.CreatedAt, &finishedAt}, func() error {
		r.LockedUntil, r.FinishedAt = deref(lockedUntil), deref(finishedAt)
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("runs of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	if len(runs) == 0 {
		return nil, apperr.Errorf(apperr.NotFound, "There is no such briefing.")
	}
	return runs, nil
}

// GenerateNow is the admin's "generate now": it creates today's briefing
// (today in the org's configured zone at now) when there is none, or retries
// it when it failed. A date that has a pending or ready briefing gets no
// second one (apperr Conflict). It writes an audit entry.
func (s *Store) GenerateNow(ctx context.Context, orgID int64, now time.Time, actor orgs.Actor) (Briefing, error) {
	sch, err := s.schedule(ctx, orgID)
	if err != nil {
		return Briefing{}, err
	}
	date := schedule.DateOf(now.In(sch.Zone.Loc))
	err = pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var id int64
		var status, lastError string
		err := tx.QueryRow(ctx, `SELECT id, status, last_error FROM ff_briefings WHERE org_id = $1 AND briefing_date = $2 FOR UPDATE`,
			orgID, date.Time()).Scan(&id, &status, &lastError)
		entry := orgs.AuditEntry{Actor: actor, OrgID: orgID, Target: "briefing " + date.String(),
			New: map[string]string{"status": StatusPending, "timezone": sch.Zone.Name}}
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			ids, err := insertBriefings(ctx, tx, now, TriggerManual, []due{{OrgID: orgID, Date: date, Timezone: sch.Zone.Name}})
			if err != nil {
				return err
			}
			if len(ids) == 0 { // a tick created it since our read
				return apperr.Errorf(apperr.Conflict, "A briefing was already generated for %s.", date)
			}
			entry.Action = "briefing.generate"
		case err != nil:
			return err
		case status == StatusFailed:
			// The retry keeps the briefing's recorded zone and date; only its status and jobs change.
			_, err := tx.Exec(ctx, `
				WITH b AS (
				    UPDATE ff_briefings SET status = 'pending', last_error = '', updated_at = $3
				     WHERE id = $1 AND org_id = $2
				 RETURNING id, org_id
				)
				INSERT INTO ff_briefing_jobs (org_id, briefing_id, run_after, created_at)
				SELECT org_id, id, $3, $3 FROM b`, id, orgID, now)
			if err != nil {
				return err
			}
			entry.Action, entry.Old = "briefing.retry", map[string]string{"status": status, "last_error": lastError}
		default:
			return apperr.Errorf(apperr.Conflict, "A briefing was already generated for %s (%s).", date, status)
		}
		return orgs.Audit(ctx, tx, entry)
	})
	if err != nil {
		if apperr.Code(err) != apperr.Internal {
			return Briefing{}, err
		}
		return Briefing{}, fmt.Errorf("generate briefing %s for org %d now: %w", date, orgID, err)
	}
	return s.Get(ctx, orgID, date)
}

// schedule loads the org's briefing schedule for GenerateNow, which needs
// the flag on and a valid config just as the tick does.
func (s *Store) schedule(ctx context.Context, orgID int64) (schedule.Schedule, error) {
	o := orgs.Store{DB: s.DB}
	on, err := o.EffectiveFlag(ctx, orgID, schedule.FlagKey)
	if err != nil {
		return schedule.Schedule{}, fmt.Errorf("generate briefing now for org %d: %w", orgID, err)
	}
	if !on {
		return schedule.Schedule{}, apperr.Errorf(apperr.Conflict, "Daily briefings are switched off for this organisation.")
	}
	cfg, err := o.Fieldforce(ctx, orgID)
	if err != nil {
		return schedule.Schedule{}, fmt.Errorf("generate briefing now for org %d: %w", orgID, err)
	}
	if !cfg.Found {
		return schedule.Schedule{}, apperr.Errorf(apperr.Invalid, "Set the briefing time zone and schedule before generating a briefing.")
	}
	if cfg.Err != nil {
		return schedule.Schedule{}, apperr.Errorf(apperr.Invalid, "The briefing settings are invalid, so no briefing can be generated: %v.", cfg.Err)
	}
	return cfg.Schedule, nil
}
