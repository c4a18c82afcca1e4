package accounts_test

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
	"fieldbrief/internal/worker"
)

// A real worker mails an invite and a reset over SMTP: each email holds
// the only copy of its token, whose hash is what the database keeps, and
// the links start with BASE_URL.
func TestWorkerMailsInviteAndResetLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	org := queueInviteAndReset(t, db)

	sink := transporttest.NewSMTPServer(t)
	log := slog.New(slog.DiscardHandler)
	sender, err := delivery.NewSender(db, transport.Settings{SMTPURL: sink.URL, BaseURL: "https://fieldbrief.example"}, log)
	require.NoError(t, err)
	w := &worker.Worker{DB: db, Log: log, Sender: sender}
	require.NoError(t, w.Start(ctx))
	msgs := sink.WaitMessages(t, 2, testutil.Settle)
	require.NoError(t, w.Stop(ctx))
	require.Zero(t, count(t, db, `SELECT count(*) FROM mail_outbox`))

	for _, c := range []struct{ rcpt, subject, path, table string }{
		{"nia@acme.test", "You're invited to Acme Field Services on fieldbrief", "/invites/", "invites"},
		{"forgetful@acme.test", "Reset your fieldbrief password", "/password/reset/", "password_resets"},
	} {
		var body string
		for _, m := range msgs {
			if strings.Join(m.To, ",") == c.rcpt {
				parsed, err := m.Parse()
				require.NoError(t, err)
				require.Equal(t, c.subject, parsed.Header.Get("Subject"))
				body, _, err = m.Bodies()
				require.NoError(t, err)
			}
		}
		m := regexp.MustCompile(`https://fieldbrief\.example` + regexp.QuoteMeta(c.path) + `([A-Z0-9]+)\r?\n`).FindStringSubmatch(body)
		require.NotNil(t, m, body)
		sum := sha256.Sum256([]byte(m[1]))
		require.Equal(t, 1, count(t, db, `SELECT count(*) FROM `+c.table+` WHERE token_hash = $1`, sum[:]), "the stored hash is the emailed token's")
		require.Zero(t, count(t, db, `SELECT count(*) FROM river_job WHERE strpos(args::text, $1) > 0`, m[1]), "the token is not in the job's arguments")
		if c.table == "invites" {
			require.Equal(t, 1, count(t, db, `SELECT count(*) FROM invites WHERE org_id = $1`, org.ID))
			require.True(t, strings.Contains(body, "as an admin"), body)
		}
	}
}

// Without SMTP_URL the emails are kept in the outbox, which staff read, so
// the copy there withholds the token (docs/security.md, "Account emails and the staff outbox"): the link it shows
// is no link, and the database has no hash of it. The worker's log (the
// operator's, in development) has the working link.
func TestOutboxCopyWithholdsTheToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	org := queueInviteAndReset(t, db)

	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	sender, err := delivery.NewSender(db, transport.Settings{BaseURL: "https://fieldbrief.example"}, log)
	require.NoError(t, err)
	w := &worker.Worker{DB: db, Log: log, Sender: sender}
	require.NoError(t, w.Start(ctx))
	require.Eventually(t, func() bool { return count(t, db, `SELECT count(*) FROM mail_outbox`) == 2 }, testutil.Settle, 20*time.Millisecond)
	require.NoError(t, w.Stop(ctx))

	for _, c := range []struct{ rcpt, subject, path, table string }{
		{"nia@acme.test", "You're invited to Acme Field Services on fieldbrief", "/invites/", "invites"},
		{"forgetful@acme.test", "Reset your fieldbrief password", "/password/reset/", "password_resets"},
	} {
		var subject, body string
		var orgID *int64
		require.NoError(t, db.QueryRow(ctx, `SELECT subject, text_body, org_id FROM mail_outbox WHERE rcpt = $1`, c.rcpt).Scan(&subject, &body, &orgID))
		require.Equal(t, c.subject, subject)
		require.Contains(t, body, "https://fieldbrief.example"+c.path+accounts.WithheldToken+"\n")
		require.Contains(t, body, "withheld from this copy")
		sum := sha256.Sum256([]byte(accounts.WithheldToken))
		require.Zero(t, count(t, db, `SELECT count(*) FROM `+c.table+` WHERE token_hash = $1`, sum[:]))
		require.Equal(t, 1, count(t, db, `SELECT count(*) FROM `+c.table+` WHERE token_hash IS NOT NULL`), "the real token was minted")

		// The log's link is the real one.
		m := regexp.MustCompile(`"link":"https://fieldbrief\.example` + regexp.QuoteMeta(c.path) + `([A-Z0-9]+)"`).FindStringSubmatch(logs.String())
		require.NotNil(t, m, logs.String())
		real := sha256.Sum256([]byte(m[1]))
		require.Equal(t, 1, count(t, db, `SELECT count(*) FROM `+c.table+` WHERE token_hash = $1`, real[:]))
		require.NotContains(t, body, m[1])
		if c.table == "invites" {
			require.Equal(t, org.ID, *orgID)
		} else {
			require.Nil(t, orgID, "a reset is system mail")
		}
	}
}

// queueInviteAndReset makes an org, an invite to nia@acme.test and a reset
// request of forgetful@acme.test, whose emails are then queued.
func queueInviteAndReset(t *testing.T, db *pgxpool.Pool) tenants.Org {
	t.Helper()
	ctx := context.Background()
	store := testutil.NewStores(db)
	org, err := store.Tenants.CreateOrg(ctx, "acme", "Acme Field Services", time.Time{})
	require.NoError(t, err)
	now := time.Now()
	_, err = store.Accounts.CreateInvite(ctx, audit.Actor{Email: "boss@acme.test"}, org.ID, "nia@acme.test", tenants.RoleAdmin, now)
	require.NoError(t, err)
	_, err = store.Accounts.UpsertUser(ctx, "forgetful@acme.test", "pw", false)
	require.NoError(t, err)
	require.NoError(t, store.Accounts.RequestPasswordReset(ctx, "forgetful@acme.test", "192.0.2.1", now))
	return org
}

func count(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// syncBuffer is a log destination the worker's goroutines write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
