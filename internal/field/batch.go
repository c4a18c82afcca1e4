package field

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
)

// Batches upsert many records by external_ref in one statement each (arrays
// unnested server-side), so a CSV of 10,000 jobs is one round trip rather
// than 10,000; the bench in batch_test.go measures it.

// MaxBatch bounds one batch; the CSV import refuses larger files before this.
const MaxBatch = 50000

// RowError is one problem of one record in a batch. Row is the record's
// index in the batch, from 0.
type RowError struct {
	Row   int
	Field string
	Problem
}

// BatchError lists every problem found in a batch, by row then field.
// Nothing was saved.
type BatchError struct {
	Rows []RowError
}

func (e *BatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems", len(e.Rows))
	for i, r := range e.Rows {
		if i == 5 {
			b.WriteString("; …")
			break
		}
		fmt.Fprintf(&b, "; row %d %s: %s", r.Row, r.Field, r.Message)
	}
	return b.String()
}

// Unwrap makes the error an apperr Invalid one.
func (e *BatchError) Unwrap() error {
	return &apperr.Error{Code: apperr.Invalid, Message: e.Error()}
}

type batchErrors []RowError

func (be *batchErrors) addAll(row int, err error) {
	if ve, ok := err.(*ValidationError); ok {
		for f, m := range ve.Fields {
			p, _ := ve.Problem(f)
			p.Message = m
			*be = append(*be, RowError{Row: row, Field: f, Problem: p})
		}
	}
}

func (be batchErrors) err() error {
	if len(be) == 0 {
		return nil
	}
	sort.SliceStable(be, func(i, j int) bool {
		if be[i].Row != be[j].Row {
			return be[i].Row < be[j].Row
		}
		return be[i].Field < be[j].Field
	})
	return &BatchError{Rows: be}
}

// Outcome is what a batch did to one record.
type Outcome int

const (
	Unchanged Outcome = iota
	Created
	Updated
)

// BatchResult is what a batch did, per record (in input order) and counted.
type BatchResult struct {
	Outcomes                    []Outcome
	Created, Updated, Unchanged int
}

func (r *BatchResult) count() {
	for _, o := range r.Outcomes {
		switch o {
		case Created:
			r.Created++
		case Updated:
			r.Updated++
		default:
			r.Unchanged++
		}
	}
}

// refsOf returns the id of each of refs the org has in table.
func refsOf(ctx context.Context, q database.Querier, table string, orgID int64, refs []string) (map[string]int64, error) {
	rows, err := q.Query(ctx, `SELECT external_ref, id FROM `+table+` WHERE org_id = $1 AND external_ref = ANY($2)`, orgID, refs)
	if err != nil {
		return nil, fmt.Errorf("%s by reference: %w", table, err)
	}
	defer rows.Close()
	out := make(map[string]int64, len(refs))
	for rows.Next() {
		var ref string
		var id int64
		if err := rows.Scan(&ref, &id); err != nil {
			return nil, err
		}
		out[ref] = id
	}
	return out, rows.Err()
}

// TechnicianRefs returns the id of each of refs that is one of the org's
// technicians (active or not); missing refs are absent from the map.
func TechnicianRefs(ctx context.Context, q database.Querier, orgID int64, refs []string) (map[string]int64, error) {
	return refsOf(ctx, q, "technicians", orgID, refs)
}

// JobRefs returns the id of each of refs that is one of the org's jobs.
func JobRefs(ctx context.Context, q database.Querier, orgID int64, refs []string) (map[string]int64, error) {
	return refsOf(ctx, q, "jobs", orgID, refs)
}

// checkRefs validates each input's external_ref as required and unique in
// the batch.
func checkRefs(refs []string, be *batchErrors) {
	first := make(map[string]int, len(refs))
	for i, ref := range refs {
		if ref == "" {
			*be = append(*be, RowError{Row: i, Field: "external_ref", Problem: problem(CodeRequired, "is required")})
			continue
		}
		if j, dup := first[ref]; dup {
			*be = append(*be, RowError{Row: i, Field: "external_ref", Problem: Problem{
				Code: CodeRefRepeated, Value: ref, Other: j, Message: fmt.Sprintf("%q is also used by row %d", ref, j)}})
			continue
		}
		first[ref] = i
	}
}

// UpsertTechniciansByRef creates or replaces technicians by external_ref
// (required, unique within the batch) inside the caller's transaction q,
// all or nothing: any invalid record is a *BatchError and nothing is
// written. The batch is one entry in the audit log, with its counts.
func UpsertTechniciansByRef(ctx context.Context, q database.Querier, actor audit.Actor, orgID int64, ins []TechnicianInput) (BatchResult, error) {
	if len(ins) > MaxBatch {
		return BatchResult{}, apperr.Refuse(apperr.Invalid, "technicians_batch", apperr.Args{"Max": MaxBatch})
	}
	var be batchErrors
	refs := make([]string, len(ins))
	for i := range ins {
		ins[i].Normalize()
		be.addAll(i, ins[i].Validate())
		refs[i] = ins[i].ExternalRef
	}
	checkRefs(refs, &be)
	if err := be.err(); err != nil {
		return BatchResult{}, err
	}
	existing, err := TechnicianRefs(ctx, q, orgID, refs)
	if err != nil {
		return BatchResult{}, err
	}
	if err := roomForTechnicians(ctx, q, orgID, len(refs)-len(existing)); err != nil {
		return BatchResult{}, err
	}
	cols := struct {
		name, email, phone, language []string
		active                       []bool
	}{make([]string, len(ins)), make([]string, len(ins)), make([]string, len(ins)), make([]string, len(ins)), make([]bool, len(ins))}
	for i, in := range ins {
		cols.name[i], cols.email[i], cols.phone[i], cols.active[i] = in.Name, in.Email, in.Phone, in.Active
		cols.language[i] = in.Language
	}
	// The WHERE of DO UPDATE leaves identical rows alone, so a re-import
	// changes nothing (updated_at included) and returns only what changed.
	// An empty language keeps the technician's (a file without the column
	// does not undo a choice made in the app; docs/field-data.md). The
	// time is the inserted row's (excluded.updated_at): Citus refuses now()
	// in DO UPDATE SET on a distributed table (docs/scaling.md, "What the
	// real cluster refused"); the jobs' upsert below does the same.
	rows, err := q.Query(ctx, `
		INSERT INTO technicians AS t (org_id, external_ref, name, email, phone, active, language, updated_at)
		SELECT $1, i.ref, i.name, i.email, i.phone, i.active, nullif(i.language, ''), now()
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[]) AS i(ref, name, email, phone, active, language)
		ON CONFLICT (org_id, external_ref) WHERE external_ref IS NOT NULL DO UPDATE
		   SET name = excluded.name, email = excluded.email, phone = excluded.phone, active = excluded.active,
		       language = coalesce(excluded.language, t.language), updated_at = excluded.updated_at
		 WHERE (t.name, t.email, t.phone, t.active, t.language) IS DISTINCT FROM
		       (excluded.name, excluded.email, excluded.phone, excluded.active, coalesce(excluded.language, t.language))
		RETURNING t.external_ref`,
		orgID, refs, cols.name, cols.email, cols.phone, cols.active, cols.language)
	if err != nil {
		return BatchResult{}, fmt.Errorf("upsert %d technicians: %w", len(ins), err)
	}
	res, err := outcomes(rows, refs, existing)
	if err != nil {
		return res, fmt.Errorf("upsert %d technicians: %w", len(ins), err)
	}
	return res, auditBatch(ctx, q, actor, orgID, "field.technician.import", res)
}

// UpsertJobsByRef creates or replaces jobs by external_ref (required,
// unique within the batch) inside the caller's transaction q, all or
// nothing. The technician is by TechnicianRef or by TechnicianID (one of
// the org's; the CSV import resolves names and emails to ids). Any invalid
// record (an unknown technician_ref included) is a
// *BatchError and nothing is written. The batch is one entry in the audit
// log, with its counts. now is the caller's clock (docs/scheduling.md,
// "Time comes from the caller").
func UpsertJobsByRef(ctx context.Context, q database.Querier, actor audit.Actor, now time.Time, orgID int64, ins []JobInput) (BatchResult, error) {
	if len(ins) > MaxBatch {
		return BatchResult{}, apperr.Refuse(apperr.Invalid, "jobs_batch", apperr.Args{"Max": MaxBatch})
	}
	var be batchErrors
	refs := make([]string, len(ins))
	var techRefs []string
	var techIDs []int64 // by id: the CSV import resolves names and emails itself
	for i := range ins {
		ins[i].Normalize()
		be.addAll(i, ins[i].Validate())
		refs[i] = ins[i].ExternalRef
		if ins[i].TechnicianID != 0 { // with a reference too: Validate's technician_both
			techIDs = append(techIDs, ins[i].TechnicianID)
		}
		if ins[i].TechnicianRef != "" {
			techRefs = append(techRefs, ins[i].TechnicianRef)
		}
	}
	checkRefs(refs, &be)
	techs, err := TechnicianRefs(ctx, q, orgID, techRefs)
	if err != nil {
		return BatchResult{}, err
	}
	ownIDs, err := technicianIDsOf(ctx, q, orgID, techIDs)
	if err != nil {
		return BatchResult{}, err
	}
	n := len(ins)
	c := struct {
		customer, phone, address, jobType, notes, status []string
		start, end                                       []time.Time
		emergency                                        []bool
		tech                                             []int64
	}{make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]time.Time, n), make([]time.Time, n), make([]bool, n), make([]int64, n)}
	for i, in := range ins {
		if in.TechnicianRef != "" {
			id, ok := techs[in.TechnicianRef]
			if !ok {
				be = append(be, RowError{Row: i, Field: "technician_ref", Problem: Problem{
					Code: CodeTechnicianUnknown, Value: in.TechnicianRef, Message: fmt.Sprintf("no technician of this org has the reference %q", in.TechnicianRef)}})
			}
			c.tech[i] = id
		}
		if in.TechnicianID != 0 {
			if !ownIDs[in.TechnicianID] {
				be = append(be, RowError{Row: i, Field: "technician_id", Problem: problem(CodeTechnicianInvalid, "is not a technician of this org")})
			}
			c.tech[i] = in.TechnicianID
		}
		c.customer[i], c.phone[i], c.address[i], c.jobType[i], c.notes[i], c.status[i] =
			in.Customer, in.CustomerPhone, in.Address, in.JobType, in.Notes, in.Status
		c.start[i], c.end[i], c.emergency[i] = in.ArrivalStart, in.ArrivalEnd, in.Emergency
	}
	if err := checkAssignees(ctx, q, orgID, ins, refs, c.tech, &be); err != nil {
		return BatchResult{}, err
	}
	if err := be.err(); err != nil {
		return BatchResult{}, err
	}
	existing, err := JobRefs(ctx, q, orgID, refs)
	if err != nil {
		return BatchResult{}, err
	}
	watch, err := watchBatch(ctx, q, orgID, now, ins, c.tech)
	if err != nil {
		return BatchResult{}, err
	}
	rows, err := q.Query(ctx, `
		INSERT INTO jobs AS j (org_id, external_ref, customer, customer_phone, address, job_type, notes, status,
		                       arrival_start, arrival_end, emergency, technician_id, completed_at, updated_at)
		SELECT $1, i.ref, i.customer, i.phone, i.address, i.job_type, i.notes, i.status,
		       i.arrival_start, i.arrival_end, i.emergency, nullif(i.tech, 0),
		       CASE WHEN i.status = 'done' THEN $13::timestamptz END, now()
		  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
		              $9::timestamptz[], $10::timestamptz[], $11::bool[], $12::bigint[])
		       AS i(ref, customer, phone, address, job_type, notes, status, arrival_start, arrival_end, emergency, tech)
		ON CONFLICT (org_id, external_ref) WHERE external_ref IS NOT NULL DO UPDATE
		   SET customer = excluded.customer, customer_phone = excluded.customer_phone, address = excluded.address,
		       job_type = excluded.job_type, notes = excluded.notes, status = excluded.status,
		       arrival_start = excluded.arrival_start, arrival_end = excluded.arrival_end,
		       emergency = excluded.emergency, technician_id = excluded.technician_id,
		       completed_at = CASE WHEN excluded.status <> 'done' THEN NULL
		                           WHEN j.status = 'done' THEN j.completed_at ELSE excluded.completed_at END,
		       updated_at = excluded.updated_at
		 WHERE (j.customer, j.customer_phone, j.address, j.job_type, j.notes, j.status,
		        j.arrival_start, j.arrival_end, j.emergency, j.technician_id) IS DISTINCT FROM
		       (excluded.customer, excluded.customer_phone, excluded.address, excluded.job_type, excluded.notes,
		        excluded.status, excluded.arrival_start, excluded.arrival_end, excluded.emergency, excluded.technician_id)
		RETURNING j.external_ref`,
		orgID, refs, c.customer, c.phone, c.address, c.jobType, c.notes, c.status, c.start, c.end, c.emergency, c.tech, now)
	if err != nil {
		return BatchResult{}, fmt.Errorf("upsert %d jobs: %w", n, err)
	}
	res, err := outcomes(rows, refs, existing)
	if err != nil {
		return res, fmt.Errorf("upsert %d jobs: %w", n, err)
	}
	if err := watch.record(ctx, q, orgID, refs, res); err != nil {
		return res, fmt.Errorf("upsert %d jobs: %w", n, err)
	}
	return res, auditBatch(ctx, q, actor, orgID, "field.job.import", res)
}

// outcomes reads the refs a batch wrote: new ones were created, known ones
// updated, and the rest were identical and left alone.
func outcomes(rows pgx.Rows, refs []string, existing map[string]int64) (BatchResult, error) {
	defer rows.Close()
	written := make(map[string]bool, len(refs))
	for rows.Next() {
		var ref string
		if err := rows.Scan(&ref); err != nil {
			return BatchResult{}, err
		}
		written[ref] = true
	}
	if err := rows.Err(); err != nil {
		return BatchResult{}, err
	}
	res := BatchResult{Outcomes: make([]Outcome, len(refs))}
	for i, ref := range refs {
		_, known := existing[ref]
		switch {
		case !known:
			res.Outcomes[i] = Created
		case written[ref]:
			res.Outcomes[i] = Updated
		}
	}
	res.count()
	return res, nil
}

func auditBatch(ctx context.Context, q database.Querier, actor audit.Actor, orgID int64, action string, res BatchResult) error {
	if res.Created+res.Updated == 0 {
		return nil
	}
	return audit.Record(ctx, q, audit.Entry{Actor: actor, OrgID: orgID, Action: action,
		New: map[string]int{"created": res.Created, "updated": res.Updated, "unchanged": res.Unchanged}})
}

// checkAssignees adds to be the rows that would give a job to a
// deactivated technician (assignProblem): tech[i] is row i's technician
// (0: none), refs[i] its job's reference, whose job may have them already.
//
// The technicians' rows are locked (shared, in id order) for the rest of
// q's transaction, as resolveAssignee's: a concurrent deactivation is
// waited for and seen.
func checkAssignees(ctx context.Context, q database.Querier, orgID int64, ins []JobInput, refs []string, tech []int64, be *batchErrors) error {
	rows, err := q.Query(ctx, `
		SELECT i.n, t.active, coalesce(j.technician_id, 0)
		  FROM unnest($2::bigint[], $3::text[]) WITH ORDINALITY AS i(tech, ref, n)
		  JOIN technicians t ON t.org_id = $1 AND t.id = i.tech
		  LEFT JOIN jobs j ON j.org_id = $1 AND j.external_ref = i.ref
		 ORDER BY t.id
		   FOR SHARE OF t`, orgID, tech, refs)
	if err != nil {
		return fmt.Errorf("assignees of %d jobs: %w", len(refs), err)
	}
	defer rows.Close()
	for rows.Next() {
		var n, current int64
		var active bool
		if err := rows.Scan(&n, &active, &current); err != nil {
			return fmt.Errorf("assignees of %d jobs: %w", len(refs), err)
		}
		i := int(n - 1)
		if p := assignProblem(tech[i], active, current); p != nil {
			name := "technician_id"
			if ins[i].TechnicianRef != "" {
				name = "technician_ref"
			}
			*be = append(*be, RowError{Row: i, Field: name, Problem: *p})
		}
	}
	return rows.Err()
}

// technicianIDsOf is the set of ids that are technicians of the org: an id
// of another org's technician is never written (the foreign key would
// refuse it too, but as a 500, not as the row's problem).
func technicianIDsOf(ctx context.Context, q database.Querier, orgID int64, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT id FROM technicians WHERE org_id = $1 AND id = ANY($2)`, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("technicians by id: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
