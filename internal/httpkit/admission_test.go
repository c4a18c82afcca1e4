package httpkit

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
)

func shedCount(t *testing.T, reason string) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, httpShed.WithLabelValues(reason).Write(&m))
	return m.GetCounter().GetValue()
}

// serve runs one request through a.Admit to a handler that waits for
// hold to close; the channel gets the middleware's answer.
func serve(a *Admission, path string, hold <-chan struct{}) (<-chan error, *httptest.ResponseRecorder) {
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, path, nil), rec)
	h := a.Admit(func(c echo.Context) bool { return c.Request().URL.Path == "/healthz" })(func(echo.Context) error {
		<-hold
		return nil
	})
	out := make(chan error, 1)
	go func() { out <- h(c) }()
	return out, rec
}

// With one request in flight and the one queue place taken, the next is
// turned away at once (the queue is an hour long, so a request that waited
// would not come back as queue_full); exempt requests pass; the waiting
// request is served once the first is done.
func TestAdmissionShedsAtOnce(t *testing.T) {
	a := NewAdmission(1, 1, time.Hour)
	hold := make(chan struct{})
	first, _ := serve(a, "/page", hold)
	require.Eventually(t, func() bool { return a.running.Load() == 1 }, testutil.Settle, time.Millisecond)
	second, _ := serve(a, "/page", hold)
	require.Eventually(t, func() bool { return a.waiting.Load() == 1 }, testutil.Settle, time.Millisecond)

	before := shedCount(t, shedQueueFull)
	third, rec := serve(a, "/page", hold)
	require.ErrorIs(t, <-third, ErrOverloaded)
	require.Equal(t, "1", rec.Header().Get("Retry-After"))
	require.Equal(t, before+1, shedCount(t, shedQueueFull))

	done := make(chan struct{})
	close(done)
	probe, _ := serve(a, "/healthz", done)
	require.NoError(t, <-probe, "exempt")

	close(hold)
	require.NoError(t, <-first)
	require.NoError(t, <-second, "the queued request is served")
	require.Zero(t, a.running.Load())
}

// A request that waited the queue's limit for a slot is turned away.
func TestAdmissionQueueWaitBounded(t *testing.T) {
	a := NewAdmission(1, 4, time.Millisecond)
	hold := make(chan struct{})
	first, _ := serve(a, "/page", hold)
	require.Eventually(t, func() bool { return a.running.Load() == 1 }, testutil.Settle, time.Millisecond)
	before := shedCount(t, shedWaited)
	second, rec := serve(a, "/page", hold)
	require.ErrorIs(t, <-second, ErrOverloaded)
	require.Equal(t, "1", rec.Header().Get("Retry-After"))
	require.Equal(t, before+1, shedCount(t, shedWaited))
	close(hold)
	require.NoError(t, <-first)
}
