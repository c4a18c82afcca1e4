// Tests for the shell helpers: they run the scripts for real, the way the
// Makefile does, and check that what pg.sh prints is a URL pgx can use.
package scripts

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil/freeport"
)

// script runs one of the scripts with env (KEY=VALUE, added to ours less
// DATABASE_URL and the PG_ overrides) and returns its stdout.
func script(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	out, stderr, err := tryScript(t, env, name, args...)
	require.NoError(t, err, "%s %v\nstderr:\n%s", name, args, stderr)
	return out
}

// tryScript is script for runs that may fail: stdout, stderr and the error.
func tryScript(t *testing.T, env []string, name string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{name}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "PG_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("%s %v: %s%s", name, args, out, stderr.String())
	return strings.TrimSpace(string(out)), stderr.String(), err
}

func requireConnects(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err, url)
	defer conn.Close(ctx)
	var one int
	require.NoError(t, conn.QueryRow(ctx, `SELECT 1`).Scan(&one))
}

func freePort(t *testing.T) string {
	t.Helper()
	port, err := freeport.Take()
	require.NoError(t, err)
	return strconv.Itoa(port)
}

func TestPassesDatabaseURLThrough(t *testing.T) {
	t.Parallel()
	url := "postgres://someone@db.example:6543/app?sslmode=require"
	require.Equal(t, url, script(t, []string{"DATABASE_URL=" + url}, "pg.sh", "postgres"))
}

// Whatever this machine has (a server on 5432, or the cluster `make test`
// started), pg.sh finds it without DATABASE_URL.
func TestFindsAServer(t *testing.T) {
	t.Parallel()
	url := script(t, nil, "pg.sh", "postgres")
	require.True(t, strings.HasPrefix(url, "postgres://postgres@127.0.0.1:"), url)
	requireConnects(t, url)
}

// With nothing answering on the probe port, pg.sh creates, starts and then
// reuses a cluster of its own, and stop-pg.sh stops it.
func TestStartsItsOwnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	if bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(bins) == 0 {
		t.Fatal("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install Debian's postgresql package (scripts/need-postgres.sh; .ci/run does it)")
	}
	t.Parallel()
	port := freePort(t)
	env := []string{
		"PG_PROBE_PORT=" + freePort(t), // nobody listens there
		"PG_LOCAL_PORT=" + port,
		"PG_DATA_DIR=" + filepath.Join(t.TempDir(), "pgdata"),
	}
	t.Cleanup(func() { script(t, env, "stop-pg.sh", "--purge") })

	url := script(t, env, "pg.sh", "fieldbrief_scripts_test")
	require.Equal(t, "postgres://postgres@127.0.0.1:"+port+"/fieldbrief_scripts_test?sslmode=disable", url)
	requireConnects(t, url)
	require.Equal(t, url, script(t, env, "pg.sh", "fieldbrief_scripts_test"), "a second run reuses the cluster")

	script(t, env, "stop-pg.sh")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := pgx.Connect(ctx, url)
	require.Error(t, err, "the cluster must be stopped")
}

// need-postgres.sh is satisfied by DATABASE_URL, by server binaries (pg.sh
// then runs its own cluster) or by a server on the probe port; with none of
// them it would install Debian's postgresql, which FIELDBRIEF_NO_INSTALL=1
// forbids here, so it must fail saying what to do. --missing only reports.
func TestNeedPostgres(t *testing.T) {
	t.Parallel()
	nothing := []string{
		"PG_PROBE_PORT=" + freePort(t), // nobody listens there
		"PG_BIN=" + filepath.Join(t.TempDir(), "no-postgres-here"),
		"FIELDBRIEF_NO_INSTALL=1",
	}
	require.Equal(t, "postgresql", script(t, nothing, "need-postgres.sh", "--missing"))
	_, stderr, err := tryScript(t, nothing, "need-postgres.sh")
	require.Error(t, err)
	require.Contains(t, stderr, "not installing postgresql")
	require.Contains(t, stderr, "set DATABASE_URL=")
	require.Contains(t, stderr, "apt-get install -y postgresql")

	withURL := append([]string{"DATABASE_URL=postgres://someone@db.example:6543/app"}, nothing...)
	require.Empty(t, script(t, withURL, "need-postgres.sh", "--missing"))
	script(t, withURL, "need-postgres.sh")

	if bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(bins) > 0 {
		withBins := []string{"PG_PROBE_PORT=" + freePort(t), "FIELDBRIEF_NO_INSTALL=1"}
		require.Empty(t, script(t, withBins, "need-postgres.sh", "--missing"))
		script(t, withBins, "need-postgres.sh")
	}
	if _, err := net.DialTimeout("tcp", "127.0.0.1:5432", time.Second); err == nil {
		// Whatever answers on 5432 must let pg.sh in as well, or pg.sh would fail after it.
		if _, _, err := tryScript(t, []string{"PG_BIN=/nonexistent"}, "pg.sh", "postgres"); err == nil {
			onlyServer := []string{"PG_BIN=" + filepath.Join(t.TempDir(), "none"), "FIELDBRIEF_NO_INSTALL=1"}
			require.Empty(t, script(t, onlyServer, "need-postgres.sh", "--missing"))
		}
	}
}

func TestNeedChromiumMissing(t *testing.T) {
	t.Parallel()
	none := []string{"CHROMIUM_PATH=" + filepath.Join(t.TempDir(), "chromium"), "FIELDBRIEF_SKIP_BROWSER=", "FIELDBRIEF_NO_INSTALL=1"}
	require.Equal(t, "chromium-headless-shell", script(t, none, "need-chromium.sh", "--missing"))
	_, stderr, err := tryScript(t, none, "need-chromium.sh")
	require.Error(t, err)
	require.Contains(t, stderr, "FIELDBRIEF_SKIP_BROWSER=1")
	skip := append(none, "FIELDBRIEF_SKIP_BROWSER=1")
	require.Empty(t, script(t, skip, "need-chromium.sh", "--missing"))
	script(t, skip, "need-chromium.sh")
}
