package field

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DayReads is an org's field data for one local day, as a briefing's
// snapshot shows it. QueueDay queues its reads on a batch, so the whole day
// costs one round trip inside the caller's transaction (docs/architecture.md,
// "Burst"); the fields are filled when the batch is closed.
type DayReads struct {
	Technicians []Technician // the active ones, by name
	Jobs        []Job        // arrival_start within the day, in arrival order
	Overdue     []Job        // overdue on the day (overdueSQL), in arrival order
	OnHold      []Job        // on hold, whenever their window, in arrival order
	// The previous day's jobs, cancelled ones not counted, and how many of
	// them are done.
	PrevScheduled, PrevCompleted int
}

// QueueDay queues on b the reads of the org's day [start, end); prevStart
// is the start of the day before. The bounds are instants computed by the
// caller from the org-local date (schedule.DayBounds): no zone reaches SQL.
func QueueDay(b *pgx.Batch, orgID int64, prevStart, start, end time.Time) *DayReads {
	r := &DayReads{Technicians: []Technician{}}
	b.Queue(`SELECT `+technicianColumns+` FROM technicians t WHERE t.org_id = $1 AND t.active ORDER BY t.name, t.id`, orgID).
		Query(func(rows pgx.Rows) error {
			var err error
			r.Technicians, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Technician, error) {
				var t Technician
				err := scanTechnician(row, &t)
				return t, err
			})
			return readError(err, "technicians")
		})
	queueJobs(b, &r.Jobs, "jobs of the day", `j.arrival_start >= $2 AND j.arrival_start < $3`, orgID, start, end)
	queueJobs(b, &r.Overdue, "overdue jobs", overdueSQL("$2"), orgID, start)
	queueJobs(b, &r.OnHold, "jobs on hold", `j.status = 'on_hold'`, orgID)
	b.Queue(`
		SELECT count(*) FILTER (WHERE status <> 'cancelled'), count(*) FILTER (WHERE status = 'done')
		  FROM jobs
		 WHERE org_id = $1 AND arrival_start >= $2 AND arrival_start < $3`,
		orgID, prevStart, start).
		QueryRow(func(row pgx.Row) error {
			return readError(row.Scan(&r.PrevScheduled, &r.PrevCompleted), "the previous day's counts")
		})
	return r
}

// queueJobs queues the listing of the org's jobs matching where (which may
// use $2, $3…) in arrival order into *out.
func queueJobs(b *pgx.Batch, out *[]Job, what, where string, args ...any) {
	*out = []Job{}
	b.Queue(`SELECT `+jobColumns+jobFrom+` WHERE j.org_id = $1 AND `+where+` ORDER BY j.arrival_start, j.id`, args...).
		Query(func(rows pgx.Rows) error {
			var err error
			*out, err = collectJobs(rows)
			return readError(err, what)
		})
}

// readError adds what was being read to err, if any.
func readError(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
