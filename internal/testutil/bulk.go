package testutil

import (
	"context"
	"fmt"
	"time"

	"fieldbrief/internal/database"
)

// InsertOverdueJobs inserts n jobs of org that are overdue on the day that
// starts at dayStart (docs/briefing-content.md): windows of two hours ending
// over the 365 days before it, assigned in turn to techIDs (none when
// empty), scheduled or in progress, every tenth on hold, every 97th an
// emergency, each with a type, a phone, an address and a short note, as a
// busy org's would be. One INSERT … SELECT generate_series: 50,000 rows in
// about a second. The bounds' tests and benchmarks use it
// (docs/benchmarks.md, "A briefing with 50,000 overdue jobs").
func InsertOverdueJobs(ctx context.Context, q database.Querier, orgID int64, techIDs []int64, n int, dayStart time.Time) error {
	if techIDs == nil {
		techIDs = []int64{}
	}
	_, err := q.Exec(ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, customer_phone, address, arrival_start, arrival_end,
		                  status, job_type, notes, emergency, external_ref)
		SELECT $1, CASE WHEN cardinality($2::bigint[]) > 0 THEN ($2::bigint[])[1 + g % cardinality($2::bigint[])] END,
		       'Customer ' || g, '+1 512 555 ' || lpad((g % 10000)::text, 4, '0'),
		       g || ' West Elm Street, Austin, TX 787' || lpad((g % 100)::text, 2, '0'),
		       $4::timestamptz - interval '2 hours' - (g % 365) * interval '1 day' - (g % 600) * interval '1 minute',
		       $4::timestamptz - (g % 365) * interval '1 day' - (g % 600) * interval '1 minute' - interval '1 minute',
		       CASE WHEN g % 10 = 0 THEN 'on_hold' WHEN g % 3 = 0 THEN 'in_progress' ELSE 'scheduled' END,
		       'Water heater repair', 'Gate code ' || g || '. Call the customer 30 minutes before arriving.',
		       g % 97 = 0, 'OVD-' || g
		  FROM generate_series(1, $3::int) g`, orgID, techIDs, n, dayStart)
	if err != nil {
		return fmt.Errorf("insert %d overdue jobs for org %d: %w", n, orgID, err)
	}
	_, err = q.Exec(ctx, `ANALYZE jobs`)
	return err
}
