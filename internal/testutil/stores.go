package testutil

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/tokens"
	"fieldbrief/internal/unsubscribe"
)

// CheapHashing is an argon2id cost for tests: microseconds instead of the
// production cost's ~190 ms per password. Hashes made with it verify like
// any other, as each hash records its own cost.
func CheapHashing() accounts.Argon2 {
	return accounts.Argon2{Time: 1, MemoryKiB: 64, Threads: 1}
}

// Stores is every tenant-side store over one test database, accounts
// hashing at CheapHashing.
type Stores struct {
	DB          *pgxpool.Pool
	Tenants     *tenants.Store
	Accounts    *accounts.Store
	Tokens      *tokens.Store
	Audit       *audit.Store
	Flags       *flags.Store
	Unsubscribe *unsubscribe.Store
}

// NewStores returns the stores over db.
func NewStores(db *pgxpool.Pool) *Stores {
	return &Stores{
		DB:          db,
		Tenants:     &tenants.Store{DB: db},
		Accounts:    &accounts.Store{DB: db, Hashing: CheapHashing()},
		Tokens:      &tokens.Store{DB: db},
		Audit:       &audit.Store{DB: db},
		Flags:       &flags.Store{DB: db},
		Unsubscribe: &unsubscribe.Store{DB: db},
	}
}

// Orgs is where most store tests start: the stores over a fresh database
// holding two orgs, acme ("Acme Plumbing") and globex ("Globex").
type Orgs struct {
	Ctx   context.Context
	Store *Stores
	Acme  tenants.Org
	Other tenants.Org
}

// NewOrgs sets up Orgs for a parallel test.
func NewOrgs(t *testing.T) Orgs {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	store := NewStores(testdb.New(t))
	acme, err := store.Tenants.CreateOrg(ctx, "acme", "Acme Plumbing", time.Time{})
	require.NoError(t, err)
	other, err := store.Tenants.CreateOrg(ctx, "globex", "Globex", time.Time{})
	require.NoError(t, err)
	return Orgs{Ctx: ctx, Store: store, Acme: acme, Other: other}
}

// AuditCount is how many audit entries there are, every org's.
func (o Orgs) AuditCount(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, o.Store.DB.QueryRow(o.Ctx, `SELECT count(*) FROM audit_log`).Scan(&n))
	return n
}

// Suppressed reads the org's unsubscribed addresses the way the generation
// does (unsubscribe.QueueSuppressed), in a batch of its own.
func Suppressed(ctx context.Context, db *pgxpool.Pool, orgID int64) (map[string]bool, error) {
	b := &pgx.Batch{}
	out := unsubscribe.QueueSuppressed(b, orgID)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return out, nil
}
