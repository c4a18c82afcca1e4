package field

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
)

// The demo's field data (internal/demo, `web seed-demo`): written as given,
// done jobs with their completion time, without the audit entries and the
// updates' outbox of a person's changes, and only into an org that has no
// jobs yet.

// Counts is how many technicians and jobs the org has.
func Counts(ctx context.Context, q database.Querier, orgID int64) (technicians, jobs int, err error) {
	err = q.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM technicians WHERE org_id = $1), (SELECT count(*) FROM jobs WHERE org_id = $1)`,
		orgID).Scan(&technicians, &jobs)
	if err != nil {
		return 0, 0, fmt.Errorf("count field data of org %d: %w", orgID, err)
	}
	return technicians, jobs, nil
}

// SeedTechnicians adds the technicians crew, as given.
func SeedTechnicians(ctx context.Context, q database.Querier, orgID int64, crew []TechnicianInput) error {
	for _, t := range crew {
		if _, err := q.Exec(ctx, `INSERT INTO technicians (org_id, name, phone, email, language) VALUES ($1, $2, $3, $4, NULLIF($5, ''))`,
			orgID, t.Name, t.Phone, t.Email, t.Language); err != nil {
			return fmt.Errorf("add technician %s to org %d: %w", t.Name, orgID, err)
		}
	}
	return nil
}

// ActiveTechnicianIDs lists the ids of the org's active technicians, those
// named in names first in that order, the others after them oldest first.
func ActiveTechnicianIDs(ctx context.Context, q database.Querier, orgID int64, names []string) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM technicians WHERE org_id = $1 AND active
		ORDER BY array_position($2::text[], name) NULLS LAST, created_at, id`, orgID, names)
	if err != nil {
		return nil, fmt.Errorf("active technicians of org %d: %w", orgID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("active technicians of org %d: %w", orgID, err)
	}
	return ids, nil
}

// FillEmail gives the org's technician called name the address email when
// they have none; an address someone set is kept. updated_at moves with
// it, so the API's feed lists the change (docs/api.md, "Reading what
// changed").
func FillEmail(ctx context.Context, q database.Querier, orgID int64, name, email string) error {
	if _, err := q.Exec(ctx, `UPDATE technicians SET email = $3, updated_at = now() WHERE org_id = $1 AND name = $2 AND email = ''`,
		orgID, name, email); err != nil {
		return fmt.Errorf("email of technician %s of org %d: %w", name, orgID, err)
	}
	return nil
}

// SeedJobs adds jobs as given (TechnicianID 0: unassigned; CompletedAt
// kept).
func SeedJobs(ctx context.Context, q database.Querier, orgID int64, jobs []Job) error {
	for _, j := range jobs {
		var tech *int64
		if j.TechnicianID != 0 {
			tech = &j.TechnicianID
		}
		_, err := q.Exec(ctx, `
			INSERT INTO jobs (org_id, technician_id, customer, address, arrival_start, arrival_end, status, notes, completed_at,
			                  job_type, customer_phone, emergency)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			orgID, tech, j.Customer, j.Address, j.ArrivalStart, j.ArrivalEnd, j.Status, j.Notes, j.CompletedAt,
			j.JobType, j.CustomerPhone, j.Emergency)
		if err != nil {
			return fmt.Errorf("add job for %s to org %d: %w", j.Customer, orgID, err)
		}
	}
	return nil
}
