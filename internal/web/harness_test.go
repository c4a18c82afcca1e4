package web

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/config"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// fixture is one test's world: a fresh database, a server on it with an
// injected clock, two orgs and a person for every role.
//
//	acme:   adminA (admin), memberA (member)
//	globex: adminB (admin), memberB (member)
//	staff:  platform staff, member of no org
type fixture struct {
	t     testing.TB
	srv   *Server
	db    *pgxpool.Pool
	webDB *pgxpool.Pool // the server's pool: db, or db through PgBouncer (topology_test.go)
	// replicaDB, when set, is a streaming replica of db that the server's
	// pages read (topology_test.go).
	replicaDB *pgxpool.Pool
	store     *testutil.Stores
	ts        *httptest.Server
	clock     *testutil.Clock

	orgA, orgB                              tenants.Org
	staff, adminA, memberA, adminB, memberB accounts.User
}

// testPassword is every fixture user's password.
const testPassword = "correct horse battery staple"

// testStart is where the injected clock starts.
var testStart = time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)

// testKey is the session signing key of the fixed test config.
var testKey = []byte("fieldbrief-test-session-key-0123456789abcdef")

// testConfig is the fixed configuration setup uses.
func testConfig() config.Web {
	return config.Web{
		SessionKeys:                [][]byte{testKey},
		IdleTimeout:                12 * time.Hour,
		AbsoluteTimeout:            7 * 24 * time.Hour,
		MaxLoginFailuresPerAccount: 100,
		MaxLoginFailuresPerClient:  300,
		// Guards, not measures of speed: a test's requests queue for a
		// slot, wait for locks and run their statements as long as a busy
		// machine makes them (the defaults, 50 ms, 4 s, 10 s and 12 s,
		// answered 503 inside the loaded suite: to tests sending a few
		// requests at once, and to TestHugeBriefingIsBounded's 12 MB
		// briefing), and wait for a pooled connection as long as one takes
		// to make (the default 2 s answered 503 to a page through
		// PgBouncer on a loaded CI machine). The tests of the bounds set their own
		// (overload_test.go, wait_bounds_test.go).
		QueueWait:        time.Minute,
		PoolWait:         time.Minute,
		LockTimeout:      time.Minute,
		StatementTimeout: time.Minute,
		RequestTimeout:   2 * time.Minute,
	}
}

// orgsCreated is when the fixture's orgs were set up: long before the test
// clock, so the briefings list reads past dates by the schedule, not as
// "before the org was set up".
var orgsCreated = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// setup builds a fixture with the fixed test config.
func setup(t testing.TB) *fixture { return setupConfig(t, nil) }

// setupConfig builds a fixture after letting the test adjust the config.
// With SecureCookies the server speaks TLS, so Secure cookies round-trip.
func setupConfig(t testing.TB, adjust func(*config.Web)) *fixture {
	t.Helper()
	return setupFixture(t, adjust, orgsCreated)
}

// setupCreated builds a fixture whose orgs were set up at created.
func setupCreated(t testing.TB, created time.Time) *fixture {
	t.Helper()
	return setupFixture(t, nil, created)
}

// setupFixture builds a fixture with its orgs set up at created, an
// instant on the test's clock: the orgs store takes it from the caller, so
// nothing rewrites created_at afterwards.
func setupFixture(t testing.TB, adjust func(*config.Web), created time.Time) *fixture {
	t.Helper()
	return setupFixtureDB(t, adjust, created, fixtureDB{})
}

// fixtureDB says where a fixture's database is and how its server reaches
// it; the zero value is the usual: a fresh database on the test server,
// read and written directly.
type fixtureDB struct {
	url     func(t testing.TB) string             // a fresh database (default testdb.URL)
	web     func(t testing.TB, url string) string // the server's URL of it (default url itself)
	replica func(t testing.TB, url string) string // a replica of it for pages (default none)
}

func openPool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// setupFixtureDB is setupFixture on the database topology where says.
func setupFixtureDB(t testing.TB, adjust func(*config.Web), created time.Time, where fixtureDB) *fixture {
	t.Helper()
	cfg := testConfig()
	if adjust != nil {
		adjust(&cfg)
	}
	var db *pgxpool.Pool
	var url string
	if where.url == nil && where.web == nil && where.replica == nil {
		db = testdb.New(t)
	} else {
		if where.url == nil {
			where.url = testdb.URL
		}
		url = where.url(t)
		db = openPool(t, url)
	}
	f := &fixture{t: t, db: db, webDB: db, store: testutil.NewStores(db), clock: testutil.NewClock(testStart)}
	if where.web != nil {
		f.webDB = openPool(t, where.web(t, url))
	}
	if where.replica != nil {
		f.replicaDB = openPool(t, where.replica(t, url))
	}
	f.srv, f.ts = f.serve(cfg)

	ctx := context.Background()
	var err error
	f.orgA, err = f.store.Tenants.CreateOrg(ctx, "acme", "Acme Field Services", created)
	require.NoError(t, err)
	f.orgB, err = f.store.Tenants.CreateOrg(ctx, "globex", "Globex Repairs", created)
	require.NoError(t, err)
	f.staff = f.user("staff@fieldbrief.test", true)
	f.adminA = f.member(f.orgA, "admin@acme.test", tenants.RoleAdmin)
	f.memberA = f.member(f.orgA, "member@acme.test", tenants.RoleMember)
	f.adminB = f.member(f.orgB, "admin@globex.test", tenants.RoleAdmin)
	f.memberB = f.member(f.orgB, "member@globex.test", tenants.RoleMember)
	return f
}

// serve starts another server with cfg on the fixture's database and clock
// (key rotation tests run two servers side by side).
func (f *fixture) serve(cfg config.Web) (*Server, *httptest.Server) {
	f.t.Helper()
	log := slog.New(slog.NewTextHandler(testLogWriter{f.t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := New(cfg, f.webDB, log)
	require.NoError(f.t, err)
	// New passwords (an invite accepted, a reset, a profile's change) at
	// the fixture's cheap cost, as the fixture's users have: argon2id's
	// production cost (19 MiB, 2 passes) under the race detector was the
	// costliest thing some of these tests did. The production cost is
	// tested in internal/accounts.
	srv.accounts.Hashing = testutil.CheapHashing()
	if f.replicaDB != nil {
		srv.UseReplica(f.replicaDB)
	}
	srv.now = f.clock.Now
	var ts *httptest.Server
	if cfg.SecureCookies {
		ts = httptest.NewTLSServer(srv)
	} else {
		ts = httptest.NewServer(srv)
	}
	f.t.Cleanup(ts.Close)
	return srv, ts
}

func (f *fixture) user(email string, staff bool) accounts.User {
	f.t.Helper()
	u, err := f.store.Accounts.UpsertUser(context.Background(), email, testPassword, staff)
	require.NoError(f.t, err)
	return u
}

func (f *fixture) member(o tenants.Org, email string, role tenants.Role) accounts.User {
	f.t.Helper()
	u := f.user(email, false)
	require.NoError(f.t, f.store.Tenants.AddMember(context.Background(), o.ID, u.ID, role))
	return u
}

// advance moves the injected clock forward.
func (f *fixture) advance(d time.Duration) { f.clock.Advance(d) }

// anon is a client with an empty cookie jar.
func (f *fixture) anon() *client { return f.clientFor(f.ts) }

// clientFor is an anonymous client of ts (a second server in the test).
func (f *fixture) clientFor(ts *httptest.Server) *client {
	f.t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(f.t, err)
	hc := &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       testutil.Settle, // a guard against a hang, not a measure of speed
	}
	// A transport of its own: httptest.Server.Close closes the idle
	// connections of http.DefaultTransport, which broke requests of tests
	// running in parallel ("CloseIdleConnections called").
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if ts.TLS != nil {
		transport.TLSClientConfig = &tls.Config{RootCAs: ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	}
	hc.Transport = transport
	return &client{t: f.t, base: ts.URL, hc: hc, header: http.Header{}}
}

// as returns a client signed in as u through POST /login; nil is anonymous.
func (f *fixture) as(u *accounts.User) *client {
	f.t.Helper()
	c := f.anon()
	if u == nil {
		return c
	}
	c.login(u.Email, testPassword)
	return c
}

// client is a browser without JavaScript: a cookie jar, no redirects
// followed, and the CSRF token taken from its cookie like a form would.
type client struct {
	t      testing.TB
	base   string
	hc     *http.Client
	header http.Header
}

type response struct {
	Code   int
	Body   string
	Header http.Header
}

// login signs in and requires the 303 that follows success.
func (c *client) login(email, password string) {
	c.t.Helper()
	r := c.post("/login", url.Values{"email": {email}, "password": {password}})
	require.Equal(c.t, http.StatusSeeOther, r.Code, "sign in as %s: %s", email, r.Body)
}

// htmx returns a copy (sharing the cookie jar) that sends HX-Request: true.
func (c *client) htmx() *client {
	cp := *c
	cp.header = c.header.Clone()
	cp.header.Set("HX-Request", "true")
	return &cp
}

// with returns a copy (sharing the cookie jar) that sends an extra header.
func (c *client) with(key, value string) *client {
	cp := *c
	cp.header = c.header.Clone()
	cp.header.Set(key, value)
	return &cp
}

func (c *client) get(path string) response {
	c.t.Helper()
	return c.do(http.MethodGet, path, nil)
}

// post sends a form with the _csrf field from the cookie jar (fetching the
// token first with GET /login when the jar has none yet).
func (c *client) post(path string, form url.Values) response {
	c.t.Helper()
	return c.send(http.MethodPost, path, form)
}

// send is post with another method.
func (c *client) send(method, path string, form url.Values) response {
	c.t.Helper()
	token := c.csrfToken()
	if token == "" {
		c.get("/login")
		token = c.csrfToken()
	}
	require.NotEmpty(c.t, token, "no CSRF cookie")
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("_csrf", token)
	return c.do(method, path, f)
}

// postNoCSRF sends a form without any token.
func (c *client) postNoCSRF(path string, form url.Values) response {
	c.t.Helper()
	return c.do(http.MethodPost, path, form)
}

// cookie returns the jar's cookie with that name, or nil.
func (c *client) cookie(name string) *http.Cookie {
	u, _ := url.Parse(c.base)
	for _, ck := range c.hc.Jar.Cookies(u) {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

func (c *client) csrfToken() string {
	for _, name := range []string{httpkit.CSRFCookie, httpkit.CSRFCookieSecure} {
		if ck := c.cookie(name); ck != nil {
			return ck.Value
		}
	}
	return ""
}

func (c *client) do(method, path string, form url.Values) response {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	require.NoError(c.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	res, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return response{Code: res.StatusCode, Body: string(b), Header: res.Header}
}

// testLogWriter sends server logs (warnings and errors) to the test log.
type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
