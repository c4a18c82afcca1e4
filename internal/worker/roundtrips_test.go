package worker

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// txCounter is a pgx tracer that counts, per transaction, the round trips
// of every repeatable-read transaction (the generation's; nothing else in
// the pipeline uses that level): each statement sent on its own is one,
// a batch is one, BEGIN and COMMIT included. pgx prepares a statement the
// first time a connection sends it (its statement cache), untraced: the
// count is what a warm connection pays, which is every generation but the
// first few of a worker's life.
type txCounter struct {
	mu     sync.Mutex
	open   map[*pgx.Conn]*[]string // statements of the transaction running on a connection
	closed [][]string              // finished transactions, in commit order
}

func (c *txCounter) note(conn *pgx.Conn, sql string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.Join(strings.Fields(strings.ToLower(sql)), " ")
	if strings.HasPrefix(s, "begin isolation level repeatable read") || strings.HasPrefix(s, "batch(begin isolation level repeatable read") {
		c.open[conn] = &[]string{s}
		return
	}
	tx, ok := c.open[conn]
	if !ok {
		return
	}
	if strings.Contains(s, "-- name: pgnotifymany") {
		// River's "jobs inserted" notification: River sends it at most once
		// per queue per fetch cooldown, so whether a given insert pays for it
		// is timing, not our code.
		return
	}
	*tx = append(*tx, s)
	if s == "commit" || s == "rollback" {
		c.closed = append(c.closed, *tx)
		delete(c.open, conn)
	}
}

func (c *txCounter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.note(conn, clip(d.SQL))
	return ctx
}

func (c *txCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *txCounter) TraceBatchStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var sqls []string
	for _, q := range d.Batch.QueuedQueries {
		sqls = append(sqls, clip(q.SQL))
	}
	c.note(conn, "batch("+strings.Join(sqls, "; ")+")")
	return ctx
}

// clip shortens a statement for the test's log.
func clip(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func (c *txCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *txCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (c *txCounter) transactions() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]string(nil), c.closed...)
}

func (c *txCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = nil
}

// TestGenerationRoundTrips pins how many round trips one org's scheduled
// generation costs (docs/scheduling.md, "Burst"): at a popular minute
// thousands of orgs are generated at once, and each round trip is paid by
// every one of them. The count is behaviour, not timing: a change that adds
// a query to the generation fails here and must say why in this test.
func TestGenerationRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	counter := &txCounter{open: map[*pgx.Conn]*[]string{}}
	cfg, err := pgxpool.ParseConfig(testdb.URL(t))
	require.NoError(t, err)
	cfg.ConnConfig.Tracer = counter
	db, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	f := &fixture{Fixture: &testutil.Fixture{T: t, Ctx: ctx, DB: db}}

	paris := mustZone("Europe/Paris")
	at := func(day, hhmm string) time.Time {
		t, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hhmm, paris)
		require.NoError(f.T, err)
		return t
	}
	// Field data for every section: routes, unassigned, overdue, on hold, yesterday.
	fieldData := func(org int64) {
		ann, bob := f.Tech(org, "Ann", true), f.Tech(org, "Bob", true)
		_, err := f.DB.Exec(ctx, `UPDATE technicians SET email = name || '@t.test' WHERE org_id = $1`, org)
		require.NoError(t, err)
		f.Job(org, ann, "A", at("2026-03-10", "09:00"), at("2026-03-10", "10:00"), "scheduled")
		f.Job(org, bob, "B", at("2026-03-10", "11:00"), at("2026-03-10", "12:00"), "scheduled")
		f.Job(org, 0, "U", at("2026-03-10", "13:00"), at("2026-03-10", "14:00"), "scheduled")
		f.Job(org, ann, "O", at("2026-03-08", "09:00"), at("2026-03-08", "10:00"), "scheduled")
		f.Job(org, bob, "H", at("2026-03-12", "09:00"), at("2026-03-12", "10:00"), "on_hold")
		f.Job(org, ann, "Y", at("2026-03-09", "09:00"), at("2026-03-09", "10:00"), "done")
	}
	generate := func(slug, cfg string) []string {
		t.Helper()
		org := f.Org(slug, cfg)
		fieldData(org)
		counter.reset()
		now := utc("2026-03-10T06:00:00Z") // 07:00 in Paris
		w := &Worker{DB: db, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }, Concurrency: 1}
		res, err := w.RunOnce(ctx, now, time.Minute)
		require.NoError(t, err)
		require.Equal(t, 1, res.Tick.Enqueued)
		require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1 AND status = 'ready'`, org))
		// The tick's own transactions (the safety net's scan on one
		// snapshot, the enqueue) are not the generation's: it is the one
		// that stores the revision.
		var txs [][]string
		for _, tx := range counter.transactions() {
			if strings.Contains(strings.Join(tx, "\n"), "insert into ff_briefing_revisions") {
				txs = append(txs, tx)
			}
		}
		require.Len(t, txs, 1, "one generation transaction")
		return txs[0]
	}
	const withDelivery = `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "07:00", "days": ["tue"]},
		"delivery": {"email": {"to": ["dispatch@acme.test"], "technicians": true},
		             "webhook": {"url": "https://hooks.acme.test/fb"}}}`
	quiet := generate("quiet", config("Europe/Paris", "07:00", "tue"))
	t.Logf("without delivery, %d round trips:\n%s", len(quiet), strings.Join(quiet, "\n"))
	delivered := generate("delivered", withDelivery)
	t.Logf("with delivery (3 recipients and a webhook), %d round trips:\n%s", len(delivered), strings.Join(delivered, "\n"))

	// BEGIN + lock + every read; every write; JobCompleteTx; COMMIT.
	require.Equal(t, 4, len(quiet), "round trips of a generation without delivery (14 before the batches)")
	// The same, and River's InsertManyTx of the delivery jobs.
	require.Equal(t, 5, len(delivered), "round trips of a generation with delivery (19 before the batches)")
}
