package web

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/auth"
	"fieldbrief/internal/config"
	"fieldbrief/internal/httpkit"
)

// setCookies parses a response's Set-Cookie headers.
func setCookies(r response) map[string]*http.Cookie {
	out := map[string]*http.Cookie{}
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		out[c.Name] = c
	}
	return out
}

func countRows(t testing.TB, f *fixture, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, f.db.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

func TestLoginRedirectsToLocalNextOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for next, want := range map[string]string{
		"":                                   "/",
		"/orgs/acme/settings/fieldforce?x=1": "/orgs/acme/settings/fieldforce?x=1",
		"//evil.example/":                    "/",
		"https://evil.example/":              "/",
		"/\\evil.example":                    "/",
		"/\t/evil.example":                   "/",
		"javascript:alert(1)":                "/",
	} {
		c := f.anon()
		res := c.post("/login", url.Values{"email": {f.adminA.Email}, "password": {testPassword}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, res.Code, next)
		require.Equal(t, want, res.Header.Get("Location"), "next=%q", next)
	}
}

func TestLoginFormErrors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()

	res := c.post("/login", url.Values{"email": {""}, "password": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, `class="field-error" id="email-error"`)
	require.Contains(t, res.Body, `class="field-error" id="password-error"`)

	res = c.post("/login", url.Values{"email": {f.adminA.Email}, "password": {"wrong"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "The email or password is incorrect.")
	require.Contains(t, res.Body, `value="`+f.adminA.Email+`"`, "email is kept")
	require.NotContains(t, setCookies(res), auth.CookieName, "no session after a failure")
	require.Equal(t, http.StatusSeeOther, c.get("/").Code, "still signed out")

	// An unknown account gets the very same answer.
	unknown := c.post("/login", url.Values{"email": {"nobody@acme.test"}, "password": {"wrong"}})
	require.Equal(t, res.Code, unknown.Code)
	require.Equal(t, strings.ReplaceAll(res.Body, f.adminA.Email, "X"), strings.ReplaceAll(unknown.Body, "nobody@acme.test", "X"))
}

func TestCookieFlags(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		f := setupConfig(t, func(c *config.Web) { c.SecureCookies = secure })
		c := f.anon()
		form := c.get("/login")
		csrfName, sessionName := httpkit.CSRFCookie, auth.CookieName
		if secure {
			csrfName, sessionName = httpkit.CSRFCookieSecure, auth.SecureCookieName
		}
		res := c.post("/login", url.Values{"email": {f.memberA.Email}, "password": {testPassword}})
		require.Equal(t, http.StatusSeeOther, res.Code)
		for name, ck := range map[string]*http.Cookie{csrfName: setCookies(form)[csrfName], sessionName: setCookies(res)[sessionName]} {
			require.NotNil(t, ck, "cookie %s set (secure=%v)", name, secure)
			require.True(t, ck.HttpOnly, name)
			require.Equal(t, http.SameSiteLaxMode, ck.SameSite, name)
			require.Equal(t, "/", ck.Path, name)
			require.Empty(t, ck.Domain, name)
			require.Equal(t, secure, ck.Secure, name)
			require.Equal(t, secure, strings.HasPrefix(name, "__Host-"), name)
		}
		require.Equal(t, http.StatusOK, c.get("/orgs/acme/briefings").Code, "signed in over %v", secure)
	}
}

func TestLogoutRevokesTheSession(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberA)
	old := *c.cookie(auth.CookieName)

	res := c.post("/logout", nil)
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, "/login", res.Header.Get("Location"))
	cleared := setCookies(res)[auth.CookieName]
	require.NotNil(t, cleared)
	require.Negative(t, cleared.MaxAge, "cookie dropped")
	require.Equal(t, http.StatusSeeOther, c.get("/orgs/acme/briefings").Code)

	// A copy of the old cookie is worthless now.
	replay := f.anon()
	replay.hc.Jar.SetCookies(mustURL(t, f.ts.URL), []*http.Cookie{&old})
	res = replay.get("/orgs/acme/briefings")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, signInTo("/orgs/acme/briefings"), res.Header.Get("Location"))
	require.Equal(t, 1, countRows(t, f, `SELECT count(*) FROM sessions WHERE revoked_at IS NOT NULL`))
}

func TestEverySignInStartsANewSession(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberA)
	first := *c.cookie(auth.CookieName)
	c.login(f.memberA.Email, testPassword)
	second := c.cookie(auth.CookieName)
	require.NotEqual(t, first.Value, second.Value)
	require.Equal(t, http.StatusOK, c.get("/orgs/acme/briefings").Code)

	replay := f.anon()
	replay.hc.Jar.SetCookies(mustURL(t, f.ts.URL), []*http.Cookie{&first})
	require.Equal(t, http.StatusSeeOther, replay.get("/orgs/acme/briefings").Code, "the session replaced at sign-in is revoked")
	require.Equal(t, 2, countRows(t, f, `SELECT count(*) FROM sessions`))
}

// A password reset (create-user on an existing email, or any other way a
// password is set) signs the user out everywhere: every session started
// before it is revoked. Provisioning that leaves the password alone, and
// other people's sessions, are untouched.
func TestPasswordResetRevokesSessions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	replay := func(ck http.Cookie) response {
		c := f.anon()
		c.hc.Jar.SetCookies(mustURL(t, f.ts.URL), []*http.Cookie{&ck})
		return c.get("/orgs/acme/briefings")
	}
	laptop, phone, admin := f.as(&f.memberA), f.as(&f.memberA), f.as(&f.adminA)
	laptopCookie, phoneCookie := *laptop.cookie(auth.CookieName), *phone.cookie(auth.CookieName)

	// Same password, staff granted: not a reset, nobody is signed out.
	_, err := f.store.Accounts.ProvisionUser(ctx, audit.System, f.memberA.Email, testPassword, true, 0, "")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, replay(laptopCookie).Code)

	p, err := f.store.Accounts.ProvisionUser(ctx, audit.System, strings.ToUpper(f.memberA.Email), "a new passphrase", false, 0, "")
	require.NoError(t, err)
	require.True(t, p.PasswordChanged)
	for _, ck := range []http.Cookie{laptopCookie, phoneCookie} {
		res := replay(ck)
		require.Equal(t, http.StatusSeeOther, res.Code, "a session from before the reset")
		require.Equal(t, signInTo("/orgs/acme/briefings"), res.Header.Get("Location"))
	}
	require.Equal(t, http.StatusOK, admin.get("/orgs/acme/briefings").Code, "another user stays signed in")

	// Signing in with the new password works; UpsertUser (the other way a
	// password is set) revokes that session too.
	fresh := f.anon()
	fresh.login(f.memberA.Email, "a new passphrase")
	freshCookie := *fresh.cookie(auth.CookieName)
	require.Equal(t, http.StatusOK, replay(freshCookie).Code)
	_, err = f.store.Accounts.UpsertUser(ctx, f.memberA.Email, testPassword, false)
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, replay(freshCookie).Code)
	require.Equal(t, http.StatusOK, admin.get("/orgs/acme/briefings").Code)
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	f := setup(t) // idle 12h
	c := f.as(&f.memberA)
	for range 3 { // each request resets the idle clock
		f.advance(12*time.Hour - time.Minute)
		require.Equal(t, http.StatusOK, c.get("/orgs/acme/briefings").Code)
	}
	f.advance(12 * time.Hour)
	res := c.get("/orgs/acme/briefings")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, signInTo("/orgs/acme/briefings"), res.Header.Get("Location"))
}

func TestLastSeenIsWrittenAtMostOncePerMinute(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberA)
	lastSeen := func() time.Time {
		var at time.Time
		require.NoError(t, f.db.QueryRow(context.Background(), `SELECT last_seen_at FROM sessions`).Scan(&at))
		return at.UTC()
	}
	f.advance(30 * time.Second)
	c.get("/")
	require.Equal(t, testStart, lastSeen())
	f.advance(30 * time.Second)
	c.get("/")
	require.Equal(t, testStart.Add(time.Minute), lastSeen())
}

func TestAbsoluteTimeout(t *testing.T) {
	t.Parallel()
	f := setup(t) // absolute 168h
	c := f.as(&f.memberA)
	for elapsed := time.Duration(0); elapsed+11*time.Hour < 168*time.Hour; elapsed += 11 * time.Hour {
		f.advance(11 * time.Hour)
		require.Equal(t, http.StatusOK, c.get("/orgs/acme/briefings").Code, "after %s", elapsed+11*time.Hour)
	}
	f.advance(11 * time.Hour) // past 168h, though never idle for long
	require.Equal(t, http.StatusSeeOther, c.get("/orgs/acme/briefings").Code)
}

func TestSessionKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey := []byte("the-old-session-signing-key-0123456789abcdef")
	newKey := []byte("the-new-session-signing-key-0123456789abcdef")
	f := setupConfig(t, func(c *config.Web) { c.SessionKeys = [][]byte{oldKey} })
	c := f.as(&f.memberA)
	signedWithOld := *c.cookie(auth.CookieName)

	withKeys := func(keys ...[]byte) *client {
		cfg := testConfig()
		cfg.SessionKeys = keys
		_, ts := f.serve(cfg)
		cl := f.clientFor(ts)
		cl.hc.Jar.SetCookies(mustURL(t, ts.URL), []*http.Cookie{&signedWithOld})
		return cl
	}
	require.Equal(t, http.StatusOK, withKeys(newKey, oldKey).get("/orgs/acme/briefings").Code, "old key still verifies when second")
	require.Equal(t, http.StatusSeeOther, withKeys(newKey).get("/orgs/acme/briefings").Code, "dropped key no longer verifies")

	// New cookies are signed with the first key.
	cfg := testConfig()
	cfg.SessionKeys = [][]byte{newKey, oldKey}
	_, ts := f.serve(cfg)
	rotated := f.clientFor(ts)
	rotated.login(f.memberA.Email, testPassword)
	cfg.SessionKeys = [][]byte{newKey}
	_, tsNew := f.serve(cfg)
	onlyNew := f.clientFor(tsNew)
	onlyNew.hc.Jar.SetCookies(mustURL(t, tsNew.URL), []*http.Cookie{rotated.cookie(auth.CookieName)})
	require.Equal(t, http.StatusOK, onlyNew.get("/orgs/acme/briefings").Code)
}

// Sign-ins beyond the hashing slots and their short queue get 503 with
// Retry-After at once, and no password is checked: a wrong one records no
// failure, the right one starts no session.
func TestSignInWhenHashingIsFull(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.srv.hashes = auth.NewHashGate(1, 0, time.Hour)
	release, err := f.srv.hashes.Acquire(t.Context())
	require.NoError(t, err)

	c := f.anon()
	for _, password := range []string{"wrong", testPassword} {
		res := c.post("/login", url.Values{"email": {f.memberA.Email}, "password": {password}})
		require.Equal(t, http.StatusServiceUnavailable, res.Code)
		require.Equal(t, "1", res.Header.Get("Retry-After"))
		require.Contains(t, res.Body, "Many people are signing in right now")
		require.Nil(t, setCookies(res)[auth.CookieName])
	}
	require.Zero(t, countRows(t, f, `SELECT count(*) FROM login_failures`), "no password was checked")
	require.Zero(t, countRows(t, f, `SELECT count(*) FROM sessions`))

	release()
	c.login(f.memberA.Email, testPassword)
}

// fromClient is a fixture whose server believes X-Forwarded-For from the
// test's loopback peer, so a test can sign in from several addresses.
func fromClient(t *testing.T, adjust func(*config.Web)) *fixture {
	return setupConfig(t, func(c *config.Web) {
		_, loopback, err := net.ParseCIDR("127.0.0.0/8")
		require.NoError(t, err)
		c.TrustedProxies = []*net.IPNet{loopback}
		if adjust != nil {
			adjust(c)
		}
	})
}

// After LOGIN_MAX_FAILURES_PER_ACCOUNT failures for one account from one
// client, each further attempt from there must wait, 1 s then twice as long
// each time; a refused attempt gets 429 with Retry-After and is not checked
// (even the right password). The real user, signing in from their own
// address, is not held back by an attacker elsewhere.
func TestThrottlePerAccountAndClient(t *testing.T) {
	t.Parallel()
	f := fromClient(t, func(c *config.Web) { c.MaxLoginFailuresPerAccount = 3 })
	attacker := f.anon().with("X-Forwarded-For", "203.0.113.7")
	guess := func(password string) response {
		t.Helper()
		return attacker.post("/login", url.Values{"email": {f.memberA.Email}, "password": {password}})
	}
	for range 3 {
		require.Equal(t, http.StatusUnprocessableEntity, guess("guess").Code)
	}
	for _, wait := range []int{1, 2, 4, 8} {
		res := guess(testPassword) // the email's case does not matter
		require.Equal(t, http.StatusTooManyRequests, res.Code)
		require.Equal(t, strconv.Itoa(wait), res.Header.Get("Retry-After"))
		require.Contains(t, res.Body, "Too many failed sign-ins for this account")
		require.Nil(t, setCookies(res)[auth.CookieName], "not even the right password is checked")

		f.advance(time.Duration(wait)*time.Second - time.Millisecond)
		require.Equal(t, http.StatusTooManyRequests, guess("guess").Code, "not yet")
		f.advance(time.Millisecond)
		require.Equal(t, http.StatusUnprocessableEntity, guess("guess").Code, "checked after %d s", wait)
	}
	require.Equal(t, 7, countRows(t, f, `SELECT count(*) FROM login_failures`), "a refused attempt is not a failure")

	// Meanwhile the member, from their own address, signs in at once;
	// another account from the attacker's address is not held back either.
	res := f.anon().with("X-Forwarded-For", "198.51.100.9").
		post("/login", url.Values{"email": {strings.ToUpper(f.memberA.Email)}, "password": {testPassword}})
	require.Equal(t, http.StatusSeeOther, res.Code)
	f.anon().with("X-Forwarded-For", "203.0.113.7").login(f.adminA.Email, testPassword)

	// An hour without failures and the attacker's address starts over.
	f.advance(time.Hour)
	for range 3 {
		require.Equal(t, http.StatusUnprocessableEntity, guess("guess").Code)
	}
	require.Equal(t, http.StatusTooManyRequests, guess("guess").Code)
}

// Concurrent attempts cannot overshoot the limit: of many wrong passwords
// sent at once for one account from one client, exactly the limit are
// checked and counted; the rest get 429 unchecked.
func TestThrottleIsExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	const limit, attempts = 5, 30
	// Every attempt is admitted and queues on the throttle's row (the
	// default queue, four per slot, sheds some of 30 sent at once when they
	// arrive faster than they are served).
	f := setupConfig(t, func(c *config.Web) { c.MaxLoginFailuresPerAccount, c.MaxQueue = limit, attempts })
	f.srv.hashes = auth.NewHashGate(attempts, attempts, time.Hour) // here the throttle decides, not the hashing bound
	c := f.anon()
	c.get("/login") // the CSRF cookie, before the clients share the jar

	codes := make(chan int, attempts)
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			codes <- c.post("/login", url.Values{"email": {f.memberA.Email}, "password": {"guess"}}).Code
		})
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for code := range codes {
		got[code]++
	}
	require.Equal(t, map[int]int{http.StatusUnprocessableEntity: limit, http.StatusTooManyRequests: attempts - limit}, got)
	require.Equal(t, limit, countRows(t, f, `SELECT count(*) FROM login_failures`))
}

// The same holds per client, whichever accounts it tries: after
// LOGIN_MAX_FAILURES_PER_CLIENT failures, the client waits between attempts.
func TestThrottlePerClient(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.MaxLoginFailuresPerClient = 3 })
	c := f.anon()
	for _, email := range []string{"a@x.test", "b@x.test", "c@x.test"} {
		require.Equal(t, http.StatusUnprocessableEntity, c.post("/login", url.Values{"email": {email}, "password": {"guess"}}).Code)
	}
	res := c.post("/login", url.Values{"email": {f.memberA.Email}, "password": {testPassword}})
	require.Equal(t, http.StatusTooManyRequests, res.Code)
	require.Equal(t, "1", res.Header.Get("Retry-After"))
	require.Contains(t, res.Body, "Too many failed sign-ins from your network")
	f.advance(time.Second)
	c.login(f.memberA.Email, testPassword)
	require.Equal(t, 3, countRows(t, f, `SELECT count(*) FROM login_failures`), "a success is not a failure")
}

// With TRUSTED_PROXIES, X-Forwarded-For from a trusted proxy decides who
// the client is for throttling (the nearest address outside the trusted
// ranges, so a client cannot pick its own by prepending one); without it,
// or from a peer outside the ranges, the header is ignored and the TCP peer
// counts.
func TestClientIPBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	failTwice := func(c *client, xff string) {
		t.Helper()
		for _, email := range []string{"a@x.test", "b@x.test"} {
			res := c.with("X-Forwarded-For", xff).post("/login", url.Values{"email": {email}, "password": {"guess"}})
			require.Equal(t, http.StatusUnprocessableEntity, res.Code)
		}
	}
	signIn := func(c *client, xff string) int {
		t.Helper()
		return c.with("X-Forwarded-For", xff).post("/login", url.Values{"email": {"member@acme.test"}, "password": {testPassword}}).Code
	}

	trusting := func(cidrs ...string) *fixture {
		return setupConfig(t, func(c *config.Web) {
			c.MaxLoginFailuresPerClient = 2
			for _, cidr := range cidrs {
				_, n, err := net.ParseCIDR(cidr)
				require.NoError(t, err)
				c.TrustedProxies = append(c.TrustedProxies, n)
			}
		})
	}

	f := trusting("127.0.0.0/8") // the test server's peer: our "load balancer"
	failTwice(f.anon(), "203.0.113.7")
	require.Equal(t, http.StatusTooManyRequests, signIn(f.anon(), "203.0.113.7"))
	require.Equal(t, http.StatusTooManyRequests, signIn(f.anon(), "198.51.100.9, 203.0.113.7"), "a prepended address is not believed")
	require.Equal(t, http.StatusSeeOther, signIn(f.anon(), "198.51.100.9"), "another client behind the same proxy")
	require.Equal(t, 1, countRows(t, f, `SELECT count(*) FROM sessions WHERE client_ip = '198.51.100.9'`))

	for name, f := range map[string]*fixture{"no trusted proxies": trusting(), "peer not trusted": trusting("10.0.0.0/8")} {
		failTwice(f.anon(), "203.0.113.7")
		require.Equal(t, http.StatusTooManyRequests, signIn(f.anon(), "198.51.100.9"), name+": X-Forwarded-For is ignored")
		require.Equal(t, 2, countRows(t, f, `SELECT count(*) FROM login_failures WHERE client_ip = '127.0.0.1'`), name)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	res := c.get("/healthz")
	require.Equal(t, http.StatusOK, res.Code)
	require.Equal(t, "ok", res.Body)
	require.Equal(t, http.StatusOK, c.get("/readyz").Code)
	res = c.get("/metrics")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, `fieldbrief_http_requests_total{method="GET",route="/readyz",status="200"}`)
	require.Contains(t, res.Body, `fieldbrief_http_request_duration_seconds_bucket{method="GET",route="/healthz"`)
}

func TestReadyzWithoutDatabase(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.db.Close()
	require.Equal(t, http.StatusServiceUnavailable, f.anon().get("/readyz").Code)
	require.Equal(t, http.StatusOK, f.anon().get("/healthz").Code)
}

// Probes, metrics and static files do not load the session a browser's
// cookie names: here the database is gone and they still answer as they
// would for anyone, while a page needs the session and fails.
func TestProbesIgnoreTheSessionCookie(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberA)
	f.db.Close()
	require.Equal(t, http.StatusOK, c.get("/healthz").Code)
	require.Equal(t, http.StatusServiceUnavailable, c.get("/readyz").Code)
	require.Equal(t, http.StatusOK, c.get("/metrics").Code)
	require.Equal(t, http.StatusOK, c.get("/static/app.css").Code)
	require.Equal(t, http.StatusInternalServerError, c.get("/orgs/acme/briefings").Code)
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
