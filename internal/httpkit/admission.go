// Package httpkit is the HTTP infrastructure the pages (internal/web) and
// the JSON API (internal/api) share, apart from their handlers: admission
// under overload, the bounds on a request's database work, a lost
// connection's retry, CSRF protection, per-client rate limiters and the
// one mapping of errors to HTTP statuses. internal/web puts them in order
// (routes.go).
package httpkit

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"golang.org/x/sync/semaphore"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Defaults of the admission limit (docs/web.md, "Web under load").
// In flight defaults to the pool's connection count (New), since each
// request holds at most one connection at a time.
const (
	DefaultQueuePerSlot = 4                     // requests waiting per in-flight slot
	DefaultQueueWait    = 50 * time.Millisecond // longest a request waits for a slot: the p99 a page may take under overload
)

// Why a request was turned away: the label values of fieldbrief_http_shed_total.
const (
	shedQueueFull = "queue_full" // every slot taken and the queue full: refused at once
	shedWaited    = "waited"     // waited the queue's limit for a slot
	shedGone      = "client_gone"
	shedDBBusy    = "db_busy" // admitted, but no pooled connection came within WEB_POOL_WAIT
)

var (
	httpShed = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "fieldbrief_http_shed_total",
		Help: "Requests answered 503 because the server was at its admission limit, by reason.",
	}, []string{"reason"})
	httpInFlight = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "fieldbrief_http_in_flight", Help: "Requests being served now (admitted past the admission limit).",
	})
)

// ErrOverloaded is the 503 a shed request gets (HTML for pages, JSON under
// /api, text for htmx: internal/web/errors.go), with Retry-After.
var ErrOverloaded = apperr.Errorf(apperr.Unavailable,
	"The server is busy right now. Try again in a moment.")

// Admission bounds the requests served at once: up to slots run, up to
// queue more wait at most wait for a slot, and everyone else gets a 503 at
// once. So a burst beyond what the cores and the pool can serve costs a
// few microseconds per excess request, not memory and latency for all
// (without it, the settings page queued for seconds and memory grew without
// bound: docs/benchmarks.md, "Web under load"). The semaphore is golang.org/x/sync's (FIFO,
// context-aware); the queue's length is counted here, since the semaphore
// has no bound of its own on waiters.
type Admission struct {
	sem     *semaphore.Weighted
	slots   int
	waiting atomic.Int64 // requests in the queue
	running atomic.Int64 // requests holding a slot
	queue   int64
	wait    time.Duration
}

// NewAdmission lets slots requests run at once and queue more wait at most
// wait for a slot.
func NewAdmission(slots, queue int, wait time.Duration) *Admission {
	return &Admission{sem: semaphore.NewWeighted(int64(slots)), slots: slots, queue: int64(queue), wait: wait}
}

// acquire takes a slot, or says why not (a shed reason).
func (a *Admission) acquire(ctx context.Context) (reason string) {
	if a.sem.TryAcquire(1) {
		return ""
	}
	if a.waiting.Add(1) > a.queue {
		a.waiting.Add(-1)
		return shedQueueFull
	}
	defer a.waiting.Add(-1)
	wctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	if err := a.sem.Acquire(wctx, 1); err != nil {
		if ctx.Err() != nil {
			return shedGone
		}
		return shedWaited
	}
	return ""
}

func (a *Admission) release() { a.sem.Release(1) }

// Admit applies the admission limit to every request but those exempt
// says go straight through (probes and static files, cheap and needed while
// the pages are saturated). A request admitted but then unable to get a
// database connection in time (database.ErrBusy) gets the same 503.
func (a *Admission) Admit(exempt func(echo.Context) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if exempt(c) {
				return next(c)
			}
			if reason := a.acquire(c.Request().Context()); reason != "" {
				return shed(c, reason)
			}
			httpInFlight.Inc()
			a.running.Add(1)
			defer func() {
				a.running.Add(-1)
				httpInFlight.Dec()
				a.release()
			}()
			err := next(c)
			if errors.Is(err, database.ErrBusy) && !c.Response().Committed {
				return shed(c, shedDBBusy)
			}
			return err
		}
	}
}

// shed counts a turned-away request and answers 503 with Retry-After.
func shed(c echo.Context, reason string) error {
	httpShed.WithLabelValues(reason).Inc()
	c.Response().Header().Set("Retry-After", strconv.Itoa(1))
	return ErrOverloaded
}
