//go:build citus

package tick

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testutil"
)

// TestCitusHintWriteSkipsRowHeldElsewhere is TestHintWriteSkipsRowHeldElsewhere
// on a real Citus cluster: the fallback that skips a row held past
// hintLockTimeout locks one org's row per statement, which Citus routes to
// its shard (a lock across orgs it refuses).
func TestCitusHintWriteSkipsRowHeldElsewhere(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	pool, err := pgxpool.New(context.Background(), c.DistributedDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	f := &fixture{&testutil.Fixture{T: t, Ctx: t.Context(), DB: pool}}
	held := f.Org("ny", config("America/New_York", "08:00"))
	free := f.Org("paris", config("Europe/Paris", "08:00"))
	now := utc("2026-03-10T10:00:00Z")
	cands, err := Candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	_, hints := f.ticker().decide(now, cands, &Result{Skipped: map[schedule.Reason]int{}})
	require.Equal(t, 2, hints.len())

	tx, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(f.Ctx) }()
	_, err = tx.Exec(f.Ctx, `SELECT 1 FROM org_module_configs WHERE org_id = $1 FOR UPDATE`, held)
	require.NoError(t, err)

	n, err := writeHints(f.Ctx, f.DB, now, hints, defaultHintChunk)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "NULL", f.hint(held))
	require.Equal(t, "2026-03-11T07:00:00Z", f.hint(free))
}
