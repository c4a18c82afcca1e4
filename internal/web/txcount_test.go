package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// txCounter is a pgx tracer that counts what a pool sends PostgreSQL:
// statements, and transactions (an explicit BEGIN, or a statement or
// batch sent while the connection is outside a transaction, which
// PostgreSQL runs as a transaction of its own).
type txCounter struct {
	mu         sync.Mutex
	tx, stmts  int
	statements []string
}

func (t *txCounter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stmts++
	t.statements = append(t.statements, d.SQL)
	if conn.PgConn().TxStatus() == 'I' {
		t.tx++
	}
	return ctx
}

func (t *txCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t *txCounter) TraceBatchStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if conn.PgConn().TxStatus() == 'I' {
		t.tx++
	}
	return ctx
}

func (t *txCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stmts++
	t.statements = append(t.statements, d.SQL)
}

func (t *txCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// reset starts a new count.
func (t *txCounter) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tx, t.stmts, t.statements = 0, 0, nil
}

func (t *txCounter) counts() (tx, stmts int, statements []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tx, t.stmts, append([]string(nil), t.statements...)
}

// countingServer starts another server on the fixture's database and
// clock whose pool counts transactions; its clients sign in like f.as.
func (f *fixture) countingServer() (*txCounter, *httptest.Server) {
	f.t.Helper()
	counter := &txCounter{}
	cfg := f.db.Config().Copy()
	cfg.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(f.t, err)
	f.t.Cleanup(pool.Close)
	srv, err := New(testConfig(), pool, f.srv.log)
	require.NoError(f.t, err)
	srv.now = f.clock.Now
	ts := httptest.NewServer(srv)
	f.t.Cleanup(ts.Close)
	return counter, ts
}

// maxPageTransactions is the budget of a page (docs/web.md, "Web
// under load"): one statement for the session, the user and their
// memberships, and one read-only transaction for the page's data.
const maxPageTransactions = 2

// TestPageTransactions counts the database transactions of the org's main
// pages, as an admin, as a member and as staff outside the org.
func TestPageTransactions(t *testing.T) {
	ff := setupField(t)
	f := ff.fixture
	seedPages(t, f)
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	ff.job(f.orgA.ID, "Wayne Enterprises", day, ff.ana.ID)
	stark := ff.job(f.orgA.ID, "Stark Industries", day.AddDate(0, 0, -2), 0) // overdue
	counter, ts := f.countingServer()
	signIn := func(email string) *client {
		c := f.clientFor(ts)
		c.login(email, testPassword)
		return c
	}
	admin := signIn(f.adminA.Email)
	member := signIn(f.memberA.Email)
	staff := signIn(f.staff.Email)

	pages := []struct {
		who  string
		c    *client
		path string
		want int
	}{
		{"admin", admin, briefingsPath, http.StatusOK},
		{"admin", admin, settingsPath, http.StatusOK},
		{"admin", admin, "/orgs/acme/board", http.StatusOK},
		{"admin", admin, "/orgs/acme/board?date=2026-03-02", http.StatusOK},
		{"admin", admin, "/orgs/acme/jobs", http.StatusOK},
		{"admin", admin, "/orgs/acme/technicians", http.StatusOK},
		{"member", member, briefingsPath, http.StatusOK},
		{"member", member, "/orgs/acme/board", http.StatusOK},
		{"member", member, settingsPath, http.StatusForbidden},
		{"staff", staff, briefingsPath, http.StatusOK},
		{"staff", staff, "/orgs/acme/board", http.StatusOK},
		{"admin of another org", signIn(f.adminB.Email), briefingsPath, http.StatusNotFound},
	}
	for _, p := range pages {
		counter.reset()
		r := p.c.get(p.path)
		require.Equal(t, p.want, r.Code, "%s GET %s: %s", p.who, p.path, r.Body)
		tx, stmts, sqls := counter.counts()
		require.LessOrEqual(t, tx, maxPageTransactions,
			"%s GET %s: %d transactions (%d statements):\n%v", p.who, p.path, tx, stmts, sqls)
		t.Logf("%s GET %s: %d transactions, %d statements", p.who, p.path, tx, stmts)
	}

	// One request, one lookup: the board reads the membership with the
	// session and the org's zone once, also when a change is refused and the
	// board is shown again with the problem.
	counter.reset()
	require.Equal(t, http.StatusOK, admin.get("/orgs/acme/board").Code)
	_, _, sqls := counter.counts()
	require.Equal(t, 1, countContaining(sqls, "FROM memberships"), "board: membership reads:\n%v", sqls)
	require.Equal(t, 1, countContaining(sqls, "FROM org_module_configs"), "board: zone reads:\n%v", sqls)
	counter.reset()
	r := admin.post(fmt.Sprintf("/orgs/acme/jobs/%d/status", stark.ID), url.Values{"status": {"finished"}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	_, _, sqls = counter.counts()
	require.Equal(t, 1, countContaining(sqls, "FROM memberships"), "refused board change: membership reads:\n%v", sqls)
	require.Equal(t, 1, countContaining(sqls, "FROM org_module_configs"), "refused board change: zone reads:\n%v", sqls)

	// A minute later the session's last-seen time is written: folded into
	// the session's statement, not a transaction of its own.
	f.advance(2 * time.Minute)
	counter.reset()
	require.Equal(t, http.StatusOK, admin.get(settingsPath).Code)
	tx, stmts, sqls := counter.counts()
	require.LessOrEqual(t, tx, maxPageTransactions, "settings after the touch interval: %d transactions (%d statements):\n%v", tx, stmts, sqls)
	var seen time.Time
	require.NoError(t, f.db.QueryRow(context.Background(),
		`SELECT max(last_seen_at) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1`, f.adminA.Email).Scan(&seen))
	require.True(t, seen.Equal(f.clock.Now()), "last seen %s, want %s", seen, f.clock.Now())
}

// countContaining counts the statements that contain part.
func countContaining(statements []string, part string) int {
	n := 0
	for _, s := range statements {
		if strings.Contains(s, part) {
			n++
		}
	}
	return n
}
