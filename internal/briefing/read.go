package briefing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
)

// Triggers, as stored in ff_briefings.trigger (what created the row) and on
// each revision and run (what asked for it).
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// Briefing statuses, as stored in ff_briefings.status.
const (
	StatusPending = "pending"
	StatusReady   = "ready"
	StatusFailed  = "failed"
)

// Briefing is one org's briefing for one local date.
type Briefing struct {
	ID          int64
	OrgID       int64
	Date        schedule.Date      // org-local date when it was decided; never remapped
	Timezone    string             // the zone that decided it, and that its content is in
	FiredAt     time.Time          // the tick instant (or "generate now" request) that created it
	ScheduledAt time.Time          // the tick instant of the date's scheduled firing; zero while only "generate now" looked
	Trigger     string             // what created it: TriggerSchedule or TriggerManual
	Status      string             // StatusPending (a revision is asked for), StatusReady or StatusFailed
	Revision    int                // the newest generated revision, 0 until generated
	Content     *snapshot.Snapshot // the newest revision's, nil until generated
	GeneratedAt time.Time          // zero until generated
	LastError   string             // why the last attempt failed, "" otherwise
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ZoneRules   ZoneRules // the rules that decided Date (and the scheduled firing's instant)
	Delivered   bool      // read by List only: a delivery of it was sent (test sends aside)
	// Late is, read by List only, why its scheduled deliveries were
	// skipped: fired too long after its minute, "made 21:35, 15 h after
	// 06:30 — not sent" (docs/guarantees.md, "Late briefings"); "" otherwise.
	Late string
	// ScheduledFor is, read by List only, the scheduled minute the
	// date's scheduled firing was for (zero: not recorded), so a page can
	// say a late day in the reader's words.
	ScheduledFor time.Time
}

// ZoneRules names the tz database a decision or a revision was made with;
// zero for rows recorded before it was kept.
type ZoneRules struct {
	Version string // e.g. "2025b"; "unknown" for a host that does not say
	Source  string // schedule.SourceEmbedded or schedule.SourceHost
}

// String reads "tzdata 2025b (embedded)", or "" when not recorded.
func (r ZoneRules) String() string {
	if r.Source == "" {
		return ""
	}
	return "tzdata " + r.Version + " (" + r.Source + ")"
}

// Run is one generation attempt of a briefing, from our own history
// (ff_briefing_runs), which River's retention of finished tasks does not touch.
type Run struct {
	Revision   int    // the revision it was to produce
	Attempt    int    // River's attempt number of its task
	Trigger    string // TriggerSchedule or TriggerManual
	StartedAt  time.Time
	FinishedAt time.Time
	Outcome    string // RunCompleted, RunRetry, RunFailed or RunSkipped
	Error      string // why it failed; for admins
	Worker     string // the River client that ran it; for admins
}

// Revision is one generated revision of a briefing.
type Revision struct {
	Revision    int
	Trigger     string // TriggerSchedule or TriggerManual
	GeneratedAt time.Time
	ZoneRules   ZoneRules // the rules its content (the day's bounds, local times) was built with
}

// Store reads briefings for the web and takes "generate now" requests.
// Every query is scoped by org id, so an id or date from another org reads
// as not found.
type Store struct {
	DB    *pgxpool.Pool
	tasks *river.Client[pgx.Tx] // inserts the generation tasks of "generate now"
}

// NewStore returns a Store with the process's insert-only River client.
func NewStore(db *pgxpool.Pool) (*Store, error) {
	tasks, err := database.InsertClient()
	if err != nil {
		return nil, err
	}
	return &Store{DB: db, tasks: tasks}, nil
}

const briefingColumns = `id, org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, status, revision, content,
	generated_at, last_error, created_at, updated_at, tzdata_version, tzdata_source`

// listColumns are briefingColumns without the snapshot: lists show status,
// not content, and decoding every snapshot was most of the list's cost.
const listColumns = `id, org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, status, revision, NULL::jsonb,
	generated_at, last_error, created_at, updated_at, tzdata_version, tzdata_source`

// scanBriefing reads briefingColumns or listColumns, then any extra
// columns into extra.
func scanBriefing(row pgx.Row, extra ...any) (Briefing, error) {
	var b Briefing
	var date time.Time
	var content []byte
	var generatedAt, scheduledAt *time.Time
	err := row.Scan(append([]any{&b.ID, &b.OrgID, &date, &b.Timezone, &b.FiredAt, &scheduledAt, &b.Trigger, &b.Status, &b.Revision, &content,
		&generatedAt, &b.LastError, &b.CreatedAt, &b.UpdatedAt, &b.ZoneRules.Version, &b.ZoneRules.Source}, extra...)...)
	if err != nil {
		return b, err
	}
	b.Date = schedule.DateOf(date)
	b.GeneratedAt, b.ScheduledAt = deref(generatedAt), deref(scheduledAt)
	if content != nil {
		b.Content = new(snapshot.Snapshot)
		if err := json.Unmarshal(content, b.Content); err != nil {
			return b, fmt.Errorf("decode briefing %d content: %w", b.ID, err)
		}
	}
	return b, nil
}

// deliveredColumn says whether a briefing of ff_briefings b was sent to
// anyone; test sends do not count.
const deliveredColumn = `EXISTS (SELECT 1 FROM ff_deliveries d
	 WHERE d.org_id = b.org_id AND d.briefing_id = b.id AND d.state = 'sent' AND d.audience <> 'test')`

// lateColumn is why a briefing of ff_briefings b was not sent: the detail
// of its deliveries skipped for being late (delivery.SkippedLate), or empty.
const lateColumn = `coalesce((SELECT d.last_detail FROM ff_deliveries d
	 WHERE d.org_id = b.org_id AND d.briefing_id = b.id AND d.state = 'skipped' AND d.last_code = 'late'
	 LIMIT 1), '')`

// List returns the org's briefings dated from..to inclusive, newest first,
// without their Content (Get reads that); a zero date leaves that end open.
func (s *Store) List(ctx context.Context, orgID int64, from, to schedule.Date) ([]Briefing, error) {
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `SELECT `+listColumns+`, `+deliveredColumn+`, `+lateColumn+`, b.scheduled_for FROM ff_briefings b
		 WHERE b.org_id = $1 AND ($2::date IS NULL OR b.briefing_date >= $2) AND ($3::date IS NULL OR b.briefing_date <= $3)
		 ORDER BY b.briefing_date DESC`, orgID, dateArg(from), dateArg(to))
	if err != nil {
		return nil, fmt.Errorf("list briefings of org %d: %w", orgID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Briefing, error) {
		var delivered bool
		var late string
		var scheduledFor *time.Time
		b, err := scanBriefing(row, &delivered, &late, &scheduledFor)
		b.Delivered, b.Late, b.ScheduledFor = delivered, late, deref(scheduledFor)
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("list briefings of org %d: %w", orgID, err)
	}
	return out, nil
}

// Nearest returns the dates of the org's briefings closest before and
// after d (zero when there is none), for a briefing page's previous and
// next links: two index lookups on (org_id, briefing_date).
func (s *Store) Nearest(ctx context.Context, orgID int64, d schedule.Date) (before, after schedule.Date, err error) {
	var b, a *time.Time
	err = database.Reader(ctx, s.DB).QueryRow(ctx, `SELECT
		(SELECT max(briefing_date) FROM ff_briefings WHERE org_id = $1 AND briefing_date < $2),
		(SELECT min(briefing_date) FROM ff_briefings WHERE org_id = $1 AND briefing_date > $2)`, orgID, d.Time()).Scan(&b, &a)
	if err != nil {
		return before, after, fmt.Errorf("briefings next to %s of org %d: %w", d, orgID, err)
	}
	if b != nil {
		before = schedule.DateOf(*b)
	}
	if a != nil {
		after = schedule.DateOf(*a)
	}
	return before, after, nil
}

// deref maps NULL timestamps to the zero time, which templates test with IsZero.
func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func dateArg(d schedule.Date) any {
	if d.IsZero() {
		return nil
	}
	return d.Time()
}

// Get returns the org's briefing for a local date, or an apperr NotFound.
func (s *Store) Get(ctx context.Context, orgID int64, date schedule.Date) (Briefing, error) {
	b, err := scanBriefing(database.Reader(ctx, s.DB).QueryRow(ctx, `SELECT `+briefingColumns+` FROM ff_briefings
		 WHERE org_id = $1 AND briefing_date = $2`, orgID, date.Time()))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, apperr.Refuse(apperr.NotFound, "briefing_not_found", apperr.Args{"Date": date.String()})
	}
	if err != nil {
		return b, fmt.Errorf("get briefing %s of org %d: %w", date, orgID, err)
	}
	return b, nil
}

// Runs returns a briefing's generation attempts, oldest first. A briefing
// of another org has none: check it with Get first.
func (s *Store) Runs(ctx context.Context, orgID, briefingID int64) ([]Run, error) {
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `
		SELECT revision, attempt, trigger, started_at, finished_at, outcome, error, worker
		  FROM ff_briefing_runs
		 WHERE org_id = $1 AND briefing_id = $2
		 ORDER BY id`, orgID, briefingID)
	if err != nil {
		return nil, fmt.Errorf("runs of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	runs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Run])
	if err != nil {
		return nil, fmt.Errorf("runs of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	return runs, nil
}

// Revisions returns a briefing's generated revisions, newest first.
func (s *Store) Revisions(ctx context.Context, orgID, briefingID int64) ([]Revision, error) {
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `
		SELECT revision, trigger, generated_at, tzdata_version, tzdata_source
		  FROM ff_briefing_revisions
		 WHERE org_id = $1 AND briefing_id = $2
		 ORDER BY revision DESC`, orgID, briefingID)
	if err != nil {
		return nil, fmt.Errorf("revisions of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	revs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Revision, error) {
		var r Revision
		err := row.Scan(&r.Revision, &r.Trigger, &r.GeneratedAt, &r.ZoneRules.Version, &r.ZoneRules.Source)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("revisions of briefing %d of org %d: %w", briefingID, orgID, err)
	}
	return revs, nil
}

// ScheduledDates returns the dates from..to whose scheduled firing
// happened (scheduled_at set): the dates the tick counts as generated when
// it decides the next run. "Generate now" looks do not count
// (docs/scheduling.md, "The next run"). At most a few rows: one per date.
func (s *Store) ScheduledDates(ctx context.Context, orgID int64, from, to schedule.Date) ([]schedule.Date, error) {
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `
		SELECT briefing_date FROM ff_briefings
		 WHERE org_id = $1 AND scheduled_at IS NOT NULL AND briefing_date BETWEEN $2 AND $3
		 ORDER BY briefing_date`, orgID, from.Time(), to.Time())
	if err != nil {
		return nil, fmt.Errorf("scheduled dates of org %d: %w", orgID, err)
	}
	dates, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (schedule.Date, error) {
		var d time.Time
		err := row.Scan(&d)
		return schedule.DateOf(d), err
	})
	if err != nil {
		return nil, fmt.Errorf("scheduled dates of org %d: %w", orgID, err)
	}
	return dates, nil
}
