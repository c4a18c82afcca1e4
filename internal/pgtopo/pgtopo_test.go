package pgtopo_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testdb"
)

// TestPgBouncerNeedsTheDescribeMode: through PgBouncer in transaction
// mode, pgx's default statement cache breaks once two clients share a
// server connection, and the mode the web uses (pgtopo.PoolerExecMode)
// works, as does a transaction-scoped setting.
func TestPgBouncerNeedsTheDescribeMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := pgtopo.PgBouncer(t)
	direct := testdb.URL(t)

	pool, err := pgxpool.New(ctx, b.URL(t, direct))
	require.NoError(t, err)
	defer pool.Close()
	for i := range 50 {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) + $1 FROM orgs`, i).Scan(&n), "query %d", i)
		require.Equal(t, i, n)
	}
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	var v string
	require.NoError(t, tx.QueryRow(ctx, `SELECT set_config('statement_timeout', '1234ms', true)`).Scan(&v))
	require.NoError(t, tx.QueryRow(ctx, `SHOW statement_timeout`).Scan(&v))
	require.Equal(t, "1234ms", v, "a transaction-scoped setting holds for the transaction")
	require.NoError(t, tx.Rollback(ctx))

	// pgx's default mode names its prepared statements per client
	// connection; PgBouncer 1.18 hands the server connection to whichever
	// client comes next, which then finds the name taken or missing.
	cfg, err := pgxpool.ParseConfig(direct)
	require.NoError(t, err)
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = "127.0.0.1", uint16(b.Port)
	cfg.MaxConns = 4
	plain, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer plain.Close()
	var failed error
	for i := 0; i < 200 && failed == nil; i++ {
		c1, err := plain.Acquire(ctx)
		require.NoError(t, err)
		c2, err := plain.Acquire(ctx)
		require.NoError(t, err)
		var n int
		if failed = c1.QueryRow(ctx, `SELECT $1::int + 1`, i).Scan(&n); failed == nil {
			failed = c2.QueryRow(ctx, `SELECT $1::int + 2`, i).Scan(&n)
		}
		c1.Release()
		c2.Release()
	}
	require.Error(t, failed, "pgx's statement cache unexpectedly worked through PgBouncer in transaction mode")
	require.Contains(t, failed.Error(), "prepared statement")
}

// TestStreamingReplica: the replica follows the primary, and pausing
// replay freezes what it shows.
func TestStreamingReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := pgtopo.StreamingReplica(t)
	url := testdb.URLOn(t, r.PrimaryServerURL())
	primary, err := pgxpool.New(ctx, url)
	require.NoError(t, err)
	defer primary.Close()
	replica, err := pgxpool.New(ctx, r.OnReplica(t, url))
	require.NoError(t, err)
	defer replica.Close()

	count := func() (n int) {
		require.NoError(t, replica.QueryRow(ctx, `SELECT count(*) FROM orgs`).Scan(&n))
		return n
	}
	_, err = primary.Exec(ctx, `INSERT INTO orgs (slug, name) VALUES ('one', 'One')`)
	require.NoError(t, err)
	r.WaitReplayed(t)
	require.Equal(t, 1, count())
	var recovering bool
	require.NoError(t, replica.QueryRow(ctx, `SELECT pg_is_in_recovery()`).Scan(&recovering))
	require.True(t, recovering)

	r.PauseReplay(t)
	_, err = primary.Exec(ctx, `INSERT INTO orgs (slug, name) VALUES ('two', 'Two')`)
	require.NoError(t, err)
	require.Equal(t, 1, count(), "a paused replica showed a later write")
	r.ResumeReplay(t)
	r.WaitReplayed(t)
	require.Equal(t, 2, count())
}
