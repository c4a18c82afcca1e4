package pgtopo

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/citus"
	"fieldbrief/internal/database"
	"fieldbrief/internal/history"
)

// Citus is a throwaway Citus cluster for one test (docs/scaling.md,
// step 4): a coordinator and its workers, each a PostgreSQL 15 cluster of
// its own started from the machine's binaries with Citus loaded.
type Citus struct {
	CoordinatorPort int
	WorkerPorts     []int
	dir, bin        string
	template        string // an initdb'd data directory, copied for each node
	databases       []string
	extra           []string // server settings this PostgreSQL needs beside the usual
	seq             atomic.Int64
}

// citusPGVersion is the PostgreSQL major version the tests run Citus on:
// the one the Citus build CI installs is made for (docs/scaling.md,
// "Citus in tests").
const citusPGVersion = 15

// CitusCluster starts a coordinator and two workers with
// shared_preload_libraries = 'citus', on free ports, stopped at cleanup
// (and killed with the test binary). Without Citus in PostgreSQL 15 it
// fails the test with what to install; it never skips.
func CitusCluster(t testing.TB) *Citus {
	t.Helper()
	bin := os.Getenv("CITUS_PG_BIN")
	if bin == "" {
		bin = fmt.Sprintf("/usr/lib/postgresql/%d/bin", citusPGVersion)
	}
	if _, err := os.Stat(filepath.Join(bin, "postgres")); err != nil {
		t.Fatalf("pgtopo: Citus needs PostgreSQL %d's server binaries in %s: install Debian's postgresql-%d (scripts/need-postgres.sh)", citusPGVersion, bin, citusPGVersion)
	}
	lib, err := command(t, filepath.Join(bin, "pg_config"), "--pkglibdir").Output()
	libdir := strings.TrimSpace(string(lib))
	if err != nil || libdir == "" {
		libdir = fmt.Sprintf("/usr/lib/postgresql/%d/lib", citusPGVersion)
	}
	if _, err := os.Stat(filepath.Join(libdir, "citus.so")); err != nil {
		t.Fatalf("pgtopo: Citus is not installed in PostgreSQL %d (no %s/citus.so): run ../shared/citus/install.sh as root "+
			"(.ci/run does), or install Citus's own packages (docs/scaling.md, \"Installing Citus\")", citusPGVersion, libdir)
	}
	c := &Citus{dir: sharedTempDir(t, "fieldbrief-citus-"), bin: bin}
	// One initdb, copied for every node: initdb is most of a node's start.
	c.template = filepath.Join(c.dir, "template")
	run(t, filepath.Join(bin, "initdb"), "-D", c.template, "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--no-locale", "--no-instructions", "--no-sync")
	// Debian's PostgreSQL 15 (15.20) names the libraries that may be
	// logical decoding output plugins; Citus splits shards online
	// (isolate_tenant_to_new_shard) through its own, "citus"
	// (docs/scaling.md, "Installing Citus").
	if out, err := command(t, filepath.Join(bin, "postgres"), "--describe-config").Output(); err == nil &&
		strings.Contains(string(out), "output_plugin_libraries\t") {
		c.extra = append(c.extra, "-c", "output_plugin_libraries=pgoutput,test_decoding,citus")
	}
	c.CoordinatorPort = c.startNode(t, "coordinator")
	for range 2 {
		c.WorkerPorts = append(c.WorkerPorts, c.startNode(t, fmt.Sprintf("worker%d", len(c.WorkerPorts)+1)))
	}
	return c
}

// startNode copies the template data directory and starts a node on it.
func (c *Citus) startNode(t testing.TB, name string) int {
	t.Helper()
	data := filepath.Join(c.dir, name)
	run(t, "/bin/cp", "-a", c.template, data)
	port := freePort(t)
	// wal_level logical: the rebalancer and isolate_tenant_to_new_shard
	// move shards online with logical replication. shard_count 8 keeps a
	// test's DDL (one statement per shard) quick; production keeps
	// Citus's default of 32.
	args := []string{"-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + c.dir,
		"-c", "shared_preload_libraries=citus", "-c", "wal_level=logical",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB", "-c", "max_prepared_transactions=100",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "citus.shard_count=8", "-c", "citus.node_conninfo=sslmode=disable"}
	args = append(args, c.extra...)
	start(t, name, filepath.Join(c.dir, name+".log"), filepath.Join(c.bin, "postgres"), args...)
	waitAnswers(t, adminURL(port, "postgres"), filepath.Join(c.dir, name+".log"))
	return port
}

func adminURL(port int, db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, db)
}

// URL is a database on the coordinator, as the application connects to it.
func (c *Citus) URL(db string) string { return adminURL(c.CoordinatorPort, db) }

// Database creates a database on every node with the citus extension,
// registers the coordinator and the workers in its metadata, and returns
// its URL on the coordinator. Nothing is migrated or distributed yet.
func (c *Citus) Database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("fieldbrief_%d", c.seq.Add(1))
	for _, port := range append([]int{c.CoordinatorPort}, c.WorkerPorts...) {
		exec1(t, adminURL(port, "postgres"), `CREATE DATABASE `+name)
		exec1(t, adminURL(port, name), `CREATE EXTENSION citus`)
	}
	c.databases = append(c.databases, name)
	exec1(t, c.URL(name), fmt.Sprintf(`SELECT citus_set_coordinator_host('127.0.0.1', %d)`, c.CoordinatorPort))
	for _, port := range c.WorkerPorts {
		exec1(t, c.URL(name), fmt.Sprintf(`SELECT citus_add_node('127.0.0.1', %d)`, port))
	}
	return c.URL(name)
}

// AddWorker starts one more worker and adds it to every database made so
// far (each database keeps its own Citus metadata). Its shards stay where
// they are until the rebalancer moves them.
func (c *Citus) AddWorker(t testing.TB) int {
	t.Helper()
	port := c.startNode(t, fmt.Sprintf("worker%d", len(c.WorkerPorts)+1))
	for _, name := range c.databases {
		exec1(t, adminURL(port, "postgres"), `CREATE DATABASE `+name)
		exec1(t, adminURL(port, name), `CREATE EXTENSION citus`)
		exec1(t, c.URL(name), fmt.Sprintf(`SELECT citus_add_node('127.0.0.1', %d)`, port))
	}
	c.WorkerPorts = append(c.WorkerPorts, port)
	return port
}

// Query runs sql on a database of the coordinator and returns its rows as
// text, for assertions on Citus's metadata. Its bound is a guard against a
// statement that never returns, not a timing: a rebalance onto a new
// worker (citus_rebalance_wait) moves every co-located shard group and
// took past 2 minutes on a busy 2-core machine.
func (c *Citus) Query(t testing.TB, url, sql string, args ...any) [][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("pgtopo: connect %s: %v", url, err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("pgtopo: %s: %v", sql, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("pgtopo: %s: %v", sql, err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("pgtopo: %s: %v", sql, err)
	}
	return out
}

// CitusMonthsFrom and CitusMonthsTo bound the history months a
// DistributedDatabase has beside the current ones: the year the Citus
// tests' clocks are in. Fewer than testdb's four years, since every month
// of every history table is a distributed partition with its shards.
var (
	CitusMonthsFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	CitusMonthsTo   = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
)

// DistributedDatabase is Database, migrated as the binaries migrate at
// start, with the history months CitusMonthsFrom to CitusMonthsTo, and
// distributed as `web citus-distribute` does: the database the product
// runs on in `make test-citus`.
func (c *Citus) DistributedDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	url := c.Database(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
	defer pool.Close()
	log := slog.New(slog.DiscardHandler)
	if err := database.Migrate(ctx, pool, log); err != nil {
		t.Fatalf("pgtopo: migrate on Citus: %v", err)
	}
	if _, err := history.EnsureMonths(ctx, pool, CitusMonthsFrom, CitusMonthsTo); err != nil {
		t.Fatalf("pgtopo: history months: %v", err)
	}
	if _, err := citus.Distribute(ctx, pool, log); err != nil {
		t.Fatalf("pgtopo: distribute: %v", err)
	}
	return url
}
