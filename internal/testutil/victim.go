package testutil

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// VictimPool is a second pool on the test database whose connections carry
// an application_name, so the test can terminate them and only them.
func (f *Fixture) VictimPool(maxConns int32) *pgxpool.Pool {
	f.T.Helper()
	cfg, err := pgxpool.ParseConfig(f.DB.Config().ConnString())
	require.NoError(f.T, err)
	cfg.ConnConfig.RuntimeParams["application_name"] = "victim"
	cfg.MaxConns = maxConns
	db, err := pgxpool.NewWithConfig(f.Ctx, cfg)
	require.NoError(f.T, err)
	f.T.Cleanup(db.Close)
	return db
}

// Terminate ends every backend of the victim pool, as an operator's
// pg_terminate_backend would, and returns how many it ended.
func (f *Fixture) Terminate(ctx context.Context) int {
	f.T.Helper()
	var n int
	// In the select list, so it runs only on the rows the WHERE kept.
	err := f.DB.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'victim'`).Scan(&n)
	if ctx.Err() == nil {
		require.NoError(f.T, err)
	}
	return n
}
