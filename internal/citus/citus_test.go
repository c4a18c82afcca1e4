//go:build citus

package citus_test

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/citus"
	"fieldbrief/internal/database"
	"fieldbrief/internal/history"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testdb"
	"fieldbrief/migrations"
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

// probeMigration is a later release's migration on the distributed schema:
// a column and an index on a distributed table, a function and a trigger
// on one, a new org-scoped table, and a change to a trigger function.
const probeMigration = `-- +goose Up
ALTER TABLE jobs ADD COLUMN citus_probe text;
CREATE INDEX jobs_citus_probe_idx ON jobs (org_id, citus_probe);
-- +goose StatementBegin
CREATE FUNCTION citus_probe_upper() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.citus_probe := upper(NEW.citus_probe);
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_citus_probe BEFORE INSERT OR UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION citus_probe_upper();
CREATE TABLE citus_probes (
    org_id bigint NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    id     bigint NOT NULL,
    PRIMARY KEY (org_id, id)
);

-- +goose Down
DROP TABLE citus_probes;
DROP TRIGGER jobs_citus_probe ON jobs;
DROP FUNCTION citus_probe_upper();
DROP INDEX jobs_citus_probe_idx;
ALTER TABLE jobs DROP COLUMN citus_probe;
`

// TestCitusMigrationAfterDistribution: goose applies a new migration to a
// distributed database (the DDL reaches every shard), the history tables
// get their next months as distributed partitions.
func TestCitusMigrationAfterDistribution(t *testing.T) {
	ctx := t.Context()
	c := pgtopo.CitusCluster(t)
	url := c.Database(t)
	pool := open(t, url)
	require.NoError(t, database.Migrate(ctx, pool, log))
	_, err := citus.Distribute(ctx, pool, log)
	require.NoError(t, err)

	fsys := fstest.MapFS{}
	entries, err := fs.ReadDir(migrations.FS, ".")
	require.NoError(t, err)
	var top int
	for _, e := range entries {
		b, err := fs.ReadFile(migrations.FS, e.Name())
		require.NoError(t, err)
		fsys[e.Name()] = &fstest.MapFile{Data: b}
		n, _ := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		top = max(top, n)
	}
	fsys[fmt.Sprintf("%05d_citus_probe.sql", top+1)] = &fstest.MapFile{Data: []byte(probeMigration)}
	require.NoError(t, database.MigrateGoose(ctx, pool, log, fsys))
	var version int
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&version))
	require.Equal(t, top+1, version)

	// The column, its index and the trigger are on every shard of jobs.
	shards := c.Query(t, url, `
		SELECT result FROM run_command_on_shards('jobs', $$
			SELECT (SELECT count(*) FROM pg_attribute WHERE attrelid = '%1$s'::regclass AND attname = 'citus_probe')
			     + (SELECT count(*) FROM pg_trigger WHERE tgrelid = '%1$s'::regclass AND tgname LIKE 'jobs_citus_probe%%')
			     + (SELECT count(*) FROM pg_index WHERE indrelid = '%1$s'::regclass AND indexrelid::regclass::text LIKE 'jobs_citus_probe_idx%%')$$)`)
	require.NotEmpty(t, shards)
	for _, s := range shards {
		require.Equal(t, "3", s[0], "a shard of jobs lacks the column, the trigger or the index: %v", shards)
	}
	_, err = pool.Exec(ctx, `INSERT INTO orgs (slug, name) VALUES ('probe', 'Probe')`)
	require.NoError(t, err)
	var probe string
	require.NoError(t, pool.QueryRow(ctx, `
		INSERT INTO jobs (org_id, customer, arrival_start, arrival_end, citus_probe)
		SELECT id, 'x', '2026-11-28 09:00Z', '2026-11-28 10:00Z', 'shout' FROM orgs WHERE slug = 'probe'
		RETURNING citus_probe`).Scan(&probe))
	require.Equal(t, "SHOUT", probe, "the trigger ran on the shard")

	// History months made later are partitions of the distributed tables.
	created, err := history.EnsureMonths(ctx, pool, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.Len(t, created, len(history.Tables))
	kinds := c.Query(t, url, `SELECT citus_table_type FROM citus_tables WHERE table_name::text = 'ff_deliveries_p203101'`)
	require.Equal(t, [][]string{{"distributed"}}, kinds)
}
