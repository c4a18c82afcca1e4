package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/testutil"
)

// holdSessions locks the sessions table until the returned function runs,
// so a signed-in request stops at its session statement and holds its
// admission slot meanwhile: a slow request without a test hook.
func holdSessions(t *testing.T, f *fixture) (release func()) {
	t.Helper()
	tx, err := f.db.Begin(context.Background())
	require.NoError(t, err)
	_, err = tx.Exec(context.Background(), `LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	done := false
	release = func() {
		if !done {
			done = true
			require.NoError(t, tx.Rollback(context.Background()))
		}
	}
	t.Cleanup(release)
	return release
}

// getAsync sends GET path with c's cookies in the background; the channel
// gets the status (or 0 when the request failed).
func getAsync(c *client, path string) <-chan int {
	out := make(chan int, 1)
	go func() {
		req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
		if err != nil {
			out <- 0
			return
		}
		res, err := c.hc.Do(req)
		if err != nil {
			out <- 0
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		out <- res.StatusCode
	}()
	return out
}

// TestOverloadSheds: with the one slot taken, the next request waits
// the queue's limit, then gets 503 with Retry-After: a page in words, the
// API's in JSON, htmx's as text; probes and static files still answer; the
// slot is given back. (The admission itself is tested in internal/web/httpkit.)
func TestOverloadSheds(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.MaxInFlight, c.QueueWait = 1, time.Millisecond })
	admin := f.as(&f.adminA)

	release := holdSessions(t, f)
	first := getAsync(admin, briefingsPath)
	// Wait for the first request to wait on the lock, so it holds the slot,
	// before asking anything else: a probe sent earlier could take the slot
	// itself and have the first request shed after its 1 ms in the queue,
	// which a slow machine did.
	early := -1
	require.Eventually(t, func() bool {
		select {
		case early = <-first:
			return true
		default:
		}
		return f.waitersOnLocks() == 1
	}, testutil.Settle, 5*time.Millisecond, "the first request waits on the sessions lock, holding the slot")
	require.Equal(t, -1, early, "the first request answered (status %d) before it held the slot", early)
	r := f.anon().get("/login")
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	require.Contains(t, r.Body, "The server is busy right now")
	require.Contains(t, r.Header.Get("Content-Type"), "text/html")

	r = f.anon().get("/api/v1/jobs")
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	var body struct{ Error struct{ Code string } } // docs/api.md, "Errors"
	require.NoError(t, json.Unmarshal([]byte(r.Body), &body), r.Body)
	require.Equal(t, "unavailable", body.Error.Code)

	r = f.anon().htmx().get("/login")
	require.Equal(t, http.StatusServiceUnavailable, r.Code)
	require.True(t, strings.HasPrefix(r.Body, "The server is busy"), r.Body)

	require.Equal(t, http.StatusOK, f.anon().get("/healthz").Code, "probes are exempt")
	require.Equal(t, http.StatusOK, f.anon().get("/readyz").Code, "probes are exempt")
	require.Equal(t, http.StatusOK, f.anon().get("/static/app.css").Code, "static files are exempt")

	release()
	require.Equal(t, http.StatusOK, <-first)
	require.Equal(t, http.StatusOK, admin.get(briefingsPath).Code, "the slot is given back")
}

// TestAdmissionConfig: unset, New sizes the admission limits from the pool.
func TestAdmissionConfig(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.QueueWait = 0 }) // the fixture's is longer (testConfig)
	require.Equal(t, int(f.db.Config().MaxConns), f.srv.cfg.MaxInFlight, "in flight defaults to the pool's connections")
	require.Equal(t, httpkit.DefaultQueuePerSlot*f.srv.cfg.MaxInFlight, f.srv.cfg.MaxQueue)
	require.Equal(t, httpkit.DefaultQueueWait, f.srv.cfg.QueueWait)
}
