package migrations_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

// owners is every table of the schema and the one package whose code may
// name it (docs/architecture.md, "Tables and their owners", is this map).
// Another package asks the owner. A new table needs a row here.
var owners = map[string]string{
	"orgs":                        "internal/tenants",
	"memberships":                 "internal/tenants",
	"org_module_configs":          "internal/tenants",
	"org_webhook_secrets":         "internal/tenants",
	"users":                       "internal/accounts",
	"invites":                     "internal/accounts",
	"password_resets":             "internal/accounts",
	"sessions":                    "internal/auth",
	"login_failures":              "internal/auth",
	"login_clients":               "internal/auth",
	"admin_feature_flags":         "internal/flags",
	"org_feature_flags":           "internal/flags",
	"audit_log":                   "internal/audit",
	"api_tokens":                  "internal/tokens",
	"technicians":                 "internal/field",
	"jobs":                        "internal/field",
	"field_tombstones":            "internal/field",
	"technician_import_baselines": "internal/field",
	"job_import_baselines":        "internal/field",
	"csv_uploads":                 "internal/fieldimport",
	"import_columns":              "internal/fieldimport",
	"technician_day_links":        "internal/daylinks",
	"email_suppressions":          "internal/unsubscribe",
	"app_signing_keys":            "internal/unsubscribe",
	"ff_briefings":                "internal/briefing",
	"ff_briefing_revisions":       "internal/briefing",
	"ff_briefing_runs":            "internal/briefing",
	"ff_briefing_requests":        "internal/briefing",
	"ff_deliveries":               "internal/delivery",
	"ff_delivery_attempts":        "internal/delivery",
	"org_daily_emails":            "internal/delivery",
	"ff_briefing_updates":         "internal/updates",
	"ff_job_changes":              "internal/updates",
	"mail_outbox":                 "internal/transport",
	"webhook_endpoints":           "internal/webhooks",
	"webhook_events":              "internal/webhooks",
	"webhook_deliveries":          "internal/webhooks",
	"ff_worker_heartbeats":        "internal/worker",
	"goose_db_version":            "internal/database",
	"river_job":                   river,
	"river_leader":                river,
	"river_migration":             river,
	"river_notification":          river,
	"river_queue":                 river,
}

// river owns River's tables: its own code, not ours, reads and writes them.
const river = "River"

// schemaPackages may name any table: they act on the schema, not on rows.
var schemaPackages = map[string]bool{
	"migrations":        true, // the schema itself
	"internal/database": true, // runs the migrations
	"internal/citus":    true, // makes every table its Citus kind (docs/scaling.md)
	"internal/history":  true, // the month partitions of the history tables
}

// testPackages are imported by tests only (checked below); like the tests
// themselves (*_test.go, never scanned), they may seed and read any table:
// a test that checks what was stored reads the rows, and a fixture that
// needs a briefing with deliveries cannot reach it cheaply through owners.
var testPackages = map[string]bool{
	"internal/testdb":   true,
	"internal/testutil": true,
	"internal/pgtopo":   true, // the production topology for a test (docs/scaling.md)
}

// named is where a package names a table it does not own, each with why:
// by design, or the move still to make. It only shrinks: an entry no
// longer needed fails the test until it is removed (here and in
// docs/architecture.md, "Tables and their owners").
var named = map[string]string{
	"internal/accounts names orgs":                  "to move: an invite's and a reset's email read the org's name and locale",
	"internal/accounts names memberships":           "to move: accepting an invite adds the membership in its transaction",
	"internal/accounts names sessions":              "to move: a password change ends the user's other sessions in its transaction",
	"internal/audit names orgs":                     "to move: entries are listed with their org's slug",
	"internal/auth names orgs":                      "to move: a session's one statement per page reads the org and membership",
	"internal/auth names memberships":               "to move: a session's one statement per page reads the org and membership",
	"internal/auth names users":                     "to move: a session's one statement per page reads the user",
	"internal/briefing names ff_deliveries":         "to move: a briefing's page lists its deliveries",
	"internal/briefing names river_job":             "by design: a retried generation's delivery tasks keep its place in the queue; River has no call for it",
	"internal/daylinks names orgs":                  "to move: opening a link reads the org's zone and locale",
	"internal/transport names orgs":                 "to move: the outbox lists mail with its org's slug",
	"internal/demo names orgs":                      "to move: the demo's history backdates its orgs",
	"internal/demo names audit_log":                 "to move: the demo's history writes its audit entries",
	"internal/delivery names email_suppressions":    "to move: a send skips an unsubscribed address",
	"internal/delivery names ff_briefing_revisions": "to move: a send reads its revision",
	"internal/delivery names ff_briefing_updates":   "to move: an update's send reads and marks it",
	"internal/delivery names ff_briefings":          "to move: deliveries are queued, capped and sent for a briefing",
	"internal/delivery names org_module_configs":    "to move: deliveries read the org's delivery settings",
	"internal/delivery names orgs":                  "to move: mail reads the org's name and locale",
	"internal/flags names audit_log":                "to move: the calendar's history of configs and flags reads the audit log",
	"internal/flags names orgs":                     "to move: a flag's impact counts orgs",
	"internal/tenants names users":                  "to move: the members list reads each member's name and email",
	"internal/tick names admin_feature_flags":       "by design: the candidate scan is one statement over the flags, the configs and the briefings (docs/scheduling.md, \"The tick\")",
	"internal/tick names org_feature_flags":         "by design: the candidate scan is one statement over the flags, the configs and the briefings (docs/scheduling.md, \"The tick\")",
	"internal/tick names org_module_configs":        "by design: the candidate scan, and the next-fire hints it reads and writes (docs/scheduling.md, \"The next-fire hint\")",
	"internal/tick names ff_briefings":              "to move: the candidate scan reads the window's briefings (by design); enqueue inserts them",
	"internal/tokens names orgs":                    "to move: a token's lookup reads its org",
	"internal/tokens names memberships":             "to move: a token's owner must still be an admin of the org",
	"internal/unsubscribe names orgs":               "to move: the unsubscribe page reads the org's name",
	"internal/updates names ff_briefings":           "to move: which technicians' days are watched follows the briefings sent",
	"internal/updates names ff_briefing_revisions":  "to move: which technicians' days are watched follows the briefings sent",
	"internal/updates names ff_briefing_runs":       "to move: which technicians' days are watched follows the briefings sent",
	"internal/updates names ff_deliveries":          "to move: which technicians' days are watched follows the deliveries sent",
	"internal/updates names org_module_configs":     "to move: the updates read the org's delivery.updates",
	"internal/worker names river_job":               "by design: the lifeline gives a dead worker's tasks back and -once counts overdue ones; River has no call for either",
}

// TestTableOwners: every table has one owning package and no other
// package's Go code names it in SQL (docs/architecture.md, "Tables and
// their owners").
func TestTableOwners(t *testing.T) {
	t.Parallel()

	t.Run("the doc's table", func(t *testing.T) {
		t.Parallel()
		doc, docNamed := readOwners(t, "../docs/architecture.md")
		require.Equal(t, owners, doc, "the map owners and docs/architecture.md, %q, disagree", ownersSection)
		require.Equal(t, slices.Sorted(maps.Keys(named)), docNamed, "the map named and docs/architecture.md, %q, disagree", ownersSection)
	})

	t.Run("every table has an owner", func(t *testing.T) {
		t.Parallel()
		db := testdb.New(t)
		rows, err := db.Query(t.Context(), userTables)
		require.NoError(t, err)
		present := map[string]bool{}
		for rows.Next() {
			var oid uint32
			var name string
			require.NoError(t, rows.Scan(&oid, &name))
			present[name] = true
		}
		require.NoError(t, rows.Err())
		for name := range present {
			if _, ok := owners[name]; !ok {
				t.Errorf("table %s has no owner: give it one in migrations/owners_test.go (owners) and in docs/architecture.md, %q", name, ownersSection)
			}
		}
		for name := range owners {
			if !present[name] {
				t.Errorf("owners lists %s, which is not in the schema", name)
			}
		}
	})

	t.Run("owners are packages", func(t *testing.T) {
		t.Parallel()
		for _, pkg := range owners {
			if pkg == river {
				continue
			}
			files, err := fs.Glob(os.DirFS(".."), pkg+"/*.go")
			require.NoError(t, err)
			require.NotEmpty(t, files, "owner %s is not a package of the repository", pkg)
		}
	})

	t.Run("no package names a table it does not own", func(t *testing.T) {
		t.Parallel()
		found, imports := scanTables(t, os.DirFS(".."), slices.Collect(maps.Keys(owners)))
		for _, v := range violations(found, owners, named) {
			t.Error(v)
		}
		for pkg, imported := range imports {
			for test := range testPackages {
				if imported["fieldbrief/"+test] && !testPackages[pkg] {
					t.Errorf("%s imports %s, which may name any table because only tests import it", pkg, test)
				}
			}
		}
	})

	// The checker can fail, and does not mistake a column, prose, markup or
	// a URL for a table.
	t.Run("the scanner", func(t *testing.T) {
		t.Parallel()
		fsys := fstest.MapFS{
			"internal/field/field.go": {Data: []byte("package field\n" +
				"const q = `SELECT id FROM jobs j JOIN technicians t ON t.id = j.technician_id`\n")},
			"internal/delivery/send.go": {Data: []byte("package delivery\n" +
				"import \"github.com/jackc/pgx/v5\"\n" +
				"const a = `SELECT name\n  FROM technicians WHERE org_id = $1`\n" +
				"const b = \"UPDATE ONLY jobs SET status = $2\"\n" +
				"var c = pgx.Identifier{\"jobs\"}\n" +
				"const d = `SELECT jobs_count, technicians_active FROM ff_briefings`\n" +
				"const e = `ANALYZE orgs`\n")},
			"internal/delivery/send_test.go": {Data: []byte("package delivery\nconst t = `DELETE FROM jobs`\n")},
			"internal/web/jobs.go": {Data: []byte("package web\n" +
				"const a = \"jobs on technicians' sent days\"\n" +
				"const b = `<table class=\"table jobs\">`\n" +
				"const c = \"/api/v1/jobs\"\n" +
				"const d = \"jobs\"\n" +
				"const e = `SELECT 'jobs'::regclass`\n" +
				"const f = `SELECT x FROM unknown_table`\n" +
				"const g = `select id from technicians where org_id = $1`\n" +
				"const h = \"select the jobs from the list, then update the jobs you set aside\"\n")},
			"internal/testutil/seed.go": {Data: []byte("package testutil\nconst q = `INSERT INTO jobs DEFAULT VALUES`\n")},
			"internal/citus/citus.go":   {Data: []byte("package citus\nconst q = `ALTER TABLE jobs REPLICA IDENTITY FULL`\n")},
		}
		found, _ := scanTables(t, fsys, []string{"jobs", "technicians", "orgs", "ff_briefings"})
		own := map[string]string{"jobs": "internal/field", "technicians": "internal/field", "orgs": "internal/tenants", "ff_briefings": "internal/briefing"}
		require.Equal(t, []string{
			"internal/delivery names ff_briefings, owned by internal/briefing: send.go:7",
			"internal/delivery names jobs, owned by internal/field: send.go:5, send.go:6",
			"internal/delivery names technicians, owned by internal/field: send.go:3",
			"internal/web names jobs, owned by internal/field: jobs.go:6",
			"internal/web names technicians, owned by internal/field: jobs.go:8",
		}, violations(found, own, map[string]string{"internal/delivery names orgs": "to move"}))
		require.Equal(t, []string{
			"internal/delivery names jobs, owned by internal/field: send.go:5, send.go:6",
			"internal/delivery names technicians, owned by internal/field: send.go:3",
			"internal/web names jobs, owned by internal/field: jobs.go:6",
			`internal/web names orgs is listed in named but the package no longer names it: remove it there and in docs/architecture.md`,
			"internal/web names technicians, owned by internal/field: jobs.go:8",
		}, violations(found, own, map[string]string{
			"internal/delivery names orgs":         "to move",
			"internal/delivery names ff_briefings": "to move",
			"internal/web names orgs":              "to move",
		}))
	})
}

// sqlTable finds a table named in SQL: after the keyword that introduces
// one (in capitals, as our SQL writes them; prose and markup say "from
// jobs", "table jobs"), or quoted as a regclass. The whole identifier is
// taken, so a column jobs_count is not the table jobs. SQL written in
// lower case is caught by the shapes of whole statements
// (sqlTableLowerCase), which prose does not take.
var (
	sqlTable = regexp.MustCompile(`\b(?:FROM|JOIN|INTO|UPDATE|TABLE|TRUNCATE|REFERENCES|USING|ON|COPY|ANALYZE|LOCK)\s+` +
		`(?:ONLY\s+|IF\s+(?:NOT\s+)?EXISTS\s+)*(?:public\.)?"?([a-z_][a-z0-9_]*)|'(?:public\.)?([a-z_][a-z0-9_]*)'::regclass`)
	sqlTableLowerCase = regexp.MustCompile(`(?s)\bselect\s.+?\s(?:from|join)\s+([a-z_][a-z0-9_]*)|` +
		`\b(?:insert\s+into|delete\s+from)\s+([a-z_][a-z0-9_]*)|\bupdate\s+([a-z_][a-z0-9_]*)\s+(?:[a-z_]+\s+)?set\s`)
)

// scanTables reads every package's non-test Go files under fsys (but
// migrations) and returns, per package and table, the places ("file:line")
// whose string literals name the table in SQL, or that spell it as a
// pgx.Identifier; and each package's imports. A table name spliced into
// SQL from a plain string ("jobs") is not seen: only the owner's helpers
// do that.
func scanTables(t *testing.T, fsys fs.FS, tables []string) (map[string]map[string][]string, map[string]map[string]bool) {
	t.Helper()
	known := map[string]bool{}
	for _, tb := range tables {
		known[tb] = true
	}
	found := map[string]map[string][]string{}
	imports := map[string]map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || p == "migrations" || p == "bin") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := path.Dir(p)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			s, _ := strconv.Unquote(im.Path.Value)
			imports[pkg][s] = true
		}
		add := func(tb string, pos token.Pos) {
			if !known[tb] {
				return
			}
			if found[pkg] == nil {
				found[pkg] = map[string][]string{}
			}
			at := fmt.Sprintf("%s:%d", path.Base(p), fset.Position(pos).Line)
			if !slices.Contains(found[pkg][tb], at) {
				found[pkg][tb] = append(found[pkg][tb], at)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				for _, m := range sqlTable.FindAllStringSubmatch(s, -1) {
					add(m[1]+m[2], n.Pos())
				}
				for _, m := range sqlTableLowerCase.FindAllStringSubmatch(s, -1) {
					add(m[1]+m[2]+m[3], n.Pos())
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Identifier" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "pgx" {
						for _, e := range n.Elts {
							if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
								s, _ := strconv.Unquote(lit.Value)
								add(s, lit.Pos())
							}
						}
					}
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	return found, imports
}

// violations lists, sorted, each package naming a table it does not own
// and is not listed in named for, and each entry of named no longer needed.
func violations(found map[string]map[string][]string, owners, named map[string]string) []string {
	var out []string
	used := map[string]bool{}
	for pkg, tables := range found {
		if schemaPackages[pkg] || testPackages[pkg] {
			continue
		}
		for tb, at := range tables {
			if owners[tb] == pkg {
				continue
			}
			key := pkg + " names " + tb
			if _, ok := named[key]; ok {
				used[key] = true
				continue
			}
			out = append(out, fmt.Sprintf("%s, owned by %s: %s", key, owners[tb], strings.Join(at, ", ")))
		}
	}
	for key := range named {
		if !used[key] {
			out = append(out, key+" is listed in named but the package no longer names it: remove it there and in docs/architecture.md")
		}
	}
	slices.Sort(out)
	return out
}

// ownersSection is the heading of docs/architecture.md's table of tables.
const ownersSection = "## Tables and their owners"

var (
	ownerRow = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| (`[a-z0-9_/]+`|River) \\|$")
	namedRow = regexp.MustCompile("^\\| `([a-z0-9_/]+)` \\| `([a-z0-9_]+)` \\| [^|]+ \\|$")
)

// readOwners parses the section ownersSection: its table of owners
// (`| `table` | `package` |`, or River) and its table of tables named
// outside their owner (`| `package` | `table` | why |`).
func readOwners(t *testing.T, file string) (map[string]string, []string) {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	own := map[string]string{}
	var named []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == ownersSection {
			in = true
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		if m := ownerRow.FindStringSubmatch(line); m != nil {
			_, dup := own[m[1]]
			require.False(t, dup, "%s lists %s twice", file, m[1])
			own[m[1]] = strings.Trim(m[2], "`")
			continue
		}
		m := namedRow.FindStringSubmatch(line)
		require.NotNil(t, m, "%s: a row of %q is `| `table` | `package` |` or `| `package` | `table` | why |`: %s", file, ownersSection, line)
		named = append(named, m[1]+" names "+m[2])
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, own, "%s has no table under %q", file, ownersSection)
	slices.Sort(named)
	return own, named
}
