package web

import (
	"net/http"
	"strconv"
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
// when it keeps up, except in the few seconds after the same browser wrote
// something (the read-your-writes window): a cookie, set on every write
// request, carries the instant until which the session reads the primary.
// It is not signed: forging it only makes one's own pages read the
// primary, which any page does when the replica lags.
//
// The JSON API reads the primary: its clients send no cookie to carry the
// window, and an integration that creates a job and reads it back must
// find it. Writes, sign-in and the session lookup are on the primary too.

// Cookie that holds the read-your-writes deadline (Unix milliseconds).
const (
	readPrimaryCookie       = "fieldbrief_read_primary"
	readPrimaryCookieSecure = "__Host-fieldbrief_read_primary"
)

// replicaReads counts the pages that had a replica to read from, by where
// their reads went and why: both labels have a fixed handful of values.
var replicaReads = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "fieldbrief_replica_page_reads_total",
	Help: "Page read transactions with a read replica configured, by the server that served them (replica, primary) " +
		"and why (ok; recent_write: the session wrote within REPLICA_READ_YOUR_WRITES; lagging: past REPLICA_MAX_LAG; " +
		"unreachable: the replica did not answer).",
}, []string{"served_by", "reason"})

// UseReplica sends signed-in pages' reads to replica, a streaming replica
// of the server's database, within cfg's bounds. cmd/web calls it when
// DATABASE_REPLICA_URL is set; call it before serving.
func (s *Server) UseReplica(replica *pgxpool.Pool) {
	maxLag := s.cfg.ReplicaMaxLag
	if maxLag <= 0 {
		maxLag = config.DefaultReplicaMaxLag
	}
	s.replica = database.NewReplica(replica, maxLag)
}

func (s *Server) readYourWrites() time.Duration {
	if s.cfg.ReadYourWrites > 0 {
		return s.cfg.ReadYourWrites
	}
	return config.DefaultReadYourWrites
}

func (s *Server) readPrimaryCookieName() string {
	if s.cfg.SecureCookies {
		return readPrimaryCookieSecure
	}
	return readPrimaryCookie
}

// markWrite opens the session's read-your-writes window. Wall-clock time,
// not s.now: the window covers replication, which runs on real time.
func (s *Server) markWrite(c echo.Context) {
	until := time.Now().Add(s.readYourWrites())
	c.SetCookie(s.readPrimaryCookie(strconv.FormatInt(until.UnixMilli(), 10), int(s.readYourWrites()/time.Second)+1))
}

func (s *Server) readPrimaryCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: s.readPrimaryCookieName(), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.cfg.SecureCookies, SameSite: http.SameSiteLaxMode,
	}
}

// recentWrite reports whether the request's session wrote within the window.
func (s *Server) recentWrite(c echo.Context) bool {
	ck, err := c.Cookie(s.readPrimaryCookieName())
	if err != nil {
		return false
	}
	ms, err := strconv.ParseInt(ck.Value, 10, 64)
	if err != nil {
		return false
	}
	until := time.UnixMilli(ms)
	// A deadline further out than one window was not set by us.
	return time.Now().Before(until) && time.Until(until) <= s.readYourWrites()+time.Second
}

// readFrom decides where a page's reads go: the replica, or the primary
// (nil) and why.
func (s *Server) readFrom(c echo.Context) *pgxpool.Pool {
	if s.recentWrite(c) {
		replicaReads.WithLabelValues("primary", "recent_write").Inc()
		return nil
	}
	switch st := s.replica.State(c.Request().Context()); st {
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
