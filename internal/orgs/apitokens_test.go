package orgs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/orgs"
)

var tokenNow = time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)

func TestAPITokenIsShownOnceStoredHashedAndAudited(t *testing.T) {
	b := setup(t)
	admin := orgs.Actor{Email: "admin@acme.test"}
	rec, token, err := b.store.CreateAPIToken(b.ctx, admin, b.acme.ID, "  Dispatch sync ", tokenNow)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(token, orgs.APITokenPrefix), token)
	require.Len(t, token, 55)
	require.Equal(t, "Dispatch sync", rec.Name)
	require.Equal(t, token[:11], rec.Hint)

	// The database holds neither the token nor anything but its digest and hint.
	var n int
	require.NoError(t, b.store.DB.QueryRow(b.ctx,
		`SELECT count(*) FROM api_tokens t WHERE position($1 in t::text) > 0 OR position($1 in encode(token_hash, 'escape')) > 0`,
		token[11:]).Scan(&n))
	require.Zero(t, n)
	var action, actorEmail, newValue string
	require.NoError(t, b.store.DB.QueryRow(b.ctx,
		`SELECT action, actor_email, new_value::text FROM audit_log WHERE org_id = $1`, b.acme.ID).Scan(&action, &actorEmail, &newValue))
	require.Equal(t, "api_token.create", action)
	require.Equal(t, "admin@acme.test", actorEmail)
	require.NotContains(t, newValue, token[11:])

	got, err := b.store.AuthenticateAPIToken(b.ctx, token, tokenNow)
	require.NoError(t, err)
	require.Equal(t, rec.ID, got.ID)
	require.Equal(t, b.acme.ID, got.OrgID)
	require.Equal(t, "Dispatch sync", got.Name)
}

func TestAPITokenRejectsBadNamesAndDuplicatesAmongLiveTokens(t *testing.T) {
	b := setup(t)
	// The name is the audit log's actor of the token's writes: it must not
	// pass for a person's email or for operators' "system".
	for _, name := range []string{"", "   ", strings.Repeat("x", 101), "a\nb", "a\x1bb", "boss@acme.example", "System"} {
		_, _, err := b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, name, tokenNow)
		require.Equal(t, apperr.Invalid, apperr.Code(err), "%q", name)
	}
	first, _, err := b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "sync", tokenNow)
	require.NoError(t, err)
	_, _, err = b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "sync", tokenNow)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	// Another org may use the name; so may this org once the first is revoked.
	_, _, err = b.store.CreateAPIToken(b.ctx, orgs.System, b.other.ID, "sync", tokenNow)
	require.NoError(t, err)
	_, err = b.store.RevokeAPIToken(b.ctx, orgs.System, b.acme.ID, first.ID, tokenNow)
	require.NoError(t, err)
	_, _, err = b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "sync", tokenNow)
	require.NoError(t, err)
}

func TestAPITokenCapPerOrg(t *testing.T) {
	b := setup(t)
	for i := range orgs.MaxAPITokens {
		_, _, err := b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "t"+strings.Repeat("x", i), tokenNow)
		require.NoError(t, err)
	}
	_, _, err := b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "one too many", tokenNow)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	list, err := b.store.APITokens(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.Len(t, list, orgs.MaxAPITokens)
}

func TestRevokedOrForeignOrMalformedTokensDoNotAuthenticate(t *testing.T) {
	b := setup(t)
	rec, token, err := b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "sync", tokenNow)
	require.NoError(t, err)

	// Another org cannot revoke it: not found, and it still works.
	_, err = b.store.RevokeAPIToken(b.ctx, orgs.System, b.other.ID, rec.ID, tokenNow)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.AuthenticateAPIToken(b.ctx, token, tokenNow)
	require.NoError(t, err)

	revoked, err := b.store.RevokeAPIToken(b.ctx, orgs.Actor{Email: "admin@acme.test"}, b.acme.ID, rec.ID, tokenNow)
	require.NoError(t, err)
	require.True(t, revoked.Revoked())
	_, err = b.store.AuthenticateAPIToken(b.ctx, token, tokenNow)
	require.Equal(t, apperr.Unauthorized, apperr.Code(err))
	again, err := b.store.RevokeAPIToken(b.ctx, orgs.System, b.acme.ID, rec.ID, tokenNow.Add(time.Hour))
	require.NoError(t, err, "revoking twice changes nothing")
	require.True(t, revoked.RevokedAt.Equal(again.RevokedAt), "still revoked at %v", revoked.RevokedAt)
	var actions []string
	rows, err := b.store.DB.Query(b.ctx, `SELECT action FROM audit_log WHERE org_id = $1 ORDER BY id`, b.acme.ID)
	require.NoError(t, err)
	for rows.Next() {
		var a string
		require.NoError(t, rows.Scan(&a))
		actions = append(actions, a)
	}
	require.Equal(t, []string{"api_token.create", "api_token.revoke"}, actions)

	for _, bad := range []string{"", "fb_", token[:len(token)-1], "xx" + token[2:], strings.ToLower(token), token + "A"} {
		_, err := b.store.AuthenticateAPIToken(b.ctx, bad, tokenNow)
		require.Equal(t, apperr.Unauthorized, apperr.Code(err), "%q", bad)
	}
}

func TestAPITokenLastUsedIsWrittenAtMostOncePerInterval(t *testing.T) {
	b := setup(t)
	rec, token, err := b.store.CreateAPIToken(b.ctx, orgs.System, b.acme.ID, "sync", tokenNow)
	require.NoError(t, err)
	lastUsed := func() time.Time {
		var at *time.Time
		require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, rec.ID).Scan(&at))
		if at == nil {
			return time.Time{}
		}
		return at.UTC()
	}
	require.True(t, lastUsed().IsZero(), "never used")

	_, err = b.store.AuthenticateAPIToken(b.ctx, token, tokenNow)
	require.NoError(t, err)
	require.Equal(t, tokenNow, lastUsed())
	// Within the interval nothing is written: the row keeps the first use.
	for _, d := range []time.Duration{time.Second, 30 * time.Second, orgs.APITokenTouchEvery - time.Second} {
		_, err = b.store.AuthenticateAPIToken(b.ctx, token, tokenNow.Add(d))
		require.NoError(t, err)
		require.Equal(t, tokenNow, lastUsed(), "after %v", d)
	}
	later := tokenNow.Add(orgs.APITokenTouchEvery)
	_, err = b.store.AuthenticateAPIToken(b.ctx, token, later)
	require.NoError(t, err)
	require.Equal(t, later, lastUsed())

	list, err := b.store.APITokens(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, later, list[0].LastUsedAt.UTC())
	require.Equal(t, "system", list[0].CreatedBy)
}
