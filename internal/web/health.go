package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"fieldbrief/internal/database"
)

// healthz answers while the process is up; it touches nothing else, so a
// database outage does not get healthy replicas restarted.
func (s *Server) healthz(c echo.Context) error { return c.String(http.StatusOK, "ok") }

// readyz answers 200 when the database answers, 503 otherwise, so a load
// balancer stops routing to a replica that cannot serve. Dead pooled
// connections alone do not make it unready (pingDatabase).
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.pingDatabase(ctx); err != nil {
		s.log.WarnContext(ctx, "readiness check failed", "error", err)
		return c.String(http.StatusServiceUnavailable, "database unreachable")
	}
	return c.String(http.StatusOK, "ok")
}

// metrics serves the default Prometheus registry: the request metrics
// registered in middleware.go plus Go runtime and process collectors.
func (s *Server) metrics(c echo.Context) error {
	metricsHandler.ServeHTTP(c.Response(), c.Request())
	return nil
}

// publicMetrics says whether the public listener serves /metrics: only in
// development without a metrics listener of its own, as the figures (routes,
// error rates, runtime) are for operators, not for the internet.
func (s *Server) publicMetrics() bool { return s.cfg.MetricsAddr == "" && !s.cfg.Production }

// MetricsHandler serves /metrics on the operators' listener (METRICS_ADDR).
func MetricsHandler() http.Handler { return metricsHandler }

var metricsHandler = promhttp.Handler()

// pingDatabase checks that the database answers, once more on a fresh
// connection when the pooled one turns out dead, so a replica whose old
// connections were ended is not reported unready while the server is fine.
func (s *Server) pingDatabase(ctx context.Context) error {
	err := s.db.Ping(ctx)
	if database.ConnectionLost(err) && ctx.Err() == nil {
		s.db.Reset()
		err = s.db.Ping(ctx)
	}
	return err
}
