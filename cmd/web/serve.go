package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"time"

	"fieldbrief/internal/config"
	"fieldbrief/internal/database"
	"fieldbrief/internal/metrics"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/web"
)

// shutdownGrace is how long in-flight requests get after SIGTERM; below the
// usual 30 s an orchestrator waits before it kills.
const shutdownGrace = 20 * time.Second

func serveCommand(fs *flag.FlagSet, getenv func(string) string) action {
	addr := fs.String("addr", config.Addr(getenv), "listen address, host:port (env ADDR, or :$PORT)")
	return func(ctx context.Context, a *app) error {
		cfg, err := config.LoadWeb(getenv) // bad configuration fails before touching the database
		if err != nil {
			return fmt.Errorf("configuration: %w", err)
		}
		if cfg.BaseURL == "" {
			cfg.BaseURL = config.BaseURLFor(*addr)
		}
		for _, w := range cfg.Warnings {
			a.log.Warn("configuration", "warning", w)
		}
		pool, err := a.openWeb(ctx, webPoolSize())
		if err != nil {
			return err
		}
		defer pool.Close()
		srv, err := web.New(cfg, pool, a.log) // admits as many requests at once as the pool has connections, unless WEB_MAX_IN_FLIGHT says otherwise
		if err != nil {
			return err
		}
		if u := config.DatabaseReplicaURL(getenv); u != "" {
			// The replica pool is sized like the primary's: a page holds one
			// connection, on one or the other. Not pinged: a replica that is
			// down at start is one the pages fall back from (replica.go).
			replica, err := database.ConnectLazy(u, webPoolSize())
			if err != nil {
				return fmt.Errorf("DATABASE_REPLICA_URL: %w", err)
			}
			defer replica.Close()
			srv.UseReplica(replica)
			a.log.Info("read replica", "max_lag", cfg.ReplicaMaxLag.String(), "read_your_writes", cfg.ReadYourWrites.String())
		}
		a.log.Info("admission", "max_in_flight", srv.MaxInFlight(), "pool_max_conns", pool.Config().MaxConns)
		if cfg.MetricsAddr != "" {
			// The operators' own address (METRICS_ADDR), never the public one.
			stop, err := metrics.Listen(cfg.MetricsAddr, web.MetricsHandler(), a.log)
			if err != nil {
				return err
			}
			defer stop()
		}
		return serveHTTP(ctx, a.log, *addr, srv)
	}
}

// webPoolSize gives the web two connections per core (at least pgx's
// default, max(4, CPUs)): a page spends part of its time waiting on
// PostgreSQL, so two requests per core keep the cores busy, and since the
// admission limit defaults to the pool's size, a request never waits for a
// connection (docs/web.md, "Web under load"). pool_max_conns in
// DATABASE_URL wins.
func webPoolSize() database.Option { return database.MaxConnsAtLeast(2 * runtime.GOMAXPROCS(0)) }

// serveHTTP serves until ctx ends, then stops accepting connections and
// gives in-flight requests shutdownGrace to finish.
func serveHTTP(ctx context.Context, log *slog.Logger, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	rules := schedule.CurrentZoneRules()
	log.Info("listening", "addr", ln.Addr().String(),
		"zone_rules", rules.String(), "tzdata", rules.Version, "tz_source", rules.Source)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}
