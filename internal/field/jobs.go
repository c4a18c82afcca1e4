package field

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
)

// Page sizes for job lists: the default, and the most one request may ask
// for (the day board asks for the most).
const (
	DefaultJobPage = 100
	MaxJobPage     = 2000
)

// JobFilter selects jobs. The window is computed by the caller from an
// org-local date (schedule.DayBounds), so no time zone reaches SQL.
type JobFilter struct {
	From, To     time.Time // arrival_start in [From, To); zero = open
	OverdueAt    time.Time // only jobs overdue on the day that starts at OverdueAt (overdueSQL); zero = any
	Status       string    // "" = any
	TechnicianID int64     // 0 = any
	Unassigned   bool      // only jobs with no technician
	Limit        int       // 0 = DefaultJobPage; capped at MaxJobPage
	Offset       int
	// The feed (docs/api.md, "Reading what changed"): ByUpdate lists in
	// the order of updated_at (then id) instead of arrival; UpdatedSince
	// and UpdatedBefore bound it ([since, before), zero = open). After,
	// when set, starts the page after that key of the list's order (a
	// keyset: rows inserted or changed meanwhile neither shift nor repeat
	// the rest); Offset is then ignored.
	ByUpdate                    bool
	UpdatedSince, UpdatedBefore time.Time
	After                       *JobKey
}

// JobKey is a job's place in a list's order: arrival_start, created_at and
// id; or updated_at (as At) and id when the list is ByUpdate.
type JobKey struct {
	At, Created time.Time
	ID          int64
}

// KeyOf is j's key in a list's order.
func KeyOf(j Job, byUpdate bool) JobKey {
	if byUpdate {
		return JobKey{At: j.UpdatedAt, ID: j.ID}
	}
	return JobKey{At: j.ArrivalStart, Created: j.CreatedAt, ID: j.ID}
}

// JobPage is one page of a job list.
type JobPage struct {
	Jobs []Job
	More bool // another page follows
}

const jobColumns = `j.id, coalesce(j.external_ref, ''), j.customer, j.customer_phone, j.address,
	j.arrival_start, j.arrival_end, j.job_type, j.notes, j.emergency, j.status,
	coalesce(j.technician_id, 0), coalesce(t.external_ref, ''), coalesce(t.name, ''), coalesce(t.active, false),
	j.completed_at, j.version, j.created_at, j.updated_at`

const jobFrom = ` FROM jobs j LEFT JOIN technicians t ON t.org_id = j.org_id AND t.id = j.technician_id `

// overdueSQL is the overdue rule, the one place it is written: a job of j
// whose arrival window ended before its day began (dayStart, a parameter
// such as "$2": the first instant of the org-local day), neither done nor
// cancelled. The day board and the briefing's snapshot list these. The
// window's start is before the day too (jobs_window: it is not after the
// end), which says so to the planner: the (org_id, arrival_start) index
// then bounds the scan.
func overdueSQL(dayStart string) string {
	return `j.arrival_start < ` + dayStart + ` AND j.arrival_end < ` + dayStart + ` AND ` + openJobSQL
}

func scanJob(row pgx.Row, j *Job) error { return row.Scan(jobDest(j)...) }

// jobDest is where a row of jobColumns is scanned into.
func jobDest(j *Job) []any {
	return []any{&j.ID, &j.ExternalRef, &j.Customer, &j.CustomerPhone, &j.Address,
		&j.ArrivalStart, &j.ArrivalEnd, &j.JobType, &j.Notes, &j.Emergency, &j.Status,
		&j.TechnicianID, &j.TechnicianRef, &j.TechnicianName, &j.TechnicianActive, &j.CompletedAt, &j.Version, &j.CreatedAt, &j.UpdatedAt}
}

// collectJobs reads rows of jobColumns.
func collectJobs(rows pgx.Rows) ([]Job, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Job, error) {
		var j Job
		err := scanJob(r, &j)
		return j, err
	})
}

// ListJobs returns one page of the org's jobs matching f, in arrival order.
func (s *Store) ListJobs(ctx context.Context, orgID int64, f JobFilter) (JobPage, error) {
	return ListJobs(ctx, database.Reader(ctx, s.DB), orgID, f)
}

// ListJobs is Store.ListJobs on q.
func ListJobs(ctx context.Context, q database.Querier, orgID int64, f JobFilter) (JobPage, error) {
	if f.Status != "" && !ValidStatus(f.Status) {
		return JobPage{}, fieldError("status", problem(CodeStatusUnknown, "must be one of the statuses"))
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultJobPage
	}
	limit = min(limit, MaxJobPage)
	where, args := `j.org_id = $1`, []any{orgID}
	add := func(cond string, v any) {
		args = append(args, v)
		where += fmt.Sprintf(" AND "+cond, len(args))
	}
	if !f.From.IsZero() {
		add("j.arrival_start >= $%d", f.From)
	}
	if !f.To.IsZero() {
		add("j.arrival_start < $%d", f.To)
	}
	if !f.OverdueAt.IsZero() {
		args = append(args, f.OverdueAt)
		where += " AND " + overdueSQL(fmt.Sprintf("$%d", len(args)))
	}
	if f.Status != "" {
		add("j.status = $%d", f.Status)
	}
	if f.TechnicianID != 0 {
		add("j.technician_id = $%d", f.TechnicianID)
	}
	if f.Unassigned {
		where += ` AND j.technician_id IS NULL`
	}
	if !f.UpdatedSince.IsZero() {
		add("j.updated_at >= $%d", f.UpdatedSince)
	}
	if !f.UpdatedBefore.IsZero() {
		add("j.updated_at < $%d", f.UpdatedBefore)
	}
	order := ` ORDER BY j.arrival_start, j.created_at, j.id`
	if f.ByUpdate {
		order = ` ORDER BY j.updated_at, j.id`
	}
	offset := max(f.Offset, 0)
	if k := f.After; k != nil {
		offset = 0
		if f.ByUpdate {
			args = append(args, k.At, k.ID)
			where += fmt.Sprintf(" AND (j.updated_at, j.id) > ($%d, $%d)", len(args)-1, len(args))
		} else {
			args = append(args, k.At, k.Created, k.ID)
			where += fmt.Sprintf(" AND (j.arrival_start, j.created_at, j.id) > ($%d, $%d, $%d)", len(args)-2, len(args)-1, len(args))
		}
	}
	args = append(args, limit+1, offset)
	rows, err := q.Query(ctx, `SELECT `+jobColumns+jobFrom+` WHERE `+where+
		fmt.Sprintf(order+` LIMIT $%d OFFSET $%d`, len(args)-1, len(args)), args...)
	if err != nil {
		return JobPage{}, fmt.Errorf("jobs of org %d: %w", orgID, err)
	}
	jobs, err := collectJobs(rows)
	if err != nil {
		return JobPage{}, fmt.Errorf("jobs of org %d: %w", orgID, err)
	}
	p := JobPage{Jobs: jobs}
	if len(jobs) > limit {
		p.Jobs, p.More = jobs[:limit], true
	}
	return p, nil
}

// Job returns one of the org's jobs; another org's id is not found.
func (s *Store) Job(ctx context.Context, orgID, id int64) (Job, error) {
	return getJob(ctx, database.Reader(ctx, s.DB), orgID, id, false)
}

func getJob(ctx context.Context, q database.Querier, orgID, id int64, lock bool) (Job, error) {
	var j Job
	sql := `SELECT ` + jobColumns + jobFrom + ` WHERE j.org_id = $1 AND j.id = $2`
	if lock {
		sql += ` FOR UPDATE OF j`
	}
	err := scanJob(q.QueryRow(ctx, sql, orgID, id), &j)
	if errors.Is(err, pgx.ErrNoRows) {
		return j, apperr.Refuse(apperr.NotFound, "job_not_found", nil)
	}
	if err != nil {
		return j, fmt.Errorf("job %d of org %d: %w", id, orgID, err)
	}
	return j, nil
}

// resolveAssignee returns the technician id in refers to, checked to be
// one of the org's that job jobID (0: a new one) may be given
// (assignProblem); 0 when unassigned. The technician's row is locked
// (shared) for the rest of q's transaction, so a deactivation being
// committed meanwhile is waited for and read, never missed.
func resolveAssignee(ctx context.Context, q database.Querier, orgID, jobID int64, in JobInput) (int64, error) {
	name, where, arg := "technician_id", `t.id = $2`, any(in.TechnicianID)
	switch {
	case in.TechnicianRef != "":
		name, where, arg = "technician_ref", `t.external_ref = $2`, in.TechnicianRef
	case in.TechnicianID == 0:
		return 0, nil
	}
	var id, current int64
	var active bool
	err := q.QueryRow(ctx, `
		SELECT t.id, t.active, coalesce((SELECT j.technician_id FROM jobs j WHERE j.org_id = $1 AND j.id = $3), 0)
		  FROM technicians t WHERE t.org_id = $1 AND `+where+`
		   FOR SHARE OF t`, orgID, arg, jobID).Scan(&id, &active, &current)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && in.TechnicianRef != "":
		return 0, fieldError(name, Problem{Code: CodeTechnicianUnknown, Value: in.TechnicianRef,
			Message: fmt.Sprintf("no technician of this org has the reference %q", in.TechnicianRef)})
	case errors.Is(err, pgx.ErrNoRows):
		return 0, fieldError(name, problem(CodeTechnicianInvalid, "is not a technician of this org"))
	case err != nil:
		return 0, fmt.Errorf("technician of job %d: %w", jobID, err)
	}
	if p := assignProblem(id, active, current); p != nil {
		return 0, fieldError(name, *p)
	}
	return id, nil
}

// assignProblem is the rule that a job is given to active technicians
// only (docs/field-data.md, "Technicians"): a deactivated one keeps the
// jobs they had, which can still be edited, but gets no new one. current
// is the job's technician now (0: none, or a new job). Every way in (the
// forms, the board, the API, the CSV import) asks it.
func assignProblem(technicianID int64, active bool, current int64) *Problem {
	if technicianID == 0 || active || technicianID == current {
		return nil
	}
	p := problem(CodeTechnicianInactive, "is a deactivated technician: reactivate them first, or choose another")
	return &p
}

// CreateJob validates and adds a job; now is the caller's clock
// (docs/scheduling.md, "Time comes from the caller").
func (s *Store) CreateJob(ctx context.Context, actor audit.Actor, now time.Time, orgID int64, in JobInput) (Job, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return Job{}, err
	}
	var j Job
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if j, _, err = insertJob(ctx, tx, orgID, in, now, false); err != nil {
			return err
		}
		if err := noteJob(ctx, tx, orgID, now, nil, j); err != nil {
			return err
		}
		return auditJob(ctx, tx, actor, orgID, "field.job.create", nil, &j)
	})
	if err != nil {
		return Job{}, fmt.Errorf("create job: %w", err)
	}
	return j, nil
}

// With byRef, a job that has in.ExternalRef already (or is being made by a
// concurrent transaction that then commits) is not an error: nothing is
// inserted and inserted is false.
func insertJob(ctx context.Context, q database.Querier, orgID int64, in JobInput, now time.Time, byRef bool) (j Job, inserted bool, err error) {
	techID, err := resolveAssignee(ctx, q, orgID, 0, in)
	if err != nil {
		return Job{}, false, err
	}
	onConflict := ""
	if byRef {
		onConflict = `ON CONFLICT (org_id, external_ref) WHERE external_ref IS NOT NULL DO NOTHING`
	}
	var id int64
	err = q.QueryRow(ctx, `
		INSERT INTO jobs (org_id, external_ref, customer, customer_phone, address, arrival_start, arrival_end,
		                  job_type, notes, emergency, status, technician_id, completed_at)
		VALUES ($1, nullif($2, ''), $3, $4, $5, $6, $7, $8, $9, $10, $11, nullif($12::bigint, 0),
		        CASE WHEN $11 = 'done' THEN $13::timestamptz END)
		`+onConflict+`
		RETURNING id`,
		orgID, in.ExternalRef, in.Customer, in.CustomerPhone, in.Address, in.ArrivalStart, in.ArrivalEnd,
		in.JobType, in.Notes, in.Emergency, in.Status, techID, now).Scan(&id)
	if byRef && errors.Is(err, pgx.ErrNoRows) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, refTaken(err, "jobs_org_external_ref_key")
	}
	j, err = getJob(ctx, q, orgID, id, false)
	return j, err == nil, err
}

// UpdateJob validates and replaces a job's fields.
func (s *Store) UpdateJob(ctx context.Context, actor audit.Actor, now time.Time, orgID, id int64, in JobInput) (Job, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return Job{}, err
	}
	var j Job
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getJob(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if err := checkVersion("job", in.Version, old.Version); err != nil {
			return err
		}
		if j, err = updateJob(ctx, tx, orgID, id, in, now); err != nil {
			return err
		}
		if err := noteJob(ctx, tx, orgID, now, &old, j); err != nil {
			return err
		}
		return auditJob(ctx, tx, actor, orgID, "field.job.update", &old, &j)
	})
	if err != nil {
		return Job{}, fmt.Errorf("update job %d: %w", id, err)
	}
	return j, nil
}

// DeleteJob removes the org's job id as read at version (any when 0):
// another org's job, or none, is apperr.NotFound; another version is
// apperr.Stale, nothing deleted. The deletion is audited
// (field.job.delete, the job as it was); triggers leave its tombstone for
// the feed and its job.deleted event for the webhooks (00046, 00048), and
// its import baseline goes with it (00028). The updates a technician was
// already sent keep their changes (00051), and briefings already made keep
// it in their content. now, the caller's clock, is taken as the other
// writes take it; the deletion's instant (the tombstone's, the event's) is
// its transaction's.
func (s *Store) DeleteJob(ctx context.Context, actor audit.Actor, now time.Time, orgID, id, version int64) error {
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getJob(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if err := checkVersion("job", version, old.Version); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE org_id = $1 AND id = $2`, orgID, id); err != nil {
			return err
		}
		return auditJob(ctx, tx, actor, orgID, "field.job.delete", &old, nil)
	})
	if err != nil {
		return fmt.Errorf("delete job %d: %w", id, err)
	}
	return nil
}

// updateJob writes in over job id, if its version is still in.Version (any
// when 0): a missing one is apperr.NotFound, one of another version
// apperr.Stale. completed_at is set when the job becomes done, kept while
// it stays done, cleared otherwise: at now, the caller's clock, a
// parameter (Citus refuses now() in a CASE of an UPDATE of a distributed
// table: docs/scaling.md, "What the real cluster refused"). The version is
// the trigger's (00026).
func updateJob(ctx context.Context, q database.Querier, orgID, id int64, in JobInput, now time.Time) (Job, error) {
	techID, err := resolveAssignee(ctx, q, orgID, id, in)
	if err != nil {
		return Job{}, err
	}
	tag, err := q.Exec(ctx, `
		UPDATE jobs
		   SET external_ref = nullif($3, ''), customer = $4, customer_phone = $5, address = $6,
		       arrival_start = $7, arrival_end = $8, job_type = $9, notes = $10, emergency = $11,
		       status = $12, technician_id = nullif($13::bigint, 0),
		       completed_at = CASE WHEN $12 <> 'done' THEN NULL WHEN status = 'done' THEN completed_at ELSE $15::timestamptz END,
		       updated_at = now()
		 WHERE org_id = $1 AND id = $2 AND ($14::bigint = 0 OR version = $14)`,
		orgID, id, in.ExternalRef, in.Customer, in.CustomerPhone, in.Address, in.ArrivalStart, in.ArrivalEnd,
		in.JobType, in.Notes, in.Emergency, in.Status, techID, in.Version, now)
	if err != nil {
		return Job{}, refTaken(err, "jobs_org_external_ref_key")
	}
	if tag.RowsAffected() == 0 {
		return Job{}, notFoundOrStale(ctx, q, "jobs", "job", orgID, id)
	}
	return getJob(ctx, q, orgID, id, false)
}

// Assign gives a job to an active technician of the org, or takes it
// away with technicianID 0. version is the job's as the caller read it:
// another stored version is apperr.Stale, nothing saved; 0 means no check
// (last write wins).
func (s *Store) Assign(ctx context.Context, actor audit.Actor, now time.Time, orgID, jobID, technicianID, version int64) (Job, error) {
	return s.change(ctx, actor, now, orgID, jobID, version, "field.job.assign", func(in *JobInput) {
		in.TechnicianID, in.TechnicianRef = technicianID, ""
	})
}

// Move is a move on the day board (docs/field-data.md, "The day board"):
// to a technician (when Assign; 0 takes the job away) and to a window
// starting at Start (zero keeps it) of the same length.
type Move struct {
	Assign       bool
	TechnicianID int64
	Start        time.Time
}

// MoveJob applies a board move to a job read at version: another stored
// version is apperr.Stale, nothing saved (an undo is a move back, so an
// undo of a job someone else changed since is refused the same way).
func (s *Store) MoveJob(ctx context.Context, actor audit.Actor, now time.Time, orgID, jobID int64, m Move, version int64) (Job, error) {
	return s.change(ctx, actor, now, orgID, jobID, version, "field.job.move", func(in *JobInput) {
		if m.Assign {
			in.TechnicianID, in.TechnicianRef = m.TechnicianID, ""
		}
		if !m.Start.IsZero() {
			in.ArrivalStart, in.ArrivalEnd = m.Start, m.Start.Add(in.ArrivalEnd.Sub(in.ArrivalStart))
		}
	})
}

// SetStatus changes a job's status; done records when it was completed.
// version is the job's as the caller read it: another stored version is
// apperr.Stale, nothing saved; 0 means no check (last write wins).
func (s *Store) SetStatus(ctx context.Context, actor audit.Actor, now time.Time, orgID, jobID int64, status string, version int64) (Job, error) {
	return s.change(ctx, actor, now, orgID, jobID, version, "field.job.status", func(in *JobInput) { in.Status = status })
}

// change applies edit to a job's current fields, validates and saves them,
// if the job is still at version (any when 0).
func (s *Store) change(ctx context.Context, actor audit.Actor, now time.Time, orgID, jobID, version int64, action string, edit func(*JobInput)) (Job, error) {
	var j Job
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getJob(ctx, tx, orgID, jobID, true)
		if err != nil {
			return err
		}
		if err := checkVersion("job", version, old.Version); err != nil {
			return err
		}
		in := old.Input()
		edit(&in)
		if in.Status == "" {
			return fieldError("status", problem(CodeRequired, "is required"))
		}
		in.Normalize()
		if err := in.Validate(); err != nil {
			return err
		}
		if j, err = updateJob(ctx, tx, orgID, jobID, in, now); err != nil {
			return err
		}
		if err := noteJob(ctx, tx, orgID, now, &old, j); err != nil {
			return err
		}
		return auditJob(ctx, tx, actor, orgID, action, &old, &j)
	})
	if err != nil {
		return Job{}, fmt.Errorf("%s job %d: %w", action, jobID, err)
	}
	return j, nil
}

// Input is the job's fields as an input, for edits of some of them, at
// the job's version.
func (j Job) Input() JobInput {
	return JobInput{ExternalRef: j.ExternalRef, Customer: j.Customer, CustomerPhone: j.CustomerPhone,
		Address: j.Address, ArrivalStart: j.ArrivalStart, ArrivalEnd: j.ArrivalEnd, JobType: j.JobType,
		Notes: j.Notes, Emergency: j.Emergency, Status: j.Status, TechnicianID: j.TechnicianID, Version: j.Version}
}

// Input is the technician's fields as an input, at its version.
func (t Technician) Input() TechnicianInput {
	return TechnicianInput{Name: t.Name, Email: t.Email, Phone: t.Phone, Active: t.Active, ExternalRef: t.ExternalRef, Language: t.Language,
		Version: t.Version}
}

// UpsertJobByRef creates or replaces the org's job with in.ExternalRef
// (required) inside the caller's transaction q, and records it in the
// audit log as actor's. The assignee is in.TechnicianRef, a technician of
// the same org. created is false for an update; a job whose fields all
// match is left untouched. With in.Version set, the job must exist at that
// version (apperr.Stale otherwise, nothing written). now is the caller's
// clock (docs/scheduling.md, "Time comes from the caller").
func UpsertJobByRef(ctx context.Context, q database.Querier, actor audit.Actor, now time.Time, orgID int64, in JobInput) (j Job, created bool, err error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return j, false, err
	}
	if in.ExternalRef == "" {
		return j, false, fieldError("external_ref", problem(CodeRequired, "is required"))
	}
	// The reference's unique key serialises writers of one reference: the
	// row is locked if it exists; if not, the insert waits for a concurrent
	// creator and, when that one committed, inserts nothing, so the row is
	// locked and updated instead. No lock is named by the reference.
	var oldID int64
	for attempt := 0; ; attempt++ {
		err = q.QueryRow(ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = $2 FOR UPDATE`, orgID, in.ExternalRef).Scan(&oldID)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if in.Version != 0 {
			// Read at a version, and gone since (or never there).
			return j, false, staleError("job")
		}
		var inserted bool
		if j, inserted, err = insertJob(ctx, q, orgID, in, now, true); err != nil {
			return j, false, fmt.Errorf("insert job %q: %w", in.ExternalRef, err)
		}
		if inserted {
			if err := noteJob(ctx, q, orgID, now, nil, j); err != nil {
				return j, false, err
			}
			return j, true, auditJob(ctx, q, actor, orgID, "field.job.create", nil, &j)
		}
		if attempt == 2 {
			return j, false, fmt.Errorf("job %q: created and deleted by others three times in a row", in.ExternalRef)
		}
	}
	if err != nil {
		return j, false, fmt.Errorf("job %q: %w", in.ExternalRef, err)
	}
	old, err := getJob(ctx, q, orgID, oldID, false)
	if err != nil {
		return j, false, err
	}
	if err := checkVersion("job", in.Version, old.Version); err != nil {
		return j, false, err
	}
	techID, err := resolveAssignee(ctx, q, orgID, oldID, in)
	if err != nil {
		return j, false, err
	}
	want := in
	want.TechnicianID, want.TechnicianRef = techID, ""
	if sameJob(old.Input(), want) {
		return old, false, nil
	}
	if j, err = updateJob(ctx, q, orgID, oldID, want, now); err != nil {
		return j, false, fmt.Errorf("update job %q: %w", in.ExternalRef, err)
	}
	if err := noteJob(ctx, q, orgID, now, &old, j); err != nil {
		return j, false, err
	}
	return j, false, auditJob(ctx, q, actor, orgID, "field.job.update", &old, &j)
}

// sameJob compares two inputs, instants by instant (not by zone).
func sameJob(a, b JobInput) bool {
	return a.ArrivalStart.Equal(b.ArrivalStart) && a.ArrivalEnd.Equal(b.ArrivalEnd) &&
		a.ExternalRef == b.ExternalRef && a.Customer == b.Customer && a.CustomerPhone == b.CustomerPhone &&
		a.Address == b.Address && a.JobType == b.JobType && a.Notes == b.Notes && a.Emergency == b.Emergency &&
		a.Status == b.Status && a.TechnicianID == b.TechnicianID
}

func auditJob(ctx context.Context, q database.Querier, actor audit.Actor, orgID int64, action string, old, new *Job) error {
	e := audit.Entry{Actor: actor, OrgID: orgID, Action: action}
	if old != nil {
		e.Old, e.Target = old, fmt.Sprintf("job:%d", old.ID)
	}
	if new != nil {
		e.New, e.Target = new, fmt.Sprintf("job:%d", new.ID)
	}
	return audit.Record(ctx, q, e)
}

// JobByRef is the org's job with the external reference ref on q, locked
// for the rest of q's transaction when lock; another org's (or none) is
// apperr.NotFound.
func JobByRef(ctx context.Context, q database.Querier, orgID int64, ref string, lock bool) (Job, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = $2`, orgID, ref).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, apperr.Refuse(apperr.NotFound, "job_ref_not_found", apperr.Args{"Ref": ref})
	}
	if err != nil {
		return Job{}, fmt.Errorf("job %q of org %d: %w", ref, orgID, err)
	}
	return getJob(ctx, q, orgID, id, lock)
}

// DayChangedSince counts the org's jobs whose window starts in [start,
// end) and that were created or changed after since: a briefing made at
// since no longer shows them as they are (docs/briefing-content.md,
// "Changed since it was made"). A job moved off the day or deleted since
// is not counted.
func (s *Store) DayChangedSince(ctx context.Context, orgID int64, start, end, since time.Time) (int, error) {
	var n int
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `
		SELECT count(*) FROM jobs
		 WHERE org_id = $1 AND arrival_start >= $2 AND arrival_start < $3 AND updated_at > $4`,
		orgID, start, end, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("jobs of org %d changed since %s: %w", orgID, since, err)
	}
	return n, nil
}
