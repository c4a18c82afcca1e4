// Command worker runs the daily briefing pipeline: a tick every minute that
// enqueues the briefings due (ADR-0024), and the job runner that generates
// them. Any number of replicas may run against one database.
//
//	worker                      # cron tick every minute + job runner, until SIGTERM
//	worker -once -now 2026-03-08T07:00:00Z   # one tick at that instant, wait for its jobs, exit
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

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/database"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stdout)
	once := fs.Bool("once", false, "run one tick, wait until the jobs it enqueued finish, and exit")
	nowFlag := fs.String("now", "", "with -once: the instant the tick runs at, RFC 3339 (default: the current time)")
	concurrency := fs.Int("concurrency", 4, "generation jobs run at once")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus /metrics on this address, e.g. :9090 (off when empty)")
	grace := fs.Duration("shutdown-timeout", 30*time.Second, "on SIGTERM, how long the running tick and jobs may take to finish")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *concurrency < 1 {
		return errors.New("-concurrency must be at least 1")
	}
	tickAt := time.Now()
	if *nowFlag != "" {
		if !*once {
			return errors.New("-now needs -once")
		}
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return fmt.Errorf("-now: %w", err)
		}
		tickAt = t
	}

	log := slog.New(slog.NewJSONHandler(stdout, nil))
	url := getenv("DATABASE_URL")
	if url == "" {
		url = database.DefaultURL
	}
	pool, err := database.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := database.Migrate(ctx, pool, log); err != nil {
		return err
	}

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
		// Leases and backoff follow the -now clock, so a tick "in the
		// future" doesn't leave its jobs waiting for the real clock.
		started := time.Now()
		runner.Now = func() time.Time { return tickAt.Add(time.Since(started)) }
		ticker.WaitLock = true
		return runOnce(ctx, log, ticker, runner, tickAt)
	}
	return serve(ctx, log, ticker, runner, *grace)
}

// runOnce fails only when the infrastructure does: a briefing whose
// generation failed is a result, not an error.
func runOnce(ctx context.Context, log *slog.Logger, ticker *briefing.Ticker, runner *briefing.Runner, now time.Time) error {
	start := time.Now()
	res, err := ticker.Tick(ctx, now)
	if err != nil {
		return err
	}
	if err := runner.Wait(ctx, res.JobIDs); err != nil {
		return fmt.Errorf("wait for briefing jobs: %w", err)
	}
	log.Info("worker -once done", "now", now, "enqueued", res.Enqueued, "duration_ms", time.Since(start).Milliseconds())
	return nil
}

// serve ticks at second 0 of every minute and runs jobs until ctx ends, then
// lets the running tick and in-flight jobs finish within grace. Work cut off
// by the deadline is not lost: its job's lease expires and another replica
// (or the next start) runs it again.
func serve(ctx context.Context, log *slog.Logger, ticker *briefing.Ticker, runner *briefing.Runner, grace time.Duration) error {
	clog := cronLogger{log}
	c := cron.New(cron.WithLocation(time.UTC), cron.WithLogger(clog), cron.WithChain(cron.SkipIfStillRunning(clog)))
	tickCtx := context.WithoutCancel(ctx) // a tick under way at shutdown completes
	if _, err := c.AddFunc("* * * * *", func() {
		ctx, cancel := context.WithTimeout(tickCtx, 55*time.Second)
		defer cancel()
		_, _ = ticker.Tick(ctx, time.Now()) // Tick logs its outcome; the next minute retries
	}); err != nil {
		return fmt.Errorf("schedule tick: %w", err)
	}
	c.Start()
	runnerDone := make(chan struct{})
	go func() {
		runner.RunPending(ctx)
		close(runnerDone)
	}()
	log.Info("worker started", "concurrency", runner.Concurrency)

	<-ctx.Done()
	log.Info("worker stopping", "grace", grace)
	deadline := time.After(grace)
	finished := func(name string, done <-chan struct{}) bool {
		select {
		case <-done:
			return true
		case <-deadline:
			log.Warn("shutdown grace period over; unfinished work will be retried", "waiting_for", name)
			return false
		}
	}
	if finished("tick", c.Stop().Done()) && finished("jobs", runnerDone) {
		log.Info("worker stopped")
	}
	return nil
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
