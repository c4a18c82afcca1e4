// Package pgtopo starts the production topology of docs/scaling.md for a
// test, from the binaries Debian ships: PgBouncer in transaction mode in
// front of the test server (step 2), and a throwaway primary with a real
// streaming replica made by pg_basebackup (step 3).
//
// Each test that asks gets its own processes, stopped at its cleanup (and
// killed with the test binary: Pdeathsig), so tests stay independent and
// run in parallel. A missing binary fails the test with what to install:
// `.ci/run` installs pgbouncer and postgresql (scripts/need-*.sh), so on a
// fresh machine nothing is skipped.
package pgtopo

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/peterldowns/pgtestdb"

	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil/freeport"
)

// PoolerExecMode is the pgx query mode the web needs behind PgBouncer in
// transaction mode. Debian 12's PgBouncer is 1.18, which does not keep
// named prepared statements across transactions (that came in 1.21), so
// pgx's default, cache_statement, fails there ("prepared statement …
// does not exist"). cache_describe uses the unnamed statement and caches
// only the parameter and result types: one round trip per query still.
const PoolerExecMode = "cache_describe"

// Bouncer is a PgBouncer started for one test.
type Bouncer struct {
	Port int
	Dir  string // config, log
}

// PgBouncer starts PgBouncer in transaction mode in front of the test
// server (testdb's): every database name is routed to the same name there
// (the `*` fallback), so the per-test databases testdb creates need no
// configuration.
func PgBouncer(t testing.TB) *Bouncer {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		for _, p := range []string{"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		t.Fatalf("pgtopo: no pgbouncer binary: install Debian's pgbouncer package (scripts/need-pgbouncer.sh does it as root; .ci/run installs it)")
	}
	server, err := url.Parse(testdb.ServerURL(t))
	if err != nil {
		t.Fatalf("pgtopo: test server url: %v", err)
	}
	serverPort := server.Port()
	if serverPort == "" {
		serverPort = "5432"
	}
	dir := sharedTempDir(t, "fieldbrief-pgbouncer-")
	port := freePort(t)
	// query_wait_timeout: how long a client may wait for the one server
	// connection (default_pool_size 1, so that several of the web's
	// connections share each server connection). A minute: longer than a
	// loaded machine keeps a page's read transaction (with 5 s, three pages
	// queued behind a fourth rendering under the race detector could have a
	// client dropped, a 500), and still a
	// failure, not a hang, when a request waits for a second connection
	// while it holds the first (the deadlock TestRouteMatrixThroughPgBouncer
	// found once).
	//
	// trust: the test server trusts loopback already; PgBouncer still wants
	// every user in auth_file, and uses the password there to sign in to
	// the server when it asks for one.
	serverUser := server.User.Username()
	if serverUser == "" {
		serverUser = "postgres"
	}
	serverPass, _ := server.User.Password()
	users := fmt.Sprintf("%q %q\n%q %q\n", serverUser, serverPass, pgtestdb.DefaultRoleUsername, pgtestdb.DefaultRolePassword)
	if serverUser != "postgres" {
		users += fmt.Sprintf("%q %q\n", "postgres", "")
	}
	conf := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 500
default_pool_size = 1
server_lifetime = 3600
query_wait_timeout = 60
logfile = %s
pidfile = %s
admin_users = postgres
`, server.Hostname(), serverPort, port, filepath.Join(dir, "userlist.txt"),
		filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	writeFile(t, filepath.Join(dir, "userlist.txt"), users)
	writeFile(t, filepath.Join(dir, "pgbouncer.ini"), conf)
	// PgBouncer refuses to run as root; it runs as postgres then.
	start(t, "pgbouncer", filepath.Join(dir, "pgbouncer.log"), bin, filepath.Join(dir, "pgbouncer.ini"))
	b := &Bouncer{Port: port, Dir: dir}
	waitAnswers(t, b.URL(t, testdb.ServerURL(t)), filepath.Join(dir, "pgbouncer.log"))
	return b
}

// URL turns a URL on the test server (testdb.URL's) into the same
// database through the pooler, in the query mode the pooler needs.
func (b *Bouncer) URL(t testing.TB, direct string) string {
	t.Helper()
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port))
	q := u.Query()
	q.Set("default_query_exec_mode", PoolerExecMode)
	u.RawQuery = q.Encode()
	return u.String()
}

// Replication is a throwaway primary and its streaming replica.
type Replication struct {
	PrimaryPort, ReplicaPort int
	dir                      string
	replica                  *exec.Cmd
}

// PrimaryServerURL is the primary's maintenance database, for testdb.URLOn.
func (r *Replication) PrimaryServerURL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", r.PrimaryPort)
}

// OnReplica turns a URL on the primary into the same database on the replica.
func (r *Replication) OnReplica(t testing.TB, primary string) string {
	t.Helper()
	u, err := url.Parse(primary)
	if err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(r.ReplicaPort))
	return u.String()
}

// ReplicaAdmin is the replica's maintenance database, as postgres (who may
// pause and resume replay).
func (r *Replication) ReplicaAdmin() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", r.ReplicaPort)
}

// StopReplica stops the replica at once (immediate shutdown), as a crash would.
func (r *Replication) StopReplica(t testing.TB) {
	t.Helper()
	if r.replica.ProcessState != nil {
		return
	}
	_ = r.replica.Process.Signal(syscall.SIGQUIT)
	_ = r.replica.Wait()
}

// StreamingReplica starts a primary cluster of its own (initdb, so the
// machine's server, which other tests share, is never reconfigured) and a
// hot standby of it made with pg_basebackup -R, on two free ports. The
// default pg_hba of initdb --auth=trust lets replication in from loopback,
// and wal_level defaults to replica.
func StreamingReplica(t testing.TB) *Replication {
	t.Helper()
	bin := pgBin(t)
	dir := sharedTempDir(t, "fieldbrief-replica-")
	r := &Replication{PrimaryPort: freePort(t), dir: dir}
	primary, replica := filepath.Join(dir, "primary"), filepath.Join(dir, "replica")
	run(t, filepath.Join(bin, "initdb"), "-D", primary, "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--no-locale", "--no-instructions", "--no-sync")
	// Tuned for a throwaway cluster: durability is not needed, speed is.
	tuning := []string{"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=60", "-c", "shared_buffers=32MB"}
	start(t, "primary", filepath.Join(dir, "primary.log"), filepath.Join(bin, "postgres"),
		append([]string{"-D", primary, "-p", strconv.Itoa(r.PrimaryPort)}, tuning...)...)
	waitAnswers(t, r.PrimaryServerURL(), filepath.Join(dir, "primary.log"))
	// pgtestdb creates its role once per test process, on the first server
	// it meets: on this one it must already exist.
	exec1(t, r.PrimaryServerURL(), fmt.Sprintf(`CREATE ROLE %q LOGIN PASSWORD '%s' %s`,
		pgtestdb.DefaultRoleUsername, pgtestdb.DefaultRolePassword, pgtestdb.DefaultRoleCapabilities))
	run(t, filepath.Join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(r.PrimaryPort),
		"-U", "postgres", "-D", replica, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	r.ReplicaPort = freePort(t)
	r.replica = start(t, "replica", filepath.Join(dir, "replica.log"), filepath.Join(bin, "postgres"),
		append([]string{"-D", replica, "-p", strconv.Itoa(r.ReplicaPort)}, tuning...)...)
	waitAnswers(t, r.ReplicaAdmin(), filepath.Join(dir, "replica.log"))
	return r
}

// WaitReplayed waits until the replica has replayed everything the primary
// has written so far: up to its insert position, since with
// synchronous_commit off a commit may not have reached the write position
// (pg_current_wal_lsn) yet.
func (r *Replication) WaitReplayed(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var lsn string
	queryRow(t, ctx, r.PrimaryServerURL(), `SELECT pg_current_wal_insert_lsn()::text`, &lsn)
	for {
		var done bool
		queryRow(t, ctx, r.ReplicaAdmin(), `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, &done, lsn)
		if done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pgtopo: the replica did not replay up to %s in 30 s", lsn)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// PauseReplay pauses WAL replay on the replica: it keeps receiving and
// answering, with the state it had.
func (r *Replication) PauseReplay(t testing.TB) {
	t.Helper()
	exec1(t, r.ReplicaAdmin(), `SELECT pg_wal_replay_pause()`)
}

// ResumeReplay resumes WAL replay.
func (r *Replication) ResumeReplay(t testing.TB) {
	t.Helper()
	exec1(t, r.ReplicaAdmin(), `SELECT pg_wal_replay_resume()`)
}

func exec1(t testing.TB, u, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("pgtopo: connect %s: %v", u, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtopo: %s: %v", sql, err)
	}
}

func queryRow(t testing.TB, ctx context.Context, u, sql string, dst any, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("pgtopo: connect %s: %v", u, err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql, args...).Scan(dst); err != nil {
		t.Fatalf("pgtopo: %s: %v", sql, err)
	}
}

// pgBin is the newest /usr/lib/postgresql/*/bin (or $PG_BIN), as
// scripts/pg-lib.sh finds it.
func pgBin(t testing.TB) string {
	t.Helper()
	if b := os.Getenv("PG_BIN"); b != "" {
		return b
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_basebackup")); err == nil {
			return dirs[i]
		}
	}
	t.Fatalf("pgtopo: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install Debian's postgresql package (scripts/need-postgres.sh; .ci/run does it)")
	return ""
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// owner is the user the servers run as: ourselves, or postgres when we are
// root (initdb, postgres and pgbouncer all refuse root).
func owner(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("pgtopo: running as root, but there is no postgres user to run the servers as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// sharedTempDir is a temporary directory the servers' user can write
// (t.TempDir's parent is closed to others), removed at cleanup.
func sharedTempDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if c := owner(t); c != nil {
		if err := os.Chown(dir, int(c.Uid), int(c.Gid)); err != nil {
			t.Fatalf("pgtopo: %v", err)
		}
	}
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
}

func command(t testing.TB, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: owner(t), Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// run runs a setup command to its end.
func run(t testing.TB, bin string, args ...string) {
	t.Helper()
	cmd := command(t, bin, args...)
	cmd.Dir = os.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgtopo: %s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
}

// start starts a server in the foreground as a child, stopped (fast
// shutdown) at cleanup.
func start(t testing.TB, name, logPath, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := command(t, bin, args...)
	cmd.Dir = os.TempDir()
	log, err := os.OpenFile(logPath+".out", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("pgtopo: start %s: %v", name, err)
	}
	t.Cleanup(func() {
		defer log.Close()
		if cmd.ProcessState != nil {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return cmd
}

// waitAnswers waits until a connection to u succeeds (at most 30 s), and
// shows the log when it never does.
func waitAnswers(t testing.TB, u, logPath string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var conn *pgx.Conn
		conn, err = pgx.Connect(ctx, u)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		cancel()
		if err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	logs, _ := os.ReadFile(logPath)
	out, _ := os.ReadFile(logPath + ".out")
	t.Fatalf("pgtopo: %s does not answer after 30 s: %v\n%s%s", u, err, logs, out)
}

// freePort is a loopback port for a server of the test to bind.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := freeport.Take()
	if err != nil {
		t.Fatalf("pgtopo: %v", err)
	}
	return port
}
