package api

import (
	"context"
	"fieldbrief/internal/database"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/config"
	"fieldbrief/internal/field"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
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
	clock *testutil.Clock

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
	f := &fixture{t: t, db: db, store: testutil.NewStores(db), clock: testutil.NewClock(testStart)}
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
	reads := &httpkit.Reads{DB: db, Skip: never, Primary: always, Untracked: always, Wait: time.Minute}
	// Its bounds guards, not measures of speed: writers of one record
	// queue on its lock, reads for a pooled connection, and statements
	// run, as long as a busy machine makes them (the server's 4 s lock bound answered 503 to
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

// newToken creates a write token of o (as its first admin would) and returns it.
func (f *fixture) newToken(o tenants.Org, name string) string {
	return apitest.NewToken(f.t, f.store.Tokens, o, name, f.clock.Now())
}

// api is a client of the fixture's API with token.
func (f *fixture) api(token string) *apitest.Client { return apitest.NewClient(f.t, f.ts.URL, token) }

// count runs a count query on the test's database.
func (f *fixture) count(sql string, args ...any) int { return testutil.Count(f.t, f.db, sql, args...) }

// setZone saves an org's briefing settings in zone.
func (f *fixture) setZone(o tenants.Org, zone string) { apitest.SetZone(f.t, f.store.Tenants, o, zone) }

// waitersOnRowLocks is how many backends of the test database wait for a
// row or transaction lock.
func (f *fixture) waitersOnRowLocks() int {
	return f.count(`SELECT count(*) FROM pg_stat_activity
	                 WHERE datname = current_database() AND wait_event_type = 'Lock'
	                   AND wait_event IN ('transactionid', 'tuple')`)
}
