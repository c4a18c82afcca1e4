// Package citus makes a migrated fieldbrief database on a Citus
// coordinator distributed: every table the Citus kind docs/scaling.md
// lists ("Every table and its Citus kind"), in the order Citus needs.
package citus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/database"
)

// Kind is a table's place in a Citus cluster.
type Kind string

const (
	Distributed Kind = "distributed"       // sharded by Column, co-located with every other
	Reference   Kind = "reference"         // a copy on every node
	Local       Kind = "coordinator-local" // an ordinary table on the coordinator
)

// Table is a table and its Citus kind.
type Table struct {
	Name   string
	Kind   Kind
	Column string // the distribution column of a Distributed table
}

// Column is the distribution column of every distributed table.
const Column = "org_id"

func dist(name string) Table { return Table{name, Distributed, Column} }
func ref(name string) Table  { return Table{name, Reference, ""} }
func local(name string) Table {
	return Table{name, Local, ""}
}

// Tables is every table of the schema and its kind, as docs/scaling.md
// lists them (TestCitusReady checks that the two agree and that the
// catalog follows the rules of each kind).
var Tables = []Table{
	ref("orgs"), ref("users"), ref("admin_feature_flags"),
	dist("org_module_configs"), dist("org_feature_flags"), dist("org_webhook_secrets"),
	dist("memberships"), dist("invites"), dist("email_suppressions"), dist("api_tokens"),
	dist("csv_uploads"), dist("import_columns"), dist("technicians"), dist("jobs"),
	dist("technician_import_baselines"), dist("job_import_baselines"), dist("technician_day_links"),
	dist("ff_briefings"), dist("ff_briefing_revisions"), dist("ff_briefing_runs"),
	dist("ff_briefing_requests"), dist("ff_briefing_updates"), dist("ff_job_changes"), dist("field_tombstones"),
	dist("webhook_endpoints"), dist("webhook_events"), dist("webhook_deliveries"),
	dist("ff_deliveries"), dist("ff_delivery_attempts"), dist("org_daily_emails"),
	local("audit_log"), local("mail_outbox"), local("sessions"), local("password_resets"),
	local("login_failures"), local("login_clients"), local("app_signing_keys"), local("ff_worker_heartbeats"),
	local("goose_db_version"), local("river_job"), local("river_leader"), local("river_migration"),
	local("river_notification"), local("river_queue"),
}

// ErrNoCitus is returned by Distribute for a database without Citus.
var ErrNoCitus = errors.New("no Citus here")

// Change is one thing Distribute did.
type Change struct {
	Table, What string
}

func (c Change) String() string { return c.Table + ": " + c.What }

// Distribute makes every table of Tables its kind, in one transaction, and
// returns what it changed: nothing on a database already distributed. It
// refuses (ErrNoCitus, with the reason) a database whose server has no
// Citus, whose coordinator is not in Citus's metadata, or that has no
// worker to hold shards.
//
// The order is what Citus needs (docs/scaling.md, "What the real cluster
// refused"): the foreign keys from distributed tables to reference tables
// are dropped first, else create_reference_table('orgs') would turn every
// table in its foreign-key graph into a Citus local table, which
// create_distributed_table cannot take while another Citus local table
// references it; then the reference tables; then the distributed ones,
// each after the tables it references, co-located with the first; then
// the dropped keys again, now from a distributed table to a reference one.
func Distribute(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) ([]Change, error) {
	if err := ready(ctx, pool); err != nil {
		return nil, err
	}
	tx, err := database.Begin(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("citus: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// One connection per node for the whole transaction: the DDL of a
	// distributed table and the foreign keys added after it would
	// otherwise conflict with the parallel connections of the first.
	// Our trigger functions (version stamps, next-fire hints) touch only
	// the org's own rows, on co-located shards: docs/scaling.md. They must
	// not fire while Citus copies the rows into the shards (a hint trigger
	// would read a table not distributed yet): the copy runs with
	// session_replication_role = replica, on the workers too.
	for _, s := range []string{
		`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`,
		`SET LOCAL citus.enable_unsafe_triggers = on`,
		`SET LOCAL citus.propagate_set_commands = 'local'`,
		`SET LOCAL session_replication_role = replica`,
	} {
		if _, err := tx.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("citus: %s: %w", s, err)
		}
	}
	have, err := current(ctx, tx)
	if err != nil {
		return nil, err
	}
	var changes []Change
	var todo []Table
	for _, t := range Tables {
		if t.Kind == Local {
			continue
		}
		h, ok := have[t.Name]
		switch {
		case !ok || h.Kind == Local:
			todo = append(todo, t)
		case h != t:
			return nil, fmt.Errorf("citus: %s is %s, docs/scaling.md lists it %s: undistribute it first (undistribute_table)", t.Name, describe(h), describe(t))
		}
	}
	for _, t := range Tables {
		if h, ok := have[t.Name]; t.Kind == Local && ok && h.Kind != Local {
			return nil, fmt.Errorf("citus: %s is %s, docs/scaling.md lists it coordinator-local", t.Name, describe(h))
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}

	kept, err := dropKeysToReference(ctx, tx, todo)
	if err != nil {
		return nil, err
	}
	order, err := referencedFirst(ctx, tx, todo)
	if err != nil {
		return nil, err
	}
	colocate := ""
	for _, t := range Tables {
		if h, ok := have[t.Name]; ok && t.Kind == Distributed && h.Kind == Distributed {
			colocate = t.Name
			break
		}
	}
	for _, t := range order {
		switch t.Kind {
		case Reference:
			if _, err := tx.Exec(ctx, `SELECT create_reference_table($1)`, t.Name); err != nil {
				return nil, fmt.Errorf("citus: create_reference_table(%s): %w", t.Name, err)
			}
			changes = append(changes, Change{t.Name, "reference table"})
		case Distributed:
			with := colocate
			if with == "" {
				with = "none"
			}
			if _, err := tx.Exec(ctx, `SELECT create_distributed_table($1, $2, colocate_with => $3)`, t.Name, t.Column, with); err != nil {
				return nil, fmt.Errorf("citus: create_distributed_table(%s, %s, colocate_with => %s): %w", t.Name, t.Column, with, err)
			}
			if colocate == "" {
				colocate = t.Name
			}
			changes = append(changes, Change{t.Name, "distributed by " + t.Column + ", co-located with " + colocate})
		}
		log.Info("citus table made", "table", t.Name, "kind", t.Kind)
	}
	for _, k := range kept {
		if _, err := tx.Exec(ctx, k.add); err != nil {
			return nil, fmt.Errorf("citus: add back %s on %s: %w", k.name, k.table, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("citus: commit: %w", err)
	}
	return changes, nil
}

func describe(t Table) string {
	if t.Kind == Distributed {
		return "distributed by " + t.Column
	}
	return string(t.Kind)
}

// ready says why a database cannot be distributed, if it cannot.
func ready(ctx context.Context, pool *pgxpool.Pool) error {
	var version *string
	if err := pool.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'citus'`).Scan(&version); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("citus: look for the extension: %w", err)
	}
	if version == nil {
		var available bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'citus')`).Scan(&available); err != nil {
			return fmt.Errorf("citus: look for the extension: %w", err)
		}
		if !available {
			return fmt.Errorf("%w: the server has no citus extension (install Citus, docs/scaling.md, \"Installing Citus\")", ErrNoCitus)
		}
		return fmt.Errorf("%w: the citus extension is not created in this database (CREATE EXTENSION citus, on the coordinator and every worker)", ErrNoCitus)
	}
	var coordinator bool
	var workers int
	if err := pool.QueryRow(ctx, `
		SELECT EXISTS (SELECT FROM pg_dist_node WHERE groupid = 0),
		       (SELECT count(*) FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive AND shouldhaveshards)`).
		Scan(&coordinator, &workers); err != nil {
		return fmt.Errorf("citus: read the nodes: %w", err)
	}
	if !coordinator {
		return fmt.Errorf("%w: the coordinator is not in Citus's metadata (SELECT citus_set_coordinator_host(host, port)): coordinator-local tables reference reference tables", ErrNoCitus)
	}
	if workers == 0 {
		return fmt.Errorf("%w: no worker node to hold shards (SELECT citus_add_node(host, port))", ErrNoCitus)
	}
	return nil
}

// current reads what Citus's metadata says each table is.
func current(ctx context.Context, tx pgx.Tx) (map[string]Table, error) {
	rows, err := tx.Query(ctx, `
		SELECT table_name::text, citus_table_type, coalesce(distribution_column, '')
		  FROM citus_tables`)
	if err != nil {
		return nil, fmt.Errorf("citus: read citus_tables: %w", err)
	}
	have := map[string]Table{}
	for rows.Next() {
		var name, typ, col string
		if err := rows.Scan(&name, &typ, &col); err != nil {
			return nil, fmt.Errorf("citus: read citus_tables: %w", err)
		}
		t := Table{Name: name, Kind: Local}
		switch typ {
		case "distributed":
			t.Kind, t.Column = Distributed, col
		case "reference":
			t.Kind = Reference
		}
		have[name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("citus: read citus_tables: %w", err)
	}
	return have, nil
}

// foreignKey is a foreign key Distribute drops and adds back.
type foreignKey struct{ table, name, add string }

// dropKeysToReference drops the foreign keys from the tables to be
// distributed to the tables to be made reference tables, and returns them.
func dropKeysToReference(ctx context.Context, tx pgx.Tx, todo []Table) ([]foreignKey, error) {
	var from, to []string
	for _, t := range todo {
		switch t.Kind {
		case Distributed:
			from = append(from, t.Name)
		case Reference:
			to = append(to, t.Name)
		}
	}
	rows, err := tx.Query(ctx, `
		SELECT con.conrelid::regclass::text, con.conname, pg_get_constraintdef(con.oid)
		  FROM pg_constraint con
		 WHERE con.contype = 'f' AND con.conparentid = 0
		   AND con.conrelid::regclass::text = ANY ($1) AND con.confrelid::regclass::text = ANY ($2)
		 ORDER BY 1, 2`, from, to)
	if err != nil {
		return nil, fmt.Errorf("citus: read foreign keys: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (foreignKey, error) {
		var k foreignKey
		var def string
		err := r.Scan(&k.table, &k.name, &def)
		k.add = fmt.Sprintf(`ALTER TABLE %s ADD CONSTRAINT %s %s`, pgx.Identifier{k.table}.Sanitize(), pgx.Identifier{k.name}.Sanitize(), def)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("citus: read foreign keys: %w", err)
	}
	for _, k := range keys {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT %s`, pgx.Identifier{k.table}.Sanitize(), pgx.Identifier{k.name}.Sanitize())); err != nil {
			return nil, fmt.Errorf("citus: drop %s on %s for a while: %w", k.name, k.table, err)
		}
	}
	return keys, nil
}

// referencedFirst orders the tables: reference tables first, then each
// distributed table after the distributed tables its foreign keys
// reference (create_distributed_table refuses a key to a plain table).
func referencedFirst(ctx context.Context, tx pgx.Tx, todo []Table) ([]Table, error) {
	rows, err := tx.Query(ctx, `
		SELECT DISTINCT con.conrelid::regclass::text, con.confrelid::regclass::text
		  FROM pg_constraint con
		 WHERE con.contype = 'f' AND con.conparentid = 0 AND con.conrelid <> con.confrelid`)
	if err != nil {
		return nil, fmt.Errorf("citus: read foreign keys: %w", err)
	}
	refs := map[string][]string{}
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return nil, fmt.Errorf("citus: read foreign keys: %w", err)
		}
		refs[from] = append(refs[from], to)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("citus: read foreign keys: %w", err)
	}
	var out []Table
	done := map[string]bool{}
	pending := map[string]Table{}
	for _, t := range todo {
		pending[t.Name] = t
	}
	var visit func(t Table, path []string) error
	visit = func(t Table, path []string) error {
		if done[t.Name] {
			return nil
		}
		if slices.Contains(path, t.Name) {
			return fmt.Errorf("citus: foreign keys in a cycle: %s", strings.Join(append(path, t.Name), " → "))
		}
		for _, r := range refs[t.Name] {
			if p, ok := pending[r]; ok {
				if err := visit(p, append(path, t.Name)); err != nil {
					return err
				}
			}
		}
		done[t.Name] = true
		out = append(out, t)
		return nil
	}
	for _, k := range []Kind{Reference, Distributed} {
		for _, t := range todo {
			if t.Kind == k {
				if err := visit(t, nil); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}
