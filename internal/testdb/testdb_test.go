package testdb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil/freeport"
)

func TestConfigFromURL(t *testing.T) {
	t.Parallel()
	cfg, err := configFromURL("postgres://app:s3cret@db.example:6543/app?sslmode=require&pool_max_conns=4&connect_timeout=5")
	require.NoError(t, err)
	require.Equal(t, "db.example", cfg.Host)
	require.Equal(t, "6543", cfg.Port)
	require.Equal(t, "app", cfg.User)
	require.Equal(t, "s3cret", cfg.Password)
	require.Equal(t, "postgres", cfg.Database, "test databases are created from the maintenance database")
	require.Equal(t, "connect_timeout=5&sslmode=require", cfg.Options, "sslmode is honoured, pool settings dropped")

	cfg, err = configFromURL("postgresql://db.example/x")
	require.NoError(t, err)
	require.Equal(t, "5432", cfg.Port)
	require.Equal(t, "postgres", cfg.User)
	require.Empty(t, cfg.Options, "no sslmode given: the driver's default, as for the app")

	for _, bad := range []string{"mysql://root@db/x", "host=db user=postgres", "postgres:///x?host=/run/postgresql"} {
		_, err := configFromURL(bad)
		require.Error(t, err, bad)
	}
}

// The tests below run this test binary again with a chosen environment, as
// a fresh `go test` without DATABASE_URL would run, and check what testdb
// did there. helperEnv turns the helper on.
const helperEnv = "FIELDBRIEF_TESTDB_HELPER"

// TestHelperNewDatabase is the child: it asks for a database and prints the
// port of the server it got.
func TestHelperNewDatabase(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("run by the tests below in a child process")
	}
	pool := New(t)
	var port int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT inet_server_port()`).Scan(&port))
	var tables int
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT count(*) FROM information_schema.tables WHERE table_name = 'orgs'`).Scan(&tables))
	require.Equal(t, 1, tables, "the database is migrated")
	fmt.Printf("SERVER_PORT=%d\n", port)
}

// child runs TestHelperNewDatabase with env added to ours, less
// DATABASE_URL and the PG_ overrides, and returns its output.
func child(t *testing.T, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperNewDatabase$", "-test.count=1", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "PG_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append([]string{helperEnv + "=1"}, env...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("child %v:\n%s", env, out)
	return string(out), err
}

func freePort(t *testing.T) string {
	t.Helper()
	port, err := freeport.Take()
	require.NoError(t, err)
	return strconv.Itoa(port)
}

// With DATABASE_URL unset and nothing answering on the probe port, testdb
// runs scripts/pg.sh, which starts a throwaway cluster, and uses it.
func TestStartsThrowawayClusterWhenNothingAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	if bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(bins) == 0 {
		t.Fatal("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install Debian's postgresql package (scripts/need-postgres.sh; .ci/run does it)")
	}
	t.Parallel()
	root, err := repoRoot()
	require.NoError(t, err)
	port := freePort(t)
	env := []string{
		"PG_PROBE_PORT=" + freePort(t), // nobody listens there
		"PG_LOCAL_PORT=" + port,
		"PG_DATA_DIR=" + filepath.Join(t.TempDir(), "pgdata"),
	}
	t.Cleanup(func() {
		stop := exec.Command("bash", filepath.Join(root, "scripts", "stop-pg.sh"), "--purge")
		stop.Env = append(os.Environ(), env...)
		out, err := stop.CombinedOutput()
		require.NoError(t, err, "%s", out)
	})

	out, err := child(t, env...)
	require.NoError(t, err, out)
	require.Contains(t, out, "SERVER_PORT="+port+"\n", "the database must be on the throwaway cluster")
	require.Contains(t, out, "pg.sh: creating a throwaway cluster")
}

// With no server and no way to start one, the test fails and says what to do.
func TestFailsClearlyWithoutAServer(t *testing.T) {
	t.Parallel()
	out, err := child(t,
		"PG_PROBE_PORT="+freePort(t),
		"PG_BIN="+filepath.Join(t.TempDir(), "no-postgres-here"),
		"PG_DATA_DIR="+filepath.Join(t.TempDir(), "pgdata"))
	require.Error(t, err, out)
	require.Contains(t, out, "set DATABASE_URL or run `make test`")
	require.Contains(t, out, "pg.sh: no PostgreSQL server binaries", "pg.sh's own message is shown")
}
