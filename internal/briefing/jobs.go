package briefing

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Job states, as stored in ff_briefing_jobs.state.
const (
	JobAvailable = "available"
	JobRunning   = "running"
	JobCompleted = "completed"
	JobFailed    = "failed"
)

// Runner is our job engine over ff_briefing_jobs: it claims due jobs with
// FOR UPDATE SKIP LOCKED under a lease, generates their briefings and
// completes or retries them. A worker that crashes loses nothing: its lease
// expires and another claims the job again.
type Runner struct {
	DB      *pgxpool.Pool
	Log     *slog.Logger // required
	Metrics *Metrics     // optional

	Now          func() time.Time // the clock for leases and backoff; default time.Now
	WorkerID     string           // recorded in locked_by; default host:pid
	Concurrency  int              // jobs run at once; default 4
	Lease        time.Duration    // how long a claim lasts, and a generation's time limit; default 5m
	PollInterval time.Duration    // RunPending's pause when no job is due; default 1s
}

// Backoff bounds: attempt n waits about backoffBase·2^(n-1), at most backoffMax.
const (
	backoffBase = 10 * time.Second
	backoffMax  = 10 * time.Minute
	waitPoll    = 25 * time.Millisecond // Wait's pause while others run its jobs
)

// claim is one claimed job: the attempt number and worker id together
// identify the claim, so a worker whose lease was taken over can't finish it.
type claim struct {
	ID, OrgID, BriefingID int64
	Attempt, MaxAttempts  int
}

func (r *Runner) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

var defaultWorkerID = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
})

func (r *Runner) workerID() string {
	return cmp.Or(r.WorkerID, defaultWorkerID())
}

// RunPending works on jobs as they become due until ctx is done. A job in
// flight when ctx ends still finishes (within its lease), so a graceful
// shutdown leaves no half-done work.
func (r *Runner) RunPending(ctx context.Context) {
	var wg sync.WaitGroup
	for range cmp.Or(r.Concurrency, 4) {
		wg.Go(func() {
			for ctx.Err() == nil {
				ok, err := r.work(ctx, nil)
				if err != nil && ctx.Err() == nil {
					r.Log.Error("briefing job runner", "error", err)
				}
				if !ok || err != nil {
					sleep(ctx, cmp.Or(r.PollInterval, time.Second))
				}
			}
		})
	}
	wg.Wait()
}

// Wait returns once every job in ids is completed or failed, working on them
// meanwhile; other replicas may run some of them. It returns an error only
// when the database does.
func (r *Runner) Wait(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range cmp.Or(r.Concurrency, 4) {
		wg.Go(func() {
			for ctx.Err() == nil {
				ok, err := r.work(ctx, ids)
				if err != nil {
					cancel(err)
					return
				}
				if ok {
					continue
				}
				var open int
				err = r.DB.QueryRow(ctx, `SELECT count(*) FROM ff_briefing_jobs WHERE id = ANY($1) AND state IN ('available', 'running')`, ids).Scan(&open)
				if err != nil {
					cancel(fmt.Errorf("count open briefing jobs: %w", err))
					return
				}
				if open == 0 {
					return
				}
				sleep(ctx, waitPoll)
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// Drain runs due jobs of any org until none is left to claim. cmd/worker
// -once uses it so that jobs "generate now", a retry or a stopped worker left
// behind are done too, and replicas started together share the work. A job
// that fails goes back to wait out its backoff and is not waited for here.
func (r *Runner) Drain(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range cmp.Or(r.Concurrency, 4) {
		wg.Go(func() {
			for ctx.Err() == nil {
				ok, err := r.work(ctx, nil)
				if err != nil {
					cancel(err)
					return
				}
				if !ok {
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// work claims one due job (among ids, when given) and runs it; ok reports
// whether there was one.
func (r *Runner) work(ctx context.Context, ids []int64) (ok bool, err error) {
	c, ok, err := r.claim(ctx, ids)
	if err != nil || !ok {
		return false, err
	}
	// The generation may outlive ctx (shutdown) but not its lease.
	jobCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cmp.Or(r.Lease, 5*time.Minute))
	defer cancel()
	snap, genErr := generate(jobCtx, r.DB, c.OrgID, c.BriefingID, r.now())
	if genErr == nil {
		err = r.complete(jobCtx, c, snap)
	} else {
		err = r.fail(jobCtx, c, genErr)
	}
	return true, err
}

const claimSQL = `
WITH next AS (
    SELECT id FROM ff_briefing_jobs
     WHERE run_after <= $1
       AND (state = 'available' OR (state = 'running' AND locked_until < $1))
       AND ($4::bigint[] IS NULL OR id = ANY($4))
     ORDER BY run_after, id
     LIMIT 1
       FOR UPDATE SKIP LOCKED
)
UPDATE ff_briefing_jobs j
   SET state = 'running', attempt = j.attempt + 1, locked_by = $2, locked_until = $3
  FROM next
 WHERE j.id = next.id
RETURNING j.id, j.org_id, j.briefing_id, j.attempt, j.max_attempts`

// claim takes the oldest due job, or one whose lease expired (its worker
// crashed), and commits the claim before any work starts.
func (r *Runner) claim(ctx context.Context, ids []int64) (c claim, ok bool, err error) {
	now := r.now()
	err = r.DB.QueryRow(ctx, claimSQL, now, r.workerID(), now.Add(cmp.Or(r.Lease, 5*time.Minute)), ids).
		Scan(&c.ID, &c.OrgID, &c.BriefingID, &c.Attempt, &c.MaxAttempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("claim briefing job: %w", err)
	}
	return c, true, nil
}

// outcome is how a claim ends: the job's new state, the briefing's new
// status, and what they record.
type outcome struct {
	jobState, status string
	runAfter         time.Time
	content          []byte
	generatedAt      *time.Time
	lastError        string
}

// finishSQL ends a claim and updates its briefing in one statement. The
// claim guard (running, same worker, same attempt) makes a worker whose lease
// expired a no-op instead of overwriting its successor.
const finishSQL = `
WITH job AS (
    UPDATE ff_briefing_jobs
       SET state = $5, run_after = $6, last_error = $7, locked_until = NULL,
           finished_at = CASE WHEN $5 IN ('completed', 'failed') THEN $8::timestamptz END
     WHERE id = $1 AND org_id = $2 AND state = 'running' AND locked_by = $3 AND attempt = $4
 RETURNING briefing_id, org_id
)
UPDATE ff_briefings b
   SET status = $9, last_error = $7, updated_at = $8,
       content = coalesce($10::jsonb, b.content), generated_at = coalesce($11::timestamptz, b.generated_at)
  FROM job
 WHERE b.id = job.briefing_id AND b.org_id = job.org_id`

func (r *Runner) finish(ctx context.Context, c claim, o outcome) error {
	tag, err := r.DB.Exec(ctx, finishSQL, c.ID, c.OrgID, r.workerID(), c.Attempt,
		o.jobState, o.runAfter, o.lastError, r.now(), o.status, o.content, o.generatedAt)
	if err != nil {
		return fmt.Errorf("finish briefing job %d (org %d) as %s: %w", c.ID, c.OrgID, o.jobState, err)
	}
	if tag.RowsAffected() == 0 {
		r.Log.Warn("briefing job lease lost; another worker owns it now", "job_id", c.ID, "org_id", c.OrgID, "attempt", c.Attempt)
		return nil
	}
	r.Metrics.jobDone(o.jobState)
	return nil
}

func (r *Runner) complete(ctx context.Context, c claim, snap Snapshot) error {
	content, err := json.Marshal(snap)
	if err != nil {
		return r.fail(ctx, c, fmt.Errorf("encode snapshot: %w", err))
	}
	now := r.now()
	r.Log.Info("briefing generated", "job_id", c.ID, "org_id", c.OrgID, "briefing_id", c.BriefingID, "attempt", c.Attempt)
	return r.finish(ctx, c, outcome{jobState: JobCompleted, status: StatusReady, runAfter: now,
		content: content, generatedAt: &now})
}

// fail reschedules the job with backoff, or after its last attempt marks it
// and its briefing failed, where admins see the error and can retry.
func (r *Runner) fail(ctx context.Context, c claim, cause error) error {
	now := r.now()
	o := outcome{jobState: JobAvailable, status: StatusPending, runAfter: now.Add(backoff(c.Attempt)), lastError: cause.Error()}
	if c.Attempt >= c.MaxAttempts {
		o.jobState, o.status, o.runAfter = JobFailed, StatusFailed, now
	}
	r.Log.Warn("briefing generation failed", "job_id", c.ID, "org_id", c.OrgID, "briefing_id", c.BriefingID,
		"attempt", c.Attempt, "max_attempts", c.MaxAttempts, "next", o.jobState, "run_after", o.runAfter, "error", cause)
	return r.finish(ctx, c, o)
}

// backoff is exponential with "equal jitter": between half and all of
// base·2^(attempt-1), so replicas retrying together spread out.
func backoff(attempt int) time.Duration {
	d := backoffMax
	if attempt >= 1 && attempt < 16 {
		d = min(backoffBase<<(attempt-1), backoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
