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

	"fieldbrief/internal/schedule"
)

// GenerateBriefingArgs asks for one revision of a briefing. Every args type
// of a briefing's jobs carries org_id and briefing_id under those JSON
// names: `worker -once` finds the jobs of the briefings it enqueued by them.
type GenerateBriefingArgs struct {
	OrgID      int64  `json:"org_id"`
	BriefingID int64  `json:"briefing_id"`
	Revision   int    `json:"revision"` // the revision this job produces (ff_briefings.requested_revision when enqueued)
	Trigger    string `json:"trigger"`  // TriggerSchedule or TriggerManual
	Deliver    bool   `json:"deliver"`  // the scheduled run delivers; "generate now" does not
}

// Kind names the job kind in River.
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

// generateWorker runs GenerateBriefingArgs jobs.
type generateWorker struct {
	river.WorkerDefaults[GenerateBriefingArgs]
	db  *pgxpool.Pool
	log *slog.Logger
	now func() time.Time
}

func (w *generateWorker) Timeout(*river.Job[GenerateBriefingArgs]) time.Duration {
	return generateTimeout
}

// Work produces the job's revision once, however often the job runs: River's
// rescuer may run a job again whose worker only looked dead. On error River
// retries with backoff; after the last attempt the briefing is marked failed,
// where admins see it and "generate now" retries it.
func (w *generateWorker) Work(ctx context.Context, job *river.Job[GenerateBriefingArgs]) error {
	a := job.Args
	started := w.now()
	var outcome string
	var err error
	for try := 1; ; try++ {
		outcome, err = w.generate(ctx, job, started)
		if !isSerializationFailure(err) || try == serializationRetries {
			break
		}
	}
	attrs := []any{"job_id", job.ID, "org_id", a.OrgID, "briefing_id", a.BriefingID, "revision", a.Revision,
		"trigger", a.Trigger, "attempt", job.Attempt}
	if errors.Is(err, pgx.ErrNoRows) {
		// Its org (and so the briefing) was deleted since: nothing to retry.
		w.log.Warn("briefing generation cancelled: the briefing no longer exists", attrs...)
		return river.JobCancel(err)
	}
	if err == nil {
		if outcome == RunSkipped {
			w.log.Info("briefing generation skipped: revision already produced", attrs...)
		} else {
			w.log.Info("briefing generated", attrs...)
		}
		return nil
	}
	final := job.Attempt >= job.MaxAttempts
	// Its own context: the job's may have run out, which is a failure to record.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rerr := w.recordFailure(rctx, job, started, err, final); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if final {
		w.log.Error("briefing generation failed for good", append(attrs, "error", err)...)
	} else {
		w.log.Warn("briefing generation failed; River retries it", append(attrs, "max_attempts", job.MaxAttempts, "error", err)...)
	}
	return err
}

// generate produces the revision and completes the job in one transaction,
// or records that the revision exists already.
func (w *generateWorker) generate(ctx context.Context, job *river.Job[GenerateBriefingArgs], started time.Time) (outcome string, err error) {
	a := job.Args
	err = pgx.BeginTxFunc(ctx, w.db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var revision int
		var date time.Time
		var zoneName string
		var scheduledAt *time.Time
		var delivered *int
		var current []byte
		err := tx.QueryRow(ctx, `
			SELECT revision, briefing_date, timezone, scheduled_at, delivered_revision, content
			  FROM ff_briefings WHERE id = $1 AND org_id = $2 FOR UPDATE`,
			a.BriefingID, a.OrgID).Scan(&revision, &date, &zoneName, &scheduledAt, &delivered, &current)
		if err != nil {
			return fmt.Errorf("lock briefing %d: %w", a.BriefingID, err)
		}
		now := w.now()
		var snap Snapshot
		if revision >= a.Revision {
			outcome = RunSkipped
			if a.Deliver && delivered == nil && current != nil {
				if err := json.Unmarshal(current, &snap); err != nil {
					return fmt.Errorf("decode revision %d: %w", revision, err)
				}
			}
		} else {
			outcome = RunCompleted
			if snap, err = w.produce(ctx, tx, a, zoneName, schedule.DateOf(date), now); err != nil {
				return err
			}
			revision = a.Revision
		}
		// The scheduled firing delivers once, in this same transaction: a
		// revision is never ready without its deliveries. When a newer
		// "generate now" revision overtook it, that one is delivered.
		if a.Deliver && delivered == nil && revision > 0 {
			if err := deliverRevision(ctx, tx, a, revision, snap, cmp.Or(deref(scheduledAt), now)); err != nil {
				return err
			}
		}
		if err := recordRun(ctx, tx, job, started, now, outcome, ""); err != nil {
			return err
		}
		if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
			return fmt.Errorf("complete job %d: %w", job.ID, err)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("generate briefing %d revision %d for org %d: %w", a.BriefingID, a.Revision, a.OrgID, err)
	}
	return outcome, nil
}

// deliverRevision inserts the deliveries of revision and records that the
// date's scheduled firing has delivered.
func deliverRevision(ctx context.Context, tx pgx.Tx, a GenerateBriefingArgs, revision int, snap Snapshot, dueAt time.Time) error {
	a.Revision = revision
	if _, err := insertDeliveries(ctx, tx, a, snap, dueAt); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE ff_briefings SET delivered_revision = $3 WHERE id = $1 AND org_id = $2`,
		a.BriefingID, a.OrgID, revision)
	if err != nil {
		return fmt.Errorf("record delivered revision: %w", err)
	}
	return nil
}

// produce builds the snapshot and stores it as the briefing's new revision.
func (w *generateWorker) produce(ctx context.Context, tx pgx.Tx, a GenerateBriefingArgs, zoneName string, d schedule.Date, now time.Time) (Snapshot, error) {
	rules := schedule.CurrentZoneRules()
	zone, err := rules.LoadZone(zoneName)
	if err != nil {
		return Snapshot{}, err
	}
	snap, err := buildSnapshot(ctx, tx, a.OrgID, zone, d)
	if err != nil {
		return Snapshot{}, err
	}
	snap.GeneratedAt = now
	content, err := json.Marshal(snap)
	if err != nil {
		return snap, fmt.Errorf("encode snapshot: %w", err)
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at,
		                                   tzdata_version, tzdata_source)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		a.OrgID, a.BriefingID, a.Revision, a.Trigger, content, now, rules.Version, rules.Source)
	if err != nil {
		return snap, fmt.Errorf("insert revision: %w", err)
	}
	_, err = tx.Exec(ctx, `
		UPDATE ff_briefings
		   SET revision = $3, content = $4, generated_at = $5, updated_at = $5, last_error = '',
		       status = CASE WHEN requested_revision > $3 THEN 'pending' ELSE 'ready' END
		 WHERE id = $1 AND org_id = $2`, a.BriefingID, a.OrgID, a.Revision, content, now)
	if err != nil {
		return snap, fmt.Errorf("mark briefing ready: %w", err)
	}
	return snap, nil
}

// recordFailure records a failed attempt and shows its error on the
// briefing; after the last attempt the briefing is failed, unless its
// revision was produced meanwhile (a duplicate run of the job succeeded).
func (w *generateWorker) recordFailure(ctx context.Context, job *river.Job[GenerateBriefingArgs], started time.Time, cause error, final bool) error {
	a := job.Args
	outcome := RunRetry
	if final {
		outcome = RunFailed
	}
	return pgx.BeginFunc(ctx, w.db, func(tx pgx.Tx) error {
		now := w.now()
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
// job retention. The worker is the River client that ran the attempt.
func recordRun(ctx context.Context, tx pgx.Tx, job *river.Job[GenerateBriefingArgs], started, finished time.Time, outcome, errText string) error {
	a := job.Args
	var worker string
	if n := len(job.AttemptedBy); n > 0 {
		worker = job.AttemptedBy[n-1]
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, river_job_id, attempt, trigger,
		                              started_at, finished_at, outcome, error, worker)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		a.OrgID, a.BriefingID, a.Revision, job.ID, job.Attempt, a.Trigger, started, finished, outcome, errText, worker)
	if err != nil {
		return fmt.Errorf("record %s run of briefing %d: %w", outcome, a.BriefingID, err)
	}
	return nil
}

func isSerializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}
