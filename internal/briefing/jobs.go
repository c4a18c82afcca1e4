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

// The job states the runner records, as stored in ff_briefing_jobs.state.
// The fourth, "running", is set by claimSQL alone.
const (
	JobAvailable = "available"
	JobCompleted = "completed"
	JobFailed    = "failed"
)

// Runner is our job engine over ff_briefing_jobs: it claims due jobs with
// FOR UPDATE SKIP LOCKED under a lease, generates their briefings and
// completes or retries them. A worker that crashes loses nothing: its lease
// expires and another claims the job again, or, when that was the job's last
// attempt, marks it failed (failLostLastAttempts).
type Runner struct {
	DB      *pgxpool.Pool
	Log     *slog.Logger // required
	Metrics *Metrics     // optional

	Now         func() time.Time // the clock for leases and backoff; default time.Now
	WorkerID    string           // recorded in locked_by; default host:pid
	Concurrency int              // jobs run at once; default 4
	Lease       time.Duration    // how long a claim lasts; a generation gets a little less (generationTimeout); default 5m
}

// Backoff bounds: attempt n waits about backoffBase·2^(n-1), at most backoffMax.
const (
	backoffBase = 10 * time.Second
	backoffMax  = 10 * time.Minute
)

// Pauses when there is nothing to claim.
const (
	pollInterval = time.Second           // RunPending: ticks enqueue once a minute, retries wait ≥ 5 s
	waitPoll     = 25 * time.Millisecond // Wait, while others run its jobs
)

// A generation ends finishMargin before its lease does, and recording its
// outcome gets finishTimeout of its own: a generation that runs out of time
// still fails (and retries) under its own claim rather than looking like a
// crashed worker. finishTimeout < finishMargin, so the outcome lands while
// the lease holds.
const (
	finishMargin  = 10 * time.Second
	finishTimeout = 5 * time.Second
)

// errLostLastAttempt is recorded on a job, and its briefing, whose lease
// expired during its last attempt: its worker stopped or crashed mid-job.
const errLostLastAttempt = "worker stopped during the last attempt"

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

func (r *Runner) lease() time.Duration {
	return cmp.Or(r.Lease, 5*time.Minute)
}

// generationTimeout is the lease less finishMargin, or half a lease too
// short for that margin (tests).
func (r *Runner) generationTimeout() time.Duration {
	return max(r.lease()-finishMargin, r.lease()/2)
}

// RunPending works on jobs as they become due until ctx is done. A job in
// flight when ctx ends still finishes, unless hard ends first: then it is
// cut off and left running, and runs again when its lease expires (on
// another replica, or this one restarted). A job is never lost, and the
// caller's shutdown is bounded by when it ends hard.
func (r *Runner) RunPending(ctx, hard context.Context) {
	r.workers(func() {
		for ctx.Err() == nil && hard.Err() == nil {
			ok, err := r.work(ctx, hard, nil)
			if err != nil && ctx.Err() == nil {
				r.Log.Error("briefing job runner", "error", err)
			}
			if !ok || err != nil {
				sleep(ctx, pollInterval)
			}
		}
	})
}

// Wait returns once every job in ids is completed or failed, working on them
// meanwhile; other replicas may run some of them. It returns an error only
// when the database does. Like Drain, it lets a job in flight when ctx ends
// finish (see runOn).
func (r *Runner) Wait(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return r.drain(ctx, ids)
}

// Drain runs due jobs of any org until none is left to claim. cmd/worker
// -once uses it so that jobs "generate now", a retry or a stopped worker left
// behind are done too, and replicas started together share the work. A job
// that fails goes back to wait out its backoff and is not waited for here.
// A job in flight when ctx ends finishes (see runOn).
func (r *Runner) Drain(ctx context.Context) error {
	return r.drain(ctx, nil)
}

// drain is Drain, or Wait when ids is not nil: then it claims only those
// jobs, and when none is left to claim it polls until the ones other
// replicas run are done too. The first error stops every worker.
func (r *Runner) drain(ctx context.Context, ids []int64) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.workers(func() {
		for ctx.Err() == nil {
			more, err := r.work(ctx, runOn(ctx), ids)
			if err == nil && !more && ids != nil {
				// None left to claim: poll while other replicas finish theirs.
				if more, err = r.anyOpen(ctx, ids); more {
					sleep(ctx, waitPoll)
				}
			}
			if err != nil {
				cancel(err)
				return
			}
			if !more {
				return
			}
		}
	})
	return context.Cause(ctx)
}

// anyOpen reports whether any job in ids is still available or running.
func (r *Runner) anyOpen(ctx context.Context, ids []int64) (bool, error) {
	var open bool
	err := r.DB.QueryRow(ctx, `SELECT EXISTS (SELECT FROM ff_briefing_jobs WHERE id = ANY($1) AND state IN ('available', 'running'))`, ids).Scan(&open)
	if err != nil {
		return false, fmt.Errorf("check open briefing jobs: %w", err)
	}
	return open, nil
}

// workers runs work on Concurrency goroutines and returns when all have.
func (r *Runner) workers(work func()) {
	var wg sync.WaitGroup
	for range cmp.Or(r.Concurrency, 4) {
		wg.Go(work)
	}
	wg.Wait()
}

// runOn is the context Wait and Drain (cmd/worker -once) run a claimed job
// on: a job in flight when ctx ends finishes, within its generation timeout.
// Cutting it off instead would leave it to a lease on -once's clock, which
// may run days ahead of the real one (-now).
func runOn(ctx context.Context) context.Context {
	return context.WithoutCancel(ctx)
}

// work claims one due job (among ids, when given) while ctx lasts and runs
// it on hard; ok reports whether there was one. When there is none it
// sweeps instead (failLostLastAttempts), which keeps the sweep off the
// busy path.
func (r *Runner) work(ctx, hard context.Context, ids []int64) (ok bool, err error) {
	c, ok, err := r.claim(ctx, ids)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, r.failLostLastAttempts(ctx)
	}
	return true, r.run(hard, c)
}

// run generates c's briefing and records the outcome. A generation cut off
// by hard is left as it is: its lease expires and the job runs again.
func (r *Runner) run(hard context.Context, c claim) error {
	genCtx, cancel := context.WithTimeout(hard, r.generationTimeout())
	defer cancel()
	snap, genErr := generate(genCtx, r.DB, c.OrgID, c.BriefingID, r.now())
	if genErr != nil && hard.Err() != nil {
		r.Log.Warn("briefing job cut off by shutdown; it runs again when its lease expires",
			"job_id", c.ID, "org_id", c.OrgID, "briefing_id", c.BriefingID, "attempt", c.Attempt)
		return nil
	}
	// Its own context: the generation's may have run out, which is a failure to record.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(hard), finishTimeout)
	defer cancel()
	if genErr != nil {
		return r.fail(ctx, c, genErr)
	}
	return r.complete(ctx, c, snap)
}

// failLostLastAttemptsSQL fails the jobs whose lease expired during their
// last attempt, with their briefings, where admins see it and can retry.
// SKIP LOCKED: replicas sweeping together neither wait nor fail a job twice.
// ff_briefing_jobs_lease_idx serves it.
const failLostLastAttemptsSQL = `
WITH job AS (
    UPDATE ff_briefing_jobs
       SET state = 'failed', last_error = $2, locked_until = NULL, finished_at = $1
     WHERE id IN (SELECT id FROM ff_briefing_jobs
                   WHERE state = 'running' AND locked_until < $1 AND attempt >= max_attempts
                     FOR UPDATE SKIP LOCKED)
 RETURNING id, org_id, briefing_id
)
UPDATE ff_briefings b
   SET status = 'failed', last_error = $2, updated_at = $1
  FROM job
 WHERE b.id = job.briefing_id AND b.org_id = job.org_id
RETURNING job.id, job.org_id, job.briefing_id`

// failLostLastAttempts runs when a claim finds nothing (see work): no claim
// takes these jobs over, so without it they would stay "running" forever
// (and Wait with them).
func (r *Runner) failLostLastAttempts(ctx context.Context) error {
	rows, err := r.DB.Query(ctx, failLostLastAttemptsSQL, r.now(), errLostLastAttempt)
	if err != nil {
		return fmt.Errorf("fail briefing jobs lost on their last attempt: %w", err)
	}
	var jobID, orgID, briefingID int64
	_, err = pgx.ForEachRow(rows, []any{&jobID, &orgID, &briefingID}, func() error {
		r.Log.Warn("briefing generation failed: "+errLostLastAttempt, "job_id", jobID, "org_id", orgID, "briefing_id", briefingID)
		r.Metrics.jobDone(JobFailed)
		return nil
	})
	if err != nil {
		return fmt.Errorf("fail briefing jobs lost on their last attempt: %w", err)
	}
	return nil
}

// claimSQL takes an available job, or one whose lease expired with attempts
// left (failLostLastAttempts ends the others). ff_briefing_jobs_claim_idx
// serves its order.
const claimSQL = `
WITH next AS (
    SELECT id FROM ff_briefing_jobs
     WHERE run_after <= $1
       AND (state = 'available' OR (state = 'running' AND locked_until < $1 AND attempt < max_attempts))
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
// crashed or was cut off), and commits the claim before any work starts.
func (r *Runner) claim(ctx context.Context, ids []int64) (c claim, ok bool, err error) {
	now := r.now()
	err = r.DB.QueryRow(ctx, claimSQL, now, r.workerID(), now.Add(r.lease()), ids).
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
