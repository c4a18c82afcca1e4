package migrations_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/citus"
	"fieldbrief/internal/testdb"
)

// TestCitusReady checks the migrated schema against what Citus needs of it
// (docs/scaling.md, "Every table and its Citus kind"): every table is
// listed there with its kind, and the keys of the distributed ones carry
// the distribution column.
func TestCitusReady(t *testing.T) {
	t.Parallel()
	kinds := readKinds(t, "../docs/scaling.md")

	// citus.Tables, which `web citus-distribute` applies, is this table.
	t.Run("the command's list", func(t *testing.T) {
		t.Parallel()
		listed := map[string]placement{}
		for _, tb := range citus.Tables {
			listed[tb.Name] = placement{kind: kind(tb.Kind), column: tb.Column}
		}
		require.Equal(t, kinds, listed, "internal/citus.Tables and docs/scaling.md disagree")
	})

	t.Run("schema", func(t *testing.T) {
		t.Parallel()
		db := testdb.New(t)
		for _, v := range citusViolations(t.Context(), t, db, kinds) {
			t.Error(v)
		}
	})

	// The checker can fail: a unique index without org_id on a distributed
	// table is reported.
	t.Run("unique index without org_id", func(t *testing.T) {
		t.Parallel()
		db := testdb.New(t)
		_, err := db.Exec(t.Context(), `CREATE UNIQUE INDEX jobs_external_ref_only ON jobs (external_ref)`)
		require.NoError(t, err)
		require.Equal(t, []string{
			`jobs (distributed by org_id): unique index jobs_external_ref_only (external_ref) lacks org_id`,
		}, citusViolations(t.Context(), t, db, kinds))
	})

	t.Run("other violations", func(t *testing.T) {
		t.Parallel()
		db := testdb.New(t)
		_, err := db.Exec(t.Context(), `
			CREATE TABLE citus_unlisted (id bigint PRIMARY KEY);
			ALTER TABLE admin_feature_flags ADD COLUMN job_org bigint, ADD COLUMN job_id bigint,
				ADD FOREIGN KEY (job_org, job_id) REFERENCES jobs (org_id, id);
			ALTER TABLE jobs ADD COLUMN session_id text REFERENCES sessions (id);
			CREATE INDEX ON jobs (session_id);
			ALTER TABLE ff_job_changes ADD COLUMN other_job bigint,
				ADD FOREIGN KEY (other_job, org_id) REFERENCES jobs (org_id, id);
			CREATE INDEX ON ff_job_changes (other_job, org_id);
			ALTER TABLE ff_job_changes ADD COLUMN later_job bigint,
				ADD FOREIGN KEY (org_id, later_job) REFERENCES jobs (org_id, id) ON DELETE SET NULL (later_job);
			CREATE INDEX ON ff_job_changes (org_id, later_job);
			ALTER TABLE sessions ADD COLUMN job_org bigint, ADD COLUMN job_id bigint,
				ADD FOREIGN KEY (job_org, job_id) REFERENCES jobs (org_id, id);
			ALTER TABLE import_columns RENAME COLUMN org_id TO tenant_id;
			ALTER TABLE email_suppressions ALTER COLUMN org_id DROP NOT NULL;
			ALTER TABLE email_suppressions REPLICA IDENTITY DEFAULT;
			`)
		require.NoError(t, err)
		withGone := map[string]placement{"citus_gone": {kind: reference}}
		for name, p := range kinds {
			withGone[name] = p
		}
		got := citusViolations(t.Context(), t, db, withGone)
		want := []string{
			`admin_feature_flags (reference): foreign key admin_feature_flags_job_org_job_id_fkey references jobs, not a reference table`,
			`admin_feature_flags: foreign key admin_feature_flags_job_org_job_id_fkey (job_org, job_id) has no index leading with its columns`,
			`citus_gone is listed in docs/scaling.md but is not in the schema`,
			`citus_unlisted is not listed in docs/scaling.md`,
			`email_suppressions (distributed by org_id): no primary key or replica identity, which the rebalancer's logical replication needs`,
			`email_suppressions (distributed by org_id): org_id may be NULL`,
			`ff_job_changes (distributed by org_id): foreign key ff_job_changes_org_id_later_job_fkey to jobs sets columns to NULL or their default, which Citus refuses on a key with org_id`,
			`ff_job_changes (distributed by org_id): foreign key ff_job_changes_other_job_org_id_fkey to jobs does not map org_id to org_id`,
			`import_columns (distributed by org_id): has no column org_id`,
			`import_columns (distributed by org_id): primary key import_columns_pkey (tenant_id, kind, header_hash) lacks org_id`,
			`jobs (distributed by org_id): foreign key jobs_session_id_fkey references sessions, a coordinator-local table`,
			`sessions (coordinator-local): foreign key sessions_job_org_job_id_fkey references jobs, a distributed table`,
			`sessions: foreign key sessions_job_org_job_id_fkey (job_org, job_id) has no index leading with its columns`,
		}
		require.Equal(t, want, got)
	})

	// Partitioned tables (relkind 'p') are checked once, as the parent:
	// their partitions, and the constraints cloned onto them, are not tables
	// of their own to Citus.
	t.Run("partitioned", func(t *testing.T) {
		t.Parallel()
		db := testdb.New(t)
		_, err := db.Exec(t.Context(), `
			CREATE TABLE citus_probe (
				org_id      bigint      NOT NULL,
				id          bigint      NOT NULL,
				briefing_id bigint      NOT NULL,
				at          timestamptz NOT NULL,
				PRIMARY KEY (org_id, id, at),
				FOREIGN KEY (org_id, briefing_id) REFERENCES ff_briefings (org_id, id) ON DELETE CASCADE
			) PARTITION BY RANGE (at);
			CREATE INDEX ON citus_probe (org_id, briefing_id);
			CREATE TABLE citus_probe_2026_11 PARTITION OF citus_probe FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
			CREATE TABLE citus_probe_2026_12 PARTITION OF citus_probe FOR VALUES FROM ('2026-12-01') TO ('2027-01-01');
			CREATE TABLE citus_probe_child (
				org_id   bigint      NOT NULL,
				probe_id bigint      NOT NULL,
				probe_at timestamptz NOT NULL,
				FOREIGN KEY (org_id, probe_id, probe_at) REFERENCES citus_probe (org_id, id, at) ON DELETE CASCADE
			);
			CREATE INDEX ON citus_probe_child (org_id, probe_id, probe_at);
			ALTER TABLE citus_probe_child REPLICA IDENTITY FULL;`)
		require.NoError(t, err)
		withProbe := map[string]placement{
			"citus_probe":       {kind: distributed, column: "org_id"},
			"citus_probe_child": {kind: distributed, column: "org_id"},
		}
		for name, p := range kinds {
			withProbe[name] = p
		}
		require.Empty(t, citusViolations(t.Context(), t, db, withProbe))

		_, err = db.Exec(t.Context(), `CREATE UNIQUE INDEX citus_probe_id_at ON citus_probe (id, at)`)
		require.NoError(t, err)
		require.Equal(t, []string{
			`citus_probe (distributed by org_id): unique index citus_probe_id_at (id, at) lacks org_id`,
		}, citusViolations(t.Context(), t, db, withProbe))

		_, err = db.Exec(t.Context(), `DROP INDEX citus_probe_id_at;
			ALTER TABLE citus_probe ADD FOREIGN KEY (org_id) REFERENCES orgs (id);
			CREATE INDEX ON citus_probe (org_id)`)
		require.NoError(t, err)
		require.Equal(t, []string{
			`citus_probe (distributed by org_id, partitioned): foreign key citus_probe_org_id_fkey references orgs, a reference table`,
		}, citusViolations(t.Context(), t, db, withProbe))
	})
}

type kind string

const (
	distributed kind = "distributed"
	reference   kind = "reference"
	local       kind = "coordinator-local"
)

// placement is a table's Citus kind and, for a distributed table, its
// distribution column.
type placement struct {
	kind   kind
	column string
}

func (p placement) String() string {
	if p.kind == distributed {
		return "distributed by " + p.column
	}
	return string(p.kind)
}

// kindsSection is the heading of docs/scaling.md's table of kinds.
const kindsSection = "### Every table and its Citus kind"

var (
	kindRow   = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| ([^|]+?) \\| [^|]+ \\|$")
	distColum = regexp.MustCompile("^distributed by `([a-z0-9_]+)`$")
)

// readKinds parses the table under kindsSection: one row per table,
// `| `name` | kind | why |`, the kind being "distributed by `col`",
// "reference" or "coordinator-local".
func readKinds(t *testing.T, path string) map[string]placement {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	kinds := map[string]placement{}
	in, rows := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == kindsSection {
			in = true
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, "#") {
			break
		}
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| table ") {
			if rows > 0 && line == "" {
				break
			}
			continue
		}
		rows++
		m := kindRow.FindStringSubmatch(line)
		require.NotNil(t, m, "%s: a row of %q is `| `table` | kind | why |`: %s", path, kindsSection, line)
		name, k := m[1], m[2]
		_, dup := kinds[name]
		require.False(t, dup, "%s lists %s twice", path, name)
		switch {
		case k == string(reference), k == string(local):
			kinds[name] = placement{kind: kind(k)}
		case distColum.MatchString(k):
			kinds[name] = placement{kind: distributed, column: distColum.FindStringSubmatch(k)[1]}
		default:
			t.Fatalf("%s: %s has kind %q; want \"distributed by `column`\", %q or %q", path, name, k, reference, local)
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, kinds, "%s has no table under %q", path, kindsSection)
	return kinds
}

// userTables are the schema's tables as Citus sees them: ordinary and
// partitioned tables, not partitions, not what an extension owns.
const userTables = `
SELECT c.oid, c.relname
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
   AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
   AND NOT EXISTS (SELECT FROM pg_depend d
                    WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')`

// citusViolations lists, sorted, every way the database's schema breaks
// what Citus needs of the tables in kinds.
// unindexedKeys are the foreign keys left without an index on purpose: an
// index there costs more than the cascade it serves. org_module_configs'
// updated_by: every next-fire hint the tick stores would add an entry
// (migration 00047; docs/benchmarks.md, "The tick"), for the sake of
// deleting a user, an operator's rare act.
var unindexedKeys = map[string]bool{"org_module_configs_updated_by_fkey": true}

func citusViolations(ctx context.Context, t *testing.T, db *pgxpool.Pool, kinds map[string]placement) []string {
	t.Helper()
	var out []string
	report := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	tables := map[uint32]string{}
	rows, err := db.Query(ctx, userTables)
	require.NoError(t, err)
	for rows.Next() {
		var oid uint32
		var name string
		require.NoError(t, rows.Scan(&oid, &name))
		tables[oid] = name
	}
	require.NoError(t, rows.Err())
	present := map[string]bool{}
	for _, name := range tables {
		present[name] = true
		if _, ok := kinds[name]; !ok {
			report("%s is not listed in docs/scaling.md", name)
		}
	}
	for name := range kinds {
		if !present[name] {
			report("%s is listed in docs/scaling.md but is not in the schema", name)
		}
	}

	// The distribution column exists and is NOT NULL.
	for _, name := range tables {
		p, ok := kinds[name]
		if !ok || p.kind != distributed {
			continue
		}
		var notNull bool
		err := db.QueryRow(ctx, `
			SELECT a.attnotnull FROM pg_attribute a
			 WHERE a.attrelid = (SELECT oid FROM pg_class WHERE relname = $1 AND NOT relispartition AND relkind IN ('r', 'p'))
			   AND a.attname = $2 AND NOT a.attisdropped`, name, p.column).Scan(&notNull)
		switch {
		case err != nil:
			report("%s (%s): has no column %s", name, p, p.column)
		case !notNull:
			report("%s (%s): %s may be NULL", name, p, p.column)
		}
	}

	// A distributed table has a primary key or a replica identity: the
	// rebalancer moves its shards by logical replication.
	for oid, name := range tables {
		p, ok := kinds[name]
		if !ok || p.kind != distributed {
			continue
		}
		var identity bool
		require.NoError(t, db.QueryRow(ctx, `
			SELECT relreplident = 'f' OR (relreplident = 'd' AND EXISTS (SELECT FROM pg_index WHERE indrelid = c.oid AND indisprimary))
			       OR (relreplident = 'i' AND EXISTS (SELECT FROM pg_index WHERE indrelid = c.oid AND indisreplident))
			  FROM pg_class c WHERE c.oid = $1`, oid).Scan(&identity))
		if !identity {
			report("%s (%s): no primary key or replica identity, which the rebalancer's logical replication needs", name, p)
		}
	}

	// Every primary key, unique constraint and unique index of a
	// distributed table includes its distribution column as a plain column.
	rows, err = db.Query(ctx, `
		SELECT i.indrelid::oid, ic.relname,
		       CASE WHEN con.contype = 'p' THEN 'primary key'
		            WHEN con.contype = 'u' THEN 'unique constraint'
		            ELSE 'unique index' END,
		       ARRAY(SELECT coalesce(a.attname::text, '<expression>')
		               FROM unnest(i.indkey[:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, n)
		               LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0
		              ORDER BY k.n)
		  FROM pg_index i
		  JOIN pg_class ic ON ic.oid = i.indexrelid
		  LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u')
		 WHERE i.indisunique`)
	require.NoError(t, err)
	for rows.Next() {
		var rel uint32
		var index, what string
		var cols []string
		require.NoError(t, rows.Scan(&rel, &index, &what, &cols))
		name, ok := tables[rel]
		if !ok {
			continue // a partition's index, or a system table's
		}
		if p := kinds[name]; p.kind == distributed && !slices.Contains(cols, p.column) {
			report("%s (%s): %s %s (%s) lacks %s", name, p, what, index, strings.Join(cols, ", "), p.column)
		}
	}
	require.NoError(t, rows.Err())

	// Foreign keys: between kinds, and each with an index leading with its
	// columns. A partition's copies of its parent's keys (conparentid) are
	// the parent's.
	rows, err = db.Query(ctx, `
		SELECT con.conname, con.conrelid::oid, con.confrelid::oid,
		       (SELECT relkind = 'p' FROM pg_class WHERE oid = con.conrelid),
		       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, n)
		               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.n),
		       ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, n)
		               JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.n),
		       EXISTS (SELECT FROM pg_index i
		                WHERE i.indrelid = con.conrelid AND i.indpred IS NULL
		                  AND i.indnkeyatts >= cardinality(con.conkey)
		                  AND (SELECT array_agg(x ORDER BY x) FROM unnest(i.indkey[:cardinality(con.conkey) - 1]) x)
		                    = (SELECT array_agg(x ORDER BY x) FROM unnest(con.conkey) x)),
		       con.confdeltype::text, con.confupdtype::text
		  FROM pg_constraint con
		 WHERE con.contype = 'f' AND con.conparentid = 0`)
	require.NoError(t, err)
	for rows.Next() {
		var fk string
		var from, to uint32
		var cols, refCols []string
		var indexed, partitioned bool
		var onDelete, onUpdate string
		require.NoError(t, rows.Scan(&fk, &from, &to, &partitioned, &cols, &refCols, &indexed, &onDelete, &onUpdate))
		src, ok := tables[from]
		if !ok {
			continue
		}
		dst := tables[to]
		sp, sok := kinds[src]
		dp, dok := kinds[dst]
		if !indexed && !unindexedKeys[fk] {
			report("%s: foreign key %s (%s) has no index leading with its columns", src, fk, strings.Join(cols, ", "))
		}
		if !sok || !dok {
			continue // reported above as not listed
		}
		switch {
		case sp.kind == distributed && dp.kind == reference && partitioned:
			// PostgreSQL 15 refuses the NOT VALID key Citus adds to a
			// partitioned table, and while the key exists
			// create_reference_table converts the table into a Citus local
			// one (docs/scaling.md, "What the real cluster refused").
			report("%s (%s, partitioned): foreign key %s references %s, a reference table", src, sp, fk, dst)
		case sp.kind == reference && dp.kind != reference:
			report("%s (%s): foreign key %s references %s, not a reference table", src, sp, fk, dst)
		case sp.kind == distributed && dp.kind == local:
			report("%s (%s): foreign key %s references %s, a coordinator-local table", src, sp, fk, dst)
		case sp.kind == local && dp.kind == distributed:
			report("%s (%s): foreign key %s references %s, a distributed table", src, sp, fk, dst)
		case sp.kind == distributed && dp.kind == distributed:
			maps := false
			for i := range cols {
				maps = maps || (cols[i] == sp.column && refCols[i] == dp.column)
			}
			if !maps {
				report("%s (%s): foreign key %s to %s does not map %s to %s", src, sp, fk, dst, sp.column, dp.column)
			}
			// Citus refuses SET NULL and SET DEFAULT on a foreign key that
			// includes the distribution column, column list or not
			// (docs/scaling.md, "Every table and its Citus kind").
			if maps && (onDelete == "n" || onDelete == "d" || onUpdate == "n" || onUpdate == "d") {
				report("%s (%s): foreign key %s to %s sets columns to NULL or their default, which Citus refuses on a key with %s", src, sp, fk, dst, sp.column)
			}
		}
	}
	require.NoError(t, rows.Err())

	slices.Sort(out)
	return out
}
