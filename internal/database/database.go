// Package database opens the PostgreSQL pool and applies the embedded goose
// migrations and River's. Both binaries call Open at start.
package database

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"fieldbrief/internal/history"
	"fieldbrief/internal/pglock"
	"fieldbrief/migrations"
)

// DefaultURL is used when DATABASE_URL is unset: the local server the
// Makefile starts or finds.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/fieldbrief?sslmode=disable"

// Option adjusts the pool's configuration, parsed from the URL, before the
// pool opens.
type Option func(*pgxpool.Config)

// MaxConnsAtLeast sizes the pool for a process that needs n connections at
// once (pgxpool's default is the larger of 4 and the CPU count). A
// pool_max_conns in the URL wins: the operator knows the server's limit.
func MaxConnsAtLeast(n int) Option {
	return func(c *pgxpool.Config) {
		if !setsMaxConns(c.ConnString()) {
			c.MaxConns = max(c.MaxConns, int32(min(n, math.MaxInt32)))
		}
	}
}

// NoJIT turns PostgreSQL's JIT compilation off for the pool's sessions,
// unless the URL sets jit itself. Our queries are short, and JIT starts
// when the planner's cost estimate passes jit_above_cost, which a subplan
// per row inflates: the tick's hinted scan at a million orgs was estimated
// at 166,000 and spent 19–26 ms compiling for 2–5 ms of work, every
// minute (docs/scheduling.md, "The next-fire hint"). The worker sets it;
// the web does not, because it is a startup parameter and PgBouncer, which
// docs/scaling.md puts in front of the web, refuses unknown ones.
func NoJIT() Option {
	return func(c *pgxpool.Config) {
		if _, set := c.ConnConfig.RuntimeParams["jit"]; !set {
			c.ConnConfig.RuntimeParams["jit"] = "off"
		}
	}
}

// ConnectLazy opens a pool without waiting for the server: its first use
// connects. For a read replica, which may be down when the web starts.
func ConnectLazy(url string, opts ...Option) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	for _, o := range opts {
		o(config)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), config)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	return pool, nil
}

// BehindPooler makes the pool work through PgBouncer in transaction mode,
// where consecutive transactions of one client may run on different
// server connections: unless the URL sets default_query_exec_mode, it is
// cache_describe, which uses only the unnamed prepared statement (pgx's
// default names its statements per connection, and PgBouncer before 1.21,
// Debian 12 ships 1.18, fails them: "prepared statement … already
// exists"). The cost, not measured yet: a statement is parsed and
// planned on every execution instead of once per connection.
func BehindPooler() Option {
	return func(c *pgxpool.Config) {
		if _, set := c.ConnConfig.Config.RuntimeParams["default_query_exec_mode"]; set || urlSets(c.ConnString(), "default_query_exec_mode") {
			return
		}
		c.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
}

// urlSets reports whether the URL names the parameter (pgx consumes its
// own parameters, so the parsed config cannot tell).
func urlSets(url, param string) bool {
	return strings.Contains(url, param+"=")
}

// setsMaxConns reports whether url sets pool_max_conns; pgxpool.ParseConfig
// consumes the parameter, so the URL is parsed again to tell.
func setsMaxConns(url string) bool {
	c, err := pgconn.ParseConfig(url)
	if err != nil {
		return false
	}
	_, ok := c.RuntimeParams["pool_max_conns"]
	return ok
}

// Open connects to url (DefaultURL when it is "") and applies pending
// migrations: what both binaries do at start. The caller closes the pool.
func Open(ctx context.Context, url string, log *slog.Logger, opts ...Option) (*pgxpool.Pool, error) {
	pool, err := Connect(ctx, cmp.Or(url, DefaultURL), opts...)
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, pool, log); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// Connect opens a pool and checks that the server answers.
func Connect(ctx context.Context, url string, opts ...Option) (*pgxpool.Pool, error) {
	config, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	for _, o := range opts {
		o(config)
	}
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return pool, nil
}

// Migrate applies pending migrations: ours with goose, then River's with
// rivermigrate. River's schema is migrated by its own tool at run time
// rather than copied into migrations/ as goose files: its SQL stays River's
// (one upgrade of the module brings its migrations along) and nothing from
// outside is copied into the project.
//
// Both run under one session advisory lock of ours, taken on a dedicated
// connection, so several replicas starting together migrate one at a time
// and none starts before both schemas are current. goose keeps its own
// session locker inside ours (a second lock, never contended).
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection for the migration lock: %w", err)
	}
	defer conn.Release()
	lock := pglock.SessionLockOf(pglock.LockMigrate)
	if err := lock.Lock(ctx, conn); err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	defer func() {
		// A connection that can't unlock is closed: the lock goes with its session.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := lock.Unlock(ctx, conn); err != nil {
			log.Warn("release the migration lock", "error", err)
			_ = conn.Conn().Close(ctx)
		}
	}()
	if err := MigrateGoose(ctx, pool, log, migrations.FS); err != nil {
		return err
	}
	if err := migrateRiver(ctx, pool, log); err != nil {
		return err
	}
	// The history tables' months ahead (docs/operations.md, "History
	// retention"): a database migrated today has this month's and the next
	// three's partitions, whatever day 00032 ran. A failure (its lock
	// timeout on a busy table) does not stop the process: 00032 made three
	// months ahead, and the worker's daily task makes them too.
	created, err := history.EnsurePartitions(ctx, pool, time.Now())
	if err != nil {
		log.Warn("history partitions not made at start; the worker's daily task retries", "error", err)
		return nil
	}
	if len(created) > 0 {
		log.Info("history partitions created", "partitions", created)
	}
	return nil
}

// MigrateGoose applies the goose migrations of fsys that the database has
// not applied yet: ours (migrations.FS) at every start, under Migrate's lock.
func MigrateGoose(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, fsys fs.FS) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migration locker: %w", err)
	}
	db, err := migrationDB(ctx, pool)
	if err != nil {
		return err
	}
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, fsys, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migration provider: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range results {
		log.Info("migration applied", "version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
	}
	return nil
}

// migrationDB is the database/sql handle goose migrates through. On a
// Citus coordinator its connections run multi-shard DDL over one
// connection per worker (citus.multi_shard_modify_mode = sequential): a
// migration is one transaction, and Citus refuses a function or a second
// DDL after a parallel one in the same transaction (docs/scaling.md,
// "What the real cluster refused"). They may create triggers on
// distributed tables (citus.enable_unsafe_triggers), as ours do: each of
// our trigger functions touches only its org's rows, on co-located shards.
func migrationDB(ctx context.Context, pool *pgxpool.Pool) (*sql.DB, error) {
	var onCitus bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')`).Scan(&onCitus); err != nil {
		return nil, fmt.Errorf("look for citus: %w", err)
	}
	if !onCitus {
		return stdlib.OpenDBFromPool(pool), nil
	}
	cfg := pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["citus.multi_shard_modify_mode"] = "sequential"
	cfg.RuntimeParams["citus.enable_unsafe_triggers"] = "on"
	return stdlib.OpenDB(*cfg), nil
}

func migrateRiver(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: log})
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return fmt.Errorf("apply river migrations: %w", err)
	}
	for _, v := range res.Versions {
		log.Info("river migration applied", "version", v.Version, "name", v.Name, "duration", v.Duration)
	}
	return nil
}

// RiverMigrations lists River's migrations as this build applies them, so
// the test template's hash changes when an upgrade of River brings new ones.
func RiverMigrations() ([]rivermigrate.Migration, error) {
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return nil, fmt.Errorf("river migrator: %w", err)
	}
	return migrator.AllVersions(), nil
}

// Querier is what store helpers take, so they run on a pool or inside a
// transaction alike (pgxpool.Pool, pgx.Conn and pgx.Tx all satisfy it).
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
