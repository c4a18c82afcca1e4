package accounts_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/testutil"
)

// The hashing cost is the store's, zero meaning production's; a hash
// records its own cost, so a password hashed at either cost verifies
// through a store set to the other.
func TestHashingCostIsTheStoresAndEveryHashVerifies(t *testing.T) {
	b := setup(t)
	production := &accounts.Store{DB: b.Store.DB}
	cheap := b.Store.Accounts

	_, err := production.UpsertUser(b.Ctx, "prod@acme.test", "pw-prod", false)
	require.NoError(t, err)
	_, err = cheap.UpsertUser(b.Ctx, "cheap@acme.test", "pw-cheap", false)
	require.NoError(t, err)

	hash := func(email string) string {
		var h string
		require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `SELECT password_hash FROM users WHERE email = $1`, email).Scan(&h))
		return h
	}
	require.True(t, strings.HasPrefix(hash("prod@acme.test"), "$argon2id$v=19$m=19456,t=2,p=1$"), hash("prod@acme.test"))
	c := testutil.CheapHashing()
	require.Contains(t, hash("cheap@acme.test"), fmt.Sprintf("$m=%d,t=%d,p=%d$", c.MemoryKiB, c.Time, c.Threads))

	for _, s := range []*accounts.Store{production, cheap} {
		_, err := s.Authenticate(b.Ctx, "prod@acme.test", "pw-prod")
		require.NoError(t, err)
		_, err = s.Authenticate(b.Ctx, "cheap@acme.test", "pw-cheap")
		require.NoError(t, err)
		_, err = s.Authenticate(b.Ctx, "cheap@acme.test", "pw-prod")
		require.Error(t, err)
	}
}
