package database_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// TestBehindPooler: behind a pooler the pool uses the unnamed statement,
// unless the URL chose a mode itself.
func TestBehindPooler(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]pgx.QueryExecMode{
		"postgres://u@h/db": pgx.QueryExecModeCacheDescribe,
		"postgres://u@h/db?default_query_exec_mode=exec":            pgx.QueryExecModeExec,
		"postgres://u@h/db?default_query_exec_mode=simple_protocol": pgx.QueryExecModeSimpleProtocol,
	} {
		cfg, err := pgxpool.ParseConfig(url)
		require.NoError(t, err)
		database.BehindPooler()(cfg)
		require.Equal(t, want, cfg.ConnConfig.DefaultQueryExecMode, url)
	}
}

// TestReplicaStateOfAPrimaryAndOfNothing: a server that is not in recovery
// is no replica (promoted, or another primary by mistake): pages do not
// read it; one that does not answer is unreachable, and a read that
// cannot begin on it falls back to the primary and says so.
func TestReplicaStateOfAPrimaryAndOfNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primary := testdb.New(t)
	// The check's bound is generous here: this server is a real one, shared
	// with the rest of the suite, and too slow an answer would read as
	// unreachable, not as "no replica".
	self := database.NewReplica(primary, primary, time.Second)
	self.CheckTimeout = time.Minute
	require.Equal(t, database.ReplicaLagging, self.State(ctx))

	gone, err := database.ConnectLazy("postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	require.NoError(t, err)
	defer gone.Close()
	r := database.NewReplica(gone, primary, time.Second)
	require.Equal(t, database.ReplicaUnreachable, r.State(ctx))
	require.Error(t, r.LastError())

	var failed error
	rctx, rt := database.WithReplicaReadTx(ctx, primary, gone, 0, func(err error) { failed = err })
	defer rt.End(rctx)
	var one int
	require.NoError(t, database.Reader(rctx, primary).QueryRow(rctx, `SELECT 1`).Scan(&one))
	require.Equal(t, 1, one)
	require.Error(t, failed, "the failed replica was not reported")
	require.False(t, errors.Is(failed, context.Canceled))
}

func TestParseLSN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]database.LSN{"0/0": 0, "16/B374D848": 0x16_B374D848, "FFFFFFFF/FFFFFFFF": database.MaxLSN} {
		got, err := database.ParseLSN(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
		require.Equal(t, in, got.String())
	}
	for _, bad := range []string{"", "/", "1/", "/1", "16B374D848", "1/2/3", "G/0", "-1/0", "100000000/0", "1/ 2", strings.Repeat("1", 5000) + "/1"} {
		_, err := database.ParseLSN(bad)
		require.Error(t, err, "%.20q", bad)
	}
	require.Less(t, database.LSN(0x1_00000000), database.LSN(0x2_00000000))
}

// TestReplicaLagByPrimaryPosition: a replica whose link to the primary
// dropped silently still says it streams and has replayed all it received,
// so by its own account it is current; the primary has moved on. Pages must
// stop reading it once the primary's position of MaxLag ago is not
// replayed. The silent link: the primary's WAL sender stopped (SIGSTOP).
func TestReplicaLagByPrimaryPosition(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r := pgtopo.StreamingReplica(t)
	primaryURL := testdb.URLOn(t, r.PrimaryServerURL())
	primary, err := pgxpool.New(ctx, primaryURL)
	require.NoError(t, err)
	defer primary.Close()
	replica, err := pgxpool.New(ctx, r.OnReplica(t, primaryURL))
	require.NoError(t, err)
	defer replica.Close()
	r.WaitReplayed(t)

	watch := database.NewReplica(replica, primary, 300*time.Millisecond)
	watch.CheckEvery = 50 * time.Millisecond
	requireState(t, watch, database.ReplicaOK)

	var sender int
	require.NoError(t, primary.QueryRow(ctx, `SELECT pid FROM pg_stat_replication`).Scan(&sender))
	require.NoError(t, syscall.Kill(sender, syscall.SIGSTOP))
	defer func() { _ = syscall.Kill(sender, syscall.SIGCONT) }()
	_, err = primary.Exec(ctx, `CREATE TABLE after_the_link_dropped (id int)`)
	require.NoError(t, err)

	admin, err := pgx.Connect(ctx, r.ReplicaAdmin()) // the receiver's status is for privileged roles
	require.NoError(t, err)
	defer admin.Close(ctx)
	var current bool
	require.NoError(t, admin.QueryRow(ctx, `
		SELECT pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
		   AND EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')`).Scan(&current))
	require.True(t, current, "by its own account the replica is current")
	requireState(t, watch, database.ReplicaLagging) // behind the primary's position of MaxLag ago
	require.ErrorContains(t, watch.LastError(), "behind")

	// The link back: it catches up and is read again.
	require.NoError(t, syscall.Kill(sender, syscall.SIGCONT))
	requireState(t, watch, database.ReplicaOK)
	committed, err := database.CommittedPosition(ctx, primary)
	require.NoError(t, err)
	require.Eventually(t, func() bool { watch.State(ctx); return watch.Replayed(committed) }, testutil.Settle, 20*time.Millisecond)
}

// requireState: the replica's state becomes want within 10 s.
func requireState(t *testing.T, r *database.Replica, want database.ReplicaState) {
	t.Helper()
	var got database.ReplicaState
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = r.State(t.Context()); got == want {
			return
		}
	}
	t.Fatalf("the replica is %s, not %s: %v", got, want, r.LastError())
}

// TestReplicaBeginIsBounded: a replica that hangs (its process stopped:
// the kernel still answers TCP, nothing else does) holds a page at most
// the begin bound, then the page reads the primary and the replica is
// reported failed. The hang: a proxy in front of the server that stops
// passing bytes once the pool's connection is made.
func TestReplicaBeginIsBounded(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	primary := testdb.New(t)
	proxy := newFreezingProxy(t, primary.Config().ConnConfig.Host, primary.Config().ConnConfig.Port)
	cfg := primary.Config().Copy()
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = "127.0.0.1", proxy.port
	cfg.MaxConns = 1
	hung, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer hung.Close()
	require.NoError(t, hung.Ping(ctx)) // the pooled connection is made
	proxy.freeze()

	pageCtx, cancel := context.WithTimeout(ctx, 20*time.Second) // the browser's patience
	defer cancel()
	var failed error
	rctx, rt := database.WithReplicaReadTx(pageCtx, primary, hung, 0, func(err error) { failed = err })
	defer rt.End(rctx)
	var one int
	require.NoError(t, database.Reader(rctx, primary).QueryRow(rctx, `SELECT 1`).Scan(&one), "the page waited on the hung replica")
	require.Equal(t, 1, one)
	require.Error(t, failed, "the hung replica was not reported")
}

// freezingProxy passes TCP bytes to a server until frozen; then it holds
// every connection open and passes nothing, as a stopped server would.
type freezingProxy struct {
	port   uint16
	mu     sync.Mutex
	frozen bool
}

func newFreezingProxy(t *testing.T, host string, port uint16) *freezingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	p := &freezingProxy{port: uint16(l.Addr().(*net.TCPAddr).Port)}
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(int(port))))
			if err != nil {
				_ = in.Close()
				continue
			}
			t.Cleanup(func() { _ = in.Close(); _ = out.Close() })
			go p.pass(in, out)
			go p.pass(out, in)
		}
	}()
	return p
}

func (p *freezingProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen = true
}

func (p *freezingProxy) pass(from, to net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		frozen := p.frozen
		p.mu.Unlock()
		if frozen {
			continue // swallowed: nothing reaches the other side
		}
		if _, err := to.Write(buf[:n]); err != nil {
			return
		}
	}
}
