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

// Creating or updating by reference, as the API does (docs/api.md,
// "Versions: ETag and If-Match"): each write is one transaction of its own
// here, with the caller's conditions checked inside it.

// RefConditions hold a create-or-update by reference to what its caller
// saw (the API's If-Match and If-None-Match).
type RefConditions struct {
	// Check, when set, is given the record with the reference, read and
	// locked for the write (exists false when there is none), and returns
	// the version to write at (0: whichever is stored) or an error that
	// stops the write. Nil: nothing is read first; the last write wins.
	Check func(exists bool, id, version int64) (int64, error)
	// Created, when set, is given whether the write made the record; an
	// error rolls the write back.
	Created func(created bool) error
}

// check reads the record of table with the reference ref for cond.Check,
// locked for the rest of q's transaction; the version to write at.
func (cond RefConditions) check(ctx context.Context, q database.Querier, table string, orgID int64, ref string) (int64, error) {
	if cond.Check == nil {
		return 0, nil
	}
	var id, version int64
	err := q.QueryRow(ctx, `SELECT id, version FROM `+table+` WHERE org_id = $1 AND external_ref = $2 FOR UPDATE`, orgID, ref).Scan(&id, &version)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("version of %s %q of org %d: %w", table, ref, orgID, err)
	}
	return cond.Check(err == nil, id, version)
}

func (cond RefConditions) created(created bool) error {
	if cond.Created == nil {
		return nil
	}
	return cond.Created(created)
}

// PutTechnicianByRef creates or replaces the org's technician with
// in.ExternalRef under cond, in one transaction (UpsertTechnicianByRef);
// created is false for an update.
func (s *Store) PutTechnicianByRef(ctx context.Context, actor audit.Actor, orgID int64, in TechnicianInput, cond RefConditions) (t Technician, created bool, err error) {
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if in.Version, err = cond.check(ctx, tx, "technicians", orgID, in.ExternalRef); err != nil {
			return err
		}
		if t, created, err = UpsertTechnicianByRef(ctx, tx, actor, orgID, in); err != nil {
			return err
		}
		return cond.created(created)
	})
	if err != nil {
		return t, false, fmt.Errorf("put technician %q: %w", in.ExternalRef, err)
	}
	return t, created, nil
}

// PutJobByRef creates or replaces the org's job with in.ExternalRef under
// cond, in one transaction (UpsertJobByRef, at now); created is false for
// an update.
func (s *Store) PutJobByRef(ctx context.Context, actor audit.Actor, now time.Time, orgID int64, in JobInput, cond RefConditions) (j Job, created bool, err error) {
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if in.Version, err = cond.check(ctx, tx, "jobs", orgID, in.ExternalRef); err != nil {
			return err
		}
		if j, created, err = UpsertJobByRef(ctx, tx, actor, now, orgID, in); err != nil {
			return err
		}
		return cond.created(created)
	})
	if err != nil {
		return j, false, fmt.Errorf("put job %q: %w", in.ExternalRef, err)
	}
	return j, created, nil
}

// errCreatedMeanwhile: an edit found no record and creates one, but by its
// insert another request had made it. The transaction is rolled back and
// the edit runs again as a change of that record, so a PATCH never resets
// what it does not name.
var errCreatedMeanwhile = errors.New("the record was created by another request meanwhile")

// editByRef runs write once, and once more when the record it was about to
// create was made by another request meanwhile: the second run changes
// that record.
func (s *Store) editByRef(ctx context.Context, write func(tx pgx.Tx) error) error {
	err := database.BeginFunc(ctx, s.DB, write)
	if errors.Is(err, errCreatedMeanwhile) {
		err = database.BeginFunc(ctx, s.DB, write)
	}
	return err
}

// EditTechnicianByRef changes the org's technician with the reference ref,
// or creates it, in one transaction: edit is given the stored technician,
// locked (nil when none has the reference), and returns what to write.
// created is false for an update.
func (s *Store) EditTechnicianByRef(ctx context.Context, actor audit.Actor, orgID int64, ref string, edit func(cur *Technician) (TechnicianInput, error)) (t Technician, created bool, err error) {
	err = s.editByRef(ctx, func(tx pgx.Tx) error {
		cur, err := TechnicianByRef(ctx, tx, orgID, ref, true)
		if err != nil && apperr.Code(err) != apperr.NotFound {
			return err
		}
		var found *Technician
		if err == nil {
			found = &cur
		}
		in, err := edit(found)
		if err != nil {
			return err
		}
		if t, created, err = UpsertTechnicianByRef(ctx, tx, actor, orgID, in); err != nil {
			return err
		}
		if found == nil && !created {
			return errCreatedMeanwhile
		}
		return nil
	})
	if err != nil {
		return t, false, fmt.Errorf("edit technician %q: %w", ref, err)
	}
	return t, created, nil
}

// EditJobByRef changes the org's job with the reference ref, or creates
// it, in one transaction: edit is given the stored job, locked (nil when
// none has the reference), and returns what to write, written at now.
// created is false for an update.
func (s *Store) EditJobByRef(ctx context.Context, actor audit.Actor, now time.Time, orgID int64, ref string, edit func(cur *Job) (JobInput, error)) (j Job, created bool, err error) {
	err = s.editByRef(ctx, func(tx pgx.Tx) error {
		cur, err := JobByRef(ctx, tx, orgID, ref, true)
		if err != nil && apperr.Code(err) != apperr.NotFound {
			return err
		}
		var found *Job
		if err == nil {
			found = &cur
		}
		in, err := edit(found)
		if err != nil {
			return err
		}
		if j, created, err = UpsertJobByRef(ctx, tx, actor, now, orgID, in); err != nil {
			return err
		}
		if found == nil && !created {
			return errCreatedMeanwhile
		}
		return nil
	})
	if err != nil {
		return j, false, fmt.Errorf("edit job %q: %w", ref, err)
	}
	return j, created, nil
}
