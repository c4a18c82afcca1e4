package field

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/pglock"
)

// Store reads and writes field data over one pool. Its methods run one
// transaction each and record every change in the audit log; the
// package-level functions taking a database.Querier run inside a caller's
// transaction instead (the API, the CSV import).
type Store struct {
	DB *pgxpool.Pool
}

// MaxTechnicians bounds an org's technicians, active or not: far more than
// one org employs, small enough for one page. Lists and the board show
// them all at once (ListTechnicians), so no way in may add one past it:
// one left off the list would have its jobs shown as unassigned.
const MaxTechnicians = 1000

// roomForTechnicians refuses adding n technicians to the org when it would
// then have more than MaxTechnicians. The transaction-scoped advisory lock
// serialises additions in one org, so two at once cannot both take the
// last place; it is released when q's transaction ends.
func roomForTechnicians(ctx context.Context, q database.Querier, orgID int64, n int) error {
	if n <= 0 {
		return nil
	}
	if err := pglock.XactLock(ctx, q, pglock.LockTechnicians, orgID); err != nil {
		return fmt.Errorf("lock technicians of org %d: %w", orgID, err)
	}
	var have int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM technicians WHERE org_id = $1`, orgID).Scan(&have); err != nil {
		return fmt.Errorf("count technicians of org %d: %w", orgID, err)
	}
	if have+n > MaxTechnicians {
		return apperr.Refuse(apperr.Invalid, "technicians_limit", apperr.Args{"Max": MaxTechnicians, "Have": have, "Adding": n})
	}
	return nil
}

const technicianColumns = `t.id, t.name, t.email, t.phone, t.active, coalesce(t.external_ref, ''), coalesce(t.language, ''), t.version, t.created_at, t.updated_at, t.day_sheets_stopped_at`

func scanTechnician(row pgx.Row, t *Technician, extra ...any) error {
	return row.Scan(append([]any{&t.ID, &t.Name, &t.Email, &t.Phone, &t.Active, &t.ExternalRef, &t.Language, &t.Version, &t.CreatedAt, &t.UpdatedAt, &t.DaySheetsStoppedAt}, extra...)...)
}

// ListTechnicians returns the org's technicians, active ones first, by
// name, with how many jobs each has; at most MaxTechnicians.
func (s *Store) ListTechnicians(ctx context.Context, orgID int64) ([]Technician, error) {
	return ListTechnicians(ctx, database.Reader(ctx, s.DB), orgID)
}

// ListTechnicians is Store.ListTechnicians on q.
func ListTechnicians(ctx context.Context, q database.Querier, orgID int64) ([]Technician, error) {
	rows, err := q.Query(ctx, `
		SELECT `+technicianColumns+`,
		       (SELECT count(*) FROM jobs j WHERE j.org_id = t.org_id AND j.technician_id = t.id)
		  FROM technicians t
		 WHERE t.org_id = $1
		 ORDER BY t.active DESC, lower(t.name), t.id
		 LIMIT $2`, orgID, MaxTechnicians)
	if err != nil {
		return nil, fmt.Errorf("technicians of org %d: %w", orgID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Technician, error) {
		var t Technician
		err := scanTechnician(r, &t, &t.Jobs)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("technicians of org %d: %w", orgID, err)
	}
	return list, nil
}

// Technician returns one of the org's technicians; another org's id is
// not found.
func (s *Store) Technician(ctx context.Context, orgID, id int64) (Technician, error) {
	return getTechnician(ctx, database.Reader(ctx, s.DB), orgID, id, false)
}

func getTechnician(ctx context.Context, q database.Querier, orgID, id int64, lock bool) (Technician, error) {
	var t Technician
	sql := `SELECT ` + technicianColumns + `,
	               (SELECT count(*) FROM jobs j WHERE j.org_id = $1 AND j.technician_id = t.id)
	          FROM technicians t WHERE t.org_id = $1 AND t.id = $2`
	// j.org_id = $1, not = t.org_id: the same org, and a subquery Citus
	// can route to the one shard, as FOR UPDATE needs (docs/scaling.md,
	// "What the real cluster refused").
	if lock {
		sql += ` FOR UPDATE OF t`
	}
	err := scanTechnician(q.QueryRow(ctx, sql, orgID, id), &t, &t.Jobs)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, apperr.Refuse(apperr.NotFound, "technician_not_found", nil)
	}
	if err != nil {
		return t, fmt.Errorf("technician %d of org %d: %w", id, orgID, err)
	}
	return t, nil
}

// CreateTechnician validates and adds a technician.
func (s *Store) CreateTechnician(ctx context.Context, actor audit.Actor, orgID int64, in TechnicianInput) (Technician, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return Technician{}, err
	}
	var t Technician
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := roomForTechnicians(ctx, tx, orgID, 1); err != nil {
			return err
		}
		err := scanTechnician(tx.QueryRow(ctx, `
			INSERT INTO technicians AS t (org_id, name, email, phone, active, external_ref, language)
			VALUES ($1, $2, $3, $4, $5, nullif($6, ''), nullif($7, ''))
			RETURNING `+technicianColumns, orgID, in.Name, in.Email, in.Phone, in.Active, in.ExternalRef, in.Language), &t)
		if err != nil {
			return refTaken(err, "technicians_org_external_ref_key")
		}
		return auditTechnician(ctx, tx, actor, orgID, "field.technician.create", nil, &t)
	})
	if err != nil {
		return Technician{}, fmt.Errorf("create technician: %w", err)
	}
	return t, nil
}

// UpdateTechnician validates and replaces a technician's fields.
func (s *Store) UpdateTechnician(ctx context.Context, actor audit.Actor, orgID, id int64, in TechnicianInput) (Technician, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return Technician{}, err
	}
	var t Technician
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getTechnician(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if err := checkVersion("technician", in.Version, old.Version); err != nil {
			return err
		}
		t, err = updateTechnician(ctx, tx, orgID, id, in)
		if err != nil {
			return err
		}
		return auditTechnician(ctx, tx, actor, orgID, "field.technician.update", &old, &t)
	})
	if err != nil {
		return Technician{}, fmt.Errorf("update technician %d: %w", id, err)
	}
	return t, nil
}

// updateTechnician writes in over technician id, if its version is still
// in.Version (any when 0): a missing one is apperr.NotFound, one of another
// version apperr.Stale. The version itself is the trigger's (migration
// 00026): it goes up when a column a person sees changes.
func updateTechnician(ctx context.Context, q database.Querier, orgID, id int64, in TechnicianInput) (Technician, error) {
	var t Technician
	err := scanTechnician(q.QueryRow(ctx, `
		UPDATE technicians AS t
		   SET name = $3, email = $4, phone = $5, active = $6, external_ref = nullif($7, ''),
		       language = nullif($8, ''), updated_at = now()
		 WHERE t.org_id = $1 AND t.id = $2 AND ($9::bigint = 0 OR t.version = $9)
		RETURNING `+technicianColumns, orgID, id, in.Name, in.Email, in.Phone, in.Active, in.ExternalRef, in.Language, in.Version), &t)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, notFoundOrStale(ctx, q, "technicians", "technician", orgID, id)
	}
	if err != nil {
		return t, refTaken(err, "technicians_org_external_ref_key")
	}
	return t, nil
}

// notFoundOrStale tells why a conditional update of row id of table
// (technicians or jobs) matched nothing: the row is not the org's (or
// gone), or its version is another.
func notFoundOrStale(ctx context.Context, q database.Querier, table, what string, orgID, id int64) error {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE org_id = $1 AND id = $2)`, orgID, id).Scan(&exists); err != nil {
		return fmt.Errorf("%s %d of org %d: %w", what, id, orgID, err)
	}
	if !exists {
		if what == "job" {
			return apperr.Refuse(apperr.NotFound, "job_not_found", nil)
		}
		return apperr.Refuse(apperr.NotFound, "technician_not_found", nil)
	}
	return staleError(what)
}

// checkVersion refuses a change read at version want (any when 0) of a
// record now at version have.
func checkVersion(what string, want, have int64) error {
	if want != 0 && want != have {
		return staleError(what)
	}
	return nil
}

// SetTechnicianActive deactivates (or reactivates) a technician. A
// deactivated one keeps their jobs and history but drops out of new
// briefings and the day board's columns.
func (s *Store) SetTechnicianActive(ctx context.Context, actor audit.Actor, orgID, id int64, active bool) (Technician, error) {
	var t Technician
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getTechnician(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		in := TechnicianInput{Name: old.Name, Email: old.Email, Phone: old.Phone, Active: active, ExternalRef: old.ExternalRef, Language: old.Language}
		if t, err = updateTechnician(ctx, tx, orgID, id, in); err != nil {
			return err
		}
		action := "field.technician.deactivate"
		if active {
			action = "field.technician.activate"
		}
		return auditTechnician(ctx, tx, actor, orgID, action, &old, &t)
	})
	if err != nil {
		return Technician{}, fmt.Errorf("set technician %d active=%t: %w", id, active, err)
	}
	return t, nil
}

// RevokeDayLinks ends every day link the technician was sent so far
// (docs/security.md, "Access ends with its reason"): it raises their link
// generation, which links issued before no longer match; links sent
// afterwards open. Changing their email or deactivating them does the
// same, by the technicians trigger (migration 00036).
func (s *Store) RevokeDayLinks(ctx context.Context, actor audit.Actor, orgID, id int64) (Technician, error) {
	var t Technician
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if t, err = getTechnician(ctx, tx, orgID, id, true); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE technicians SET link_generation = link_generation + 1 WHERE org_id = $1 AND id = $2`, orgID, id); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "field.technician.revoke_links",
			Target: fmt.Sprintf("technician:%d", id)})
	})
	if err != nil {
		return Technician{}, fmt.Errorf("revoke day links of technician %d: %w", id, err)
	}
	return t, nil
}

// DeleteTechnician removes a technician who never had a job; one with jobs
// is a conflict (deactivate them instead, so their history stays readable).
// version is the technician's as the caller read it: another stored
// version is apperr.Stale, nothing deleted; 0 means no check (delete
// whatever is stored).
func (s *Store) DeleteTechnician(ctx context.Context, actor audit.Actor, orgID, id, version int64) error {
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getTechnician(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if err := checkVersion("technician", version, old.Version); err != nil {
			return err
		}
		if old.Jobs > 0 {
			return apperr.Refuse(apperr.Conflict, "technician_has_jobs", apperr.Args{"Name": old.Name})
		}
		if _, err := tx.Exec(ctx, `DELETE FROM technicians WHERE org_id = $1 AND id = $2`, orgID, id); err != nil {
			return err
		}
		return auditTechnician(ctx, tx, actor, orgID, "field.technician.delete", &old, nil)
	})
	if err != nil {
		return fmt.Errorf("delete technician %d: %w", id, err)
	}
	return nil
}

// UpsertTechnicianByRef creates or replaces the org's technician with
// in.ExternalRef (required) inside the caller's transaction q, and records
// it in the audit log as actor's. created is false for an update; a
// technician whose fields all match is left untouched (updated_at kept).
// With in.Version set, the technician must exist at that version
// (apperr.Stale otherwise, nothing written).
func UpsertTechnicianByRef(ctx context.Context, q database.Querier, actor audit.Actor, orgID int64, in TechnicianInput) (t Technician, created bool, err error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return t, false, err
	}
	if in.ExternalRef == "" {
		return t, false, fieldError("external_ref", problem(CodeRequired, "is required"))
	}
	// Writers of one reference take turns on its unique key, as
	// UpsertJobByRef's do: no lock is named by the reference.
	var old Technician
	for attempt := 0; ; attempt++ {
		oldErr := scanTechnician(q.QueryRow(ctx, `SELECT `+technicianColumns+` FROM technicians t WHERE t.org_id = $1 AND t.external_ref = $2 FOR UPDATE`,
			orgID, in.ExternalRef), &old)
		if oldErr == nil {
			break
		}
		if !errors.Is(oldErr, pgx.ErrNoRows) {
			return t, false, fmt.Errorf("technician %q: %w", in.ExternalRef, oldErr)
		}
		if in.Version != 0 {
			// Read at a version, and gone since (or never there).
			return t, false, staleError("technician")
		}
		if err := roomForTechnicians(ctx, q, orgID, 1); err != nil {
			return t, false, err
		}
		err = scanTechnician(q.QueryRow(ctx, `
			INSERT INTO technicians AS t (org_id, name, email, phone, active, external_ref, language)
			VALUES ($1, $2, $3, $4, $5, $6, nullif($7, ''))
			ON CONFLICT (org_id, external_ref) WHERE external_ref IS NOT NULL DO NOTHING
			RETURNING `+technicianColumns, orgID, in.Name, in.Email, in.Phone, in.Active, in.ExternalRef, in.Language), &t)
		if err == nil {
			return t, true, auditTechnician(ctx, q, actor, orgID, "field.technician.create", nil, &t)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return t, false, fmt.Errorf("insert technician %q: %w", in.ExternalRef, err)
		}
		if attempt == 2 {
			return t, false, fmt.Errorf("technician %q: created and deleted by others three times in a row", in.ExternalRef)
		}
	}
	if err := checkVersion("technician", in.Version, old.Version); err != nil {
		return t, false, err
	}
	if old.Name == in.Name && old.Email == in.Email && old.Phone == in.Phone && old.Active == in.Active && old.Language == in.Language {
		return old, false, nil
	}
	if t, err = updateTechnician(ctx, q, orgID, old.ID, in); err != nil {
		return t, false, fmt.Errorf("update technician %q: %w", in.ExternalRef, err)
	}
	return t, false, auditTechnician(ctx, q, actor, orgID, "field.technician.update", &old, &t)
}

func auditTechnician(ctx context.Context, q database.Querier, actor audit.Actor, orgID int64, action string, old, new *Technician) error {
	e := audit.Entry{Actor: actor, OrgID: orgID, Action: action}
	if old != nil {
		e.Old, e.Target = old, fmt.Sprintf("technician:%d", old.ID)
	}
	if new != nil {
		e.New, e.Target = new, fmt.Sprintf("technician:%d", new.ID)
	}
	return audit.Record(ctx, q, e)
}

// refTaken turns a unique violation of an external_ref index into a field
// error; other errors pass through.
func refTaken(err error, index string) error {
	if database.IsUniqueViolation(err, index) {
		return fieldError("external_ref", problem(CodeRefTaken, "is already used by another record of this org"))
	}
	return err
}

// TechnicianByRef is the org's technician with the external reference ref
// on q, locked for the rest of q's transaction when lock; another org's
// (or none) is apperr.NotFound.
func TechnicianByRef(ctx context.Context, q database.Querier, orgID int64, ref string, lock bool) (Technician, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM technicians WHERE org_id = $1 AND external_ref = $2`, orgID, ref).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Technician{}, apperr.Refuse(apperr.NotFound, "technician_ref_not_found", apperr.Args{"Ref": ref})
	}
	if err != nil {
		return Technician{}, fmt.Errorf("technician %q of org %d: %w", ref, orgID, err)
	}
	return getTechnician(ctx, q, orgID, id, lock)
}

// ListTechniciansChanged is the technicians' feed (docs/api.md, "Reading
// what changed"): those whose updated_at is in [since, before), in
// updated_at, id order, after the key after (nil: from the start), at most
// limit; more says another page follows.
func ListTechniciansChanged(ctx context.Context, q database.Querier, orgID int64, since, before time.Time, after *JobKey, limit int) (list []Technician, more bool, err error) {
	args := []any{orgID, since, before, limit + 1}
	where := `t.org_id = $1 AND t.updated_at >= $2 AND t.updated_at < $3`
	if after != nil {
		args = append(args, after.At, after.ID)
		where += ` AND (t.updated_at, t.id) > ($5, $6)`
	}
	rows, err := q.Query(ctx, `
		SELECT `+technicianColumns+`,
		       (SELECT count(*) FROM jobs j WHERE j.org_id = t.org_id AND j.technician_id = t.id)
		  FROM technicians t
		 WHERE `+where+`
		 ORDER BY t.updated_at, t.id
		 LIMIT $4`, args...)
	if err != nil {
		return nil, false, fmt.Errorf("technicians of org %d changed since %s: %w", orgID, since, err)
	}
	list, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Technician, error) {
		var t Technician
		err := scanTechnician(r, &t, &t.Jobs)
		return t, err
	})
	if err != nil {
		return nil, false, fmt.Errorf("technicians of org %d changed since %s: %w", orgID, since, err)
	}
	if len(list) > limit {
		return list[:limit], true, nil
	}
	return list, false, nil
}

// Tombstone is a deleted technician or job, as the feed lists it.
type Tombstone struct {
	ID          int64     `json:"id"`
	ExternalRef string    `json:"external_ref"`
	DeletedAt   time.Time `json:"deleted_at"`
}

// Tombstone kinds.
const (
	KindTechnician = "technician"
	KindJob        = "job"
)

// Deleted lists the org's technicians or jobs (kind) deleted in [since,
// before), oldest first, at most limit+1 (a caller that gets more than
// limit moves its horizon back: docs/api.md, "Reading what changed").
func Deleted(ctx context.Context, q database.Querier, orgID int64, kind string, since, before time.Time, limit int) ([]Tombstone, error) {
	rows, err := q.Query(ctx, `
		SELECT id, coalesce(external_ref, ''), deleted_at FROM field_tombstones
		 WHERE org_id = $1 AND kind = $2 AND deleted_at >= $3 AND deleted_at < $4
		 ORDER BY deleted_at, id LIMIT $5`, orgID, kind, since, before, limit+1)
	if err != nil {
		return nil, fmt.Errorf("%ss of org %d deleted since %s: %w", kind, orgID, since, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Tombstone])
	if err != nil {
		return nil, fmt.Errorf("%ss of org %d deleted since %s: %w", kind, orgID, since, err)
	}
	return out, nil
}

// Now is the database's clock, which updated_at is written by: the feed's
// horizon is read on it, not on the web process's.
func Now(ctx context.Context, q database.Querier) (time.Time, error) {
	var now time.Time
	if err := q.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("the database's time: %w", err)
	}
	return now, nil
}

// Audit actions of a technician's day sheets (docs/delivery.md, "Stopping
// day sheets").
const (
	ActionDaySheetsStop   = "field.technician.day_sheets_stop"
	ActionDaySheetsResume = "field.technician.day_sheets_resume"
)

// daySheetsState is what an audit entry shows of a technician's day
// sheets: when they asked to stop them, null when they receive them.
type daySheetsState struct {
	StoppedAt *time.Time `json:"day_sheets_stopped_at"`
}

// SetDaySheets records that the technician asked, at at, not to receive
// their day sheets (stop) or that they receive them again (a resume, by
// themselves or an admin), audited as actor's. Asking for the state they
// are in changes and records nothing: a second stop keeps the first time.
func (s *Store) SetDaySheets(ctx context.Context, actor audit.Actor, orgID, id int64, stop bool, at time.Time) (Technician, error) {
	var t Technician
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		t, err = setDaySheets(ctx, tx, actor, orgID, id, stop, at)
		return err
	})
	if err != nil {
		return Technician{}, fmt.Errorf("set day sheets of technician %d (stop=%t): %w", id, stop, err)
	}
	return t, nil
}

func setDaySheets(ctx context.Context, q database.Querier, actor audit.Actor, orgID, id int64, stop bool, at time.Time) (Technician, error) {
	t, err := getTechnician(ctx, q, orgID, id, true)
	if err != nil {
		return t, err
	}
	if (t.DaySheetsStoppedAt != nil) == stop {
		return t, nil
	}
	old := daySheetsState{StoppedAt: t.DaySheetsStoppedAt}
	var next *time.Time
	action := ActionDaySheetsResume
	if stop {
		at = at.UTC().Truncate(time.Microsecond) // as PostgreSQL keeps it
		next, action = &at, ActionDaySheetsStop
	}
	if _, err := q.Exec(ctx, `UPDATE technicians SET day_sheets_stopped_at = $3 WHERE org_id = $1 AND id = $2`, orgID, id, next); err != nil {
		return t, err
	}
	t.DaySheetsStoppedAt = next
	return t, audit.Record(ctx, q, audit.Entry{Actor: actor, OrgID: orgID, Action: action,
		Target: fmt.Sprintf("technician:%d", id), Old: old, New: daySheetsState{StoppedAt: next}})
}

// StopDaySheetsOf records, in the caller's transaction, that the org's
// technicians with the address email (ignoring case) asked at at not to
// receive their day sheets: the one-click unsubscribe link of an email
// sent before day sheets stopped carrying it lands here, so the office
// sees it as any other request.
func StopDaySheetsOf(ctx context.Context, q database.Querier, actor audit.Actor, orgID int64, email string, at time.Time) error {
	rows, err := q.Query(ctx, `SELECT id FROM technicians WHERE org_id = $1 AND lower(email) = lower($2) AND day_sheets_stopped_at IS NULL`, orgID, email)
	if err != nil {
		return fmt.Errorf("technicians of %q in org %d: %w", email, orgID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("technicians of %q in org %d: %w", email, orgID, err)
	}
	for _, id := range ids {
		if _, err := setDaySheets(ctx, q, actor, orgID, id, true, at); err != nil {
			return err
		}
	}
	return nil
}

// SetupCounts are what an org's first setup asks of its field data
// (docs/web.md, "First setup"): its active technicians and whether it has
// any job.
type SetupCounts struct {
	Technicians int
	HasJobs     bool
}

// Setup reads the org's SetupCounts.
func (s *Store) Setup(ctx context.Context, orgID int64) (SetupCounts, error) {
	var c SetupCounts
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `
		SELECT (SELECT count(*) FROM technicians WHERE org_id = $1 AND active),
		       EXISTS (SELECT FROM jobs WHERE org_id = $1)`, orgID).Scan(&c.Technicians, &c.HasJobs)
	if err != nil {
		return c, fmt.Errorf("setup counts of org %d: %w", orgID, err)
	}
	return c, nil
}
