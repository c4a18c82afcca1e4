package field

import (
	"context"
	"fmt"
	"slices"
	"time"

	"fieldbrief/internal/database"
	"fieldbrief/internal/updates"
)

// Every job write tells internal/updates what it changed, in its own
// transaction, so a technician whose day was already sent hears of it
// (docs/delivery.md, "Updates"). The day a job is on is its arrival's
// local date in the org's zone, computed in Go (updates.Watch); which days
// are watched, and when a change was made, is decided at the write's now,
// the caller's clock, never the host's.

// stateOf is a job as an update shows it.
func stateOf(j Job) updates.JobState {
	return updates.JobState{ID: j.ID, ExternalRef: j.ExternalRef, TechnicianID: j.TechnicianID,
		Technician: j.TechnicianName, TechnicianRef: j.TechnicianRef, Customer: j.Customer,
		CustomerPhone: j.CustomerPhone, Address: j.Address, Start: j.ArrivalStart, End: j.ArrivalEnd,
		JobType: j.JobType, Notes: j.Notes, Emergency: j.Emergency, Status: j.Status}
}

// noteJob records one job written in q at now: old is nil when it was created.
// A job unassigned before and after concerns no technician, and costs
// nothing; otherwise one read finds whether any technician's day is
// watched (most of the time none is).
func noteJob(ctx context.Context, q database.Querier, orgID int64, now time.Time, old *Job, j Job) error {
	if (old == nil || old.TechnicianID == 0) && j.TechnicianID == 0 {
		return nil
	}
	w, err := updates.Open(ctx, q, orgID, now)
	if err != nil || w == nil {
		return err
	}
	e := updates.Edit{After: stateOf(j)}
	if old != nil {
		s := stateOf(*old)
		e.Before = &s
	}
	if err := w.Record(ctx, q, []updates.Edit{e}); err != nil {
		return fmt.Errorf("note job %d: %w", j.ID, err)
	}
	return nil
}

// batchWatch is what UpsertJobsByRef reads before writing when some
// technician's day is watched: the old state of every job of the batch
// that is on a watched day or will be.
type batchWatch struct {
	w    *updates.Watch
	olds map[string]Job // by external_ref
	refs []string       // the jobs to look at again after the write
}

// watchBatch reads, before a batch writes, what it needs to tell its
// changes: nil when no technician's day is watched. ins are the batch's
// inputs, techs their assignees' ids (0: none) in the same order; now is
// the batch's clock.
func watchBatch(ctx context.Context, q database.Querier, orgID int64, now time.Time, ins []JobInput, techs []int64) (*batchWatch, error) {
	w, err := updates.Open(ctx, q, orgID, now)
	if err != nil || w == nil {
		return nil, err
	}
	// Inputs that land on a watched day; the old jobs on one are found in SQL.
	var landing []string
	for i, in := range ins {
		if techs[i] != 0 && w.Touches(updates.Edit{After: updates.JobState{TechnicianID: techs[i], Start: in.ArrivalStart}}) {
			landing = append(landing, in.ExternalRef)
		}
	}
	from, to, watched, all := w.Span()
	refs := make([]string, len(ins))
	for i, in := range ins {
		refs[i] = in.ExternalRef
	}
	// all: a day whose briefing is being made watches every technician.
	rows, err := q.Query(ctx, `SELECT `+jobColumns+jobFrom+`
		 WHERE j.org_id = $1 AND j.external_ref = ANY($2)
		   AND (((j.technician_id = ANY($3) OR ($7 AND j.technician_id IS NOT NULL)) AND j.arrival_start >= $4 AND j.arrival_start < $5)
		        OR j.external_ref = ANY($6))`,
		orgID, refs, watched, from, to, landing, all)
	if err != nil {
		return nil, fmt.Errorf("jobs on technicians' sent days: %w", err)
	}
	olds, err := collectJobs(rows)
	if err != nil {
		return nil, fmt.Errorf("jobs on technicians' sent days: %w", err)
	}
	bw := &batchWatch{w: w, olds: make(map[string]Job, len(olds))}
	for _, j := range olds {
		bw.olds[j.ExternalRef] = j
		bw.refs = append(bw.refs, j.ExternalRef)
	}
	for _, ref := range landing {
		if _, ok := bw.olds[ref]; !ok {
			bw.refs = append(bw.refs, ref) // a new job, or one moving onto a watched day
		}
	}
	return bw, nil
}

// record tells the changes of the batch once it is written: the jobs
// watchBatch found are read again, and those the batch created or updated
// are recorded.
func (bw *batchWatch) record(ctx context.Context, q database.Querier, orgID int64, refs []string, res BatchResult) error {
	if bw == nil || len(bw.refs) == 0 {
		return nil
	}
	written := make(map[string]bool, len(refs))
	for i, ref := range refs {
		if res.Outcomes[i] != Unchanged {
			written[ref] = true
		}
	}
	look := slices.DeleteFunc(slices.Clone(bw.refs), func(ref string) bool { return !written[ref] })
	if len(look) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT `+jobColumns+jobFrom+` WHERE j.org_id = $1 AND j.external_ref = ANY($2) ORDER BY j.id`, orgID, look)
	if err != nil {
		return fmt.Errorf("jobs written: %w", err)
	}
	news, err := collectJobs(rows)
	if err != nil {
		return fmt.Errorf("jobs written: %w", err)
	}
	edits := make([]updates.Edit, 0, len(news))
	for _, j := range news {
		e := updates.Edit{After: stateOf(j)}
		if old, ok := bw.olds[j.ExternalRef]; ok {
			s := stateOf(old)
			e.Before = &s
		}
		edits = append(edits, e)
	}
	return bw.w.Record(ctx, q, edits)
}
