package field

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// DayLimits bound what a day's reads load, whatever the org's data
// (docs/briefing-content.md, "Bounds"): the counts are read in full, the
// rows only up to these.
type DayLimits struct {
	List  int // jobs of each list: the action item sections, the cancelled, the overdue and on-hold lists
	Route int // jobs of one technician's day, and of the day's jobs with no active technician
	Day   int // jobs of the day in all (the routes together)
	// Each active technician's own overdue jobs (overdueSQL): at most Own
	// each, OwnAll for all technicians together, each one's first jobs
	// before anyone's later ones. OwnAll at least MaxTechnicians, so that
	// every technician's count is read.
	Own, OwnAll int
}

// JobList is the first jobs of a list, in arrival order, and how many the
// list has in all.
type JobList struct {
	Jobs  []Job
	Total int
}

// More is how many of the list's jobs are not in Jobs.
func (l JobList) More() int { return max(l.Total-len(l.Jobs), 0) }

// DayGroup counts one route's jobs of the day: an active technician's, or
// (Technician 0) the jobs with no active technician.
type DayGroup struct {
	Jobs         int // every job of the day
	NotCancelled int
}

// DayReads is an org's field data for one local day, as a briefing's
// snapshot shows it. QueueDay queues its reads on a batch, so the whole day
// costs one round trip inside the caller's transaction (docs/scheduling.md,
// "Burst"); the fields are filled when the batch is closed. Every list is
// read up to its limit and counted in full: a day with 50,000 overdue jobs
// loads 50 of them and the number.
type DayReads struct {
	Technicians []Technician // the active ones, by name
	// The day's jobs (arrival_start within the day), in arrival order: at
	// most Limits.Route per active technician and as many with no active
	// technician, the cancelled ones last to be listed; at most Limits.Day
	// in all, each route's first jobs before any route's later ones.
	Jobs   []Job
	Groups map[int64]DayGroup // by route (Job.Route): an active technician's id; 0: unassigned

	Overdue JobList // overdue on the day (overdueSQL)
	OnHold  JobList // on hold, whenever their window
	// Each active technician's own overdue jobs, by technician id (none:
	// no entry), in arrival order, up to Limits.Own each and Limits.OwnAll
	// in all, each counted in full (see queueOwnOverdue): a technician's
	// email lists theirs whatever the org's overdue list holds.
	OwnOverdue map[int64]JobList

	// The action item sections (docs/briefing-content.md, "One section per
	// job"), each job in the first that fits it, and the day's cancelled
	// jobs.
	Emergencies, OverdueItems, UnassignedItems, OnHoldItems, Cancelled JobList

	// The previous day's jobs, cancelled ones not counted, and how many of
	// them are done.
	PrevScheduled, PrevCompleted int
}

// The sections' rules in SQL, over jobs j LEFT JOIN technicians t (jobFrom),
// with {start} and {end} the day's bounds (at puts in the query's
// parameters). They are the rule of Snapshot.derive
// (internal/snapshot/summary.go), written for the database so that the
// counts need no rows; TestSectionsSQLAgreesWithDerive pins the two.
const (
	dayJob    = `(j.arrival_start >= {start} AND j.arrival_start < {end})`
	openJob   = openJobSQL
	onHoldJob = `j.status = 'on_hold'`
)

var (
	overdueJob = `(` + overdueSQL("{start}") + `)`
	// The sections, in their precedence: emergency > overdue > unassigned > on hold.
	onHoldOnDay    = `(` + onHoldJob + ` AND j.arrival_start < {end})`
	emergencyItem  = `j.emergency AND ((` + dayJob + ` AND ` + openJob + `) OR ` + overdueJob + ` OR ` + onHoldOnDay + `)`
	overdueItem    = overdueJob + ` AND NOT j.emergency`
	unassignedItem = dayJob + ` AND ` + openJob + ` AND ` + unassignedSQL + ` AND NOT j.emergency`
	// On hold on the day: its window has begun by the day's end (a job on
	// hold for next week is not the day's business; it used to be counted
	// here: docs/field-data.md, "The day board").
	onHoldItem   = onHoldOnDay + ` AND NOT j.emergency AND NOT ` + overdueJob + ` AND NOT (` + dayJob + ` AND ` + unassignedSQL + `)`
	cancelledJob = dayJob + ` AND j.status = 'cancelled'`
)

// at writes a condition with the day's bounds as the parameters start and end.
func at(cond, start, end string) string {
	return strings.NewReplacer("{start}", start, "{end}", end).Replace(cond)
}

// QueueDay queues on b the reads of the org's day [start, end); prevStart
// is the start of the day before. The bounds are instants computed by the
// caller from the org-local date (schedule.DayBounds): no zone reaches SQL.
func QueueDay(b *pgx.Batch, orgID int64, prevStart, start, end time.Time, lim DayLimits) *DayReads {
	r := &DayReads{Technicians: []Technician{}, Jobs: []Job{}, Groups: map[int64]DayGroup{}, OwnOverdue: map[int64]JobList{}}
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
	// Each route's first Route jobs (its cancelled ones last), the routes'
	// first jobs before their later ones, Day in all.
	b.Queue(`
		SELECT `+jobColumns+` FROM (
		  SELECT j.*, row_number() OVER (PARTITION BY `+routeSQL+` ORDER BY j.status = 'cancelled', j.arrival_start, j.created_at, j.id) AS n
		  `+jobFrom+` WHERE j.org_id = $1 AND `+at(dayJob, "$2", "$3")+`) j
		  LEFT JOIN technicians t ON t.org_id = j.org_id AND t.id = j.technician_id
		 WHERE j.n <= $4
		 ORDER BY j.n, j.arrival_start, j.created_at, j.id
		 LIMIT $5`, orgID, start, end, lim.Route, lim.Day).
		Query(func(rows pgx.Rows) error {
			var err error
			if r.Jobs, err = collectJobs(rows); err == nil {
				slices.SortFunc(r.Jobs, func(a, b Job) int {
					return cmp.Or(a.ArrivalStart.Compare(b.ArrivalStart), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
				})
			}
			return readError(err, "jobs of the day")
		})
	b.Queue(`
		SELECT `+routeSQL+`, count(*), count(*) FILTER (WHERE j.status <> 'cancelled')
		  `+jobFrom+` WHERE j.org_id = $1 AND `+at(dayJob, "$2", "$3")+` GROUP BY 1`, orgID, start, end).
		Query(func(rows pgx.Rows) error {
			var id int64
			var g DayGroup
			_, err := pgx.ForEachRow(rows, []any{&id, &g.Jobs, &g.NotCancelled}, func() error {
				r.Groups[id] = g
				return nil
			})
			return readError(err, "the day's counts")
		})
	queueOwnOverdue(b, r, orgID, start, lim)
	lists := dayLists(r)
	for _, l := range lists {
		// The parameters the list uses: a statement may not leave one out.
		where := at(l.cond, "$3", "$4") + ` ORDER BY j.arrival_start, j.created_at, j.id LIMIT $2`
		args := []any{orgID, lim.List, start, end}
		for !strings.Contains(where, fmt.Sprintf("$%d", len(args))) {
			args = args[:len(args)-1]
		}
		queueJobs(b, &l.out.Jobs, l.what, where, args...)
	}
	queueCounts(b, lists, orgID, start, end)
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

// dayList is one of a day's lists: where its rows and count go, what it
// is (for errors), and its condition.
type dayList struct {
	out  *JobList
	what string
	cond string
}

// dayLists are the lists QueueDay reads into r, the action item sections
// among them.
func dayLists(r *DayReads) []dayList {
	return []dayList{
		{&r.Overdue, "overdue jobs", overdueJob},
		{&r.OnHold, "jobs on hold", onHoldJob},
		{&r.Emergencies, "emergencies", emergencyItem},
		{&r.OverdueItems, "overdue action items", overdueItem},
		{&r.UnassignedItems, "unassigned action items", unassignedItem},
		{&r.OnHoldItems, "on-hold action items", onHoldItem},
		{&r.Cancelled, "cancelled jobs", cancelledJob},
	}
}

// queueCounts queues every list's count (countsSQL).
func queueCounts(b *pgx.Batch, lists []dayList, orgID int64, start, end time.Time) {
	sql, dest := countsSQL(lists)
	b.Queue(sql, orgID, start, end).
		QueryRow(func(row pgx.Row) error { return readError(row.Scan(dest...), "the lists' counts") })
}

// countsSQL is the statement counting every list (parameters: org, the
// day's start and end) in one pass over the jobs any list can hold, and
// where its columns go.
func countsSQL(lists []dayList) (string, []any) {
	counts := make([]string, len(lists))
	dest := make([]any, len(lists))
	for i, l := range lists {
		counts[i] = `count(*) FILTER (WHERE ` + at(l.cond, "$2", "$3") + `)`
		dest[i] = &l.out.Total
	}
	return `SELECT ` + strings.Join(counts, ", ") + jobFrom +
		` WHERE j.org_id = $1 AND (` + at(dayJob+` OR `+overdueJob+` OR `+onHoldJob, "$2", "$3") + `)`, dest
}

// queueOwnOverdue queues the read of each active technician's own overdue
// jobs, one statement for all: each one's jobs are numbered and counted
// over the narrow columns (a window per technician), then the rows of the
// first lim.Own each are read, at most lim.OwnAll in all, each
// technician's first before anyone's second. Every listed row carries its
// technician's count, so each technician with overdue jobs has their
// count read as long as lim.OwnAll is at least the org's technicians
// (MaxTechnicians; internal/snapshot pins its bound to that).
func queueOwnOverdue(b *pgx.Batch, r *DayReads, orgID int64, start time.Time, lim DayLimits) {
	b.Queue(`
		WITH o AS (
		  SELECT j.id, j.arrival_start, j.created_at,
		         row_number() OVER (PARTITION BY j.technician_id ORDER BY j.arrival_start, j.created_at, j.id) AS n,
		         count(*) OVER (PARTITION BY j.technician_id) AS total
		    FROM jobs j JOIN technicians t ON t.org_id = j.org_id AND t.id = j.technician_id
		   WHERE j.org_id = $1 AND NOT `+unassignedSQL+` AND `+at(overdueJob, "$2", "")+`),
		l AS (SELECT id, n, total FROM o WHERE n <= $3 ORDER BY n, arrival_start, created_at, id LIMIT $4)
		SELECT `+jobColumns+`, l.total FROM l JOIN jobs j ON j.org_id = $1 AND j.id = l.id
		  LEFT JOIN technicians t ON t.org_id = j.org_id AND t.id = j.technician_id
		 ORDER BY j.arrival_start, j.created_at, j.id`, orgID, start, lim.Own, lim.OwnAll).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var j Job
				var total int
				if err := rows.Scan(append(jobDest(&j), &total)...); err != nil {
					return readError(err, "technicians' overdue jobs")
				}
				l := r.OwnOverdue[j.TechnicianID]
				l.Jobs, l.Total = append(l.Jobs, j), total
				r.OwnOverdue[j.TechnicianID] = l
			}
			return readError(rows.Err(), "technicians' overdue jobs")
		})
}

// queueJobs queues the listing of the org's jobs matching where (which may
// use $2, $3…, and ends with its ORDER BY and LIMIT) into *out.
func queueJobs(b *pgx.Batch, out *[]Job, what, where string, args ...any) {
	*out = []Job{}
	b.Queue(`SELECT `+jobColumns+jobFrom+` WHERE j.org_id = $1 AND `+where, args...).
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
