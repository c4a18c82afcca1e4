package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/testutil/freeport"
)

// result is what one run of the program left behind.
type result struct {
	stdout, stderr string
	err            error
}

// cli runs the program against one database, as an operator would.
type cli struct {
	t   *testing.T
	env map[string]string
}

func newCLI(t *testing.T, databaseURL string) *cli {
	return &cli{t: t, env: map[string]string{
		"DATABASE_URL":     databaseURL,
		"SESSION_KEY_FILE": filepath.Join(t.TempDir(), "session.key"),
	}}
}

func (c *cli) run(ctx context.Context, args ...string) result {
	c.t.Helper()
	return c.runStdin(ctx, "", args...)
}

// runStdin runs the program with stdin as its standard input.
func (c *cli) runStdin(ctx context.Context, stdin string, args ...string) result {
	c.t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, func(k string) string { return c.env[k] }, strings.NewReader(stdin), &stdout, &stderr)
	return result{stdout.String(), stderr.String(), err}
}

func (c *cli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(context.Background(), args...)
	require.NoError(c.t, r.err, "web %s\nstderr:\n%s", strings.Join(args, " "), r.stderr)
	return r.stdout
}

func isUsage(err error) bool { return errors.As(err, new(*usageError)) }

func TestUsage(t *testing.T) {
	t.Parallel()
	// No database is needed: every one of these fails or finishes before connecting.
	c := newCLI(t, "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")

	help := c.ok("help")
	for _, want := range []string{"serve", "migrate", "create-org", "create-user", "seed-demo", "DATABASE_URL", "ADDR", "SESSION_KEYS"} {
		require.Contains(t, help, want)
	}
	require.Equal(t, help, c.ok("-h"))
	require.Contains(t, c.ok("create-user", "-h"), "-role")

	for _, args := range [][]string{
		{"frobnicate"},
		{"-no-such-flag"},
		{"serve", "-no-such-flag"},
		{"create-org", "-slug", "acme"},                     // -name missing
		{"create-org", "-slug", "Not A Slug", "-name", "x"}, // rejected before the database
		{"create-user", "-email", "a@b.test"},               // -password missing
		{"create-user", "-email", "a@b.test", "-password", "pw", "-role", "admin"},
		{"create-user", "-email", "a@b.test", "-password", "pw", "-org", "acme", "-role", "owner"},
		{"migrate", "extra"},
	} {
		r := c.run(context.Background(), args...)
		require.True(t, isUsage(r.err), "web %v: want a usage error, got %v", args, r.err)
		require.Contains(t, r.stderr, "Usage: web", "web %v", args)
	}
}

func TestMigrateEmptyDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t, emptyDatabase(t))
	require.Contains(t, c.ok("migrate"), "up to date")
	require.Contains(t, c.ok("migrate"), "up to date") // nothing pending the second time

	pool := connect(t, c.env["DATABASE_URL"])
	var flag bool
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT is_enabled FROM admin_feature_flags WHERE key = 'fieldforce.briefing'`).Scan(&flag))
}

// TestBadTZSource: zone rules nobody chose refuse every command before the
// database is touched.
func TestBadTZSource(t *testing.T) {
	t.Parallel()
	c := newCLI(t, emptyDatabase(t))
	c.env["TZ_SOURCE"] = "system"
	r := c.run(context.Background(), "migrate")
	require.EqualError(t, r.err, `zone rules: TZ_SOURCE="system": want "embedded" (the default) or "host"`)
	require.False(t, isUsage(r.err))

	pool := connect(t, c.env["DATABASE_URL"])
	var migrated bool
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&migrated))
	require.False(t, migrated, "nothing applied")
}

func TestCreateOrgAndUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])

	out := c.ok("create-org", "-slug", "acme", "-name", "Acme Field Services")
	var id int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&id))
	require.Contains(t, out, fmt.Sprintf("id=%d slug=acme", id))

	dup := c.run(ctx, "create-org", "-slug", "acme", "-name", "Another Acme")
	require.Error(t, dup.err)
	require.False(t, isUsage(dup.err))
	require.Equal(t, apperr.Conflict, apperr.Code(dup.err))
	require.Equal(t, `create-org: The slug “acme” is taken: choose another.`, dup.err.Error())

	out = c.ok("create-user", "-email", "ada@acme.test", "-password", "pw-1-violet-harbor-tuesday", "-org", "acme", "-role", "admin")
	require.Contains(t, out, "email=ada@acme.test staff=false")
	require.Contains(t, out, "member of acme")
	require.Equal(t, "admin", role(t, pool, "ada@acme.test", "acme"))

	c.ok("create-user", "-email", "bob@acme.test", "-password", "pw-2-violet-harbor-tuesday", "-org", "acme")
	require.Equal(t, "member", role(t, pool, "bob@acme.test", "acme"))

	out = c.ok("create-user", "-email", "root@fieldbrief.test", "-password", "pw-3-violet-harbor-tuesday", "-staff")
	require.Contains(t, out, "staff=true")
	var staff bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT is_staff FROM users WHERE email = 'root@fieldbrief.test'`).Scan(&staff))
	require.True(t, staff)

	// Running it again for the same person changes the role, not the number of people.
	c.ok("create-user", "-email", "ADA@acme.test", "-password", "pw-4-violet-harbor-tuesday", "-org", "acme", "-role", "member")
	require.Equal(t, "member", role(t, pool, "ada@acme.test", "acme"))

	unknown := c.run(ctx, "create-user", "-email", "eve@nowhere.test", "-password", "pw", "-org", "nowhere", "-role", "admin")
	require.Error(t, unknown.err)
	require.False(t, isUsage(unknown.err))
	require.Equal(t, apperr.NotFound, apperr.Code(unknown.err))
	require.Contains(t, unknown.err.Error(), `no org "nowhere"`)

	var users int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&users))
	require.Equal(t, 3, users, "the failed create-user must not leave a user behind")
}

func TestSeedDemoTwice(t *testing.T) {
	t.Parallel()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])

	out := c.ok("seed-demo")
	for _, want := range []string{"northwind", "bergmann", "kiwi-pipes", "staff@fieldbrief.test", "admin@northwind.test", "demo-password-1"} {
		require.Contains(t, out, want)
	}
	first := tableCounts(t, pool)
	require.Equal(t, 3, first["orgs"])

	out = c.ok("seed-demo")
	require.Equal(t, first, tableCounts(t, pool))
	require.NotContains(t, out, "(new)")
}

// In production seed-demo refuses before touching the database: it would
// create staff and admins whose password is printed in the README.
func TestSeedDemoRefusesInProduction(t *testing.T) {
	t.Parallel()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	before := tableCounts(t, pool)

	c.env["FIELDBRIEF_ENV"] = "production"
	r := c.run(context.Background(), "seed-demo")
	require.Error(t, r.err, "non-zero exit")
	require.False(t, isUsage(r.err), "a refusal, not a mistake on the command line")
	require.Contains(t, r.err.Error(), "FIELDBRIEF_ENV=production")
	require.Contains(t, r.err.Error(), "known password")
	require.Empty(t, r.stdout)
	require.Equal(t, before, tableCounts(t, pool), "nothing created")
}

func TestServe(t *testing.T) {
	t.Parallel()
	c := newCLI(t, testdb.URL(t))
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	c.env["METRICS_ADDR"] = metricsAddr

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() { done <- c.run(ctx, "serve", "-addr", addr) }()

	base := "http://" + addr
	require.Eventually(t, func() bool {
		select {
		case r := <-done: // exited early: fail with its output rather than a timeout
			done <- r
			return true
		default:
		}
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}, testutil.Settle, 50*time.Millisecond)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		require.NoError(t, err, path)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
	// METRICS_ADDR: /metrics there, and not on the public listener.
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.Contains(string(body), "fieldbrief_http_requests_total"))
	resp, err = http.Get(base + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	cancel()
	select {
	case r := <-done:
		require.NoError(t, r.err, r.stderr)
		require.Contains(t, r.stderr, `"msg":"stopped"`)
		require.Contains(t, r.stderr, `"zone_rules":"`+schedule.EmbeddedZoneRules().String()+`"`, "the start-up line names the zone rules")
	case <-time.After(shutdownGrace + 5*time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	_, err = http.Get(base + "/healthz")
	require.Error(t, err, "the listener must be closed")
	_, err = http.Get("http://" + metricsAddr + "/metrics")
	require.Error(t, err, "the metrics listener must be closed")
}

func connect(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

func role(t *testing.T, pool *pgxpool.Pool, email, slug string) string {
	t.Helper()
	var r string
	err := pool.QueryRow(context.Background(), `
		SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id JOIN orgs o ON o.id = m.org_id
		WHERE lower(u.email) = lower($1) AND o.slug = $2`, email, slug).Scan(&r)
	require.NoError(t, err)
	return r
}

func tableCounts(t *testing.T, pool *pgxpool.Pool) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, table := range []string{"orgs", "users", "memberships", "technicians", "jobs", "org_module_configs", "admin_feature_flags", "audit_log"} {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n))
		counts[table] = n
	}
	return counts
}

func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := freeport.Take()
	require.NoError(t, err)
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// emptyDatabase creates a database with no tables on the test server (the
// one testdb uses), dropped at cleanup, so migrate starts from nothing.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	u, err := url.Parse(testdb.ServerURL(t))
	require.NoError(t, err)
	u.Path = "/postgres"
	adminURL := u.String() // u is pointed at the new database below; cleanup must not be
	admin, err := pgx.Connect(ctx, adminURL)
	require.NoError(t, err)
	defer admin.Close(ctx)

	name := fmt.Sprintf("fieldbrief_cmdweb_%d", time.Now().UnixNano())
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", name, err) // a leaked database per run would pile up on the server
		}
	})
	u.Path = "/" + name
	return u.String()
}

// TestServeThroughPgBouncer: serve with DATABASE_URL through PgBouncer in
// transaction mode, as docs/scaling.md's step 2 deploys it: the
// migrations run on DATABASE_DIRECT_URL (their advisory lock needs a
// session), and the pages, with several requests at once, through the
// pooler in the query mode the web picks for it.
func TestServeThroughPgBouncer(t *testing.T) {
	t.Parallel()
	b := pgtopo.PgBouncer(t)
	direct := emptyDatabase(t)
	pooled, err := url.Parse(b.URL(t, direct))
	require.NoError(t, err)
	q := pooled.Query()
	q.Del("default_query_exec_mode") // the web must choose it itself
	pooled.RawQuery = q.Encode()
	c := newCLI(t, pooled.String())
	c.env["DATABASE_DIRECT_URL"] = direct
	c.env["LOG_LEVEL"] = "warn"
	// Requests queue for a turn as long as a busy machine makes them: the
	// default 50 ms wait shed a sign-in with 503 when two CPU loops ran
	// beside the suite. This test is about the pooler, not the shedding
	// (internal/web's overload tests are).
	c.env["WEB_QUEUE_WAIT"] = "1m"
	// And wait for a pooled connection as long as one takes to make through
	// the pooler (the default 2 s answered 503 through PgBouncer on a loaded
	// CI machine: docs/web.md, "Web under load").
	c.env["WEB_POOL_WAIT"] = "1m"
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() { done <- c.run(ctx, "serve", "-addr", addr) }()
	base := "http://" + addr
	require.Eventually(t, func() bool {
		select {
		case r := <-done:
			t.Fatalf("serve exited: %v\n%s", r.err, r.stderr)
		default:
		}
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, testutil.Settle, 50*time.Millisecond)
	require.NotEmpty(t, tableCounts(t, connect(t, direct)), "migrated")

	// Sign-ins and pages at once, more than PgBouncer's server connections
	// for the database (pgtopo: 1). The user is made on the direct URL.
	c.ok("create-user", "-email", "staff@example.test", "-password", "a long enough password", "-staff")
	var wg sync.WaitGroup
	var shed atomic.Int64
	errs := make(chan string, 100)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jar, _ := cookiejar.New(nil)
			hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			status := func(resp *http.Response, err error) int {
				if err != nil {
					errs <- err.Error()
					return 0
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			// The sign-in form sets the CSRF cookie; a shed GET (503)
			// sets none, and a POST without it is refused (403): a person
			// reloads the form, and so does this test.
			page := status(hc.Get(base + "/login"))
			for deadline := time.Now().Add(testutil.Settle); page == http.StatusServiceUnavailable && time.Now().Before(deadline); {
				time.Sleep(time.Second)
				page = status(hc.Get(base + "/login"))
			}
			if page != http.StatusOK {
				errs <- fmt.Sprintf("GET /login: %d", page)
				return
			}
			var token string
			u, _ := url.Parse(base)
			for _, ck := range jar.Cookies(u) {
				if ck.Name == "_csrf" {
					token = ck.Value
				}
			}
			form := url.Values{"email": {"staff@example.test"}, "password": {"a long enough password"}, "_csrf": {token}}
			// Six sign-ins at once meet the server's bounded password
			// hashing and its admission queue, which answer 503 when a
			// busy machine makes them wait too long; a person signs in
			// again, and so does this test (both bounds have their own
			// tests: internal/auth, internal/httpkit).
			got := status(hc.PostForm(base+"/login", form))
			for deadline := time.Now().Add(testutil.Settle); got == http.StatusServiceUnavailable && time.Now().Before(deadline); {
				time.Sleep(time.Second)
				got = status(hc.PostForm(base+"/login", form))
			}
			if got != http.StatusSeeOther {
				errs <- fmt.Sprintf("POST /login: %d", got)
				return
			}
			for range 5 {
				for _, p := range []string{"/staff", "/staff/audit", "/staff/flags"} {
					switch got := status(hc.Get(base + p)); got {
					case http.StatusOK, http.StatusSeeOther:
					case http.StatusServiceUnavailable:
						shed.Add(1) // load shedding: one server connection for six browsers
					default:
						errs <- fmt.Sprintf("GET %s: %d", p, got)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	require.Less(t, shed.Load(), int64(6*5*3/2), "most pages were shed")
	cancel()
	r := <-done
	require.NoError(t, r.err, r.stderr)
	require.NotContains(t, r.stderr, "prepared statement", r.stderr)
}
