package briefing

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/orgs"
)

// clock is a settable fake clock for the runner.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) Advance(d time.Duration) { c.now = c.now.Add(d) }

func (f *fixture) runner(c *clock, worker string) *Runner {
	return &Runner{DB: f.db, Log: slog.New(slog.DiscardHandler), Now: c.Now, WorkerID: worker, Lease: time.Minute}
}

type jobState struct {
	State, LockedBy, LastError string
	Attempt                    int
	RunAfter                   time.Time
}

func (f *fixture) jobState(id int64) jobState {
	f.t.Helper()
	var j jobState
	require.NoError(f.t, f.db.QueryRow(f.ctx, `SELECT state, locked_by, last_error, attempt, run_after FROM ff_briefing_jobs WHERE id = $1`, id).
		Scan(&j.State, &j.LockedBy, &j.LastError, &j.Attempt, &j.RunAfter))
	return j
}

func TestRunnerGenerates(t *testing.T) {
	f := setup(t)
	org := f.org("acme", config("Europe/Paris", "07:00"))
	now := utc("2026-03-10T06:00:00Z")
	res := f.tick(now)
	require.Len(t, res.JobIDs, 1)

	c := &clock{now: now.Add(2 * time.Second)}
	require.NoError(t, f.runner(c, "w1").Wait(f.ctx, res.JobIDs))

	b, err := (&Store{DB: f.db}).Get(f.ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, StatusReady, b.Status)
	require.True(t, b.GeneratedAt.Equal(c.now))
	require.NotNil(t, b.Content)
	require.Equal(t, "2026-03-10", b.Content.Date)
	require.Equal(t, "Europe/Paris", b.Content.Timezone)
	require.Equal(t, JobCompleted, f.jobState(res.JobIDs[0]).State)
}

// TestRunnerRetriesThenFails: a generation that keeps failing is retried
// with growing, jittered backoff, then marked failed with its error.
func TestRunnerRetriesThenFails(t *testing.T) {
	f := setup(t)
	org := f.org("acme", "")
	now := utc("2026-03-10T06:00:00Z")
	// A zone that no longer loads makes every generation attempt fail.
	ids, err := insertBriefings(f.ctx, f.db, now, TriggerSchedule, []due{{OrgID: org, Date: date("2026-03-10"), Timezone: "Nowhere/Atlantis"}})
	require.NoError(t, err)
	job := ids[0]

	c := &clock{now: now}
	r := f.runner(c, "w1")
	for attempt := 1; attempt <= 5; attempt++ {
		ok, err := r.work(f.ctx, f.ctx, nil)
		require.NoError(t, err)
		require.True(t, ok, "attempt %d", attempt)
		j := f.jobState(job)
		require.Equal(t, attempt, j.Attempt)
		require.Contains(t, j.LastError, "Atlantis")
		if attempt == 5 {
			require.Equal(t, JobFailed, j.State)
			break
		}
		require.Equal(t, JobAvailable, j.State)
		wait := min(backoffBase<<(attempt-1), backoffMax)
		require.WithinRange(t, j.RunAfter, c.now.Add(wait/2), c.now.Add(wait))

		// Not before its backoff ends.
		c.now = j.RunAfter.Add(-time.Millisecond)
		ok, err = r.work(f.ctx, f.ctx, nil)
		require.NoError(t, err)
		require.False(t, ok)
		c.now = j.RunAfter
	}

	b, err := (&Store{DB: f.db}).Get(f.ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, StatusFailed, b.Status)
	require.Contains(t, b.LastError, "Atlantis")
	require.Nil(t, b.Content)
	runs, err := (&Store{DB: f.db}).Runs(f.ctx, org, b.ID)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, JobFailed, runs[0].State)
	require.Equal(t, 5, runs[0].Attempt)
	require.False(t, runs[0].FinishedAt.IsZero())
}

// TestRunnerReclaimsExpiredLease: a worker that claimed a job and died
// loses it when its lease expires; if it comes back, its late result is
// ignored.
func TestRunnerReclaimsExpiredLease(t *testing.T) {
	f := setup(t)
	org := f.org("acme", config("Etc/UTC", "00:00"))
	now := utc("2026-03-10T06:00:00Z")
	job := f.tick(now).JobIDs[0]

	c := &clock{now: now}
	crashed := f.runner(c, "crashed")
	stale, ok, err := crashed.claim(f.ctx, nil)
	require.NoError(t, err)
	require.True(t, ok)

	other := f.runner(c, "other")
	c.Advance(59 * time.Second) // lease is one minute
	ok, err = other.work(f.ctx, f.ctx, nil)
	require.NoError(t, err)
	require.False(t, ok, "a live lease must not be taken over")

	c.Advance(2 * time.Second)
	ok, err = other.work(f.ctx, f.ctx, nil)
	require.NoError(t, err)
	require.True(t, ok)
	j := f.jobState(job)
	require.Equal(t, JobCompleted, j.State)
	require.Equal(t, "other", j.LockedBy)
	require.Equal(t, 2, j.Attempt)

	// The crashed worker wakes up and reports a failure: no effect.
	require.NoError(t, crashed.fail(f.ctx, stale, errTest))
	require.Equal(t, JobCompleted, f.jobState(job).State)
	b, err := (&Store{DB: f.db}).Get(f.ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, StatusReady, b.Status)
}

var errTest = errorString("test failure")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestRunnerConcurrentWorkers: several runners drain a batch, each job
// running once.
func TestRunnerConcurrentWorkers(t *testing.T) {
	f := setup(t)
	for i := range 40 {
		f.org("org-"+string(rune('a'+i%26))+string(rune('a'+i/26)), config("Etc/UTC", "00:00"))
	}
	now := utc("2026-03-10T06:00:00Z")
	res := f.tick(now)
	require.Len(t, res.JobIDs, 40)
	c := &clock{now: now}
	errs := make(chan error, 3)
	for _, w := range []string{"a", "b", "c"} {
		go func() {
			r := f.runner(c, w)
			r.Concurrency = 3
			errs <- r.Wait(f.ctx, res.JobIDs)
		}()
	}
	for range 3 {
		require.NoError(t, <-errs)
	}
	require.Equal(t, 40, f.count(`SELECT count(*) FROM ff_briefings WHERE status = 'ready'`))
	require.Equal(t, 40, f.count(`SELECT count(*) FROM ff_briefing_jobs WHERE state = 'completed' AND attempt = 1`))
}

// lockTechnicians holds an ACCESS EXCLUSIVE lock on the test database's
// technicians table until cleanup, so any generation blocks on its first
// technicians query.
func (f *fixture) lockTechnicians() {
	f.t.Helper()
	tx, err := f.db.Begin(f.ctx)
	require.NoError(f.t, err)
	f.t.Cleanup(func() { _ = tx.Rollback(context.WithoutCancel(f.ctx)) })
	_, err = tx.Exec(f.ctx, `LOCK TABLE technicians IN ACCESS EXCLUSIVE MODE`)
	require.NoError(f.t, err)
}

// TestRunnerRecordsGenerationTimeout: a generation that runs out of time
// still records its failure (and is retried), instead of leaving the job
// running until its lease expires.
func TestRunnerRecordsGenerationTimeout(t *testing.T) {
	f := setup(t)
	org := f.org("acme", config("Etc/UTC", "00:00"))
	now := utc("2026-03-10T06:00:00Z")
	job := f.tick(now).JobIDs[0]
	f.lockTechnicians()

	r := f.runner(&clock{now: now}, "w1")
	r.Lease = time.Second // the generation gets half of it
	ok, err := r.work(f.ctx, f.ctx, nil)
	require.NoError(t, err)
	require.True(t, ok)

	j := f.jobState(job)
	require.Equal(t, JobAvailable, j.State)
	require.Equal(t, 1, j.Attempt)
	require.Contains(t, j.LastError, "deadline exceeded")
	b, err := (&Store{DB: f.db}).Get(f.ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, StatusPending, b.Status)
	require.Contains(t, b.LastError, "deadline exceeded")
}

// TestRunnerFailsJobLostOnLastAttempt: a job whose worker stopped during its
// last attempt is not claimed again when the lease expires; the job and its
// briefing are marked failed, and "generate now" retries it like any other.
func TestRunnerFailsJobLostOnLastAttempt(t *testing.T) {
	f := setup(t)
	org := f.org("acme", config("Etc/UTC", "00:00"))
	now := utc("2026-03-10T06:00:00Z")
	job := f.tick(now).JobIDs[0]

	c := &clock{now: now}
	crashing := f.runner(c, "crashing")
	for attempt := 1; ; attempt++ {
		cl, ok, err := crashing.claim(f.ctx, nil)
		require.NoError(t, err)
		require.True(t, ok, "attempt %d", attempt)
		require.Equal(t, attempt, cl.Attempt)
		c.Advance(crashing.Lease + time.Second) // the worker dies mid-job; its lease runs out
		if cl.Attempt == cl.MaxAttempts {
			break
		}
	}

	other := f.runner(c, "other")
	for range 2 {
		ok, err := other.work(f.ctx, f.ctx, nil)
		require.NoError(t, err)
		require.False(t, ok, "a job out of attempts must not be claimed again")
	}
	j := f.jobState(job)
	require.Equal(t, JobFailed, j.State)
	require.Equal(t, "crashing", j.LockedBy)
	require.Contains(t, j.LastError, "worker stopped")
	store := &Store{DB: f.db}
	b, err := store.Get(f.ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, StatusFailed, b.Status)
	require.Contains(t, b.LastError, "worker stopped")
	runs, err := store.Runs(f.ctx, org, b.ID)
	require.NoError(t, err)
	require.False(t, runs[0].FinishedAt.IsZero())
	require.True(t, runs[0].LockedUntil.IsZero())

	_, err = store.GenerateNow(f.ctx, org, c.now, orgs.Actor{Email: "admin@example.com"})
	require.NoError(t, err)
	ok, err := other.work(f.ctx, f.ctx, nil)
	require.NoError(t, err)
	require.True(t, ok)
	b, err = store.Get(f.ctx, org, date("2026-03-10"))
	require.NoError(t, err)
	require.Equal(t, StatusReady, b.Status)
}
