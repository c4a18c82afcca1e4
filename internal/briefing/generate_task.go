package briefing

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
)

// GenerateBriefingArgs asks for one revision of a briefing: the generation
// task. Every args type of a briefing's tasks carries org_id and
// briefing_id under those JSON names: `worker -once` finds the tasks of the
// briefings it enqueued by them.
type GenerateBriefingArgs struct {
	OrgID      int64  `json:"org_id"`
	BriefingID int64  `json:"briefing_id"`
	Revision   int    `json:"revision"` // the revision this task produces (ff_briefings.requested_revision when enqueued)
	Trigger    string `json:"trigger"`  // TriggerSchedule or TriggerManual
	Deliver    bool   `json:"deliver"`  // the scheduled run delivers; "generate now" does not

	// The briefing's date and zone, which never change once its row exists:
	// with them the generation reads the row and the whole day in one round
	// trip (docs/scheduling.md, "Burst"). Tasks without them (older ones,
	// "generate now") read the row first.
	Date     string `json:"date,omitempty"`     // YYYY-MM-DD
	Timezone string `json:"timezone,omitempty"` // IANA name, as recorded on the briefing
}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (GenerateBriefingArgs) Kind() string { return "generate_briefing" }

// InsertOpts gives generation its own attempt budget. With River's default
// backoff (attempt⁴ seconds: 1 s, 16 s, 81 s, 256 s) the last attempt runs
// about six minutes after the first, well within the local morning.
func (GenerateBriefingArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: generateMaxAttempts}
}

const (
	generateMaxAttempts = 5
	// generateTimeout bounds one attempt; a snapshot takes milliseconds, so
	// running out means the database is in trouble, and a retry is better.
	generateTimeout = time.Minute
	// serializationRetries: the generation locks its briefing inside a
	// repeatable-read transaction (one consistent view of the org's data),
	// so a concurrent "generate now" or tick touching the row makes it fail
	// with a serialization error; it simply starts again.
	serializationRetries = 3
)

// Outcomes of a generation attempt, as stored in ff_briefing_runs.outcome.
const (
	RunCompleted = "completed"
	RunRetry     = "retry"
	RunFailed    = "failed"
	RunSkipped   = "skipped" // its revision had been produced already
)

// GenerateHandler runs GenerateBriefingArgs tasks.
type GenerateHandler struct {
	river.WorkerDefaults[GenerateBriefingArgs]
	DB  *pgxpool.Pool
	Log *slog.Logger
	Now func() time.Time
}

func (h *GenerateHandler) Timeout(*river.Job[GenerateBriefingArgs]) time.Duration {
	return generateTimeout
}

// Work produces the task's revision once, however often the task runs:
// River's rescuer may run a task again whose worker only looked dead. On error River
// retries with backoff; after the last attempt the briefing is marked failed,
// where admins see it and "generate now" retries it.
func (h *GenerateHandler) Work(ctx context.Context, job *river.Job[GenerateBriefingArgs]) error {
	a := job.Args
	started := h.Now()
	var outcome string
	var err error
	for try := 1; ; try++ {
		outcome, err = h.generate(ctx, job, started)
		if !isSerializationFailure(err) || try == serializationRetries {
			break
		}
	}
	attrs := []any{"job_id", job.ID, "org_id", a.OrgID, "briefing_id", a.BriefingID, "revision", a.Revision,
		"trigger", a.Trigger, "attempt", job.Attempt}
	if errors.Is(err, pgx.ErrNoRows) {
		// Its org (and so the briefing) was deleted since: nothing to retry.
		h.Log.Warn("briefing generation cancelled: the briefing no longer exists", attrs...)
		return river.JobCancel(err)
	}
	if err == nil {
		if outcome == RunSkipped {
			h.Log.Info("briefing generation skipped: revision already produced", attrs...)
		} else {
			h.Log.Info("briefing generated", attrs...)
		}
		return nil
	}
	final := job.Attempt >= job.MaxAttempts
	// Its own context: the task's may have run out, which is a failure to record.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rerr := h.recordFailure(rctx, job, started, err, final); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if final {
		h.Log.Error("briefing generation failed for good", append(attrs, "error", err)...)
	} else {
		h.Log.Warn("briefing generation failed; River retries it", append(attrs, "max_attempts", job.MaxAttempts, "error", err)...)
	}
	return err
}

// generate produces the revision and completes the task in one transaction,
// or records that the revision exists already. At a popular minute
// thousands of orgs are generated at once, so it costs as few round trips
// as it can (docs/scheduling.md, "Burst"): BEGIN, the lock and every read
// in one batch; every write in a second; River's delivery tasks (when there
// are recipients) and the task's completion; COMMIT. TestGenerationRoundTrips
// pins the count.
func (h *GenerateHandler) generate(ctx context.Context, job *river.Job[GenerateBriefingArgs], started time.Time) (outcome string, err error) {
	a := job.Args
	err = h.inTx(ctx, a, func(tx pgx.Tx, row *lockedBriefing, day *snapshot.Day, dr *delivery.Reads) error {
		now := h.Now()
		var snap snapshot.Snapshot
		rules := schedule.CurrentZoneRules()
		date := schedule.DateOf(row.date)
		needDay := row.revision < a.Revision || (a.Deliver && row.delivered == nil)
		if needDay && (day == nil || day.Zone.Name != row.zone || day.Date != date) {
			// A task without the briefing's date and zone: read the day now.
			zone, err := rules.LoadZone(row.zone)
			if err != nil {
				return err
			}
			if day, err = snapshot.ReadDay(ctx, tx, a.OrgID, zone, date); err != nil {
				return err
			}
		}
		b := &pgx.Batch{}
		revision := row.revision
		if revision >= a.Revision {
			outcome = RunSkipped
			if a.Deliver && row.delivered == nil && row.content != nil {
				if err := json.Unmarshal(row.content, &snap); err != nil {
					return fmt.Errorf("decode revision %d: %w", revision, err)
				}
			}
		} else {
			outcome = RunCompleted
			snap = day.Snapshot()
			snap.GeneratedAt = now
			// At most snapshot.MaxBytes, stored and delivered alike.
			content, bounded, err := snapshot.Encode(snap)
			if err != nil {
				return err
			}
			snap = bounded
			queueRevision(b, a, content, now, rules)
			revision = a.Revision
		}
		// The scheduled firing delivers once, in this same transaction: a
		// revision is never ready without its deliveries. When a newer
		// "generate now" revision overtook it, that one is delivered.
		var tasks []river.InsertManyParams
		if a.Deliver && row.delivered == nil && revision > 0 {
			rev := delivery.Revision{OrgID: a.OrgID, BriefingID: a.BriefingID, Revision: revision}
			fired := delivery.Firing{At: deref(row.scheduledAt), For: deref(row.scheduledFor), Loc: day.Zone.Loc}
			// Delivery latency counts from the scheduled minute (a firing
			// from before it was recorded: from the firing).
			if dr.QueueDeliveries(b, rev, snap, day.Technicians(), fired, cmp.Or(fired.For, fired.At, now), &tasks) {
				// docs/guarantees.md, "Late briefings": made and kept, not sent.
				h.Log.Info("briefing fired late: kept, its deliveries recorded as skipped, nothing sent", "org_id", a.OrgID, "briefing_id", a.BriefingID,
					"scheduled_for", fired.For, "fired_at", fired.At, "late", fired.At.Sub(fired.For).String())
			}
		}
		queueRun(b, job, started, now, outcome, "")
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("store %s run: %w", outcome, err)
		}
		if len(tasks) > 0 {
			client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
			if err != nil {
				return fmt.Errorf("delivery tasks: %w", err)
			}
			inserted, err := client.InsertManyTx(ctx, tx, tasks)
			if err != nil {
				return fmt.Errorf("insert delivery tasks: %w", err)
			}
			if err := keepPlace(ctx, tx, job, inserted); err != nil {
				return err
			}
		}
		if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
			return fmt.Errorf("complete task %d: %w", job.ID, err)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("generate briefing %d revision %d for org %d: %w", a.BriefingID, a.Revision, a.OrgID, err)
	}
	return outcome, nil
}

// keepPlace gives the delivery tasks of a generation that runs again (given
// back by the lifeline after its worker died, or retried) the generation's
// own place in the queue: its scheduled_at. River fetches the available by
// (priority, scheduled_at, id), so without it those emails waited behind
// every send of the burst queued since the first attempt — over a minute
// after a kill -9 with ten bursts at once on two cores
// (docs/worker.md, "Crashes and shutdown"). River's insert options
// cannot say it: a ScheduledAt makes a task "scheduled", made available
// only by River's scheduler seconds later. A first attempt's tasks keep
// River's own order.
func keepPlace(ctx context.Context, tx pgx.Tx, job *river.Job[GenerateBriefingArgs], inserted []*rivertype.JobInsertResult) error {
	if job.Attempt <= 1 || job.ScheduledAt.IsZero() {
		return nil
	}
	ids := make([]int64, 0, len(inserted))
	for _, r := range inserted {
		ids = append(ids, r.Job.ID)
	}
	if _, err := tx.Exec(ctx, `UPDATE river_job SET scheduled_at = $1 WHERE id = ANY($2) AND state = 'available' AND scheduled_at > $1`,
		job.ScheduledAt, ids); err != nil {
		return fmt.Errorf("delivery tasks of attempt %d keep the generation's place: %w", job.Attempt, err)
	}
	return nil
}

// lockedBriefing is the briefing row as the generation locked it.
type lockedBriefing struct {
	revision     int
	date         time.Time
	zone         string
	scheduledAt  *time.Time
	scheduledFor *time.Time // the scheduled minute of the scheduled firing
	delivered    *int
	content      []byte // only when the task's revision exists already
}

// inTx runs fn in the generation's repeatable-read transaction, whose first
// round trip begins it, locks the briefing row and reads everything else
// fn needs: the day when the task carries the briefing's date and zone (nil
// otherwise), and the delivery settings when the task delivers. fn's error
// rolls the transaction back; otherwise it commits.
func (h *GenerateHandler) inTx(ctx context.Context, a GenerateBriefingArgs, fn func(tx pgx.Tx, row *lockedBriefing, day *snapshot.Day, dr *delivery.Reads) error) (err error) {
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	// The commit does not wait for its WAL flush (docs/scheduling.md,
	// "Burst"): at a popular minute thousands of these commits queue on
	// fsync. Safe here because the transaction is all-or-nothing — revision,
	// delivery tasks and River's completion of the task — so a PostgreSQL
	// crash (not a worker's: the worker is told only after the commit) that
	// loses it loses it whole, and River runs the task again. Anything that acted
	// on it (a delivery sent) committed later with a flush, which flushed
	// this commit too: WAL is written in order.
	b.Queue(`SET LOCAL synchronous_commit = off`)
	row := &lockedBriefing{}
	b.Queue(`
		SELECT revision, briefing_date, timezone, scheduled_at, scheduled_for, delivered_revision,
		       CASE WHEN revision >= $3 THEN content END
		  FROM ff_briefings WHERE id = $1 AND org_id = $2 FOR UPDATE`,
		a.BriefingID, a.OrgID, a.Revision).
		QueryRow(func(r pgx.Row) error {
			err := r.Scan(&row.revision, &row.date, &row.zone, &row.scheduledAt, &row.scheduledFor, &row.delivered, &row.content)
			if err != nil {
				return fmt.Errorf("lock briefing %d: %w", a.BriefingID, err)
			}
			return nil
		})
	var day *snapshot.Day
	if d, err := schedule.ParseDate(a.Date); err == nil && a.Timezone != "" {
		if zone, err := schedule.CurrentZoneRules().LoadZone(a.Timezone); err == nil {
			day = snapshot.QueueDay(b, a.OrgID, zone, d)
		}
	}
	var dr *delivery.Reads
	if a.Deliver {
		dr = delivery.QueueReads(b, a.OrgID)
	}
	br := h.DB.SendBatch(ctx, b)
	tx := br.Tx()
	defer func() {
		if err != nil {
			// Its own context: the task's may be the reason we are here.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = tx.Rollback(rctx)
		}
	}()
	if err := br.Close(); err != nil {
		return err
	}
	if err := fn(tx, row, day, dr); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// queueRevision queues storing content, a snapshot as snapshot.Encode
// bounds it, as the briefing's new revision, with the snapshot its day was
// read with: in the generation's repeatable-read transaction every
// statement sees the snapshot its first one took, so pg_current_snapshot()
// here is the one the lock and the day's reads used, at no extra round
// trip. An update after sending leaves out the job changes it saw, which
// the email has (docs/worker.md, "Updates after sending").
func queueRevision(b *pgx.Batch, a GenerateBriefingArgs, content []byte, now time.Time, rules *schedule.ZoneRules) {
	b.Queue(`
		INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at,
		                                   tzdata_version, tzdata_source, read_snapshot)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, pg_current_snapshot())`,
		a.OrgID, a.BriefingID, a.Revision, a.Trigger, content, now, rules.Version, rules.Source)
	b.Queue(`
		UPDATE ff_briefings
		   SET revision = $3, content = $4, generated_at = $5, updated_at = $5, last_error = '',
		       status = CASE WHEN requested_revision > $3 THEN 'pending' ELSE 'ready' END
		 WHERE id = $1 AND org_id = $2`, a.BriefingID, a.OrgID, a.Revision, content, now)
}

// recordFailure records a failed attempt and shows its error on the
// briefing; after the last attempt the briefing is failed, unless its
// revision was produced meanwhile (a duplicate run of the task succeeded).
func (h *GenerateHandler) recordFailure(ctx context.Context, job *river.Job[GenerateBriefingArgs], started time.Time, cause error, final bool) error {
	a := job.Args
	outcome := RunRetry
	if final {
		outcome = RunFailed
	}
	return database.BeginFunc(ctx, h.DB, func(tx pgx.Tx) error {
		now := h.Now()
		if err := recordRun(ctx, tx, job, started, now, outcome, cause.Error()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			UPDATE ff_briefings
			   SET last_error = $3, updated_at = $4, status = CASE WHEN $5 THEN 'failed' ELSE status END
			 WHERE id = $1 AND org_id = $2 AND revision < $6`,
			a.BriefingID, a.OrgID, cause.Error(), now, final, a.Revision)
		if err != nil {
			return fmt.Errorf("record failure on briefing %d: %w", a.BriefingID, err)
		}
		return nil
	})
}

// recordRun appends an attempt to ff_briefing_runs, which outlives River's
// retention of finished tasks.
func recordRun(ctx context.Context, tx pgx.Tx, job *river.Job[GenerateBriefingArgs], started, finished time.Time, outcome, errText string) error {
	b := &pgx.Batch{}
	queueRun(b, job, started, finished, outcome, errText)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("record %s run of briefing %d: %w", outcome, job.Args.BriefingID, err)
	}
	return nil
}

// queueRun queues recording an attempt. The worker is the River client that
// ran it.
func queueRun(b *pgx.Batch, job *river.Job[GenerateBriefingArgs], started, finished time.Time, outcome, errText string) {
	a := job.Args
	var worker string
	if n := len(job.AttemptedBy); n > 0 {
		worker = job.AttemptedBy[n-1]
	}
	b.Queue(`
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, river_job_id, attempt, trigger,
		                              started_at, finished_at, outcome, error, worker)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		a.OrgID, a.BriefingID, a.Revision, job.ID, job.Attempt, a.Trigger, started, finished, outcome, errText, worker)
}

func isSerializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}
