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
)

// script runs one of the scripts with env (KEY=VALUE, added to ours less
// DATABASE_URL and the PG_ overrides) and returns its stdout.
func script(t *testing.T, env []string, name string, args ...string) string {
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
	require.NoError(t, err, "%s %v\nstderr:\n%s", name, args, stderr.String())
	t.Logf("%s %v: %s%s", name, args, out, stderr.String())
	return strings.TrimSpace(string(out))
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
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
		t.Skip("no PostgreSQL server binaries in /usr/lib/postgresql")
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
