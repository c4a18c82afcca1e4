package briefing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/robfig/cron/v3"

	"fieldbrief/internal/delivery"
)

// DefaultJobRetention is how long River keeps finished jobs (completed,
// discarded, cancelled). Our own history (ff_briefing_runs) is kept
// regardless.
const DefaultJobRetention = 30 * 24 * time.Hour

// rescueStuckJobsAfter is when River's rescuer takes back a job still
// "running" whose worker was killed (no graceful stop): it is retried, or
// discarded when out of attempts. It must exceed every kind's timeout (the
// longest is a minute), or live jobs would be rescued; short beyond that,
// so a killed worker's briefing is late by minutes, not River's default hour.
const rescueStuckJobsAfter = 2 * time.Minute

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
	// Sender delivers briefings; nil delivers email to the outbox and
	// webhooks to public addresses only, with links to delivery.DefaultBaseURL.
	Sender *Sender

	client *river.Client[pgx.Tx]
	kinds  []string // the job kinds this worker runs, for RunOnce's wait
	ticker *Ticker
	cron   *cron.Cron
	// stopTicks cuts off a tick still running when Stop's grace ends.
	stopTicks   context.CancelFunc
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
	workers := river.NewWorkers()
	addWorker(workers, &w.kinds, &generateWorker{db: w.DB, log: w.Log, now: w.now})
	addWorker(workers, &w.kinds, &pruneWorker{db: w.DB, log: w.Log, now: w.now})
	sender := w.sender()
	addWorker(workers, &w.kinds, &emailWorker{sender: sender})
	addWorker(workers, &w.kinds, &webhookWorker{sender: sender})
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
	w.ticker = &Ticker{DB: w.DB, Jobs: client, Log: w.Log, Metrics: w.Metrics}
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
	w.Log.Info("worker started", "concurrency", cmp.Or(w.Concurrency, 4), "job_retention", cmp.Or(w.JobRetention, DefaultJobRetention).String())
	return nil
}

func (w *Worker) startRiver(ctx context.Context, periodic bool) error {
	if err := w.build(periodic); err != nil {
		return err
	}
	// Subscribed before Start, so no outcome goes uncounted.
	events, cancel := w.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
	w.stopMetrics = cancel
	w.metricsDone = make(chan struct{})
	go func() {
		defer close(w.metricsDone)
		for ev := range events {
			w.Metrics.jobOutcome(ev)
		}
	}()
	if err := w.client.Start(ctx); err != nil {
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
	// Pending counts, by "kind/state", the jobs of the tick's briefings
	// still unfinished when RunOnce returned: each waits for a retry later
	// than its wait.
	Pending map[string]int
}

// RunOnce is `worker -once`: exactly one tick at now (which decides only
// which briefings are due: the jobs run on the real clock), then it works
// every available job, its own and any left behind, until every job of the
// briefings its tick fired (deliveries included, which generation inserts)
// is completed, discarded or cancelled, or waits for a retry later than wait
// from then. A job that failed is a result, not an error: it errs only when
// the infrastructure does.
func (w *Worker) RunOnce(ctx context.Context, now time.Time, wait time.Duration) (res OnceResult, err error) {
	if err := w.startRiver(ctx, false); err != nil {
		return res, err
	}
	defer func() {
		// Jobs still running here are left-behind ones: they get to finish.
		if serr := w.stopRiver(context.WithoutCancel(ctx)); serr != nil {
			err = errors.Join(err, serr)
		}
	}()
	w.ticker.WaitLock = true // -once must run its tick, after another replica's
	res.Tick, err = w.ticker.Tick(ctx, now)
	if err != nil {
		return res, err
	}
	for {
		open, err := w.openJobs(ctx, res.Tick.BriefingIDs, time.Now().Add(wait))
		if err != nil {
			return res, err
		}
		if open == 0 {
			break
		}
		if err := sleep(ctx, oncePoll); err != nil {
			return res, err
		}
	}
	res.Pending, err = w.pendingJobs(ctx, res.Tick.BriefingIDs)
	return res, err
}

// openJobsSQL counts what RunOnce still waits for: jobs of the briefings in
// $2 not finished and not waiting for a retry after $3, and any available
// job of our kinds (left behind by generate-now, a retry or a stopped
// worker). Queried again until quiet: a generation inserts its deliveries
// in the transaction that completes it, so none is ever missed in between.
const openJobsSQL = `
SELECT count(*) FROM river_job
 WHERE kind = ANY($1)
   AND (state = 'available'
        OR ((args->>'briefing_id')::bigint = ANY($2)
            AND state NOT IN ('completed', 'discarded', 'cancelled')
            AND NOT (state IN ('retryable', 'scheduled') AND scheduled_at > $3)))`

func (w *Worker) openJobs(ctx context.Context, briefingIDs []int64, horizon time.Time) (int, error) {
	var n int
	if err := w.DB.QueryRow(ctx, openJobsSQL, w.kinds, briefingIDs, horizon).Scan(&n); err != nil {
		return 0, fmt.Errorf("count open jobs: %w", err)
	}
	return n, nil
}

func (w *Worker) pendingJobs(ctx context.Context, briefingIDs []int64) (map[string]int, error) {
	rows, err := w.DB.Query(ctx, `
		SELECT kind || '/' || state::text, count(*) FROM river_job
		 WHERE kind = ANY($1) AND (args->>'briefing_id')::bigint = ANY($2)
		   AND state NOT IN ('completed', 'discarded', 'cancelled')
		 GROUP BY 1`, w.kinds, briefingIDs)
	if err != nil {
		return nil, fmt.Errorf("count pending jobs: %w", err)
	}
	pending := map[string]int{}
	var key string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&key, &n}, func() error {
		pending[key] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count pending jobs: %w", err)
	}
	return pending, nil
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
