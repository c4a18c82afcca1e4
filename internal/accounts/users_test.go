package accounts_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/tenants"
)

func TestAuthenticateAndMembershipAreScopedToTheUser(t *testing.T) {
	b := setup(t)
	u, err := b.Store.Accounts.UpsertUser(b.Ctx, "Ada@Example.com", "s3cret-pass", false)
	require.NoError(t, err)
	require.NoError(t, b.Store.Tenants.AddMember(b.Ctx, b.Acme.ID, u.ID, tenants.RoleAdmin))

	got, err := b.Store.Accounts.Authenticate(b.Ctx, "ada@example.COM", "s3cret-pass")
	require.NoError(t, err)
	require.Equal(t, u.ID, got.ID)
	_, err = b.Store.Accounts.Authenticate(b.Ctx, "ada@example.com", "wrong")
	require.Equal(t, apperr.Unauthorized, apperr.Code(err))
	_, err = b.Store.Accounts.Authenticate(b.Ctx, "nobody@example.com", "s3cret-pass")
	require.Equal(t, apperr.Unauthorized, apperr.Code(err))

	m, err := b.Store.Tenants.MembershipBySlug(b.Ctx, u.ID, "acme")
	require.NoError(t, err)
	require.True(t, m.IsAdmin())
	// Another tenant's slug looks exactly like a missing org.
	_, errOther := b.Store.Tenants.MembershipBySlug(b.Ctx, u.ID, "globex")
	_, errMissing := b.Store.Tenants.MembershipBySlug(b.Ctx, u.ID, "nope")
	require.Equal(t, apperr.NotFound, apperr.Code(errOther))
	require.Equal(t, apperr.Code(errMissing), apperr.Code(errOther))
	require.Equal(t, apperr.Message(errMissing), strings.Replace(apperr.Message(errOther), "globex", "nope", 1))

	// Upsert keeps one account per email, updates the password, never drops staff.
	again, err := b.Store.Accounts.UpsertUser(b.Ctx, "ada@example.com", "new-password", true)
	require.NoError(t, err)
	require.Equal(t, u.ID, again.ID)
	require.True(t, again.IsStaff)
	again, err = b.Store.Accounts.UpsertUser(b.Ctx, "ada@example.com", "new-password", false)
	require.NoError(t, err)
	require.True(t, again.IsStaff)
	_, err = b.Store.Accounts.Authenticate(b.Ctx, "ada@example.com", "new-password")
	require.NoError(t, err)
}
