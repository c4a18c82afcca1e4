// Package database opens the PostgreSQL pool and applies the embedded goose
// migrations. Both binaries call Open at start.
package database

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

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

// Migrate applies pending migrations. goose's Postgres session locker (an
// advisory lock) makes it safe for several replicas starting at once.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migration locker: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
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

// Querier is what store helpers take, so they run on a pool or inside a
// transaction alike (pgxpool.Pool, pgx.Conn and pgx.Tx all satisfy it).
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
