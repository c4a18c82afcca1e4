// Package worker is the worker process's host: the River client and its
// configuration, every task handler registered (generation, deliveries,
// technicians' updates, account emails, the auth prune), the tick every
// minute, and RunOnce for `worker -once`. cmd/worker is its wiring; tests
// start it for real.
package worker

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
	"github.com/riverqueue/river/rivertype"
	"github.com/robfig/cron/v3"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/auth"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/history"
	"fieldbrief/internal/tick"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/webhooks"
)

// DefaultTaskRetention is how long River keeps finished tasks (completed,
// discarded, cancelled). Our own history (ff_briefing_runs) is kept
// regardless.
const DefaultTaskRetention = 30 * 24 * time.Hour

// DefaultConcurrency is how many tasks a worker runs at once. A generation
// is a handful of round trips and a delivery mostly waits on the network,
// so several tasks a core keep both the worker and PostgreSQL busy
// (docs/scheduling.md, "Burst"; the figures at 8 and 16 are in
// docs/benchmarks.md, "Burst").
const DefaultConcurrency = 16

// taskTimeout bounds an attempt of a task without a timeout of its own.
const taskTimeout = time.Minute

// rescueStuckJobsAfter is when River's rescuer takes back a task still
// "running" whose worker was killed (no graceful stop): it is retried, or
// discarded when out of attempts. It is the backstop: the lifeline
// (lifeline.go) gives a registered worker's tasks back within
// lifelineSilence + heartbeatEvery + lifelineReapEvery of its last
// heartbeat, since River's rescuer goes by the attempt's age alone
// (docs/worker.md, "Crashes and shutdown"). It
// exceeds every kind's timeout (the longest is a minute, plus the 5 s a
// failing task takes to record its failure), so a live task is never
// rescued by it (River's rescuer also leaves alone a task younger than its
// own timeout).
const rescueStuckJobsAfter = 75 * time.Second

// rescueWithin is how long after its attempt began a task left running by a
// dead worker is available again at the latest, whoever gives it back:
// rescueStuckJobsAfter, plus the rescuer's interval (River's default, 30 s),
// plus a dead leader's term running out before another replica's rescuer
// starts (River's elect interval and TTL padding, 15 s). -once waits for
// such a task when this falls within -wait (docs/worker.md, "Crashes
// and shutdown"); the lifeline usually returns it much sooner.
const rescueWithin = rescueStuckJobsAfter + 30*time.Second + 15*time.Second

// stopAndCancelTimeout bounds the wait, after Stop's grace period, for the
// cancelled tasks to return.
const stopAndCancelTimeout = 10 * time.Second

// fetchCooldown is the shortest time between River's fetches of new tasks.
const fetchCooldown = 10 * time.Millisecond

// oncePoll is how often RunOnce looks whether its tasks are done.
const oncePoll = 100 * time.Millisecond

// Worker runs the whole background pipeline of one process: River (its
// queue, the task handlers, retention, the hourly auth prune as a periodic
// task) and the tick every minute. cmd/worker is its wiring; tests start it
// for real.
type Worker struct {
	DB      *pgxpool.Pool
	Log     *slog.Logger // required
	Metrics *Metrics     // optional

	// Now, when set, overrides the tick's clock and is the tasks' clock
	// (tests' fake clocks; worker -once -now passes its instant to
	// RunOnce). Nil: the tick decides at the database's clock
	// (tick.Ticker.DatabaseNow; docs/scheduling.md, "One clock") and
	// the tasks use Host.
	Now func() time.Time
	// Host is the host's clock: the tasks' when Now is nil, and what the
	// database's clock is measured against (fieldbrief_clock_skew_seconds).
	// Default time.Now.
	Host          func() time.Time
	Concurrency   int           // tasks run at once; default DefaultConcurrency
	TaskRetention time.Duration // how long River keeps finished tasks; default DefaultTaskRetention
	// HistoryRetention is how long the history tables keep their months
	// (HISTORY_RETENTION); default history.DefaultRetention.
	HistoryRetention time.Duration
	// RetryPolicy schedules a failed task's next attempt; nil is River's
	// default (attempt⁴ seconds), which the tasks' attempt budgets are
	// made for.
	RetryPolicy river.ClientRetryPolicy
	// FullScanEvery is how often the tick reads every org and checks the
	// next-fire hints (the safety net); default DefaultFullScanEvery. The
	// first tick of a process always does.
	FullScanEvery time.Duration
	// Sender delivers briefings; nil delivers email to the outbox and
	// webhooks to public addresses only, with links to transport.DefaultBaseURL.
	Sender *delivery.Sender
	// Production (FIELDBRIEF_ENV=production) refuses account emails
	// (invites, password resets) when Sender has no SMTP server, rather
	// than keep them in the staff-readable outbox (accounts.EmailHandler).
	Production bool
	// UpdateDelay is the quiet time before a technician's update is sent
	// (BRIEFING_UPDATE_DELAY); 0 is updates.DefaultDelay.
	UpdateDelay time.Duration

	client *river.Client[pgx.Tx]
	// clientID is this process's River client ID, kept across restarts of
	// the client: its heartbeat row's key (lifeline.go).
	clientID     string
	stopLifeline context.CancelFunc
	lifelineDone chan struct{}
	kinds        []string // the task kinds this worker runs, for RunOnce's wait
	// working holds the tasks this process works until River records their
	// outcome: RunOnce waits for them whatever -wait says.
	working inFlight
	ticker  *tick.Ticker
	cron    *cron.Cron
	// stopTicks cuts off a tick still running when Stop's grace ends.
	stopTicks   context.CancelFunc
	stopEvents  context.CancelFunc // ends dispatchEvents
	eventsDone  chan struct{}
	stopWatch   context.CancelFunc // ends watchRiver
	watchDone   chan struct{}
	metricsDone chan struct{}
	stopMetrics func()
}

func (w *Worker) sender() *delivery.Sender {
	s := w.Sender
	if s == nil {
		// The zero settings cannot fail: no SMTP_URL means the outbox.
		s, _ = delivery.NewSender(w.DB, transport.Settings{}, w.Log)
	}
	if s.DB == nil {
		s.DB = w.DB
	}
	if s.Log == nil {
		s.Log = w.Log
	}
	if s.Metrics == nil {
		s.Metrics = w.Metrics.delivery()
	}
	if s.Now == nil {
		s.Now = w.Now
	}
	return s
}

// now is the tasks' clock: Now, else the host's.
func (w *Worker) now() time.Time {
	if w.Now == nil {
		return w.host()
	}
	return w.Now()
}

func (w *Worker) host() time.Time {
	if w.Host == nil {
		return time.Now()
	}
	return w.Host()
}

// tickNow is the instant a tick decides at: Now when set, else the
// database's clock, the same for every replica whatever its host's says
// (docs/scheduling.md, "One clock").
func (w *Worker) tickNow(ctx context.Context) (time.Time, error) {
	if w.Now != nil {
		return w.Now(), nil
	}
	return w.ticker.DatabaseNow(ctx, w.host)
}

// build creates the River client with every task handler registered, and
// with the periodic tasks unless it is for RunOnce (one tick, nothing else
// scheduled).
func (w *Worker) build(periodic bool) error {
	w.kinds = nil
	handlers := river.NewWorkers()
	register(handlers, &w.kinds, &briefing.GenerateHandler{DB: w.DB, Log: w.Log, Now: w.now})
	register(handlers, &w.kinds, &auth.PruneHandler{DB: w.DB, Log: w.Log, Now: w.now})
	register(handlers, &w.kinds, &history.RetainHandler{DB: w.DB, Log: w.Log, Now: w.Now, Retention: w.HistoryRetention,
		Dropped: w.Metrics.historyDropped})
	sender := w.sender()
	register(handlers, &w.kinds, &delivery.SendEmailHandler{Sender: sender})
	register(handlers, &w.kinds, &delivery.CallWebhookHandler{Sender: sender})
	register(handlers, &w.kinds, &webhooks.DeliverHandler{DB: w.DB, Client: sender.Webhooks, Log: w.Log, Now: w.now})
	register(handlers, &w.kinds, &delivery.UpdateHandler{DB: w.DB, Log: w.Log, Now: w.now, Delay: w.UpdateDelay})
	register(handlers, &w.kinds, &accounts.EmailHandler{DB: w.DB, Mailer: sender.Mailer, From: sender.From, BaseURL: sender.BaseURL, Log: w.Log, Now: w.now,
		Production: w.Production})
	retention := cmp.Or(w.TaskRetention, DefaultTaskRetention)
	if w.clientID == "" {
		w.clientID = newClientID()
	}
	cfg := &river.Config{
		ID:                          w.clientID, // whose attempt a task is: the lifeline's key
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cmp.Or(w.Concurrency, DefaultConcurrency)}},
		Workers:                     handlers,
		Logger:                      w.Log,
		CompletedJobRetentionPeriod: retention,
		DiscardedJobRetentionPeriod: retention,
		CancelledJobRetentionPeriod: retention,
		RescueStuckJobsAfter:        rescueStuckJobsAfter,
		JobTimeout:                  taskTimeout, // kinds without their own Timeout
		Middleware:                  []rivertype.Middleware{&w.working},
		RetryPolicy:                 w.RetryPolicy, // nil: River's default
		// River's default 100 ms between fetches caps throughput at
		// Concurrency tasks per 100 ms, well under what a burst
		// of short delivery tasks needs; fetches happen this often only while
		// tasks keep finishing (BenchmarkDeliveryBurst).
		FetchCooldown: fetchCooldown,
	}
	if periodic {
		sched, err := cron.ParseStandard(auth.PruneSchedule)
		if err != nil {
			return fmt.Errorf("auth prune schedule: %w", err)
		}
		daily, err := cron.ParseStandard(history.RetainSchedule)
		if err != nil {
			return fmt.Errorf("history retention schedule: %w", err)
		}
		cfg.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(sched,
				func() (river.JobArgs, *river.InsertOpts) { return auth.PruneArgs{}, nil }, &river.PeriodicJobOpts{ID: "prune_auth"}),
			// docs/operations.md, "History retention".
			river.NewPeriodicJob(daily,
				func() (river.JobArgs, *river.InsertOpts) { return history.RetainArgs{}, nil }, &river.PeriodicJobOpts{ID: "history_retention"}),
		}
	}
	client, err := river.NewClient(riverpgxv5.New(w.DB), cfg)
	if err != nil {
		return fmt.Errorf("river client: %w", err)
	}
	w.client = client
	if w.ticker == nil { // a restarted client (watchRiver) keeps the first one's ticker and its memo
		w.ticker = &tick.Ticker{DB: w.DB, Log: w.Log, Metrics: w.Metrics.tick(), FullScanEvery: w.FullScanEvery}
	}
	return nil
}

// register adds a task's handler and notes its kind.
func register[T river.JobArgs](handlers *river.Workers, kinds *[]string, handler river.Worker[T]) {
	river.AddWorker(handlers, handler)
	var args T
	*kinds = append(*kinds, args.Kind())
}

// Start starts River and the tick at second 0 of every minute of the
// host's clock; each tick decides at the database's clock (or Now). It
// returns once both run.
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
		now, err := w.tickNow(ctx)
		if err != nil {
			return // DatabaseNow logged and counted it; the next minute retries
		}
		_, _ = w.ticker.Tick(ctx, now) // Tick logs its outcome; the next minute retries
	}); err != nil {
		return errors.Join(fmt.Errorf("schedule tick: %w", err), w.stopRiver(ctx))
	}
	w.cron.Start()
	eventsCtx, stopEvents := context.WithCancel(context.WithoutCancel(ctx))
	w.stopEvents, w.eventsDone = stopEvents, make(chan struct{})
	go w.dispatchEvents(eventsCtx)
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	w.stopWatch, w.watchDone = stopWatch, make(chan struct{})
	go w.watchRiver(watchCtx, ctx)
	w.Log.Info("worker started", "concurrency", cmp.Or(w.Concurrency, DefaultConcurrency), "task_retention", cmp.Or(w.TaskRetention, DefaultTaskRetention).String())
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
				w.Metrics.taskOutcome(ev)
			}
		}
	}()
	// Registered before River fetches anything: every task this process
	// attempts names a client the lifeline knows.
	if err := database.RetryTransient(ctx, w.Log, "register worker", func(ctx context.Context) error {
		return w.heartbeat(ctx, w.DB)
	}); err != nil {
		cancel()
		return fmt.Errorf("register worker %s: %w", w.clientID, err)
	}
	lifeCtx, stopLifeline := context.WithCancel(context.WithoutCancel(ctx))
	w.stopLifeline, w.lifelineDone = stopLifeline, make(chan struct{})
	go w.lifeline(lifeCtx, w.lifelineDone)
	// Start checks the schema first: a lost connection fails it before
	// anything runs. Start keeps the context it is given for the client's
	// life, so every attempt gets ctx itself, not RetryTransient's. River
	// stops hard (running tasks cancelled) when that context ends, so a
	// serving worker gives it one that does not: its stop is Stop's, with
	// the grace period (cmd/worker's SIGTERM had cancelled the emails in
	// flight at once, grace or not). -once keeps the hard stop on ctx.
	riverCtx := ctx
	if periodic {
		riverCtx = context.WithoutCancel(ctx)
	}
	err := database.RetryTransient(ctx, w.Log, "start river", func(context.Context) error { return w.client.Start(riverCtx) })
	if err != nil {
		cancel()
		w.endLifeline(ctx)
		return fmt.Errorf("start river: %w", err)
	}
	return nil
}

// endLifeline stops the heartbeats and removes this process's row.
func (w *Worker) endLifeline(ctx context.Context) {
	w.stopLifeline()
	<-w.lifelineDone
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	w.unregister(uctx)
}

// Stop stops the tick and River. Tasks running get until ctx ends to finish
// (River's Stop); then they are cancelled (StopAndCancel): a generation
// records a "retry" run in our history, and River makes the task available
// again at once without counting the attempt, for another replica or the
// next start. A task whose process dies without either is given back by
// another process's lifeline once the heartbeats have stopped for
// lifelineSilence (River's rescuer, after rescueStuckJobsAfter, is the
// backstop). A clean stop removes this process's heartbeat row.
func (w *Worker) Stop(ctx context.Context) error {
	if w.stopEvents != nil {
		w.stopEvents()
		<-w.eventsDone
	}
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
		w.Log.Warn("shutdown grace period over; cancelling the running tasks, which River makes available again")
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopAndCancelTimeout)
		defer cancel()
		err = w.client.StopAndCancel(cctx)
	}
	w.stopMetrics()
	<-w.metricsDone
	if err == nil {
		// Stopped cleanly: no task of ours is left running. After a failed
		// stop the row stays, and the lifeline of another process gives
		// back what is left once the heartbeats have stopped.
		w.endLifeline(ctx)
	} else {
		w.stopLifeline()
		<-w.lifelineDone
	}
	if err != nil {
		return fmt.Errorf("stop river: %w", err)
	}
	return nil
}
