package tokens_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/tokens"
)

var tokenNow = time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)

func TestAPITokenIsShownOnceStoredHashedAndAudited(t *testing.T) {
	b := setup(t)
	admin := audit.Actor{Email: "admin@acme.test"}
	rec, token, err := b.Store.Tokens.Create(b.Ctx, admin, b.Acme.ID, "  Dispatch sync ", tokens.ScopeWrite, tokenNow)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(token, tokens.Prefix), token)
	require.Len(t, token, 55)
	require.Equal(t, "Dispatch sync", rec.Name)
	require.Equal(t, token[:11], rec.Hint)

	// The database holds neither the token nor anything but its digest and hint.
	var n int
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx,
		`SELECT count(*) FROM api_tokens t WHERE position($1 in t::text) > 0 OR position($1 in encode(token_hash, 'escape')) > 0`,
		token[11:]).Scan(&n))
	require.Zero(t, n)
	var action, actorEmail, newValue string
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx,
		`SELECT action, actor_email, new_value::text FROM audit_log WHERE org_id = $1`, b.Acme.ID).Scan(&action, &actorEmail, &newValue))
	require.Equal(t, "api_token.create", action)
	require.Equal(t, "admin@acme.test", actorEmail)
	require.NotContains(t, newValue, token[11:])

	got, err := b.Store.Tokens.Authenticate(b.Ctx, token, tokenNow)
	require.NoError(t, err)
	require.Equal(t, rec.ID, got.ID)
	require.Equal(t, b.Acme.ID, got.OrgID)
	require.Equal(t, "Dispatch sync", got.Name)
}

func TestAPITokenRejectsBadNamesAndDuplicatesAmongLiveTokens(t *testing.T) {
	b := setup(t)
	// The name is the audit log's actor of the token's writes: it must not
	// pass for a person's email or for operators' "system".
	for _, name := range []string{"", "   ", strings.Repeat("x", 101), "a\nb", "a\x1bb", "boss@acme.example", "System"} {
		_, _, err := b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, name, tokens.ScopeWrite, tokenNow)
		require.Equal(t, apperr.Invalid, apperr.Code(err), "%q", name)
	}
	first, _, err := b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "sync", tokens.ScopeWrite, tokenNow)
	require.NoError(t, err)
	_, _, err = b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "sync", tokens.ScopeWrite, tokenNow)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	// Another org may use the name; so may this org once the first is revoked.
	_, _, err = b.Store.Tokens.Create(b.Ctx, audit.System, b.Other.ID, "sync", tokens.ScopeWrite, tokenNow)
	require.NoError(t, err)
	_, err = b.Store.Tokens.Revoke(b.Ctx, audit.System, b.Acme.ID, first.ID, tokenNow)
	require.NoError(t, err)
	_, _, err = b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "sync", tokens.ScopeWrite, tokenNow)
	require.NoError(t, err)
}

func TestAPITokenCapPerOrg(t *testing.T) {
	b := setup(t)
	for i := range tokens.MaxLive {
		_, _, err := b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "t"+strings.Repeat("x", i), tokens.ScopeWrite, tokenNow)
		require.NoError(t, err)
	}
	_, _, err := b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "one too many", tokens.ScopeWrite, tokenNow)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	list, err := b.Store.Tokens.List(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Len(t, list, tokens.MaxLive)
}

func TestRevokedOrForeignOrMalformedTokensDoNotAuthenticate(t *testing.T) {
	b := setup(t)
	rec, token, err := b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "sync", tokens.ScopeWrite, tokenNow)
	require.NoError(t, err)

	// Another org cannot revoke it: not found, and it still works.
	_, err = b.Store.Tokens.Revoke(b.Ctx, audit.System, b.Other.ID, rec.ID, tokenNow)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.Store.Tokens.Authenticate(b.Ctx, token, tokenNow)
	require.NoError(t, err)

	revoked, err := b.Store.Tokens.Revoke(b.Ctx, audit.Actor{Email: "admin@acme.test"}, b.Acme.ID, rec.ID, tokenNow)
	require.NoError(t, err)
	require.True(t, revoked.Revoked())
	_, err = b.Store.Tokens.Authenticate(b.Ctx, token, tokenNow)
	require.Equal(t, apperr.Unauthorized, apperr.Code(err))
	again, err := b.Store.Tokens.Revoke(b.Ctx, audit.System, b.Acme.ID, rec.ID, tokenNow.Add(time.Hour))
	require.NoError(t, err, "revoking twice changes nothing")
	require.True(t, revoked.RevokedAt.Equal(again.RevokedAt), "still revoked at %v", revoked.RevokedAt)
	var actions []string
	rows, err := b.Store.DB.Query(b.Ctx, `SELECT action FROM audit_log WHERE org_id = $1 ORDER BY id`, b.Acme.ID)
	require.NoError(t, err)
	for rows.Next() {
		var a string
		require.NoError(t, rows.Scan(&a))
		actions = append(actions, a)
	}
	require.Equal(t, []string{"api_token.create", "api_token.revoke"}, actions)

	for _, bad := range []string{"", "fb_", token[:len(token)-1], "xx" + token[2:], strings.ToLower(token), token + "A"} {
		_, err := b.Store.Tokens.Authenticate(b.Ctx, bad, tokenNow)
		require.Equal(t, apperr.Unauthorized, apperr.Code(err), "%q", bad)
	}
}

func TestAPITokenLastUsedIsWrittenAtMostOncePerInterval(t *testing.T) {
	b := setup(t)
	rec, token, err := b.Store.Tokens.Create(b.Ctx, audit.System, b.Acme.ID, "sync", tokens.ScopeWrite, tokenNow)
	require.NoError(t, err)
	lastUsed := func() time.Time {
		var at *time.Time
		require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, rec.ID).Scan(&at))
		if at == nil {
			return time.Time{}
		}
		return at.UTC()
	}
	require.True(t, lastUsed().IsZero(), "never used")

	_, err = b.Store.Tokens.Authenticate(b.Ctx, token, tokenNow)
	require.NoError(t, err)
	require.Equal(t, tokenNow, lastUsed())
	// Within the interval nothing is written: the row keeps the first use.
	for _, d := range []time.Duration{time.Second, 30 * time.Second, tokens.TouchEvery - time.Second} {
		_, err = b.Store.Tokens.Authenticate(b.Ctx, token, tokenNow.Add(d))
		require.NoError(t, err)
		require.Equal(t, tokenNow, lastUsed(), "after %v", d)
	}
	later := tokenNow.Add(tokens.TouchEvery)
	_, err = b.Store.Tokens.Authenticate(b.Ctx, token, later)
	require.NoError(t, err)
	require.Equal(t, later, lastUsed())

	list, err := b.Store.Tokens.List(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, later, list[0].LastUsedAt.UTC())
	require.Equal(t, "system", list[0].CreatedBy)
}
