package httpkit

import (
	"context"
	"errors"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Defaults of the bounds on one request's database work
// (docs/worker.md, "No wait without bound"): a lock wait ends at
// DefaultLockTimeout, a statement at DefaultStatementTimeout, and the whole
// request's database work at DefaultRequestTimeout, so a request blocked
// behind whatever another transaction holds answers within 15 s.
const (
	DefaultLockTimeout      = 4 * time.Second
	DefaultStatementTimeout = 10 * time.Second
	DefaultRequestTimeout   = 12 * time.Second
)

// busyRetryAfter is the Retry-After of a request that ran out of its wait.
const busyRetryAfter = 2 * time.Second

var httpTimedOut = promauto.NewCounter(prometheus.CounterOpts{
	Name: "fieldbrief_http_db_timeout_total",
	Help: "Requests answered 503 because a database wait or statement ran past its bound (lock_timeout, statement_timeout, the request's deadline).",
})

// ErrWaitedTooLong is the 503 of a request whose database work ran past
// its bound: nothing it began was committed.
var ErrWaitedTooLong = apperr.Refuse(apperr.Unavailable, "busy_record", nil).After(busyRetryAfter)

// Bound runs every request under l (each transaction it begins sets
// lock_timeout and statement_timeout: database.WithLimits) and a deadline
// of total for all of it; a request that runs out of either answers 503
// with Retry-After (ErrWaitedTooLong), having changed nothing: its
// transaction was rolled back.
//
// longer gives the routes that wait for something else than the database
// (a CSV upload's body, a test send's receiver) a deadline of their own, 0
// for the rest; their transactions keep l.
func Bound(l database.Limits, total time.Duration, longer func(echo.Context) time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			client := r.Context()
			d := total
			if longer != nil {
				d = max(d, longer(c))
			}
			ctx, cancel := context.WithTimeout(database.WithLimits(client, l), d)
			defer cancel()
			c.SetRequest(r.WithContext(ctx))
			defer c.SetRequest(r)
			err := next(c)
			if err != nil && client.Err() == nil && !c.Response().Committed && timedOut(err, ctx) {
				httpTimedOut.Inc()
				return ErrWaitedTooLong
			}
			return err
		}
	}
}

// timedOut reports whether err is a bound running out: a database timeout,
// or anything that failed once the request's deadline passed.
func timedOut(err error, ctx context.Context) bool {
	if _, ok := apperr.As(err); ok {
		return false
	}
	return database.IsTimeout(err) || errors.Is(ctx.Err(), context.DeadlineExceeded)
}
