package demo_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/demo"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/worker"
)

// `make run` seeds the demo and starts the worker, whose first tick fires
// today's briefing of every demo org whose morning minute has passed. Late
// in the day that is many hours late: the briefings are made, and their
// emails recorded as skipped, not sent (docs/guarantees.md, "Late
// briefings"). Wed 25 Nov 21:35 in Chicago is 22:35 in New York (07:30
// passed), 16:35 on Thursday in Auckland (07:00 passed) and 04:35 on
// Thursday in Berlin (06:45 to come: nothing fires there).
func TestDemoSeededInTheEveningSendsNoEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	evening := time.Date(2026, 11, 26, 3, 35, 0, 0, time.UTC)
	_, err := demo.Seed(ctx, store.Accounts, evening)
	require.NoError(t, err)

	w := &worker.Worker{DB: store.DB, Log: slog.New(slog.DiscardHandler)} // delivers to the outbox
	res, err := w.RunOnce(ctx, evening.Add(30*time.Second), time.Minute)
	require.NoError(t, err)
	require.Equal(t, 2, res.Tick.Enqueued, "northwind's and kiwi-pipes' today")
	require.Empty(t, res.Pending)

	rows, err := store.DB.Query(ctx, `
		SELECT o.slug, d.state, d.last_code, count(*)
		  FROM ff_deliveries d JOIN orgs o ON o.id = d.org_id
		 GROUP BY 1, 2, 3 ORDER BY 1, 2`)
	require.NoError(t, err)
	type group struct {
		slug, state, code string
		n                 int
	}
	var groups []group
	for rows.Next() {
		var g group
		require.NoError(t, rows.Scan(&g.slug, &g.state, &g.code, &g.n))
		groups = append(groups, g)
	}
	require.NoError(t, rows.Err())
	require.Len(t, groups, 2, "%v", groups)
	for _, g := range groups {
		require.Equal(t, "skipped", g.state, g.slug)
		require.Equal(t, "late", g.code, g.slug)
		require.Greater(t, g.n, 1, "%s: the dispatcher and the technicians with work", g.slug)
	}
	var outbox int
	require.NoError(t, store.DB.QueryRow(ctx, `SELECT count(*) FROM mail_outbox`).Scan(&outbox))
	require.Zero(t, outbox, "no email")
}
