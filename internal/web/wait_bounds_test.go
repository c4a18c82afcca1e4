package web

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
)

// Findings of the attacker's review of the request bounds and the access
// rules, each a test that failed before its fix.

// rebound serves the fixture's database again with adjust applied to the
// test config and points the clients at that server: a test of a tight
// bound signs in and loads its form first, under the fixture's loose
// bounds, so only the step under test meets the tight one (a sign-in
// under a one-second deadline could answer 503 on a loaded machine). The
// session and CSRF cookies carry over: same key, same database, and a
// cookie's host is the same with another port.
func (f *fixture) rebound(adjust func(*config.Web), clients ...*client) {
	f.t.Helper()
	cfg := testConfig()
	adjust(&cfg)
	f.srv, f.ts = f.serve(cfg)
	for _, c := range clients {
		c.base = f.ts.URL
	}
}

func boundedConfig(lock, request time.Duration) func(*config.Web) {
	return func(c *config.Web) {
		c.LockTimeout = lock
		c.StatementTimeout = 10 * time.Second
		c.RequestTimeout = request
	}
}

// TestRevokeLinksIsBoundedLikeEveryWrite: revoking a technician's day links
// behind a held technician row answers 503 while the row is still held
// (its transaction has the lock_timeout), as deactivating them does.
func TestRevokeLinksIsBoundedLikeEveryWrite(t *testing.T) {
	f := setupConfig(t, boundedConfig(300*time.Millisecond, 20*time.Second))
	ctx := context.Background()
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	anaPath := "/orgs/acme/technicians/" + strconv.FormatInt(ana, 10)
	admin := f.as(&f.adminA)
	admin.get(anaPath)

	holder, err := f.db.Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx) //nolint:errcheck
	_, err = holder.Exec(ctx, `SELECT id FROM technicians WHERE id = $1 FOR UPDATE`, ana)
	require.NoError(t, err)
	for _, action := range []string{"/active", "/revoke-links"} {
		r := admin.post(anaPath+action, url.Values{"active": {"false"}})
		require.Equal(t, http.StatusServiceUnavailable, r.Code, "%s behind a held row: %s", action, r.Body)
	}
	require.NoError(t, holder.Rollback(ctx))
	r := admin.post(anaPath+"/revoke-links", nil)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
}

// TestTestSendPastItsDeadlineLeavesNothingPending: a test send whose
// receiver is slow past the request's deadline still records its attempt:
// no test delivery is left pending, whatever the answer.
func TestTestSendPastItsDeadlineLeavesNothingPending(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	admin := f.as(&f.adminA)
	admin.get(settingsPath)
	// The outbox is held 2 s, well inside the lock bound, and past the
	// request's deadline.
	f.rebound(boundedConfig(20*time.Second, 1500*time.Millisecond), admin)

	// The send (the outbox's INSERT) is slow, as an SMTP server in a bad
	// hour is.
	holder, err := f.db.Begin(ctx)
	require.NoError(t, err)
	_, err = holder.Exec(ctx, `LOCK TABLE mail_outbox IN SHARE MODE`)
	if err != nil {
		_ = holder.Rollback(ctx)
	}
	require.NoError(t, err)
	// The goroutine alone ends the holder (a pgx transaction is not safe
	// for two goroutines: the race detector caught a deferred Rollback here
	// racing this one); the test waits for it.
	released := make(chan struct{})
	go func() { defer close(released); time.Sleep(2 * time.Second); _ = holder.Rollback(ctx) }()
	defer func() { <-released }()

	r := admin.post(testEmailPath, nil)
	require.NotEqual(t, http.StatusServiceUnavailable, r.Code, "a slow receiver is not someone else changing this: %s", r.Body)
	require.Zero(t, f.count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1 AND audience = 'test' AND state = 'pending'`, f.orgA.ID),
		"the test send's attempt is recorded")
}

type slowReader struct {
	r     io.Reader
	delay time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.delay)
	if len(p) > 512 {
		p = p[:512]
	}
	return s.r.Read(p)
}

// TestSlowUploadIsNotABusyRecord: a CSV upload whose body takes longer than
// the request deadline (a 5 MB file on a slow uplink) is read and
// previewed; the deadline is for database work, not a client's upload.
func TestSlowUploadIsNotABusyRecord(t *testing.T) {
	f := setup(t)
	admin := f.as(&f.adminA)
	admin.get(importPath)
	// The upload takes 6 s, past the 3 s deadline, which the preview's own
	// database work stays well inside.
	f.rebound(boundedConfig(4*time.Second, 3*time.Second), admin)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField("_csrf", admin.csrfToken()))
	part, err := w.CreateFormFile("file", "t.csv")
	require.NoError(t, err)
	_, _ = part.Write([]byte(techCSV + string(bytes.Repeat([]byte("T-9,Pat Doe,,,yes\r\n"), 100))))
	require.NoError(t, w.Close())
	n := body.Len()
	r := admin.postRaw(importPath+"/technicians", w.FormDataContentType(), &slowReader{r: &body, delay: 6 * time.Second / time.Duration(n/512+1)})
	require.NotEqual(t, http.StatusServiceUnavailable, r.Code, "a slow upload is refused as a busy record: %s", r.Body)
}

// TestAssignWaitsForADeactivationBeingSaved: a job is never given to a
// technician whose deactivation is being committed: the write waits for
// it (and, past its lock_timeout, answers 503) instead of reading the old
// "active".
func TestAssignWaitsForADeactivationBeingSaved(t *testing.T) {
	f := setupConfig(t, boundedConfig(500*time.Millisecond, 10*time.Second))
	ctx := context.Background()
	api := f.api(f.newToken(f.orgA, "sync"))
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/ana", map[string]any{"name": "Ana", "email": "ana@acme.test"}).Code)

	holder, err := f.db.Begin(ctx)
	require.NoError(t, err)
	defer holder.Rollback(ctx) //nolint:errcheck
	_, err = holder.Exec(ctx, `UPDATE technicians SET active = false WHERE org_id = $1 AND external_ref = 'ana'`, f.orgA.ID)
	require.NoError(t, err)
	r := api.Put("/api/v1/jobs/J-race", map[string]any{"customer": "Race", "technician_ref": "ana",
		"arrival_start": "2026-03-05T09:00", "arrival_end": "2026-03-05T10:00"})
	require.Equal(t, http.StatusServiceUnavailable, r.Code, r.Body)
	require.NoError(t, holder.Commit(ctx))
	r = api.Put("/api/v1/jobs/J-race", map[string]any{"customer": "Race", "technician_ref": "ana",
		"arrival_start": "2026-03-05T09:00", "arrival_end": "2026-03-05T10:00"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	require.Zero(t, f.count(`SELECT count(*) FROM jobs j JOIN technicians t ON t.id = j.technician_id
	               WHERE j.org_id = $1 AND NOT t.active`, f.orgA.ID), "no job of a deactivated technician")
}

// TestSignInThrottleCountsAnIPv6NetworkAsOneClient: guesses from the
// addresses of one IPv6 /64 (one customer's line) count as one client's.
func TestSignInThrottleCountsAnIPv6NetworkAsOneClient(t *testing.T) {
	f := fromClient(t, func(c *config.Web) { c.MaxLoginFailuresPerAccount = 3; c.MaxLoginFailuresPerClient = 5 })
	refused := 0
	for i := range 12 {
		r := f.anon().with("X-Forwarded-For", "2001:db8:1:2::"+strconv.FormatInt(int64(i+1), 16)).
			post("/login", url.Values{"email": {f.memberA.Email}, "password": {"guess"}})
		if r.Code == http.StatusTooManyRequests {
			refused++
		}
	}
	require.Equal(t, 9, refused, "the 4th to the 12th guess from the /64 are throttled")
	require.Equal(t, 1, f.count(`SELECT count(*) FROM login_clients`), "one client")
}

// TestPoolWaitIsBounded: a page admitted while every pooled connection is
// held elsewhere waits WEB_POOL_WAIT for one, then answers 503 with
// Retry-After rather than queue without end; once one is free it is served.
func TestPoolWaitIsBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	require.Equal(t, http.StatusOK, admin.get(briefingsPath).Code)
	f.rebound(func(c *config.Web) { c.PoolWait = 200 * time.Millisecond }, admin)
	require.Equal(t, 200*time.Millisecond, f.srv.reads.Wait, "the page's read transaction waits the same")

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var held []interface{ Release() }
	release := sync.OnceFunc(func() {
		for _, c := range held {
			c.Release()
		}
	})
	defer release() // else the pool's close at cleanup waits for them
	for range f.webDB.Config().MaxConns {
		conn, err := f.webDB.Acquire(ctx)
		require.NoError(t, err)
		held = append(held, conn)
	}
	r := admin.get(briefingsPath)
	require.Equal(t, http.StatusServiceUnavailable, r.Code, "a page with no connection free: %s", r.Body)
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	require.Contains(t, r.Body, "Busy right now")

	release()
	require.Equal(t, http.StatusOK, admin.get(briefingsPath).Code, "served once a connection is free")
}
