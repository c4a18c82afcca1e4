package httpkit

import (
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/database"
)

// RetryLostReads runs a GET or HEAD once more when it failed only because
// the database connection was lost (a failover, a restart, an idle reaper,
// pg_terminate_backend), or because a Citus shard moved under it
// (database.ShardMoved): the person gets their page instead of a 500.
//
// When one pooled connection is found dead the others usually are too (they
// were ended together), so the pool is reset first and the retry gets a
// fresh connection rather than the next dead one. Only reads are retried:
// they change nothing but a session's last-seen time, so running one twice
// is harmless. A write's first try may have committed before the connection
// broke; the person sees the error and decides.
func RetryLostReads(db *pgxpool.Pool, log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Method != http.MethodGet && req.Method != http.MethodHead {
				return next(c)
			}
			saved := c.Response().Header().Clone()
			err := next(c)
			lost := database.ConnectionLost(err)
			if !(lost || database.ShardMoved(err)) || c.Response().Committed || req.Context().Err() != nil {
				return err
			}
			if lost {
				log.WarnContext(req.Context(), "database connection lost; retrying the read once on a fresh one",
					"path", c.Path(), "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "error", err)
				db.Reset()
			} else {
				log.WarnContext(req.Context(), "a Citus shard moved under the read; retrying it once",
					"path", c.Path(), "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "error", err)
			}
			h := c.Response().Header()
			clear(h)
			for k, v := range saved {
				h[k] = v
			}
			return next(c)
		}
	}
}
