package updates

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// MaxRows bounds the outbox rows one update reads for its messages, in
// the order they were written; an update folding more (a CSV import that
// moved thousands of jobs onto one day) lists what these show and counts
// the rest.
const MaxRows = 5000

// Outcomes of a fold, as stored in ff_briefing_updates.outcome.
const (
	OutcomeSent        = "sent"         // its deliveries were made
	OutcomeNoChange    = "no_change"    // the changes cancelled out
	OutcomePast        = "past"         // the date was over
	OutcomeOff         = "off"          // delivery.updates is off
	OutcomeNoRecipient = "no_recipient" // no address, no webhook
)

// Pending is what the fold needs to decide whether to fold now.
type Pending struct {
	Count          int
	MaxID          int64
	Oldest, Newest time.Time
	LastSent       time.Time // the technician's last sent update, any date; zero: none
	// EmailPending: the technician's briefing email of the date is not sent
	// yet, or the date's scheduled briefing that makes it is still under
	// way, so the update waits for it to go first.
	EmailPending bool
	// Zone is the briefing's zone, in which its date ends ("" without one).
	Zone string
}

// ReadPending reads the technician's unfolded changes of date, in q (the
// fold's transaction, under LockOrg, after Prune).
func ReadPending(ctx context.Context, q database.Querier, orgID, techID int64, date schedule.Date) (Pending, error) {
	var p Pending
	var oldest, newest, last *time.Time
	var zone *string
	err := q.QueryRow(ctx, `
		SELECT count(*), coalesce(max(c.id), 0), min(c.created_at), max(c.created_at),
		       (SELECT max(u.created_at) FROM ff_briefing_updates u
		         WHERE u.org_id = $1 AND u.technician_id = $2 AND u.outcome = 'sent'),
		       EXISTS (SELECT FROM ff_deliveries d JOIN ff_briefings b ON b.id = d.briefing_id AND b.org_id = d.org_id
		                WHERE d.org_id = $1 AND b.briefing_date = $3 AND d.technician_id = $2
		                  AND d.audience = 'technician' AND d.update_id IS NULL AND d.state = 'pending')
		       OR EXISTS (SELECT FROM ff_briefings b WHERE b.org_id = $1 AND b.briefing_date = $3 AND `+firingUnderway+`),
		       (SELECT b.timezone FROM ff_briefings b WHERE b.org_id = $1 AND b.briefing_date = $3)
		  FROM ff_job_changes c
		 WHERE c.org_id = $1 AND c.technician_id = $2 AND c.briefing_date = $3 AND c.update_id IS NULL`,
		orgID, techID, date.Time()).Scan(&p.Count, &p.MaxID, &oldest, &newest, &last, &p.EmailPending, &zone)
	if err != nil {
		return p, fmt.Errorf("pending changes of technician %d of org %d on %s: %w", techID, orgID, date, err)
	}
	for _, t := range []struct {
		to   *time.Time
		from *time.Time
	}{{&p.Oldest, oldest}, {&p.Newest, newest}, {&p.LastSent, last}} {
		if t.from != nil {
			*t.to = *t.from
		}
	}
	if zone != nil {
		p.Zone = *zone
	}
	return p, nil
}

// Prune deletes the org's unfolded changes of date that no technician is
// to be told, once the date's scheduled briefing has made its deliveries
// (or failed for good): a change whose transaction the snapshot of the
// technician's email saw (pg_visible_in_snapshot of its revision's
// read_snapshot), since the email has it, and a change of a technician who
// got no email of the date (none made, or skipped as late), who has no day
// to update. What is left is what happened after the email was made. Every
// technician's rows of the date go at once, so a reassignment's other half
// is gone before a fold's webhook could announce it. While the briefing is
// under way nothing is pruned. It runs in the fold's transaction, under
// LockOrg, and returns how many rows it deleted. The tables are joined on
// org_id (one org's, $1): Citus refuses a DELETE joining distributed
// tables otherwise (docs/scaling.md, "What the real cluster refused").
func Prune(ctx context.Context, q database.Querier, orgID int64, date schedule.Date) (int64, error) {
	tag, err := q.Exec(ctx, `
		DELETE FROM ff_job_changes c
		 USING ff_briefings b
		 WHERE b.org_id = $1 AND b.briefing_date = $2
		   AND c.org_id = b.org_id AND c.briefing_date = $2 AND c.update_id IS NULL
		   AND NOT (`+firingUnderway+`)
		   AND NOT EXISTS (
		       SELECT FROM ff_deliveries d
		         LEFT JOIN ff_briefing_revisions r ON r.org_id = d.org_id AND r.briefing_id = d.briefing_id AND r.revision = d.revision
		        WHERE d.org_id = c.org_id AND d.briefing_id = b.id AND d.technician_id = c.technician_id
		          AND d.audience = 'technician' AND d.update_id IS NULL AND d.state <> 'skipped'
		          -- a revision without a snapshot (made before it was kept) had none of them
		          AND NOT coalesce(pg_visible_in_snapshot(c.xact, r.read_snapshot), false))`,
		orgID, date.Time())
	if err != nil {
		return 0, fmt.Errorf("prune changes of org %d on %s: %w", orgID, date, err)
	}
	return tag.RowsAffected(), nil
}

const rowColumns = `c.id, c.job_id, c.technician_id, c.briefing_date, c.was_on, c.is_on, c.before, c.after, c.created_at`

func scanRow(r pgx.CollectableRow) (Row, error) {
	var row Row
	var date time.Time
	var before, after []byte
	if err := r.Scan(&row.ID, &row.JobID, &row.TechnicianID, &date, &row.WasOn, &row.IsOn, &before, &after, &row.CreatedAt); err != nil {
		return row, err
	}
	row.Date = schedule.DateOf(date)
	if before != nil {
		row.Before = new(JobState)
		if err := json.Unmarshal(before, row.Before); err != nil {
			return row, fmt.Errorf("decode change %d: %w", row.ID, err)
		}
	}
	if err := json.Unmarshal(after, &row.After); err != nil {
		return row, fmt.Errorf("decode change %d: %w", row.ID, err)
	}
	return row, nil
}

// PendingRows reads the technician's unfolded rows of date up to maxID,
// oldest first, at most MaxRows; more is how many were left unread.
func PendingRows(ctx context.Context, q database.Querier, orgID, techID int64, date schedule.Date, maxID int64) (rows []Row, more int, err error) {
	rows, err = database.List(ctx, q, "pending job changes", scanRow, `
		SELECT `+rowColumns+` FROM ff_job_changes c
		 WHERE c.org_id = $1 AND c.technician_id = $2 AND c.briefing_date = $3 AND c.update_id IS NULL AND c.id <= $4
		 ORDER BY c.id LIMIT $5`, orgID, techID, date.Time(), maxID, MaxRows)
	if err != nil || len(rows) < MaxRows {
		return rows, 0, err
	}
	err = q.QueryRow(ctx, `SELECT count(*) FROM ff_job_changes c
		 WHERE c.org_id = $1 AND c.technician_id = $2 AND c.briefing_date = $3 AND c.update_id IS NULL AND c.id <= $4 AND c.id > $5`,
		orgID, techID, date.Time(), maxID, rows[len(rows)-1].ID).Scan(&more)
	if err != nil {
		return rows, 0, fmt.Errorf("count pending job changes: %w", err)
	}
	return rows, more, nil
}

// UnannouncedRows is the part of rows no earlier update's webhook listed,
// with the rows of other technicians the same transactions wrote about the
// same jobs (a reassignment's other half), oldest first: what this
// update's webhook announces.
func UnannouncedRows(ctx context.Context, q database.Querier, orgID int64, rows []Row) ([]Row, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return database.List(ctx, q, "unannounced job changes", scanRow, `
		SELECT `+rowColumns+` FROM ff_job_changes c
		 WHERE c.org_id = $1 AND c.announced_in IS NULL
		   AND (c.job_id, c.xact) IN (SELECT m.job_id, m.xact FROM ff_job_changes m
		                               WHERE m.org_id = $1 AND m.id = ANY($2) AND m.announced_in IS NULL)
		 ORDER BY c.id`, orgID, ids)
}

// Fold records an update of the technician's date with outcome and the
// number of jobs it lists, takes their unfolded rows up to maxID into it,
// and marks announced the rows its webhook lists (announced, by id).
// It runs in the fold's transaction, under LockOrg.
func Fold(ctx context.Context, q database.Querier, orgID, briefingID, techID int64, date schedule.Date, outcome string, jobs int, maxID int64, announced []Row, now time.Time) (updateID int64, err error) {
	err = q.QueryRow(ctx, `
		INSERT INTO ff_briefing_updates (org_id, briefing_id, technician_id, briefing_date, outcome, jobs, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		orgID, briefingID, techID, date.Time(), outcome, jobs, now).Scan(&updateID)
	if err != nil {
		return 0, fmt.Errorf("record update of technician %d of org %d on %s: %w", techID, orgID, date, err)
	}
	ids := make([]int64, len(announced))
	for i, r := range announced {
		ids[i] = r.ID
	}
	// One statement: a row of this technician's is often both folded and
	// announced, and a row may be updated only once per statement.
	_, err = q.Exec(ctx, `
		UPDATE ff_job_changes
		   SET update_id = CASE WHEN technician_id = $2 AND briefing_date = $3 AND update_id IS NULL AND id <= $4
		                        THEN $5 ELSE update_id END,
		       announced_in = CASE WHEN id = ANY($6) AND announced_in IS NULL THEN $5 ELSE announced_in END
		 WHERE org_id = $1
		   AND ((technician_id = $2 AND briefing_date = $3 AND update_id IS NULL AND id <= $4) OR id = ANY($6))`,
		orgID, techID, date.Time(), maxID, updateID, ids)
	if err != nil {
		return 0, fmt.Errorf("fold changes into update %d: %w", updateID, err)
	}
	return updateID, nil
}

// UpdateRows reads what update id's messages show: for the email (webhook
// false) the rows it folded, for the webhook the rows it announced; oldest
// first, at most MaxRows, and how many more there are.
func UpdateRows(ctx context.Context, q database.Querier, orgID, updateID int64, webhook bool) (rows []Row, more int, err error) {
	col := "update_id"
	if webhook {
		col = "announced_in"
	}
	rows, err = database.List(ctx, q, "job changes of an update", scanRow, `
		SELECT `+rowColumns+` FROM ff_job_changes c
		 WHERE c.org_id = $1 AND c.`+col+` = $2 ORDER BY c.id LIMIT $3`, orgID, updateID, MaxRows)
	if err != nil || len(rows) < MaxRows {
		return rows, 0, err
	}
	err = q.QueryRow(ctx, `SELECT count(*) FROM ff_job_changes c WHERE c.org_id = $1 AND c.`+col+` = $2 AND c.id > $3`,
		orgID, updateID, rows[len(rows)-1].ID).Scan(&more)
	if err != nil {
		return rows, 0, fmt.Errorf("count job changes of update %d: %w", updateID, err)
	}
	return rows, more, nil
}
