//go:build citus

package tick

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/pgtopo"
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
	hintWriteSkipsRowHeldElsewhere(&fixture{&testutil.Fixture{T: t, Ctx: t.Context(), DB: pool}})
}

// TestCitusHintStoredAndUsed is TestHintStoredAndUsed on a real Citus
// cluster: an org the tick fires keeps the next day's hint, which the
// tick stores itself (the ff_briefings triggers on the shards leave it
// alone because the enqueue's SET LOCAL is propagated to them).
func TestCitusHintStoredAndUsed(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	pool, err := pgxpool.New(context.Background(), c.DistributedDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	hintStoredAndUsed(&fixture{&testutil.Fixture{T: t, Ctx: t.Context(), DB: pool}})
}
