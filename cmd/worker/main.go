// Command worker runs the daily briefing pipeline: a tick every minute that
// enqueues the briefings due (ADR-0024), and the job runner that generates
// them. Any number of replicas may run against one database. Every hour it
// also prunes dead sign-in sessions and old failed sign-ins.
//
//	worker                      # cron tick every minute + job runner, until SIGTERM
//	worker -once -now 2026-03-08T07:00:00Z   # one tick at that instant, run the due jobs, exit
//
// -once runs every due job, not only those its tick enqueued: "generate now"
// requests, retries whose backoff is over and jobs a stopped worker left
// behind are done too; then it waits until its own jobs have finished.
//
// On SIGTERM the running tick and jobs get -shutdown-timeout to finish; what
// is still running then is cut off and runs again when its lease expires.
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
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // the same zone rules in every container

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/robfig/cron/v3"

	"fieldbrief/internal/auth"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
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
	once := fs.Bool("once", false, "run one tick, run every due job (its own included) and wait until the jobs it enqueued finish, then exit")
	nowFlag := fs.String("now", "", "with -once: the instant the tick runs at, RFC 3339 (default: the current time)")
	concurrency := fs.Int("concurrency", 4, "generation jobs run at once; the database pool gets at least this + 3 connections")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus /metrics on this address, e.g. :9090 (off when empty)")
	grace := fs.Duration("shutdown-timeout", 30*time.Second, "on SIGTERM, how long the running tick and jobs may take to finish; then they are cut off and rerun when their leases expire")
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
	if *concurrency < 1 {
		return usageErr(errors.New("-concurrency must be at least 1"))
	}
	tickAt := time.Now()
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

	log := slog.New(slog.NewJSONHandler(stdout, nil))
	pool, err := database.Open(ctx, getenv("DATABASE_URL"), log, poolSize(*concurrency))
	if err != nil {
		return err
	}
	defer pool.Close()

	metrics := briefing.NewMetrics()
	if *metricsAddr != "" {
		stopMetrics, err := serveMetrics(*metricsAddr, metrics, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	ticker := &briefing.Ticker{DB: pool, Log: log, Metrics: metrics}
	runner := &briefing.Runner{DB: pool, Log: log, Metrics: metrics, Concurrency: *concurrency}

	if *once {
		// Leases and backoff follow the -now clock when it is ahead of the
		// real one, so a tick "in the future" doesn't leave its jobs waiting
		// for the real clock; never behind it, so a tick "in the past" can't
		// hand out leases that look expired to the replicas running now.
		started := time.Now()
		runner.Now = func() time.Time {
			now := time.Now()
			return later(now, tickAt.Add(now.Sub(started)))
		}
		ticker.WaitLock = true
		return runOnce(ctx, log, ticker, runner, tickAt)
	}
	return serve(ctx, log, pool, ticker, runner, *grace)
}

// poolSize makes room for every connection a worker uses at once: one per
// job, the tick's lock connection and its queries, and the hourly prune.
// Short of that, jobs and the tick queue for connections (pgxpool's default
// is max(4, CPUs)). A pool_max_conns in DATABASE_URL still wins.
func poolSize(concurrency int) database.Option {
	return database.MaxConnsAtLeast(concurrency + 3)
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, `Usage: worker [-once [-now INSTANT]] [flags]

Runs the daily briefing pipeline: a tick every minute that enqueues the
briefings due, and the jobs that generate them. Any number of replicas may
run against one database (DATABASE_URL, default %s).

-once runs every due job, its own and any left behind (generate-now requests,
retries, jobs of a stopped worker), and exits when its own have finished.

Flags:
`, database.DefaultURL)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// runOnce fails only when the infrastructure does: a briefing whose
// generation failed is a result, not an error.
func runOnce(ctx context.Context, log *slog.Logger, ticker *briefing.Ticker, runner *briefing.Runner, now time.Time) error {
	start := time.Now()
	res, err := ticker.Tick(ctx, now)
	if err != nil {
		return err
	}
	if err := runner.Drain(ctx); err != nil {
		return fmt.Errorf("run due briefing jobs: %w", err)
	}
	// Its own jobs may still be running on another replica, or waiting out a
	// retry's backoff.
	if err := runner.Wait(ctx, res.JobIDs); err != nil {
		return fmt.Errorf("wait for briefing jobs: %w", err)
	}
	log.Info("worker -once done", "now", now, "enqueued", res.Enqueued, "duration_ms", time.Since(start).Milliseconds())
	return nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// serve ticks at second 0 of every minute, prunes sign-in rows every hour
// and runs jobs until ctx ends, then lets the running tick and in-flight
// jobs finish within grace. When grace runs out it cuts them off, so that it
// returns with no connection in use and closing the pool does not wait out a
// lease. Work cut off is not lost: its job stays claimed until the lease
// expires, then another replica (or the next start) runs it again; a tick
// cut off enqueues nothing twice, and the next one catches up.
func serve(ctx context.Context, log *slog.Logger, db database.Querier, ticker *briefing.Ticker, runner *briefing.Runner, grace time.Duration) error {
	hard, cutOff := context.WithCancel(context.WithoutCancel(ctx))
	defer cutOff()
	c, err := startCron(hard, log, db, ticker)
	if err != nil {
		return err
	}
	runnerDone := make(chan struct{})
	go func() {
		runner.RunPending(ctx, hard)
		close(runnerDone)
	}()
	log.Info("worker started", "concurrency", runner.Concurrency)

	<-ctx.Done()
	log.Info("worker stopping", "grace", grace.String())
	cut := awaitStop(log, grace, cutOff, c.Stop().Done(), runnerDone)
	log.Info("worker stopped", "cut_off", cut)
	return nil
}

// awaitStop waits until every done channel is closed, calling cutOff when
// grace runs out first; it reports whether it had to.
func awaitStop(log *slog.Logger, grace time.Duration, cutOff func(), done ...<-chan struct{}) (cut bool) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for _, d := range done {
		select {
		case <-d:
		case <-timer.C:
			log.Warn("shutdown grace period over; cutting off the running tick and jobs, which run again when their leases expire")
			cutOff()
			cut = true
			<-d
		}
	}
	return cut
}

// startCron schedules the tick and the hourly prune, both on contexts from
// hard, so that a shutdown can cut them off.
func startCron(hard context.Context, log *slog.Logger, db database.Querier, ticker *briefing.Ticker) (*cron.Cron, error) {
	clog := cronLogger{log}
	c := cron.New(cron.WithLocation(time.UTC), cron.WithLogger(clog), cron.WithChain(cron.SkipIfStillRunning(clog)))
	if _, err := c.AddFunc("* * * * *", func() {
		ctx, cancel := context.WithTimeout(hard, 55*time.Second)
		defer cancel()
		_, _ = ticker.Tick(ctx, time.Now()) // Tick logs its outcome; the next minute retries
	}); err != nil {
		return nil, fmt.Errorf("schedule tick: %w", err)
	}
	// Every replica prunes: the deletes are idempotent, so doing it twice costs
	// nothing but a second scan.
	if _, err := c.AddFunc("@hourly", func() {
		ctx, cancel := context.WithTimeout(hard, 5*time.Minute)
		defer cancel()
		pruneAuth(ctx, log, db, time.Now())
	}); err != nil {
		return nil, fmt.Errorf("schedule auth prune: %w", err)
	}
	c.Start()
	return c, nil
}

// pruneAuth deletes dead sessions and old failed sign-ins and logs one line
// with the counts; a failure waits for the next hour.
func pruneAuth(ctx context.Context, log *slog.Logger, db database.Querier, now time.Time) {
	sessions, failures, err := auth.Prune(ctx, db, now)
	if err != nil {
		log.Error("auth prune failed", "error", err)
		return
	}
	log.Info("auth prune", "sessions_deleted", sessions, "login_failures_deleted", failures)
}

func serveMetrics(addr string, m *briefing.Metrics, log *slog.Logger) (stop func(), err error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.Collectors()...)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "error", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// cronLogger sends cron's messages to slog; its routine ones are debug noise.
type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Debug("cron: "+msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("cron: "+msg, append(kv, "error", err)...)
}
