package accounts_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// The account emails in each language (docs/i18n.md), the link's end in
// the reader's formats, in UTC when the email has no zone of its reader.
func TestComposeInEachLanguage(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 11, 28, 15, 4, 0, 0, time.UTC)
	for _, c := range []struct {
		lang, locale, subject, line, expires string
	}{
		{"", "en-US", "You're invited to Acme on fieldbrief", "Boss invited you to join Acme on fieldbrief as an admin.",
			"until Sat, Nov 28, 2026 at 3:04\u202fPM UTC."},
		{"", "de-DE", "Einladung zu Acme auf fieldbrief", "Boss hat Sie eingeladen, Acme auf fieldbrief als Administrator beizutreten.",
			"bis Sa., 28. Nov. 2026, 15:04 UTC."},
		{"es", "en-US", "Invitación a Acme en fieldbrief", "Boss le envió una invitación para unirse a Acme en fieldbrief como administrador.",
			"hasta el sáb, 28 de nov de 2026, 3:04\u202fp.m. UTC."},
		{"fr", "de-DE", "Invitation à rejoindre Acme sur fieldbrief", "Boss vous invite à rejoindre Acme sur fieldbrief en tant qu’administrateur.",
			"jusqu’au sam. 28 nov. 2026 à 15:04 UTC."},
	} {
		m := accounts.AccountEmail{What: accounts.EmailInvite, To: "nia@acme.test", OrgID: 1, OrgName: "Acme", Inviter: "Boss",
			Role: tenants.RoleAdmin, Token: "TOK", ExpiresAt: until, Key: "invite:1:1", Language: c.lang, Locale: c.locale}
		msg, err := accounts.Compose(m, "fieldbrief@app.test", "https://app.test")
		require.NoError(t, err)
		require.Equal(t, c.subject, msg.Subject, c.locale)
		require.Contains(t, msg.Text, c.line, c.locale)
		require.Contains(t, msg.Text, "\nhttps://app.test/invites/TOK\n", c.locale)
		require.Contains(t, msg.Text, c.expires, c.locale)
	}
	m := accounts.AccountEmail{What: accounts.EmailReset, To: "ada@acme.test", Token: "TOK", ExpiresAt: until, Key: "reset:1", Locale: "de-DE"}
	msg, err := accounts.Compose(m, "fieldbrief@app.test", "https://app.test")
	require.NoError(t, err)
	require.Equal(t, "Ihr fieldbrief-Passwort zurücksetzen", msg.Subject)
	require.Contains(t, msg.Text, "Konto", "German body")
	require.Contains(t, msg.Text, "\nhttps://app.test/password/reset/TOK\n")
}

// Who reads an account email: an invite is in the org's language, or the
// invited person's own when they have an account and chose one; a reset
// in the person's own language, else the locale their orgs share.
func TestAccountEmailReader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	store := testutil.NewStores(db)
	org, err := store.Tenants.CreateOrg(ctx, "bergmann", "Bergmann Haustechnik", time.Time{})
	require.NoError(t, err)
	_, err = db.Exec(ctx, `UPDATE orgs SET locale = 'de-DE' WHERE id = $1`, org.ID)
	require.NoError(t, err)
	now := time.Now()
	lea, err := store.Accounts.UpsertUser(ctx, "lea@bergmann.test", "pw", false)
	require.NoError(t, err)
	_, err = db.Exec(ctx, `UPDATE users SET language = 'fr' WHERE id = $1`, lea.ID)
	require.NoError(t, err)
	max, err := store.Accounts.UpsertUser(ctx, "max@bergmann.test", "pw", false)
	require.NoError(t, err)
	require.NoError(t, store.Tenants.AddMember(ctx, org.ID, max.ID, tenants.RoleMember))
	_, err = store.Tenants.SaveFieldforce(ctx, audit.System, org.ID,
		[]byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00"}}`), tenants.AnyVersion)
	require.NoError(t, err)

	prepare := func(a accounts.SendAccountEmailArgs) accounts.AccountEmail {
		t.Helper()
		var m accounts.AccountEmail
		require.NoError(t, pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
			m, err = accounts.PrepareAccountEmail(ctx, tx, a, now)
			return err
		}))
		return m
	}
	// Berlin's winter in each language's letters: German's own, French
	// has none (CLDR) and writes the offset.
	for _, c := range []struct{ email, lang, subject, abbr string }{
		{"neu@bergmann.test", "", "Einladung zu Bergmann Haustechnik auf fieldbrief", "MEZ"},
		{"LEA@bergmann.test", "fr", "Invitation à rejoindre Bergmann Haustechnik sur fieldbrief", "UTC+1"},
	} {
		inv, err := store.Accounts.CreateInvite(ctx, audit.Actor{Email: "boss@bergmann.test"}, org.ID, c.email, tenants.RoleMember, now)
		require.NoError(t, err)
		m := prepare(accounts.SendAccountEmailArgs{What: accounts.EmailInvite, ID: inv.ID, OrgID: org.ID, Send: 1})
		require.Equal(t, []string{"de-DE", c.lang}, []string{m.Locale, m.Language}, c.email)
		require.Equal(t, "Europe/Berlin", m.Zone.String(), "the invite's org's zone")
		msg, err := accounts.Compose(m, "fieldbrief@app.test", "https://app.test")
		require.NoError(t, err)
		require.Equal(t, c.subject, msg.Subject)
		m.ExpiresAt = time.Date(2026, 11, 28, 15, 4, 0, 0, time.UTC)
		msg, err = accounts.Compose(m, "fieldbrief@app.test", "https://app.test")
		require.NoError(t, err)
		require.Contains(t, msg.Text, "16:04 "+c.abbr+".", "its end in Berlin's time")
	}

	for _, c := range []struct{ email, locale, lang, zone, abbr string }{
		{"max@bergmann.test", "de-DE", "", "Europe/Berlin", "MEZ"}, // his org's
		{"lea@bergmann.test", "", "fr", "UTC", "UTC"},              // no org; her own, in UTC
	} {
		require.NoError(t, store.Accounts.RequestPasswordReset(ctx, c.email, "192.0.2.1", now))
		var id int64
		require.NoError(t, db.QueryRow(ctx, `SELECT r.id FROM password_resets r JOIN users u ON u.id = r.user_id
			WHERE u.email = $1 ORDER BY r.id DESC LIMIT 1`, c.email).Scan(&id))
		m := prepare(accounts.SendAccountEmailArgs{What: accounts.EmailReset, ID: id})
		require.Equal(t, []string{c.locale, c.lang}, []string{m.Locale, m.Language}, c.email)
		m.ExpiresAt = time.Date(2026, 11, 28, 15, 4, 0, 0, time.UTC) // winter: MEZ
		msg, err := accounts.Compose(m, "fieldbrief@app.test", "https://app.test")
		require.NoError(t, err)
		if c.zone == "UTC" {
			require.Nil(t, m.Zone, c.email)
			require.Contains(t, msg.Text, "15:04 UTC", c.email)
		} else {
			require.Equal(t, c.zone, m.Zone.String(), c.email)
			require.Contains(t, msg.Text, "16:04 "+c.abbr, c.email)
		}
	}
}
