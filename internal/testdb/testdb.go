// Package testdb gives each test its own freshly migrated PostgreSQL database
// (pgtestdb clones a template built once from our goose migrations).
//
// The server comes from DATABASE_URL (only host, port and credentials are
// used) or defaults to 127.0.0.1:5432; `make test` starts a throwaway cluster
// and sets DATABASE_URL when no server answers.
package testdb

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver pgtestdb uses
	"github.com/peterldowns/pgtestdb"
	"github.com/peterldowns/pgtestdb/migrators/goosemigrator"

	"fieldbrief/migrations"
)

var migrator = goosemigrator.New(".", goosemigrator.WithFS(migrations.FS))

// URL creates an isolated, migrated database for this test and returns its
// connection string. It is dropped when the test passes.
func URL(t testing.TB) string {
	t.Helper()
	return pgtestdb.Custom(t, serverConfig(t), migrator).URL()
}

// New creates an isolated, migrated database for this test and returns a pool
// on it, closed at cleanup.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), URL(t))
	if err != nil {
		t.Fatalf("testdb: open pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func serverConfig(t testing.TB) pgtestdb.Config {
	raw := os.Getenv("DATABASE_URL")
	if raw == "" {
		raw = "postgres://postgres@127.0.0.1:5432/postgres"
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("testdb: DATABASE_URL: %v", err)
	}
	password, _ := u.User.Password()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return pgtestdb.Config{
		DriverName:                "pgx",
		Host:                      u.Hostname(),
		Port:                      port,
		User:                      u.User.Username(),
		Password:                  password,
		Database:                  "postgres",
		Options:                   "sslmode=disable",
		ForceTerminateConnections: true,
	}
}
