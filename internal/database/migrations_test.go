package database_test

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"fieldbrief/migrations"
)

// TestMigrationsDownAndUp: every migration can be undone and done again.
// From an empty database each goes up in turn; then each goes down in turn
// and must leave the schema exactly as it was before its up; then all go up
// again and the schema is the one the first pass built.
func TestMigrationsDownAndUp(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := open(t, emptyDB(t))
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	require.NoError(t, err)
	sources := provider.ListSources()
	require.NotEmpty(t, sources)

	// after[i] is the schema once the first i migrations are applied.
	after := [][]string{schema(t, pool)}
	for _, s := range sources {
		_, err := provider.UpByOne(ctx)
		require.NoError(t, err, "up %s", s.Path)
		after = append(after, schema(t, pool))
	}
	_, err = provider.UpByOne(ctx)
	require.ErrorIs(t, err, goose.ErrNoNextVersion)

	for i := len(sources); i > 0; i-- {
		_, err := provider.Down(ctx)
		require.NoError(t, err, "down %s", sources[i-1].Path)
		sameSchema(t, after[i-1], schema(t, pool), "down "+sources[i-1].Path+" leaves the schema as it was before its up")
	}
	version, err := provider.GetDBVersion(ctx)
	require.NoError(t, err)
	require.Zero(t, version)

	_, err = provider.Up(ctx)
	require.NoError(t, err, "up again from zero")
	sameSchema(t, after[len(sources)], schema(t, pool), "up, down to zero and up again builds the same schema")
}

// schemaQuery describes the database's own objects, one line each, from the
// catalog: relations (with their storage options), columns (by position
// among the live ones: a dropped column keeps its attnum), indexes,
// constraints, triggers, functions (fb_opaque_id without its key) and
// sequences. Left out: the system
// schemas, goose's version table, and what an extension owns (00018 creates
// pg_trgm and its down keeps it, as the extension may serve others).
const schemaQuery = `
WITH rel AS (
    SELECT c.oid, c.relname, c.relkind, c.reloptions, n.nspname
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
       AND c.relname NOT LIKE 'goose\_db\_version%'
       AND NOT EXISTS (SELECT FROM pg_depend d
                        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
)
SELECT format('relation %I.%I kind=%s options=%s', nspname, relname, relkind, reloptions)
  FROM rel WHERE relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
UNION ALL
SELECT format('column %I.%I #%s %I %s%s%s default=%s identity=%s generated=%s',
              rel.nspname, rel.relname, row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum),
              a.attname, format_type(a.atttypid, a.atttypmod),
              CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
              CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
                   THEN ' collate ' || a.attcollation::regcollation ELSE '' END,
              pg_get_expr(ad.adbin, ad.adrelid), a.attidentity, a.attgenerated)
  FROM rel
  JOIN pg_attribute a ON a.attrelid = rel.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
 WHERE rel.relkind IN ('r', 'p', 'v', 'm', 'f')
UNION ALL
SELECT format('index %s valid=%s', pg_get_indexdef(i.indexrelid), i.indisvalid)
  FROM pg_index i JOIN rel ON rel.oid = i.indrelid
UNION ALL
SELECT format('constraint %I.%I %I %s', rel.nspname, rel.relname, co.conname, pg_get_constraintdef(co.oid))
  FROM pg_constraint co JOIN rel ON rel.oid = co.conrelid
UNION ALL
SELECT format('trigger %s enabled=%s', pg_get_triggerdef(tg.oid), tg.tgenabled)
  FROM pg_trigger tg JOIN rel ON rel.oid = tg.tgrelid
 WHERE NOT tg.tgisinternal
UNION ALL
SELECT format('function %I.%I(%s) md5=%s', n.nspname, p.proname,
              pg_get_function_identity_arguments(p.oid),
              -- fb_opaque_id's key (64 hex digits, migration 00043) is data: each up makes its own.
              md5(regexp_replace(pg_get_functiondef(p.oid), '''[0-9a-f]{64}''', '''key''')))
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND p.prokind IN ('f', 'p')
   AND NOT EXISTS (SELECT FROM pg_depend d
                    WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
UNION ALL
SELECT format('sequence %I.%I %s start=%s increment=%s min=%s max=%s cache=%s cycle=%s',
              rel.nspname, rel.relname, s.seqtypid::regtype, s.seqstart, s.seqincrement,
              s.seqmin, s.seqmax, s.seqcache, s.seqcycle)
  FROM pg_sequence s JOIN rel ON rel.oid = s.seqrelid
ORDER BY 1`

// schema returns the lines of schemaQuery, in order.
func schema(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(t.Context(), schemaQuery)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return lines
}

// sameSchema fails the test with the lines only one of want and got has,
// rather than both schemas in full.
func sameSchema(t *testing.T, want, got []string, msg string) {
	t.Helper()
	var diff []string
	for _, l := range want {
		if !slices.Contains(got, l) {
			diff = append(diff, "- "+l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			diff = append(diff, "+ "+l)
		}
	}
	if len(diff) > 0 {
		t.Fatalf("%s; it differs (- before, + after):\n%s", msg, strings.Join(diff, "\n"))
	}
}

// TestMigrationGap: 00015–00017 and 00035 stay empty (migrations/README.md says why):
// databases are past them, and goose refuses a missing migration.
func TestMigrationGap(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(migrations.FS, "*.sql")
	require.NoError(t, err)
	for _, f := range files {
		version, err := goose.NumericComponent(f)
		require.NoError(t, err, f)
		require.False(t, version >= 15 && version <= 17 || version == 35, "%s takes a number of the gaps 00015–00017 and 00035", f)
	}
}

// TestMigrationRevokesOrphanedTokens: 00039 revokes the live tokens of
// creators who were demoted or removed before tokens ended with their
// creator's admin role, with the reason and an audit entry each; an
// admin's token, the org's own and a revoked one are left alone.
func TestMigrationRevokesOrphanedTokens(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := migratedTo(t, 38)
	_, err := pool.Exec(ctx, `
		INSERT INTO orgs (id, slug, name) VALUES (1, 'acme', 'Acme');
		INSERT INTO users (id, email, password_hash) VALUES (1, 'admin@acme.test', 'x'), (2, 'demoted@acme.test', 'x'), (3, 'gone@acme.test', 'x');
		INSERT INTO memberships (org_id, user_id, role) VALUES (1, 1, 'admin'), (1, 2, 'dispatcher');
		INSERT INTO api_tokens (org_id, name, token_hash, created_by, revoked_at) VALUES
		    (1, 'admin''s', sha256('a'), 1, NULL), (1, 'demoted''s', sha256('b'), 2, NULL),
		    (1, 'gone''s', sha256('c'), 3, NULL), (1, 'the org''s', sha256('d'), NULL, NULL),
		    (1, 'revoked', sha256('e'), 3, '2026-01-01')`)
	require.NoError(t, err)
	_, err = provider.UpByOne(ctx)
	require.NoError(t, err)
	rows, err := pool.Query(ctx, `SELECT name, coalesce(revoked_reason, '-') FROM api_tokens ORDER BY id`)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var name, reason string
		err := r.Scan(&name, &reason)
		return name + ":" + reason, err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"admin's:-", "demoted's:creator_not_admin", "gone's:creator_removed", "the org's:-", "revoked:-"}, got)
	var audited int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'api_token.revoke'`).Scan(&audited))
	require.Equal(t, 2, audited)
}

// TestMigrationTellsTheOrgsTokensFromADeletedCreators: 00044 marks the
// tokens web create-token made (no creator, made by the system actor) as
// the org's, and revokes, with the reason and an audit entry, a live token
// whose creator's user row was deleted (no creator, made by a person).
func TestMigrationTellsTheOrgsTokensFromADeletedCreators(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := migratedTo(t, 43)
	_, err := pool.Exec(ctx, `
		INSERT INTO orgs (id, slug, name) VALUES (1, 'acme', 'Acme');
		INSERT INTO users (id, email, password_hash) VALUES (1, 'admin@acme.test', 'x');
		INSERT INTO memberships (org_id, user_id, role) VALUES (1, 1, 'admin');
		INSERT INTO api_tokens (org_id, name, token_hash, created_by, created_by_email, created_at) VALUES
		    (1, 'admin''s', sha256('a'), 1, 'admin@acme.test', '2026-01-01'),
		    (1, 'the org''s', sha256('b'), NULL, 'system', '2026-01-02'),
		    (1, 'deleted''s', sha256('c'), NULL, 'deleted@acme.test', '2026-01-03')`)
	require.NoError(t, err)
	_, err = provider.UpByOne(ctx)
	require.NoError(t, err)
	rows, err := pool.Query(ctx, `SELECT name, org_owned, coalesce(revoked_reason, '-') FROM api_tokens ORDER BY created_at`)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var name, reason string
		var owned bool
		err := r.Scan(&name, &owned, &reason)
		return fmt.Sprintf("%s:%t:%s", name, owned, reason), err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"admin's:false:-", "the org's:true:-", "deleted's:false:creator_removed"}, got)
	var audited int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'api_token.revoke'`).Scan(&audited))
	require.Equal(t, 1, audited)
}

// TestMigrationKeepsEarlierTokensReadWrite: a token made before tokens had
// a scope (00045) can still write after it (docs/api.md, "Tokens":
// existing tokens are read-write).
func TestMigrationKeepsEarlierTokensReadWrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := migratedTo(t, 44)
	_, err := pool.Exec(ctx, `
		INSERT INTO orgs (id, slug, name) VALUES (1, 'acme', 'Acme');
		INSERT INTO api_tokens (org_id, name, token_hash, created_by, created_by_email, created_at)
		VALUES (1, 'nightly', sha256('a'), NULL, 'system', '2026-01-01')`)
	require.NoError(t, err)
	res, err := provider.UpByOne(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 45, res.Source.Version)
	var scope string
	require.NoError(t, pool.QueryRow(ctx, `SELECT scope FROM api_tokens WHERE name = 'nightly'`).Scan(&scope))
	require.Equal(t, "write", scope)
}

// TestMigrationMakesTechniciansSuppressionsVisibleStops: migration 53
// turns a suppressed technician's address into their request to stop day
// sheets, dated when it was suppressed, in that org only; the suppression
// stays for the dispatchers' briefing (docs/delivery.md, "Stopping day
// sheets").
func TestMigrationMakesTechniciansSuppressionsVisibleStops(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := migratedTo(t, 52)
	_, err := pool.Exec(ctx, `
		INSERT INTO orgs (id, slug, name) VALUES (1, 'acme', 'Acme'), (2, 'globex', 'Globex');
		INSERT INTO technicians (org_id, name, email) VALUES (1, 'Ana', 'Ana@acme.test'), (1, 'Ben', 'ben@acme.test'),
		                                                     (2, 'Ana', 'ana@acme.test'), (1, 'Nobody', '');
		INSERT INTO email_suppressions (org_id, email, created_at) VALUES (1, 'ana@ACME.test', '2026-11-20T08:00:00Z')`)
	require.NoError(t, err)
	res, err := provider.UpByOne(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 53, res.Source.Version)
	rows, err := pool.Query(ctx, `SELECT org_id || ' ' || name || ' ' || coalesce(to_char(day_sheets_stopped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), '-')
		FROM technicians ORDER BY org_id, name`)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"1 Ana 2026-11-20 08:00", "1 Ben -", "1 Nobody -", "2 Ana -"}, got)
	var kept int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM email_suppressions`).Scan(&kept))
	require.Equal(t, 1, kept)
}

// migratedTo is an empty database migrated up to version, with the goose
// provider that takes it further: the start of a test of one migration's
// effect on the rows before it.
func migratedTo(t *testing.T, version int64) (*pgxpool.Pool, *goose.Provider) {
	t.Helper()
	pool := open(t, emptyDB(t))
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	require.NoError(t, err)
	_, err = provider.UpTo(t.Context(), version)
	require.NoError(t, err)
	return pool, provider
}
