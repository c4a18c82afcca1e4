package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/peterldowns/pgtestdb"

	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/testutil/freeport"
)

// cluster is a throwaway PostgreSQL cluster of the chaos tests' own, so they
// can restart it and open as many connections as they like without
// touching the server other tests use. Built the way scripts/pg.sh builds
// its cluster: the newest /usr/lib/postgresql/*/bin (or $PG_BIN), initdb
// as the postgres user when we are root (initdb refuses root).
type cluster struct {
	bin, dir, data string
	port           int
	asOwner        []string // runuser prefix when root
	URL            string   // postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
}

// clusters are the process's own clusters, by name (see clusterName).
var clusters struct {
	sync.Mutex
	byName map[string]*clusterOnce
}

type clusterOnce struct {
	once sync.Once
	c    *cluster
	err  error
}

// sharedCluster is the one cluster of the short version.
const sharedCluster = "shared"

// clusterName is the cluster a scenario's databases live on. Under
// CHAOS=full each scenario has a cluster of its own, so they may run side
// by side (sideBySide; docs/guarantees.md, "When things break"): a restart
// cuts only its own scenario's connections, and ten kill -9 lanes (two
// workers each, 21 connections apiece) and ten pg_terminate_backend lanes
// do not share one max_connections. The short version runs them one after the other on
// one cluster: no initdb more than before.
func clusterName(scenario string) string {
	if full() {
		return scenario
	}
	return sharedCluster
}

// theCluster starts the named cluster on first use; TestMain stops them all.
func theCluster(t testing.TB, name string) *cluster {
	t.Helper()
	clusters.Lock()
	if clusters.byName == nil {
		clusters.byName = map[string]*clusterOnce{}
	}
	co := clusters.byName[name]
	if co == nil {
		co = &clusterOnce{}
		clusters.byName[name] = co
	}
	clusters.Unlock()
	co.once.Do(func() { co.c, co.err = startCluster() })
	if co.err != nil {
		t.Fatalf("chaos: own PostgreSQL cluster %q: %v", name, co.err)
	}
	return co.c
}

// serverURL is where a scenario makes its databases: its cluster
// (clusterName), or, in the short version on a machine without
// PostgreSQL's server binaries, the server the other tests use (testdb).
// The restart scenario needs a cluster it can restart: it calls theCluster.
func serverURL(t testing.TB, scenario string) string {
	t.Helper()
	if _, err := pgBin(); err != nil && !full() {
		t.Logf("chaos: %v; using the tests' server instead of a cluster of our own", err)
		return testdb.ServerURL(t)
	}
	return theCluster(t, clusterName(scenario)).URL
}

func pgBin() (string, error) {
	if b := os.Getenv("PG_BIN"); b != "" {
		return b, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	var ok []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			ok = append(ok, d)
		}
	}
	if len(ok) == 0 {
		return "", fmt.Errorf("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (set PG_BIN)")
	}
	// Versions sort as numbers: 9 < 15 < 16.
	sort.Slice(ok, func(i, j int) bool {
		vi, vj := filepath.Base(filepath.Dir(ok[i])), filepath.Base(filepath.Dir(ok[j]))
		if len(vi) != len(vj) {
			return len(vi) < len(vj)
		}
		return vi < vj
	})
	return ok[len(ok)-1], nil
}

func startCluster() (*cluster, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "fieldbrief-chaos-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and there is no postgres user to run initdb as: %w", err)
		}
		if out, err := exec.Command("chown", u.Uid+":"+u.Gid, dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown %s: %v: %s", dir, err, out)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			return nil, err
		}
		c.asOwner = []string{"runuser", "-u", "postgres", "--"}
	}
	if c.port, err = freeport.Take(); err != nil {
		return nil, err
	}
	if out, err := c.run("initdb", "-D", c.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// max_connections: ten kill -9 lanes at once hold about 50 each (the
	// fresh serving worker's and the -once worker's pools, the round's own);
	// 400 ran out (53300) once the lanes really ran ten at a time.
	conf := fmt.Sprintf(`
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
max_connections = 1000
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
`, c.port, c.dir)
	if out, err := c.runShell(fmt.Sprintf("cat >> %q", filepath.Join(c.data, "postgresql.conf")), conf); err != nil {
		return nil, fmt.Errorf("configure: %v\n%s", err, out)
	}
	if err := c.start(); err != nil {
		return nil, err
	}
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	if err := c.addTestRole(); err != nil {
		return nil, err
	}
	return c, nil
}

// addTestRole creates the role the test databases belong to. pgtestdb
// creates it once per process, on the first server it meets: a second
// cluster would lack it.
func (c *cluster) addTestRole() error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL)
	if err != nil {
		return fmt.Errorf("connect to the new cluster: %w", err)
	}
	defer conn.Close(ctx)
	r := pgtestdb.DefaultRole()
	_, err = conn.Exec(ctx, fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD %s %s`,
		pgx.Identifier{r.Username}.Sanitize(), quoteLiteral(r.Password), r.Capabilities))
	if err != nil {
		return fmt.Errorf("create the test role: %w", err)
	}
	return nil
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (c *cluster) cmd(name string, args ...string) *exec.Cmd {
	full := append(append([]string{}, c.asOwner...), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.Command(full[0], full[1:]...)
}

func (c *cluster) run(name string, args ...string) ([]byte, error) {
	return c.cmd(name, args...).CombinedOutput()
}

func (c *cluster) runShell(script, stdin string) ([]byte, error) {
	full := append(append([]string{}, c.asOwner...), "sh", "-c", script)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	return cmd.CombinedOutput()
}

func (c *cluster) start() error {
	if out, err := c.run("pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "60", "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, c.logTail())
	}
	return nil
}

// restart is `pg_ctl restart -m fast`: every connection is cut, open
// transactions roll back, and the server is back when it returns.
func (c *cluster) restart() (time.Duration, error) {
	start := time.Now()
	if out, err := c.run("pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "postgres.log"), "-m", "fast", "-w", "-t", "60", "restart"); err != nil {
		return 0, fmt.Errorf("pg_ctl restart: %v\n%s\n%s", err, out, c.logTail())
	}
	return time.Since(start), nil
}

func (c *cluster) stop() {
	_, _ = c.run("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "-t", "60", "stop")
	_ = os.RemoveAll(c.dir)
}

func (c *cluster) logTail() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func TestMain(m *testing.M) {
	start := time.Now()
	code := m.Run()
	if full() {
		// The whole run's time next to the scenarios' own FIGURES lines
		// (`make chaos` fails past CHAOS_TIMEOUT).
		fmt.Printf("FIGURES chaos: the whole run took %v (exit %d)\n", time.Since(start).Round(time.Second), code)
	}
	clusters.Lock()
	for _, co := range clusters.byName {
		if co.c != nil {
			co.c.stop()
		}
	}
	clusters.Unlock()
	testutil.RemoveWorkerBinary()
	os.Exit(code)
}
