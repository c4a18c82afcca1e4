package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
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

func shedCount(reason string) float64 {
	var m dto.Metric
	if err := httpShed.WithLabelValues(reason).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// TestOverloadShedsAtOnce: with one request in flight and the one queue
// place taken, the next request gets 503 with Retry-After without waiting
// (the queue is minutes long, so a request that waited would not come back
// as queue_full); probes still answer; the API's 503 is JSON; the waiting
// request is served once the first is done.
func TestOverloadShedsAtOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	f.srv.admission = newAdmission(1, 1, time.Hour)

	release := holdSessions(t, f)
	first := getAsync(admin, briefingsPath)
	require.Eventually(t, func() bool { return f.srv.admission.running.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
	second := getAsync(admin, briefingsPath)
	require.Eventually(t, func() bool { return f.srv.admission.waiting.Load() == 1 }, 10*time.Second, 5*time.Millisecond)

	before := shedCount(shedQueueFull)
	r := f.anon().get("/login")
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	require.Contains(t, r.Body, "The server is busy right now")
	require.Contains(t, r.Header.Get("Content-Type"), "text/html")
	require.GreaterOrEqual(t, shedCount(shedQueueFull), before+1)

	r = f.anon().get("/api/v1/jobs")
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	var body apiErrorBody
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
	require.Equal(t, http.StatusOK, <-second, "the queued request is served")
	require.Equal(t, http.StatusOK, admin.get(briefingsPath).Code, "slots are given back")
}

// TestOverloadQueueWaitBounded: a request that waited the queue's limit
// for a slot gets 503 with Retry-After.
func TestOverloadQueueWaitBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	f.srv.admission = newAdmission(1, 4, time.Millisecond)

	release := holdSessions(t, f)
	first := getAsync(admin, briefingsPath)
	require.Eventually(t, func() bool { return f.srv.admission.running.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
	before := shedCount(shedWaited)
	r := admin.get(briefingsPath)
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	require.GreaterOrEqual(t, shedCount(shedWaited), before+1)
	release()
	require.Equal(t, http.StatusOK, <-first)
}

// TestAdmissionConfig: unset, New sizes the admission limits from the pool.
func TestAdmissionConfig(t *testing.T) {
	t.Parallel()
	f := setup(t)
	require.Equal(t, int(f.db.Config().MaxConns), f.srv.admission.slots, "in flight defaults to the pool's connections")
	require.Equal(t, int64(defaultQueuePerSlot*f.srv.admission.slots), f.srv.admission.queue)
	require.Equal(t, defaultQueueWait, f.srv.admission.wait)
}
