package web

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"fieldbrief/internal/config"
	"fieldbrief/internal/database"
)

// Reading pages from a streaming replica (docs/scaling.md, step 3).
//
// A signed-in page's read-only transaction (readTx) runs on the replica
// when it keeps up, except when the same browser wrote something the
// replica has not replayed yet (read your writes): every write request,
// as its answer goes out (its transaction committed), sets a cookie with
// the primary's WAL position; until the replica's last check has it
// replayed that far, or the cookie expires, that browser reads the
// primary. A position, not a deadline: no clock of any web process is
// involved, and a slow write (an import waiting its turn) counts from
// its commit. The cookie is not signed: forging it only makes one's own
// pages read the primary, which any page does when the replica lags.
//
// The JSON API reads the primary: its clients send no cookie to carry the
// position, and an integration that creates a job and reads it back must
// find it. Writes, sign-in and the session lookup are on the primary too.

// Cookie that holds the write's WAL position (database.LSN).
const (
	readPrimaryCookie       = "fieldbrief_read_primary"
	readPrimaryCookieSecure = "__Host-fieldbrief_read_primary"
)

// replicaReads counts the pages that had a replica to read from, by where
// their reads went and why: both labels have a fixed handful of values.
var replicaReads = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "fieldbrief_replica_page_reads_total",
	Help: "Page read transactions with a read replica configured, by the server that served them (replica, primary) " +
		"and why (ok; recent_write: the session wrote what the replica has not replayed yet; lagging: past REPLICA_MAX_LAG; " +
		"unreachable: the replica did not answer).",
}, []string{"served_by", "reason"})

// UseReplica sends signed-in pages' reads to replica, a streaming replica
// of the server's database, within cfg's bounds. cmd/web calls it when
// DATABASE_REPLICA_URL is set; call it before serving.
func (s *Server) UseReplica(replica *pgxpool.Pool) {
	s.replica = database.NewReplica(replica, s.db, s.replicaMaxLag())
}

func (s *Server) replicaMaxLag() time.Duration {
	if s.cfg.ReplicaMaxLag > 0 {
		return s.cfg.ReplicaMaxLag
	}
	return config.DefaultReplicaMaxLag
}

// readYourWrites is how long the cookie lives: REPLICA_READ_YOUR_WRITES,
// but never less than the lag a replica may have plus two checks. Past
// that, a replica within its bound holds the write whatever its position
// said, so the cookie is no longer needed.
func (s *Server) readYourWrites() time.Duration {
	d := s.cfg.ReadYourWrites
	if d <= 0 {
		d = config.DefaultReadYourWrites
	}
	return max(d, s.replicaMaxLag()+2*database.DefaultReplicaCheckEvery)
}

func (s *Server) readPrimaryCookieName() string {
	if s.cfg.SecureCookies {
		return readPrimaryCookieSecure
	}
	return readPrimaryCookie
}

// markWrite makes the session read the primary until the replica has
// what this request writes: as the answer goes out (the request's
// transactions committed), the cookie gets the primary's WAL position. A
// refused request (4xx, 5xx) wrote nothing. If the position cannot be
// read, MaxLSN: the primary until the cookie expires.
func (s *Server) markWrite(c echo.Context) {
	res := c.Response()
	res.Before(func() {
		if res.Status >= http.StatusBadRequest {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), time.Second)
		defer cancel()
		lsn, err := database.CommittedPosition(ctx, s.db)
		if err != nil {
			s.log.Warn("read your writes: the primary's WAL position", "error", err)
			lsn = database.MaxLSN
		}
		c.SetCookie(s.readPrimaryCookie(lsn.String(), int(s.readYourWrites()/time.Second)))
	})
}

func (s *Server) readPrimaryCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: s.readPrimaryCookieName(), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode,
	}
}

// unreplayedWrite reports whether the request's session wrote what the
// replica had not replayed at its last check.
func (s *Server) unreplayedWrite(c echo.Context) bool {
	ck, err := c.Cookie(s.readPrimaryCookieName())
	if err != nil {
		return false
	}
	lsn, err := database.ParseLSN(ck.Value)
	if err != nil {
		return false
	}
	return !s.replica.Replayed(lsn)
}

// readFrom decides where a page's reads go: the replica, or the primary
// (nil) and why.
func (s *Server) readFrom(c echo.Context) *pgxpool.Pool {
	st := s.replica.State(c.Request().Context())
	if st == database.ReplicaOK && s.unreplayedWrite(c) {
		replicaReads.WithLabelValues("primary", "recent_write").Inc()
		return nil
	}
	switch st {
	case database.ReplicaOK:
		replicaReads.WithLabelValues("replica", "ok").Inc()
		return s.replica.Pool
	default:
		replicaReads.WithLabelValues("primary", string(st)).Inc()
		return nil
	}
}

// replicaFailed is told when a read could not begin on the replica that
// readFrom chose: the page reads the primary, and so do the next ones
// until the replica's next check. (Such a page counts twice: replica/ok
// when chosen, primary/unreachable now.)
func (s *Server) replicaFailed(err error) {
	s.replica.Failed(err)
	replicaReads.WithLabelValues("primary", string(database.ReplicaUnreachable)).Inc()
	s.log.Warn("read replica unusable; reading the primary", "error", err)
}
