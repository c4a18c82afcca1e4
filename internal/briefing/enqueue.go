package briefing

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// Triggers, as stored in ff_briefings.trigger.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// due is one briefing to create: the org-local date at the tick, in the zone
// that decided it.
type due struct {
	OrgID    int64
	Date     schedule.Date
	Timezone string
}

// enqueueChunk bounds one transaction: large enough that 100k due orgs take
// 200 round trips, small enough that a transaction stays short.
const enqueueChunk = 500

// enqueueSQL inserts the briefings and, for those that were new, their
// generation jobs, in one statement and so one transaction: a briefing never
// exists without its job. ON CONFLICT DO NOTHING on the permanent unique key
// lets racing replicas (or a manual "generate now") run it safely; the loser
// simply gets no row back.
const enqueueSQL = `
WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::date[], $3::text[]) AS t(org_id, briefing_date, timezone)
), briefing AS (
    INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, trigger, status, created_at, updated_at)
    SELECT org_id, briefing_date, timezone, $4, $5, 'pending', $4, $4 FROM input
    ON CONFLICT (org_id, briefing_date) DO NOTHING
    RETURNING id, org_id
)
INSERT INTO ff_briefing_jobs (org_id, briefing_id, run_after, created_at)
SELECT org_id, id, $4, $4 FROM briefing
RETURNING id`

// enqueue creates the briefings in items, one statement (so one transaction
// and one round trip) per chunk, and returns the jobs of those that did not
// exist yet. Items must be sorted by org id so that concurrent replicas take
// the unique key's locks in the same order and never deadlock.
func enqueue(ctx context.Context, db database.Querier, firedAt time.Time, trigger string, items []due) ([]int64, error) {
	var jobIDs []int64
	for start := 0; start < len(items); start += enqueueChunk {
		chunk := items[start:min(start+enqueueChunk, len(items))]
		ids, err := insertBriefings(ctx, db, firedAt, trigger, chunk)
		jobIDs = append(jobIDs, ids...)
		if err != nil {
			return jobIDs, fmt.Errorf("enqueue briefings for orgs %d..%d: %w", chunk[0].OrgID, chunk[len(chunk)-1].OrgID, err)
		}
	}
	return jobIDs, nil
}

// insertBriefings runs one multi-row insert on a pool or, for GenerateNow, inside
// a transaction next to its audit entry.
func insertBriefings(ctx context.Context, q database.Querier, firedAt time.Time, trigger string, items []due) ([]int64, error) {
	orgIDs := make([]int64, len(items))
	dates := make([]time.Time, len(items))
	zones := make([]string, len(items))
	for i, it := range items {
		orgIDs[i], dates[i], zones[i] = it.OrgID, it.Date.Time(), it.Timezone
	}
	rows, err := q.Query(ctx, enqueueSQL, orgIDs, dates, zones, firedAt, trigger)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}
