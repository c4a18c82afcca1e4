//go:build citus

package citus_test

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/citus"
	"fieldbrief/internal/database"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testdb"
)

var log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

func open(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// TestCitusDistribute: on a migrated database of a real cluster, every table
// becomes its listed kind; a second run changes nothing.
func TestCitusDistribute(t *testing.T) {
	ctx := t.Context()
	c := pgtopo.CitusCluster(t)
	pool := open(t, c.Database(t))
	require.NoError(t, database.Migrate(ctx, pool, log))

	changes, err := citus.Distribute(ctx, pool, log)
	require.NoError(t, err)
	want := 0
	for _, tb := range citus.Tables {
		if tb.Kind != citus.Local {
			want++
		}
	}
	require.Len(t, changes, want, "%v", changes)
	got := map[string]string{}
	for _, r := range c.Query(t, c.URL(dbName(t, pool)), `SELECT table_name::text, citus_table_type, coalesce(distribution_column, ''), colocation_id FROM citus_tables`) {
		got[r[0]] = r[1] + " " + r[2]
	}
	for _, tb := range citus.Tables {
		switch tb.Kind {
		case citus.Reference:
			require.Equal(t, "reference <none>", got[tb.Name], tb.Name)
		case citus.Distributed:
			require.Equal(t, "distributed org_id", got[tb.Name], tb.Name)
		case citus.Local:
			if k, ok := got[tb.Name]; ok {
				require.Equal(t, "local <none>", k, tb.Name)
			}
		}
	}
	colocations := c.Query(t, c.URL(dbName(t, pool)), `SELECT count(DISTINCT colocation_id) FROM citus_tables WHERE citus_table_type = 'distributed'`)
	require.Equal(t, "1", colocations[0][0], "every distributed table in one co-location group")

	again, err := citus.Distribute(ctx, pool, log)
	require.NoError(t, err)
	require.Empty(t, again)
}

// TestCitusDistributeRefusesPlainPostgreSQLDatabase: a database without Citus is refused
// with the reason.
func TestCitusDistributeRefusesPlainPostgreSQLDatabase(t *testing.T) {
	pool := testdb.New(t)
	_, err := citus.Distribute(t.Context(), pool, log)
	require.ErrorIs(t, err, citus.ErrNoCitus)
	require.Contains(t, err.Error(), "citus extension")
}

func dbName(t *testing.T, pool *pgxpool.Pool) string {
	var name string
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT current_database()`).Scan(&name))
	return name
}
