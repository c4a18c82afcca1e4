package httpkit

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"fieldbrief/internal/database"
)

// Reading pages from a streaming replica (docs/scaling.md, step 3).
//
// A signed-in page's read-only transaction (Reads.Tx) runs on the replica
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

// Reads is where a request's store reads go: the read-only transaction of
// a GET or HEAD, on the primary or the replica (UseReplica), and the
// read-your-writes cookie a write sets.
type Reads struct {
	DB            *pgxpool.Pool
	Log           *slog.Logger
	SecureCookies bool
	// Wait is the longest a read transaction waits for a pooled
	// connection before the request answers 503 (zero:
	// database.AcquireWait).
	Wait time.Duration
	// Skip says which requests get no read transaction: their reads go
	// straight to the pool (probes, static files, pages with a read-write
	// transaction of their own).
	Skip func(echo.Context) bool
	// Primary says which requests read the primary whatever the replica
	// (the JSON API: its clients carry no cookie).
	Primary func(echo.Context) bool
	// Untracked says which writes set no read-your-writes cookie (no
	// session: nobody's later pages to send to the primary).
	Untracked func(echo.Context) bool

	replica        *database.Replica
	readYourWrites time.Duration
}

// UseReplica sends the reads of requests that are not Primary to replica,
// a streaming replica of DB, while it lags at most maxLag; a browser that
// wrote reads the primary for at most readYourWrites after (the cookie's
// life). Call it before serving.
func (r *Reads) UseReplica(replica *pgxpool.Pool, maxLag, readYourWrites time.Duration) {
	r.replica = database.NewReplica(replica, r.DB, maxLag)
	r.readYourWrites = readYourWrites
}

// Tx runs a GET's or HEAD's store reads in one read-only transaction
// (database.ReadTx, begun at the first read), so a page costs at most two
// transactions, the session's and this one (docs/web.md, "Web under
// load"). It sits inside RetryLostReads, so a retried read gets a fresh
// transaction.
func (r *Reads) Tx(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !SafeMethod(req.Method) {
			if r.replica != nil && !r.Untracked(c) {
				r.markWrite(c) // the session reads the primary for a while
			}
			return next(c)
		}
		if r.Skip(c) {
			return next(c)
		}
		ctx, rt := database.WithReadTx(req.Context(), r.DB, r.Wait)
		if r.replica != nil && !r.Primary(c) {
			if from := r.readFrom(c); from != nil {
				ctx, rt = database.WithReplicaReadTx(req.Context(), r.DB, from, r.Wait, r.replicaFailed)
			}
		}
		defer rt.End(ctx)
		c.SetRequest(req.WithContext(ctx))
		defer c.SetRequest(req)
		return next(c)
	}
}

func (r *Reads) cookieName() string {
	if r.SecureCookies {
		return readPrimaryCookieSecure
	}
	return readPrimaryCookie
}

// markWrite makes the session read the primary until the replica has
// what this request writes: as the answer goes out (the request's
// transactions committed), the cookie gets the primary's WAL position. A
// refused request (4xx, 5xx) wrote nothing. If the position cannot be
// read, MaxLSN: the primary until the cookie expires.
func (r *Reads) markWrite(c echo.Context) {
	res := c.Response()
	res.Before(func() {
		if res.Status >= http.StatusBadRequest {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), time.Second)
		defer cancel()
		lsn, err := database.CommittedPosition(ctx, r.DB)
		if err != nil {
			r.Log.Warn("read your writes: the primary's WAL position", "error", err)
			lsn = database.MaxLSN
		}
		c.SetCookie(r.readPrimaryCookie(lsn.String(), int(r.readYourWrites/time.Second)))
	})
}

func (r *Reads) readPrimaryCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: r.cookieName(), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: r.SecureCookies, SameSite: http.SameSiteLaxMode,
	}
}

// unreplayedWrite reports whether the request's session wrote what the
// replica had not replayed at its last check.
func (r *Reads) unreplayedWrite(c echo.Context) bool {
	ck, err := c.Cookie(r.cookieName())
	if err != nil {
		return false
	}
	lsn, err := database.ParseLSN(ck.Value)
	if err != nil {
		return false
	}
	return !r.replica.Replayed(lsn)
}

// readFrom decides where a page's reads go: the replica, or the primary
// (nil) and why.
func (r *Reads) readFrom(c echo.Context) *pgxpool.Pool {
	st := r.replica.State(c.Request().Context())
	if st == database.ReplicaOK && r.unreplayedWrite(c) {
		replicaReads.WithLabelValues("primary", "recent_write").Inc()
		return nil
	}
	switch st {
	case database.ReplicaOK:
		replicaReads.WithLabelValues("replica", "ok").Inc()
		return r.replica.Pool
	default:
		replicaReads.WithLabelValues("primary", string(st)).Inc()
		return nil
	}
}

// replicaFailed is told when a read could not begin on the replica that
// readFrom chose: the page reads the primary, and so do the next ones
// until the replica's next check. (Such a page counts twice: replica/ok
// when chosen, primary/unreachable now.)
func (r *Reads) replicaFailed(err error) {
	r.replica.Failed(err)
	replicaReads.WithLabelValues("primary", string(database.ReplicaUnreachable)).Inc()
	r.Log.Warn("read replica unusable; reading the primary", "error", err)
}
