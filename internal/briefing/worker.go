package briefing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/robfig/cron/v3"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/delivery"
)

// DefaultJobRetention is how long River keeps finished jobs (completed,
// discarded, cancelled). Our own history (ff_briefing_runs) is kept
// regardless.
const DefaultJobRetention = 30 * 24 * time.Hour

// rescueStuckJobsAfter is when River's rescuer takes back a job still
// "running" whose worker was killed (no graceful stop): it is retried, or
// discarded when out of attempts. It exceeds every kind's timeout (the
// longest is a minute, plus the 5 s a failing job takes to record its
// failure), so a live job is never rescued (River's rescuer also leaves
// alone a job younger than its own timeout); short beyond that, so a killed
// worker's briefing is late by a minute or two, not River's default hour.
const rescueStuckJobsAfter = 75 * time.Second

// rescueWithin is how long after its attempt began a job left running by a
// dead worker is available again at the latest: rescueStuckJobsAfter, plus
// the rescuer's interval (River's default, 30 s), plus a dead leader's term
// running out before another replica's rescuer starts (River's elect
// interval and TTL padding, 15 s). -once waits for such a job when this
// falls within -wait (docs/architecture.md, "Crashes and shutdown").
const rescueWithin = rescueStuckJobsAfter + 30*time.Second + 15*time.Second

// stopAndCancelTimeout bounds the wait, after Stop's grace period, for the
// cancelled jobs to return.
const stopAndCancelTimeout = 10 * time.Second

// fetchCooldown is the shortest time between River's fetches of new jobs.
const fetchCooldown = 10 * time.Millisecond

// oncePoll is how often RunOnce looks whether its jobs are done.
const oncePoll = 100 * time.Millisecond

// Worker runs the whole background pipeline of one process: River (its
// queue, the job workers, retention, the hourly auth prune as a periodic
// job) and the tick every minute. cmd/worker is its wiring; tests start it
// for real.
type Worker struct {
	DB      *pgxpool.Pool
	Log     *slog.Logger // required
	Metrics *Metrics     // optional

	Now          func() time.Time // the tick's and the jobs' clock; default time.Now
	Concurrency  int              // jobs run at once; default 4
	JobRetention time.Duration    // how long River keeps finished jobs; default DefaultJobRetention
	// FullScanEvery is how often the tick reads every org and checks the
	// next-fire hints (the safety net); default DefaultFullScanEvery. The
	// first tick of a process always does.
	FullScanEvery time.Duration
	// Sender delivers briefings; nil delivers email to the outbox and
	// webhooks to public addresses only, with links to delivery.DefaultBaseURL.
	Sender *Sender

	client *river.Client[pgx.Tx]
	kinds  []string // the job kinds this worker runs, for RunOnce's wait
	// working holds the jobs this process works until River records their
	// outcome: RunOnce waits for them whatever -wait says.
	working inFlight
	ticker  *Ticker
	cron    *cron.Cron
	// stopTicks cuts off a tick still running when Stop's grace ends.
	stopTicks   context.CancelFunc
	stopWatch   context.CancelFunc // ends watchRiver
	watchDone   chan struct{}
	metricsDone chan struct{}
	stopMetrics func()
}

func (w *Worker) sender() *Sender {
	s := w.Sender
	if s == nil {
		// The zero settings cannot fail: no SMTP_URL means the outbox.
		s, _ = NewSender(w.DB, delivery.Settings{}, w.Log)
	}
	if s.DB == nil {
		s.DB = w.DB
	}
	if s.Log == nil {
		s.Log = w.Log
	}
	if s.Metrics == nil {
		s.Metrics = w.Metrics
	}
	if s.Now == nil {
		s.Now = w.Now
	}
	return s
}

func (w *Worker) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

// build creates the River client with every job kind registered, and with
// the periodic jobs unless it is for RunOnce (one tick, nothing else
// scheduled).
func (w *Worker) build(periodic bool) error {
	w.kinds = nil
	workers := river.NewWorkers()
	addWorker(workers, &w.kinds, &generateWorker{db: w.DB, log: w.Log, now: w.now})
	addWorker(workers, &w.kinds, &pruneWorker{db: w.DB, log: w.Log, now: w.now})
	sender := w.sender()
	addWorker(workers, &w.kinds, &emailWorker{sender: sender})
	addWorker(workers, &w.kinds, &webhookWorker{sender: sender})
	addWorker(workers, &w.kinds, &accounts.EmailHandler{DB: w.DB, Mailer: sender.Mailer, From: sender.From, BaseURL: sender.BaseURL, Log: w.Log, Now: w.now})
	retention := cmp.Or(w.JobRetention, DefaultJobRetention)
	cfg := &river.Config{
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cmp.Or(w.Concurrency, 4)}},
		Workers:                     workers,
		Logger:                      w.Log,
		CompletedJobRetentionPeriod: retention,
		DiscardedJobRetentionPeriod: retention,
		CancelledJobRetentionPeriod: retention,
		RescueStuckJobsAfter:        rescueStuckJobsAfter,
		JobTimeout:                  generateTimeout, // kinds without their own Timeout
		Middleware:                  []rivertype.Middleware{&w.working},
		// River's default 100 ms between fetches caps throughput at
		// Concurrency jobs per 100 ms (80/s at 8), well under what a burst of
		// short delivery jobs needs; fetches happen this often only while
		// jobs keep finishing (BenchmarkDeliveryBurst).
		FetchCooldown: fetchCooldown,
	}
	if periodic {
		sched, err := cron.ParseStandard(pruneSchedule)
		if err != nil {
			return fmt.Errorf("auth prune schedule: %w", err)
		}
		cfg.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(sched,
			func() (river.JobArgs, *river.InsertOpts) { return PruneAuthArgs{}, nil }, &river.PeriodicJobOpts{ID: "prune_auth"})}
	}
	client, err := river.NewClient(riverpgxv5.New(w.DB), cfg)
	if err != nil {
		return fmt.Errorf("river client: %w", err)
	}
	w.client = client
	if w.ticker == nil { // a restarted client (watchRiver) keeps the first one's ticker: it only inserts
		w.ticker = &Ticker{DB: w.DB, Jobs: client, Log: w.Log, Metrics: w.Metrics, FullScanEvery: w.FullScanEvery}
	}
	return nil
}

func addWorker[T river.JobArgs](workers *river.Workers, kinds *[]string, worker river.Worker[T]) {
	river.AddWorker(workers, worker)
	var args T
	*kinds = append(*kinds, args.Kind())
}

// Start starts River and the tick at second 0 of every minute, on the real
// clock (the tick reads Now). It returns once both run.
func (w *Worker) Start(ctx context.Context) error {
	if err := w.startRiver(ctx, true); err != nil {
		return err
	}
	tickCtx, stopTicks := context.WithCancel(context.WithoutCancel(ctx))
	w.stopTicks = stopTicks
	clog := cronLogger{w.Log}
	w.cron = cron.New(cron.WithLocation(time.UTC), cron.WithLogger(clog), cron.WithChain(cron.SkipIfStillRunning(clog)))
	if _, err := w.cron.AddFunc("* * * * *", func() {
		ctx, cancel := context.WithTimeout(tickCtx, 55*time.Second)
		defer cancel()
		_, _ = w.ticker.Tick(ctx, w.now()) // Tick logs its outcome; the next minute retries
	}); err != nil {
		return errors.Join(fmt.Errorf("schedule tick: %w", err), w.stopRiver(ctx))
	}
	w.cron.Start()
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	w.stopWatch, w.watchDone = stopWatch, make(chan struct{})
	go w.watchRiver(watchCtx, ctx)
	w.Log.Info("worker started", "concurrency", cmp.Or(w.Concurrency, 4), "job_retention", cmp.Or(w.JobRetention, DefaultJobRetention).String())
	return nil
}

func (w *Worker) startRiver(ctx context.Context, periodic bool) error {
	if err := w.build(periodic); err != nil {
		return err
	}
	// Subscribed before Start, so no outcome goes uncounted.
	events, cancel := w.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled, river.EventKindJobSnoozed)
	w.stopMetrics = cancel
	w.metricsDone = make(chan struct{})
	go func() {
		defer close(w.metricsDone)
		for ev := range events {
			if ev.Job != nil {
				w.working.done(ev.Job.ID)
			}
			if ev.Kind != river.EventKindJobSnoozed {
				w.Metrics.jobOutcome(ev)
			}
		}
	}()
	// Start checks the schema first: a lost connection fails it before
	// anything runs. Start keeps the context it is given for the client's
	// life, so every attempt gets ctx itself, not retryTransient's.
	err := retryTransient(ctx, w.Log, "start river", func(context.Context) error { return w.client.Start(ctx) })
	if err != nil {
		cancel()
		return fmt.Errorf("start river: %w", err)
	}
	return nil
}

// Stop stops the tick and River. Jobs running get until ctx ends to finish
// (River's Stop); then they are cancelled (StopAndCancel): each records a
// "retry" run in our history, and River makes the job available again at
// once without counting the attempt, for another replica or the next start.
// A job whose process dies without either is taken back by River's rescuer
// after rescueStuckJobsAfter.
func (w *Worker) Stop(ctx context.Context) error {
	if w.stopWatch != nil {
		w.stopWatch()
		<-w.watchDone
	}
	if w.cron != nil {
		select {
		case <-w.cron.Stop().Done():
		case <-ctx.Done():
			w.stopTicks() // the tick enqueues nothing twice; the next one catches up
		}
	}
	return w.stopRiver(ctx)
}

func (w *Worker) stopRiver(ctx context.Context) error {
	err := w.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		w.Log.Warn("shutdown grace period over; cancelling the running jobs, which River makes available again")
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopAndCancelTimeout)
		defer cancel()
		err = w.client.StopAndCancel(cctx)
	}
	w.stopMetrics()
	<-w.metricsDone
	if err != nil {
		return fmt.Errorf("stop river: %w", err)
	}
	return nil
}

// OnceResult is what RunOnce did.
type OnceResult struct {
	Tick TickResult
	// Pending counts, by "kind/state", the jobs of our kinds still
	// unfinished when RunOnce returned: its briefings' that wait for a retry
	// later than its wait, and any left behind that it did not finish, such
	// as a job still "running" on a worker that was killed.
	Pending map[string]int
	// Waiting names the first of those jobs (at most maxWaitingShown) and
	// what each waits for.
	Waiting []WaitingJob
	// Stalled: RunOnce stopped waiting because none of our jobs changed for
	// onceStallLimit while some were still due within its wait (River's
	// leader, which schedules retries and rescues jobs, did not act).
	Stalled bool
}

// Done reports whether RunOnce left nothing of our kinds unfinished.
func (r OnceResult) Done() bool { return len(r.Pending) == 0 }

// WaitingJob is one unfinished job and what it waits for.
type WaitingJob struct {
	ID         int64     `json:"id"`
	Kind       string    `json:"kind"`
	State      string    `json:"state"`
	BriefingID int64     `json:"briefing_id,omitempty"`
	Attempt    int       `json:"attempt"`
	WaitsFor   string    `json:"waits_for"` // "retry", "rescue" (running: its worker, or River's rescuer), "fetch" (available)
	Until      time.Time `json:"until"`     // when it is due, at the latest
}

// maxWaitingShown bounds the last log line of -once.
const maxWaitingShown = 20

// RunOnce is `worker -once`: exactly one tick at now (which decides only
// which briefings are due: the jobs run on the real clock), then it works
// every available job, its own and any left behind, until every job of our
// kinds — those of the briefings its tick fired, their deliveries, and any
// left behind — is completed, discarded or cancelled, or waits for a retry
// later than wait from then, or runs on another worker where it neither
// ends nor is rescued within wait (a job left running by a killed worker
// is rescued by River rescueWithin after its attempt began; openJobsSQL). What is unfinished then is in
// Pending and Waiting. A job that failed is a result, not an error: it errs
// only when the infrastructure does; a lost connection is retried first
// (retryTransient), and every wait is bounded (onceStallLimit, ctx).
func (w *Worker) RunOnce(ctx context.Context, now time.Time, wait time.Duration) (res OnceResult, err error) {
	if err := w.startRiver(ctx, false); err != nil {
		return res, err
	}
	defer func() {
		// Jobs still running here are left-behind ones: they get to finish.
		if err == nil {
			// Our own jobs' outcomes are in: RunOnce waited for them.
			err = retryTransient(ctx, w.Log, "list pending jobs", func(ctx context.Context) (err error) {
				res.Pending, res.Waiting, err = w.pendingJobs(ctx)
				return err
			})
		}
		if serr := w.stopRiver(context.WithoutCancel(ctx)); serr != nil {
			err = errors.Join(err, serr)
		}
	}()
	w.ticker.WaitLock = true // -once must run its tick, after another replica's
	w.ticker.NoHintWrites = true
	res.Tick, err = w.ticker.Tick(ctx, now)
	if err != nil {
		return res, err
	}
	stallLimit := max(wait, rescueWithin) + onceStallSlack
	var seen string
	lastChange, lastRestart := time.Now(), time.Now()
	for {
		var st openState
		err := retryTransient(ctx, w.Log, "count open jobs", func(ctx context.Context) (err error) {
			st, err = w.openJobs(ctx, wait)
			return err
		})
		if err != nil {
			return res, err
		}
		if st.open == 0 {
			return res, nil
		}
		if st.progress != seen {
			seen, lastChange = st.progress, time.Now()
		} else if time.Since(lastChange) > stallLimit {
			w.Log.Warn("worker -once: no job progressed; not waiting any longer", "open", st.open, "stall_limit", stallLimit.String())
			res.Stalled = true
			return res, nil
		}
		if st.overdue > 0 && w.working.empty() && time.Since(lastChange) > riverStallAfter && time.Since(lastRestart) > riverStallAfter {
			// Jobs wait that River should have fetched or scheduled long
			// ago, and this process works none: a connection lost while
			// River started can leave its client running without its
			// producer or its elector (they take a "conn closed" error from
			// LISTEN for a shutdown and quietly stop; River v0.51.1,
			// producer.StartWorkContext, Elector.Start). A new client
			// starts them again.
			w.Log.Warn("worker -once: River is not working the jobs due; restarting its client", "overdue", st.overdue, "open", st.open)
			if err := w.restartRiver(ctx, false); err != nil {
				return res, err
			}
			lastRestart = time.Now()
		}
		if err := sleep(ctx, oncePoll); err != nil {
			return res, err
		}
	}
}

// watchEvery is how often the long-running worker checks that its River
// client works the jobs due (watchRiver).
const watchEvery = 30 * time.Second

// overdueSQL counts the jobs of our kinds ($1) River should have taken long
// ago: available for 30 s (every replica fetches every second), or due for
// a retry a minute ago (the leader schedules every 5 s; a new leader takes
// over within 15 s).
const overdueSQL = `
SELECT count(*) FROM river_job
 WHERE kind = ANY($1)
   AND ((state = 'available' AND scheduled_at < now() - interval '30 seconds')
        OR (state IN ('retryable', 'scheduled') AND scheduled_at < now() - interval '1 minute'))`

// watchRiver restarts the long-running worker's River client when it
// started no job for watchEvery while jobs are overdue: a connection lost
// while River started can leave its producer or its elector stopped while
// the client runs on (see RunOnce). A healthy client with jobs overdue
// starts some within a second; other replicas may be busy, this one is not.
// A new client starts on startCtx, like the first one: the watch's own
// context ends with Stop, which must not cut the client's jobs short.
func (w *Worker) watchRiver(ctx, startCtx context.Context) {
	defer close(w.watchDone)
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	started := w.working.startedCount()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		before := started
		if started = w.working.startedCount(); started != before || !w.working.empty() {
			continue
		}
		var overdue int
		if err := w.DB.QueryRow(ctx, overdueSQL, w.kinds).Scan(&overdue); err != nil || overdue == 0 {
			continue // a lost connection: River and the next check retry
		}
		w.Log.Warn("River started no job while jobs are overdue; restarting its client", "overdue", overdue)
		if err := w.restartRiver(startCtx, true); err != nil {
			w.Log.Error("restart river", "error", err) // the next check tries again
		}
	}
}

// riverStallAfter is how long jobs may stay overdue (available, or due for
// a retry, see openJobsSQL) with nothing of ours changing before RunOnce
// restarts its River client. River fetches every second at the latest, and
// its leader schedules retries every 5 s; a new leader takes over a dead
// one's within 15 s.
const riverStallAfter = 20 * time.Second

// restartRiver stops the River client (this process works no job then) and
// starts a new one.
func (w *Worker) restartRiver(ctx context.Context, periodic bool) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopAndCancelTimeout)
	defer cancel()
	if err := w.stopRiver(sctx); err != nil {
		w.Log.Warn("stop river for restart", "error", err)
	}
	return w.startRiver(ctx, periodic)
}

// onceStallSlack is how much longer than anything it may legitimately wait
// for RunOnce waits without any job of ours changing.
const onceStallSlack = time.Minute

// openJobsSQL counts what RunOnce still waits for, among the unfinished
// jobs of our kinds ($1) — the tick's, their deliveries (which generation
// inserts in the transaction that completes it, so none is missed between
// two queries), and any left behind:
//   - available;
//   - waiting for a retry due within -wait ($2 seconds);
//   - running in this process ($3), until River has stored its outcome, or
//     fetched by this process's River client ($5) in the last 10 s (Work
//     has not begun yet: a fetch whose answer was lost with its connection
//     leaves a job running in our name that nothing works, which River
//     rescues like a dead worker's);
//   - running elsewhere, if it ends or is rescued within -wait: a live
//     worker's ends within its timeout, a dead worker's is rescued within
//     rescueWithin ($4 seconds) of its attempt, and which of the two it is
//     cannot be told from the database, so the later bound counts.
//
// The second column changes whenever any of those jobs does (a state, an
// attempt, a new job): RunOnce's stall guard. The third counts the jobs
// River should have taken by now: available for 10 s (it fetches every
// second), or due for a retry 30 s ago (its leader schedules every 5 s).
const openJobsSQL = `
SELECT count(*) FILTER (WHERE
         state = 'available'
         OR (state IN ('retryable', 'scheduled') AND scheduled_at <= now() + $2 * interval '1 second')
         OR (state = 'running' AND (id = ANY($3)
                                    OR (attempted_by[cardinality(attempted_by)] = $5 AND attempted_at > now() - interval '10 seconds')
                                    OR attempted_at + $4 * interval '1 second' <= now() + $2 * interval '1 second'))),
       count(*) || '/' || coalesce(sum(attempt), 0) || '/' || count(*) FILTER (WHERE state = 'running')
         || '/' || count(*) FILTER (WHERE state = 'available') || '/' || coalesce(max(id), 0),
       count(*) FILTER (WHERE (state = 'available' AND scheduled_at < now() - interval '10 seconds')
                           OR (state IN ('retryable', 'scheduled') AND scheduled_at < now() - interval '30 seconds'))
  FROM river_job
 WHERE kind = ANY($1) AND state NOT IN ('completed', 'discarded', 'cancelled')`

// openState is what openJobsSQL found.
type openState struct {
	open     int    // jobs RunOnce waits for
	progress string // changes whenever any unfinished job of ours does
	overdue  int    // jobs River should have fetched or scheduled by now
}

func (w *Worker) openJobs(ctx context.Context, wait time.Duration) (st openState, err error) {
	err = w.DB.QueryRow(ctx, openJobsSQL, w.kinds, wait.Seconds(), w.working.ids(), rescueWithin.Seconds(), w.client.ID()).
		Scan(&st.open, &st.progress, &st.overdue)
	if err != nil {
		return st, fmt.Errorf("count open jobs: %w", err)
	}
	return st, nil
}

// pendingJobsSQL lists every unfinished job of our kinds with what it waits
// for: a retry (scheduled_at), a worker's fetch (available), or, running,
// its worker or River's rescuer (rescueWithin, $2, after its attempt).
const pendingJobsSQL = `
SELECT id, kind, state::text, coalesce((args->>'briefing_id')::bigint, 0), attempt,
       CASE state WHEN 'running' THEN 'rescue' WHEN 'available' THEN 'fetch' ELSE 'retry' END,
       CASE state WHEN 'running' THEN attempted_at + $2 * interval '1 second' ELSE scheduled_at END
  FROM river_job
 WHERE kind = ANY($1) AND state NOT IN ('completed', 'discarded', 'cancelled')
 ORDER BY id`

func (w *Worker) pendingJobs(ctx context.Context) (map[string]int, []WaitingJob, error) {
	rows, err := w.DB.Query(ctx, pendingJobsSQL, w.kinds, rescueWithin.Seconds())
	if err != nil {
		return nil, nil, fmt.Errorf("list pending jobs: %w", err)
	}
	pending := map[string]int{}
	var waiting []WaitingJob
	var j WaitingJob
	_, err = pgx.ForEachRow(rows, []any{&j.ID, &j.Kind, &j.State, &j.BriefingID, &j.Attempt, &j.WaitsFor, &j.Until}, func() error {
		pending[j.Kind+"/"+j.State]++
		if len(waiting) < maxWaitingShown {
			waiting = append(waiting, j)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list pending jobs: %w", err)
	}
	return pending, waiting, nil
}

// inFlight is River worker middleware that records the jobs this process
// works, from the start of Work until River reports their outcome (the
// event, sent once the outcome is stored).
type inFlight struct {
	river.MiddlewareDefaults
	mu      sync.Mutex
	jobs    map[int64]bool
	started int64 // jobs begun, ever
}

func (f *inFlight) startedCount() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

func (f *inFlight) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	f.mu.Lock()
	if f.jobs == nil {
		f.jobs = map[int64]bool{}
	}
	f.jobs[job.ID] = true
	f.started++
	f.mu.Unlock()
	return doInner(ctx)
}

func (f *inFlight) done(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.jobs, id)
}

func (f *inFlight) empty() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.jobs) == 0
}

func (f *inFlight) ids() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]int64, 0, len(f.jobs))
	for id := range f.jobs {
		ids = append(ids, id)
	}
	return ids
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cronLogger sends cron's messages to slog; its routine ones are debug noise.
type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Debug("cron: "+msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("cron: "+msg, append(kv, "error", err)...)
}
