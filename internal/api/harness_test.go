package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fieldbrief/internal/database"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/config"
	"fieldbrief/internal/field"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/tokens"
)

// fixture is one test's world: a fresh database, the API on it with an
// injected clock, mounted at /api/v1 as the web server mounts it (its
// error handler, HEAD as GET, no trailing slash, the request bounds and
// read transaction), and two orgs. What the API does inside the whole
// server, beside the pages (cookies ignored, tokens made on the settings
// page, the server's own 404s and panics as JSON), internal/web's tests
// check (api_mounted_test.go).
type fixture struct {
	t     testing.TB
	srv   *API
	echo  *echo.Echo
	db    *pgxpool.Pool
	store *testutil.Stores
	ts    *httptest.Server
	clock *testClock

	orgA, orgB tenants.Org
}

// testStart is where the injected clock starts.
var testStart = time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)

// orgsCreated is when the fixture's orgs were set up: long before the test clock.
var orgsCreated = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// setup builds a fixture with the server's default settings.
func setup(t testing.TB) *fixture { return setupDeps(t, nil) }

// setupDeps builds a fixture after letting the test adjust the API's settings.
func setupDeps(t testing.TB, adjust func(*Deps)) *fixture {
	t.Helper()
	db := testdb.New(t)
	f := &fixture{t: t, db: db, store: testutil.NewStores(db), clock: &testClock{now: testStart}}
	briefings, err := briefing.NewStore(db)
	require.NoError(t, err)
	d := Deps{DB: db, Tenants: f.store.Tenants, Tokens: f.store.Tokens, Field: &field.Store{DB: db}, Briefings: briefings,
		Rate: config.DefaultAPIRate, Burst: config.DefaultAPIBurst, Now: f.clock.Now}
	if adjust != nil {
		adjust(&d)
	}
	f.srv, err = New(d)
	require.NoError(t, err)
	f.echo = echo.New()
	f.echo.HTTPErrorHandler = func(err error, c echo.Context) {
		if !c.Response().Committed {
			httpkit.SetRetryAfter(c, err)
			WriteError(c, err)
		}
	}
	f.echo.Pre(middleware.RemoveTrailingSlash())
	// What the web server gives every API request besides its routes'
	// middleware (internal/web/routes.go): the bounds on its database work,
	// and a GET's reads in one read-only transaction on the primary.
	never, always := func(echo.Context) bool { return false }, func(echo.Context) bool { return true }
	reads := &httpkit.Reads{DB: db, Skip: never, Primary: always, Untracked: always}
	// Its bounds guards, not measures of speed: writers of one record
	// queue on its lock, and statements run, as long as a busy machine
	// makes them (the server's 4 s lock bound answered 503 to
	// TestAPIIfNoneMatchStarCreatesOnly's eight PUTs inside the loaded
	// suite); internal/web tests the bounds themselves.
	f.echo.Use(httpkit.Bound(database.Limits{Lock: time.Minute, Statement: time.Minute}, 2*time.Minute, nil), reads.Tx)
	f.srv.Routes(f.echo.Group("/api/v1"))
	f.ts = httptest.NewServer(httpkit.HeadAsGet(f.echo))
	t.Cleanup(f.ts.Close)

	ctx := context.Background()
	f.orgA, err = f.store.Tenants.CreateOrg(ctx, "acme", "Acme Field Services", orgsCreated)
	require.NoError(t, err)
	f.orgB, err = f.store.Tenants.CreateOrg(ctx, "globex", "Globex Repairs", orgsCreated)
	require.NoError(t, err)
	return f
}

func (f *fixture) advance(d time.Duration) { f.clock.Advance(d) }

// testClock is the injected clock; tests move it with advance.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// apiResponse is an API answer, its body decoded.
type apiResponse struct {
	Code   int
	Header http.Header
	Body   string
	JSON   map[string]any
}

// apiClient calls the API with one bearer token and no cookies.
type apiClient struct {
	t     testing.TB
	base  string
	token string
	hc    *http.Client
}

// newToken creates a token of o (as its first admin would) and returns it.
func (f *fixture) newToken(o tenants.Org, name string) string {
	f.t.Helper()
	_, token, err := f.store.Tokens.Create(context.Background(), audit.Actor{Email: "admin@" + o.Slug + ".test"}, o.ID, name, tokens.ScopeWrite, f.clock.Now())
	require.NoError(f.t, err)
	return token
}

func (f *fixture) api(token string) *apiClient {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	return &apiClient{t: f.t, base: f.ts.URL, token: token, hc: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
}

// call sends body (a string as is, anything else as JSON) with the token.
func (a *apiClient) call(method, path string, body any, headers ...string) apiResponse {
	a.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(a.t, err)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	require.NoError(a.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := a.hc.Do(req)
	require.NoError(a.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	out := apiResponse{Code: res.StatusCode, Header: res.Header, Body: string(raw)}
	require.Equal(a.t, "application/json", strings.Split(res.Header.Get("Content-Type"), ";")[0],
		"%s %s: every API answer is JSON; got %d %q", method, path, res.StatusCode, raw)
	require.NoError(a.t, json.Unmarshal(raw, &out.JSON), "%s %s: %s", method, path, raw)
	return out
}

func (a *apiClient) get(path string) apiResponse { return a.call(http.MethodGet, path, nil) }

func (a *apiClient) put(path string, body any) apiResponse { return a.call(http.MethodPut, path, body) }

// requireAPIError checks the error envelope of docs/api.md, "Errors" and returns its fields.
func requireAPIError(t testing.TB, r apiResponse, status int, code string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Code, r.Body)
	e, ok := r.JSON["error"].(map[string]any)
	require.True(t, ok, "no error object: %s", r.Body)
	require.Equal(t, code, e["code"], r.Body)
	require.NotEmpty(t, e["message"], r.Body)
	fields, ok := e["fields"].(map[string]any)
	require.True(t, ok, "no fields object: %s", r.Body)
	return fields
}

// jsonAt returns the JSON at a path of object keys, re-encoded.
func jsonAt(t testing.TB, body string, keys ...string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	for _, k := range keys {
		m, ok := v.(map[string]any)
		require.True(t, ok, "%s: no object at %q", body, k)
		v = m[k]
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func (f *fixture) count(sql string, args ...any) int {
	f.t.Helper()
	var n int
	require.NoError(f.t, f.db.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// setZone saves an org's briefing settings in zone.
func (f *fixture) setZone(o tenants.Org, zone string) {
	f.t.Helper()
	_, err := f.store.Tenants.SaveFieldforce(context.Background(), audit.System, o.ID, []byte(`{"briefing":{"timezone":"`+zone+`","schedule_local_time":"07:00"}}`), tenants.AnyVersion)

	require.NoError(f.t, err)
}

// rawAPI sends one API request without the test's require (it runs on a
// goroutine of its own).
func rawAPI(base, token, method, path, contentType, body string) (int, http.Header, string, error) {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b), err
}

type rawAnswer struct {
	code   int
	header http.Header
	body   string
	err    error
	took   time.Duration
}

// waitersOnRowLocks is how many backends of the test database wait for a
// row or transaction lock.
func (f *fixture) waitersOnRowLocks() int {
	return f.count(`SELECT count(*) FROM pg_stat_activity
	                 WHERE datname = current_database() AND wait_event_type = 'Lock'
	                   AND wait_event IN ('transactionid', 'tuple')`)
}
