package database_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
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
	require.Equal(t, database.ReplicaLagging, database.NewReplica(primary, time.Second).State(ctx))

	gone, err := database.ConnectLazy("postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	require.NoError(t, err)
	defer gone.Close()
	r := database.NewReplica(gone, time.Second)
	require.Equal(t, database.ReplicaUnreachable, r.State(ctx))
	require.Error(t, r.LastError())

	var failed error
	rctx, rt := database.WithReplicaReadTx(ctx, primary, gone, func(err error) { failed = err })
	defer rt.End(rctx)
	var one int
	require.NoError(t, database.Reader(rctx, primary).QueryRow(rctx, `SELECT 1`).Scan(&one))
	require.Equal(t, 1, one)
	require.Error(t, failed, "the failed replica was not reported")
	require.False(t, errors.Is(failed, context.Canceled))
}
