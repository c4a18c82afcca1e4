package database_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/testdb"
	"fieldbrief/migrations"
)

// emptyDB creates a database with nothing in it, dropped at cleanup, and
// returns its URL.
func emptyDB(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	server := testdb.ServerURL(t)
	admin, err := pgx.Connect(ctx, server)
	require.NoError(t, err)
	name := fmt.Sprintf("migrate_test_%d", time.Now().UnixNano())
	_, err = admin.Exec(ctx, `CREATE DATABASE `+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = admin.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		_ = admin.Close(ctx)
	})
	u, err := url.Parse(server)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

func open(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// TestMigrateReplicas: several processes starting together on an empty
// database all succeed, and both schemas end up complete.
func TestMigrateReplicas(t *testing.T) {
	t.Parallel()
	url := emptyDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		pool := open(t, url) // a pool per process, as in production
		wg.Go(func() { errs[i] = database.Migrate(t.Context(), pool, slog.New(slog.DiscardHandler)) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	pool := open(t, url)
	river, err := database.RiverMigrations()
	require.NoError(t, err)
	var riverVersion, gooseVersion int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT max(version) FROM river_migration`).Scan(&riverVersion))
	require.Equal(t, river[len(river)-1].Version, riverVersion)
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT max(version_id) FROM goose_db_version`).Scan(&gooseVersion))
	require.GreaterOrEqual(t, gooseVersion, 4)
}

// TestMigrateBriefingHistory: briefings and their run history from before
// River (migration 3) stay readable after 00004, and ff_briefing_jobs goes.
func TestMigrateBriefingHistory(t *testing.T) {
	t.Parallel()
	pool := open(t, emptyDB(t))
	ctx := t.Context()
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	require.NoError(t, err)
	_, err = provider.UpTo(ctx, 3)
	require.NoError(t, err)

	_, err = pool.Exec(ctx, `
		INSERT INTO orgs (id, slug, name) VALUES (1, 'acme', 'Acme');
		INSERT INTO ff_briefings (id, org_id, briefing_date, timezone, fired_at, trigger, status, content, generated_at, last_error)
		VALUES (1, 1, '2026-03-09', 'Etc/UTC', '2026-03-09 08:00Z', 'schedule', 'ready', '{"date": "2026-03-09"}', '2026-03-09 08:00:05Z', ''),
		       (2, 1, '2026-03-10', 'Etc/UTC', '2026-03-10 06:00Z', 'manual', 'failed', NULL, NULL, 'boom'),
		       (3, 1, '2026-03-11', 'Etc/UTC', '2026-03-11 08:00Z', 'schedule', 'pending', NULL, NULL, '');
		INSERT INTO ff_briefing_jobs (org_id, briefing_id, state, attempt, locked_by, last_error, created_at, finished_at)
		VALUES (1, 1, 'completed', 2, 'w1:7', '', '2026-03-09 08:00Z', '2026-03-09 08:00:05Z'),
		       (1, 2, 'failed', 5, 'w2:8', 'boom', '2026-03-10 06:00Z', '2026-03-10 06:30Z');
		INSERT INTO ff_briefing_jobs (org_id, briefing_id, state, attempt, locked_by, locked_until, created_at)
		VALUES (1, 3, 'running', 1, 'w1:7', '2026-03-11 08:05Z', '2026-03-11 08:00Z');`)
	require.NoError(t, err)

	require.NoError(t, database.Migrate(ctx, pool, slog.New(slog.DiscardHandler)))

	rows, err := pool.Query(ctx, `
		SELECT id, status, revision, requested_revision, scheduled_at IS NOT NULL FROM ff_briefings ORDER BY id`)
	require.NoError(t, err)
	briefings, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id, rev, req int
		var status string
		var scheduled bool
		err := r.Scan(&id, &status, &rev, &req, &scheduled)
		return words(id, status, rev, req, scheduled), err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"1 ready 1 1 true", "2 failed 0 1 false", "3 failed 0 1 true"}, briefings)

	rows, err = pool.Query(ctx, `
		SELECT briefing_id, revision, attempt, trigger, outcome, error, worker, river_job_id IS NULL
		  FROM ff_briefing_runs WHERE org_id = 1 ORDER BY id`)
	require.NoError(t, err)
	runs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id, rev, attempt int
		var trigger, outcome, errText, worker string
		var noJob bool
		err := r.Scan(&id, &rev, &attempt, &trigger, &outcome, &errText, &worker, &noJob)
		return words(id, rev, attempt, trigger, outcome, errText, worker, noJob), err
	})
	require.NoError(t, err)
	require.Equal(t, []string{
		"1 1 2 schedule completed  w1:7 true",
		"2 1 5 manual failed boom w2:8 true",
		"3 1 1 schedule retry  w1:7 true",
	}, runs)

	var revisions int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM ff_briefing_revisions
		WHERE org_id = 1 AND briefing_id = 1 AND revision = 1 AND trigger = 'schedule' AND content->>'date' = '2026-03-09'`).Scan(&revisions))
	require.Equal(t, 1, revisions)
	var jobsTable *string
	require.NoError(t, pool.QueryRow(ctx, `SELECT to_regclass('ff_briefing_jobs')::text`).Scan(&jobsTable))
	require.Nil(t, jobsTable, "ff_briefing_jobs is dropped")
}

// words joins values with single spaces.
func words(vs ...any) string {
	return strings.TrimSuffix(fmt.Sprintln(vs...), "\n")
}

// TestNoJIT: with the worker's option its sessions run without JIT, unless
// the URL asks for it; without it, the server's default (on) stays.
func TestNoJIT(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	for _, tc := range []struct {
		url  string
		opts []database.Option
		want string
	}{
		{url, []database.Option{database.NoJIT()}, "off"},
		{url + "&jit=on", []database.Option{database.NoJIT()}, "on"},
		{url, nil, "on"},
	} {
		pool, err := database.Open(t.Context(), tc.url, slog.New(slog.DiscardHandler), tc.opts...)
		require.NoError(t, err)
		var jit string
		require.NoError(t, pool.QueryRow(t.Context(), `SHOW jit`).Scan(&jit))
		pool.Close()
		require.Equal(t, tc.want, jit, tc.url)
	}
}
