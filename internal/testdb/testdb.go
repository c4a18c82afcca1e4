// Package testdb gives each test its own freshly migrated PostgreSQL database
// (pgtestdb clones a template built once with database.Migrate: our goose
// migrations and River's).
//
// The server is found once per test process, the way scripts/pg.sh finds
// one for `make test`:
//
//  1. DATABASE_URL set → that server (host, port, credentials and query
//     parameters such as sslmode; the database name is ignored).
//  2. A server on 127.0.0.1:$PG_PROBE_PORT (default 5432) that lets user
//     postgres in without a password → that one.
//  3. Otherwise the repository's scripts/pg.sh is run, which starts (or
//     reuses) the throwaway cluster under .pgdata/, and its URL is used.
//
// So `go test ./...` works without `make test`, and without a server on 5432.
package testdb

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver pgtestdb uses
	"github.com/peterldowns/pgtestdb"
	"github.com/peterldowns/pgtestdb/migrators/common"

	"fieldbrief/internal/database"
	"fieldbrief/internal/history"
	"fieldbrief/migrations"
)

// migrator builds the template with the very function both binaries run at
// start, so every test database has River's tables too.
//
// server is empty for the test server and the other server's address for
// URLOn: pgtestdb remembers a template per process by its hash alone, so
// a template on another server needs a hash of its own.
type migrator struct{ server string }

// Hash covers our migration files and River's migrations: a change to
// either builds a new template.
func (m migrator) Hash() (string, error) {
	h := common.NewRecursiveHash()
	if m.server != "" {
		h.AddField("server", m.server)
	}
	// A template has the history partitions of the month it was built in
	// and three ahead (history.EnsurePartitions): a new month, a new one.
	h.AddField("month", time.Now().UTC().Format("2006-01"))
	h.AddField("history-months", TestMonthsFrom.Format("2006-01")+"/"+TestMonthsTo.Format("2006-01"))
	if err := h.AddDirs(migrations.FS, "*.sql", "."); err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	river, err := database.RiverMigrations()
	if err != nil {
		return "", err
	}
	for _, m := range river {
		h.AddField(fmt.Sprintf("river/%d/%s", m.Version, m.Name), m.SQLUp)
	}
	return h.String(), nil
}

func (migrator) Migrate(ctx context.Context, _ *sql.DB, cfg pgtestdb.Config) error {
	pool, err := pgxpool.New(ctx, cfg.URL())
	if err != nil {
		return fmt.Errorf("open template pool: %w", err)
	}
	defer pool.Close()
	if err := database.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	// The history tables' months where the tests' fixed clocks are
	// (October 2025 to March 2027): production has the months of its rows
	// and three ahead, tests write history at instants of their own
	// (docs/testing.md, "History partitions in tests").
	_, err = history.EnsureMonths(ctx, pool, TestMonthsFrom, TestMonthsTo)
	return err
}

// TestMonthsFrom and TestMonthsTo bound the history months every test
// database has beside the current ones. Each month is a partition of five
// tables with their indexes, and a backend's first statement on a history
// table without the partition key opens them all: 48 months cost a new
// connection 125 ms of the server's CPU for three such statements, 15
// months 40 ms (docs/testing.md, "History partitions in tests").
var (
	TestMonthsFrom = time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	TestMonthsTo   = time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
)

// URL creates an isolated, migrated database for this test and returns its
// connection string. It is dropped when the test passes.
func URL(t testing.TB) string {
	t.Helper()
	return instance(t, serverConfig(t), migrator{})
}

// URLOn is URL on the server at serverURL instead of the test server: for
// tests that run a cluster of their own (internal/chaos restarts one).
func URLOn(t testing.TB, serverURL string) string {
	t.Helper()
	cfg, err := configFromURL(serverURL)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	return instance(t, cfg, migrator{server: net.JoinHostPort(cfg.Host, cfg.Port)})
}

// A test's database is a copy of the template made with STRATEGY FILE_COPY.
//
// pgtestdb builds the template (once per hash, under an advisory lock, so
// the suite's packages build it once between them) and makes the first
// test's database of each process; it clones with CREATE DATABASE's
// default strategy, WAL_LOG, which copies every page of the template's
// 2,200 relations through the buffer pool and the WAL. FILE_COPY copies
// the files: 83 ms of the server's CPU for a create and drop against 160 ms
// (docs/benchmarks.md, "The test suite"), and a run makes about 1,250.
// pgtestdb has no option for the strategy, so the later copies are ours.
type cloner struct {
	mu    sync.Mutex
	inst  pgtestdb.Config // pgtestdb's first instance: user, options, template's name
	tpl   string
	admin *pgxpool.Pool // the server's maintenance database, as the superuser
}

var cloners = struct {
	sync.Mutex
	by map[string]*cloner // by migrator hash input (the server)
}{by: map[string]*cloner{}}

func instance(t testing.TB, cfg pgtestdb.Config, m migrator) string {
	t.Helper()
	cloners.Lock()
	c := cloners.by[m.server]
	if c == nil {
		c = &cloner{}
		cloners.by[m.server] = c
	}
	cloners.Unlock()

	c.mu.Lock()
	if c.tpl == "" {
		// Unlocked on every path, t.Fatalf's Goexit included.
		defer c.mu.Unlock()
		inst := pgtestdb.Custom(t, cfg, m)
		tpl, _, ok := strings.Cut(inst.Database, "_inst_")
		if !ok {
			t.Fatalf("testdb: pgtestdb's database %q is not named <template>_inst_<id>", inst.Database)
		}
		admin, err := pgxpool.New(context.Background(), cfg.URL())
		if err != nil {
			t.Fatalf("testdb: open the server's maintenance pool: %v", err)
		}
		c.inst, c.tpl, c.admin = *inst, tpl, admin
		return inst.URL()
	}
	c.mu.Unlock()
	return c.clone(t)
}

func (c *cloner) clone(t testing.TB) string {
	t.Helper()
	id := make([]byte, 4)
	if _, err := cryptorand.Read(id); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	conf := c.inst
	conf.Database = c.tpl + "_inst_" + hex.EncodeToString(id)
	ctx := context.Background()
	create := fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s OWNER %s STRATEGY FILE_COPY`,
		pgx.Identifier{conf.Database}.Sanitize(), pgx.Identifier{c.tpl}.Sanitize(), pgx.Identifier{conf.User}.Sanitize())
	if err := c.exec(ctx, create); err != nil {
		t.Fatalf("testdb: create %s from %s: %v", conf.Database, c.tpl, err)
	}
	t.Cleanup(func() {
		// A failed test's database stays for a look, as pgtestdb leaves it.
		if t.Failed() {
			t.Logf("testdb: kept %s", conf.URL())
			return
		}
		drop := `DROP DATABASE IF EXISTS ` + pgx.Identifier{conf.Database}.Sanitize() + ` WITH (FORCE)`
		if err := c.exec(ctx, drop); err != nil {
			t.Errorf("testdb: drop %s: %v", conf.Database, err)
		}
	})
	return conf.URL()
}

// exec runs sql on the maintenance pool, once more on a new connection when
// the server closed the one it took (internal/chaos restarts its cluster).
func (c *cloner) exec(ctx context.Context, sql string) error {
	_, err := c.admin.Exec(ctx, sql)
	var pgErr *pgconn.PgError
	if err != nil && !errors.As(err, &pgErr) {
		_, err = c.admin.Exec(ctx, sql)
	}
	return err
}

// New creates an isolated, migrated database for this test and returns a pool
// on it, closed at cleanup.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), URL(t))
	if err != nil {
		t.Fatalf("testdb: open pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// ServerURL returns a URL of the test server's maintenance database
// ("postgres"), for tests that create or drop databases themselves.
func ServerURL(t testing.TB) string {
	t.Helper()
	return serverConfig(t).URL()
}

// server is the test server, found once per process.
var server struct {
	once   sync.Once
	url    string // postgres://… of the server; its database name is not used
	source string // where it came from, for messages
	err    error
}

func serverConfig(t testing.TB) pgtestdb.Config {
	t.Helper()
	server.once.Do(func() { server.url, server.source, server.err = findServer() })
	if server.err != nil {
		t.Fatalf("testdb: no PostgreSQL for tests: set DATABASE_URL or run `make test`.\n%v", server.err)
	}
	cfg, err := configFromURL(server.url)
	if err != nil {
		t.Fatalf("testdb: %s: %v", server.source, err)
	}
	return cfg
}

// probeTimeout bounds each step of the look at 127.0.0.1:$PG_PROBE_PORT.
const probeTimeout = 3 * time.Second

// findServer returns the server's URL and where it came from.
func findServer() (serverURL, source string, err error) {
	if raw := os.Getenv("DATABASE_URL"); raw != "" {
		return raw, "DATABASE_URL", nil
	}
	port := os.Getenv("PG_PROBE_PORT")
	if port == "" {
		port = "5432"
	}
	local := "postgres://postgres@" + net.JoinHostPort("127.0.0.1", port) + "/postgres?sslmode=disable"
	if answers(local) {
		return local, "the server on 127.0.0.1:" + port, nil
	}
	u, err := runPgSh()
	if err == nil {
		// Shown with -v or when a test fails: where the databases come from.
		fmt.Fprintf(os.Stderr, "testdb: DATABASE_URL is unset and nothing answers on 127.0.0.1:%s; using %s from scripts/pg.sh\n", port, u)
	}
	return u, "scripts/pg.sh", err
}

// answers reports whether a server we can sign in to listens at url: a quick
// TCP dial first, so a closed port costs nothing, then a real connection.
func answers(serverURL string) bool {
	u, err := url.Parse(serverURL)
	if err != nil {
		return false
	}
	c, err := net.DialTimeout("tcp", u.Host, probeTimeout)
	if err != nil {
		return false
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return false
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx) == nil
}

// runPgSh runs the repository's scripts/pg.sh, which prints a URL on stdout
// after finding, starting or creating the throwaway cluster.
func runPgSh() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "scripts", "pg.sh")
	cmd := exec.Command("bash", script, "postgres")
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", script, err, strings.TrimSpace(stderr.String()))
	}
	os.Stderr.Write(stderr.Bytes())
	out := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(out, "postgres://") && !strings.HasPrefix(out, "postgresql://") {
		return "", fmt.Errorf("%s printed %q, not a postgres:// URL\n%s", script, out, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// repoRoot finds the module root: from this source file's path when the
// build kept it, else by walking up from the working directory to go.mod.
func repoRoot() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Join(filepath.Dir(file), "..", "..")
		if _, err := os.Stat(filepath.Join(root, "scripts", "pg.sh")); err == nil {
			return filepath.Clean(root), nil
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "scripts", "pg.sh")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the repository root (go.mod with scripts/pg.sh) above the working directory")
		}
		dir = parent
	}
}

// configFromURL turns a server URL into pgtestdb's settings. Its query
// parameters (sslmode, sslrootcert, connect_timeout, …) are kept, except
// pgxpool's own pool_* settings, which mean nothing to a single connection.
// A user defaults to postgres.
func configFromURL(raw string) (pgtestdb.Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return pgtestdb.Config{}, fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return pgtestdb.Config{}, fmt.Errorf("want a postgres:// URL, got scheme %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return pgtestdb.Config{}, errors.New("the URL names no host")
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	user := u.User.Username()
	if user == "" {
		user = "postgres"
	}
	password, _ := u.User.Password()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return pgtestdb.Config{
		DriverName:                "pgx",
		Host:                      u.Hostname(),
		Port:                      port,
		User:                      user,
		Password:                  password,
		Database:                  "postgres",
		Options:                   q.Encode(),
		ForceTerminateConnections: true,
	}, nil
}
