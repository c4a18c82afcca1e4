// Command worker runs the background pipeline (docs/architecture.md): a
// tick every minute that enqueues the briefings due, the River tasks that
// generate them, and the hourly auth prune. Any number of replicas may run
// against one database. It is wiring only: the pipeline is worker.Worker.
//
//	worker                      # tick every minute + River tasks, until SIGTERM
//	worker -once -now 2026-03-08T07:00:00Z   # one tick at that instant, run the tasks, exit
//
// -once runs exactly one tick at -now (which decides only which briefings
// are due; tasks run on the real clock), works every available task, its own
// and any left behind, and exits 0 once every task it enqueued is finished
// or waits for a retry later than -wait (a task a killed worker left running
// counts as waiting for River's rescue); its last log line says what is
// still pending, as a warning naming each task when anything is.
//
// On SIGTERM running tasks get -shutdown-timeout to finish; then they are
// cancelled, and River retries them (here after a restart, or on another
// replica).
//
// It exits 2 for a mistake on the command line, 1 when the infrastructure
// fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"
	_ "time/tzdata" // harmless; zones are loaded from schedule's own embedded rules (TZ_SOURCE)

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"fieldbrief/internal/config"
	"fieldbrief/internal/database"
	"fieldbrief/internal/delivery"
	fbmetrics "fieldbrief/internal/metrics"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tick"
	"fieldbrief/internal/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		if errors.As(err, new(*usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake on the command line: main exits 2 for it.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// run is the whole program with its surroundings passed in, so tests start
// it for real. Logs go to stdout; usage after a command-line mistake to stderr.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // we print errors and usage ourselves, once
	once := fs.Bool("once", false, "run one tick, work every available task (its own included) and wait until the tasks it enqueued finish or wait longer than -wait for a retry, then exit")
	nowFlag := fs.String("now", "", "with -once: the instant the tick decides at, RFC 3339 (default: the database's clock)")
	workers := worker.DefaultConcurrency
	fs.IntVar(&workers, "workers", workers, fmt.Sprintf("tasks run at once in this replica, 1..%d (default from WORKERS when set); the database pool gets at least this + %d connections", maxWorkers, poolExtra))
	fs.IntVar(&workers, "concurrency", workers, "the same as -workers (its older name)")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus /metrics on this address, e.g. :9090 (off when empty)")
	grace := fs.Duration("shutdown-timeout", 30*time.Second, "on SIGTERM, how long the running tick and tasks may take to finish; then tasks are cancelled and River retries them")
	wait := fs.Duration("wait", 2*time.Minute, "with -once: do not wait for a task whose next retry is further away than this")
	retention := fs.Duration("job-retention", worker.DefaultTaskRetention, "how long River keeps finished tasks (the briefing page's attempt history is kept regardless)")
	fullScanEvery := fs.Duration("full-scan-every", tick.DefaultFullScanEvery, "how often a tick reads every org instead of only those whose next-fire hint has come, and checks the hints (the first tick, and -once, always do)")
	usageErr := func(err error) error {
		usage(stderr, fs)
		return &usageError{err}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return nil
		}
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	n, set, err := config.Workers(getenv)
	if err != nil {
		return usageErr(err)
	}
	if set && !isSet(fs, "workers", "concurrency") {
		workers = n
	}
	if workers < 1 || workers > maxWorkers {
		return usageErr(fmt.Errorf("-workers (or WORKERS) must be between 1 and %d, not %d: each one holds a database connection while it runs", maxWorkers, workers))
	}
	if *wait < 0 {
		return usageErr(errors.New("-wait must not be negative"))
	}
	if *retention <= 0 {
		return usageErr(errors.New("-job-retention must be positive"))
	}
	if *fullScanEvery < time.Minute {
		return usageErr(errors.New("-full-scan-every must be at least 1m"))
	}
	// The tick's instant only (River schedules tasks on the real clock);
	// zero: the database's clock, as every tick of a long-running worker
	// (docs/scheduling.md, "One clock").
	var tickAt time.Time
	if *nowFlag != "" {
		if !*once {
			return usageErr(errors.New("-now needs -once"))
		}
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return usageErr(fmt.Errorf("-now: %w", err))
		}
		tickAt = t
	}

	settings, err := config.Delivery(getenv)
	if err != nil {
		return fmt.Errorf("delivery settings: %w", err)
	}
	updateDelay, err := config.UpdateDelay(getenv)
	if err != nil {
		return err
	}
	historyRetention, err := config.HistoryRetention(getenv)
	if err != nil {
		return err
	}
	rules, err := config.ZoneRules(getenv)
	if err != nil {
		return fmt.Errorf("zone rules: %w", err)
	}
	schedule.UseZoneRules(rules)
	log := slog.New(slog.NewJSONHandler(stdout, nil))
	log.Info("worker starting", "zone_rules", rules.String(), "tzdata", rules.Version, "tz_source", rules.Source)
	pool, err := database.Open(ctx, config.DatabaseURL(getenv), log, poolSize(workers), database.NoJIT())
	if err != nil {
		return err
	}
	defer pool.Close()
	log.Info("river workers", "workers", workers, "pool_max_conns", pool.Config().MaxConns)
	if max := int(pool.Config().MaxConns); max < workers+poolExtra {
		log.Warn("pool_max_conns in DATABASE_URL is below -workers + the tick's and River's own connections: tasks will wait for connections",
			"pool_max_conns", max, "workers", workers, "wanted", workers+poolExtra)
	}

	metrics := worker.NewMetrics()
	if *metricsAddr != "" {
		stopMetrics, err := fbmetrics.Listen(*metricsAddr, metricsHandler(metrics), log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	sender, err := delivery.NewSender(pool, settings, log)
	if err != nil {
		return err
	}
	production, err := config.IsProduction(getenv)
	if err != nil {
		return usageErr(err)
	}
	if production && settings.SMTPURL == "" {
		log.Warn("FIELDBRIEF_ENV=production without SMTP_URL: briefing emails are kept in the outbox, account emails (invites, password resets) are refused")
	}
	w := &worker.Worker{DB: pool, Log: log, Metrics: metrics, Concurrency: workers, TaskRetention: *retention, FullScanEvery: *fullScanEvery, Sender: sender,
		UpdateDelay: updateDelay, Production: production, HistoryRetention: historyRetention}
	log.Info("delivery", "smtp", settings.SMTPURL != "", "outbox", settings.SMTPURL == "",
		"base_url", sender.BaseURL, "allow_private_webhooks", settings.AllowPrivateWebhooks, "update_delay", updateDelay.String())
	if *once {
		return runOnce(ctx, log, w, tickAt, *wait)
	}
	return serve(ctx, log, w, *grace)
}

const (
	// maxWorkers bounds -workers: each running task holds a connection, and
	// PostgreSQL's default max_connections is 100 for every replica and web.
	maxWorkers = 64
	// poolExtra is the connections a worker needs beside its tasks' (poolSize).
	poolExtra = 5
)

// poolSize makes room for every connection a worker uses at once: one per
// task, and poolExtra more for the tick's lock connection and its queries
// and River's own (its LISTEN connection, its fetches, completions and
// maintenance). Short of that, tasks and the tick queue for connections
// (pgxpool's default is max(4, CPUs)). A pool_max_conns in DATABASE_URL
// still wins (run warns when it is smaller).
func poolSize(workers int) database.Option {
	return database.MaxConnsAtLeast(workers + poolExtra)
}

// isSet reports whether any of the named flags was given on the command line.
func isSet(fs *flag.FlagSet, names ...string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || slices.Contains(names, f.Name) })
	return set
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, `Usage: worker [-once [-now INSTANT]] [flags]

Runs the daily briefing pipeline: a tick every minute that enqueues the
briefings due, and the tasks that generate them. Any number of replicas may
run against one database (DATABASE_URL, default %s).
Zones are decided with the rules TZ_SOURCE names: embedded (built in, the
same on every host; the default) or host (the host's zoneinfo).

-once runs one tick, works every available task, its own and any left behind
(generate-now requests, retries, tasks of a stopped worker), and exits when
every task of the briefings it fired has finished or waits for a retry later
than -wait.

Flags:
`, database.DefaultURL)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// runOnce fails only when the infrastructure does: a briefing whose
// generation failed is a result, not an error. Its last log line says what
// is still pending; with work unfinished (a retry later than -wait, a task
// left running by a killed worker whose rescue is later than -wait) it is
// a warning naming each task and what it waits for, never a clean "done".
func runOnce(ctx context.Context, log *slog.Logger, w *worker.Worker, now time.Time, wait time.Duration) error {
	start := time.Now()
	res, err := w.RunOnce(ctx, now, wait)
	if err != nil {
		log.Error("worker -once failed", "now", res.Tick.Now, "enqueued", res.Tick.Enqueued, "error", err,
			"duration_ms", time.Since(start).Milliseconds())
		return fmt.Errorf("worker -once: %w", err)
	}
	attrs := []any{"now", res.Tick.Now, "enqueued", res.Tick.Enqueued, "pending", res.Pending, "all_done", res.Done(),
		"duration_ms", time.Since(start).Milliseconds()}
	if res.Done() {
		log.Info("worker -once done", attrs...)
		return nil
	}
	log.Warn("worker -once done", append(attrs, "stalled", res.Stalled, "waiting", res.Waiting)...)
	return nil
}

// serve runs the worker until ctx ends, then stops it within grace.
func serve(ctx context.Context, log *slog.Logger, w *worker.Worker, grace time.Duration) error {
	if err := w.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("worker stopping", "grace", grace.String())
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	if err := w.Stop(stopCtx); err != nil {
		return err
	}
	log.Info("worker stopped")
	return nil
}

// metricsHandler serves the pipeline's collectors and the process's own.
func metricsHandler(m *worker.Metrics) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.Collectors()...)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
