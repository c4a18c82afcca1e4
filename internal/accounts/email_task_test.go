package accounts_test

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/dispatch"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/worker"
)

// A real worker mails an invite and a reset through the outbox (SMTP_URL
// unset): each email holds the only copy of its token, whose hash is what
// the database keeps, and the links start with BASE_URL.
func TestWorkerMailsInviteAndResetLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	store := testutil.NewStores(db)
	org, err := store.Tenants.CreateOrg(ctx, "acme", "Acme Field Services")
	require.NoError(t, err)
	now := time.Now()
	_, err = store.Accounts.CreateInvite(ctx, audit.Actor{Email: "boss@acme.test"}, org.ID, "nia@acme.test", tenants.RoleAdmin, now)
	require.NoError(t, err)
	_, err = store.Accounts.UpsertUser(ctx, "forgetful@acme.test", "pw", false)
	require.NoError(t, err)
	require.NoError(t, store.Accounts.RequestPasswordReset(ctx, "forgetful@acme.test", "192.0.2.1", now))

	log := slog.New(slog.DiscardHandler)
	sender, err := dispatch.NewSender(db, delivery.Settings{BaseURL: "https://fieldbrief.example"}, log)
	require.NoError(t, err)
	w := &worker.Worker{DB: db, Log: log, Sender: sender}
	require.NoError(t, w.Start(ctx))
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM mail_outbox`).Scan(&n))
		return n == 2
	}, 30*time.Second, 20*time.Millisecond)
	require.NoError(t, w.Stop(ctx))

	for _, c := range []struct{ rcpt, subject, path, table string }{
		{"nia@acme.test", "You're invited to Acme Field Services on fieldbrief", "/invites/", "invites"},
		{"forgetful@acme.test", "Reset your fieldbrief password", "/password/reset/", "password_resets"},
	} {
		var subject, body string
		var orgID *int64
		require.NoError(t, db.QueryRow(ctx, `SELECT subject, text_body, org_id FROM mail_outbox WHERE rcpt = $1`, c.rcpt).Scan(&subject, &body, &orgID))
		require.Equal(t, c.subject, subject)
		m := regexp.MustCompile(`https://fieldbrief\.example` + regexp.QuoteMeta(c.path) + `([A-Z0-9]+)\n`).FindStringSubmatch(body)
		require.NotNil(t, m, body)
		sum := sha256.Sum256([]byte(m[1]))
		var n int
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM `+c.table+` WHERE token_hash = $1`, sum[:]).Scan(&n))
		require.Equal(t, 1, n, "the stored hash is the emailed token's")
		require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE strpos(args::text, $1) > 0`, m[1]).Scan(&n))
		require.Zero(t, n, "the token is not in the job's arguments")
		if c.table == "invites" {
			require.Equal(t, org.ID, *orgID)
			require.True(t, strings.Contains(body, "as an admin"), body)
		} else {
			require.Nil(t, orgID, "a reset is system mail")
		}
	}
}
