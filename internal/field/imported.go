package field

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
)

// What the CSV import reads and writes of technicians and jobs beside the
// batch upserts (batch.go): the records a file may match with what the last
// import set (the baselines: docs/field-data.md, "Updates: old → new, and
// changes made in fieldbrief are kept"), references given to matched
// technicians, and the baselines a save leaves.

// ImportedTechnician is one of the org's technicians as the import matches
// it, with what the last import set.
type ImportedTechnician struct {
	ID                      int64
	Ref, Name, Email, Phone string
	Language                string
	Active                  bool
	Version                 int64
	BaseActive              *bool // what the last import set; nil: never imported since 00028
	CreatedAt               time.Time
}

// ImportedTechnicians reads the org's technicians in id order; lock takes
// their rows for the rest of q's transaction.
func ImportedTechnicians(ctx context.Context, q database.Querier, orgID int64, lock bool) ([]ImportedTechnician, error) {
	sql := `SELECT t.id, coalesce(t.external_ref, ''), t.name, t.email, t.phone, coalesce(t.language, ''), t.active, t.version, b.active, t.created_at
		  FROM technicians t
		  LEFT JOIN technician_import_baselines b ON b.org_id = t.org_id AND b.technician_id = t.id
		 WHERE t.org_id = $1 ORDER BY t.id`
	if lock {
		sql += ` FOR UPDATE OF t`
	}
	rows, err := q.Query(ctx, sql, orgID)
	if err != nil {
		return nil, fmt.Errorf("technicians of org %d: %w", orgID, err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ImportedTechnician, error) {
		var t ImportedTechnician
		err := r.Scan(&t.ID, &t.Ref, &t.Name, &t.Email, &t.Phone, &t.Language, &t.Active, &t.Version, &t.BaseActive, &t.CreatedAt)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("technicians of org %d: %w", orgID, err)
	}
	return all, nil
}

// ImportedJob is one of the org's jobs as the import matches it, with the
// assignment and status the last import set.
type ImportedJob struct {
	ID                       int64
	Customer, Address, Phone string
	JobType, Notes, Status   string
	Start, End               time.Time
	Emergency                bool
	TechnicianID             int64
	Version                  int64
	Imported                 bool // has a baseline
	BaseTechnicianID         int64
	BaseStatus               string
}

// ImportedJobs reads the org's jobs with refs, by reference; lock takes
// their rows, in id order, for the rest of q's transaction.
func ImportedJobs(ctx context.Context, q database.Querier, orgID int64, refs []string, lock bool) (map[string]ImportedJob, error) {
	sql := `SELECT j.external_ref, j.id, j.customer, j.address, j.customer_phone, j.job_type, j.notes, j.status,
		       j.arrival_start, j.arrival_end, j.emergency, coalesce(j.technician_id, 0), j.version,
		       b.job_id IS NOT NULL, coalesce(b.technician_id, 0), coalesce(b.status, '')
		  FROM jobs j
		  LEFT JOIN job_import_baselines b ON b.org_id = j.org_id AND b.job_id = j.id
		 WHERE j.org_id = $1 AND j.external_ref = ANY($2)`
	if lock {
		sql += ` ORDER BY j.id FOR UPDATE OF j`
	}
	rows, err := q.Query(ctx, sql, orgID, refs)
	if err != nil {
		return nil, fmt.Errorf("jobs of org %d by reference: %w", orgID, err)
	}
	defer rows.Close()
	out := make(map[string]ImportedJob, len(refs))
	for rows.Next() {
		var ref string
		var j ImportedJob
		if err := rows.Scan(&ref, &j.ID, &j.Customer, &j.Address, &j.Phone, &j.JobType, &j.Notes, &j.Status,
			&j.Start, &j.End, &j.Emergency, &j.TechnicianID, &j.Version,
			&j.Imported, &j.BaseTechnicianID, &j.BaseStatus); err != nil {
			return nil, fmt.Errorf("jobs of org %d by reference: %w", orgID, err)
		}
		out[ref] = j
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jobs of org %d by reference: %w", orgID, err)
	}
	return out, nil
}

// GiveReferences gives each of the org's technicians ids[i] without a
// reference the reference refs[i]; one with a reference keeps it. The
// database's clock stamps it, as every write the API's feed reads
// (docs/api.md, "Reading what changed").
func GiveReferences(ctx context.Context, q database.Querier, orgID int64, ids []int64, refs []string) error {
	if _, err := q.Exec(ctx, `
		UPDATE technicians t SET external_ref = a.ref, updated_at = now()
		  FROM unnest($2::bigint[], $3::text[]) AS a(id, ref)
		 WHERE t.org_id = $1 AND t.id = a.id AND t.external_ref IS NULL`, orgID, ids, refs); err != nil {
		return fmt.Errorf("give %d technicians of org %d a reference: %w", len(ids), orgID, err)
	}
	return nil
}

// SetTechnicianBaselines records that the last import set active[i] for
// the org's technician with the reference refs[i].
func SetTechnicianBaselines(ctx context.Context, q database.Querier, orgID int64, refs []string, active []bool) error {
	_, err := q.Exec(ctx, `
		INSERT INTO technician_import_baselines AS b (org_id, technician_id, active)
		SELECT $1, t.id, i.active
		  FROM unnest($2::text[], $3::bool[]) AS i(ref, active)
		  JOIN technicians t ON t.org_id = $1 AND t.external_ref = i.ref
		ON CONFLICT (org_id, technician_id) DO UPDATE SET active = excluded.active
		 WHERE b.active IS DISTINCT FROM excluded.active`, orgID, refs, active)
	if err != nil {
		return fmt.Errorf("import baselines of %d technicians of org %d: %w", len(refs), orgID, err)
	}
	return nil
}

// SetJobBaselines records that the last import set the technician techs[i]
// (0: none) and the status statuses[i] for the org's job with the
// reference refs[i].
func SetJobBaselines(ctx context.Context, q database.Querier, orgID int64, refs []string, techs []int64, statuses []string) error {
	_, err := q.Exec(ctx, `
		INSERT INTO job_import_baselines AS b (org_id, job_id, technician_id, status)
		SELECT $1, j.id, nullif(i.tech, 0), i.status
		  FROM unnest($2::text[], $3::bigint[], $4::text[]) AS i(ref, tech, status)
		  JOIN jobs j ON j.org_id = $1 AND j.external_ref = i.ref
		ON CONFLICT (org_id, job_id) DO UPDATE SET technician_id = excluded.technician_id, status = excluded.status
		 WHERE (b.technician_id, b.status) IS DISTINCT FROM (excluded.technician_id, excluded.status)`, orgID, refs, techs, statuses)
	if err != nil {
		return fmt.Errorf("import baselines of %d jobs of org %d: %w", len(refs), orgID, err)
	}
	return nil
}
