package transport_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/transport"
)

func TestOutboxMailer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	var orgID int64
	require.NoError(t, db.QueryRow(ctx, `INSERT INTO orgs (slug, name) VALUES ('northwind', 'Northwind') RETURNING id`).Scan(&orgID))

	mailer, err := transport.NewMailer("", db)
	require.NoError(t, err)
	msg := testMessage(t)
	msg.OrgID = orgID

	// A retried send stores the message once.
	require.NoError(t, mailer.Send(ctx, msg))
	require.NoError(t, mailer.Send(ctx, msg))
	var n int
	require.NoError(t, db.QueryRow(ctx, `SELECT count(*) FROM mail_outbox`).Scan(&n))
	require.Equal(t, 1, n)

	system := testMessage(t)
	system.OrgID, system.MessageID, system.UnsubscribeURL = 0, "system.1@fieldbrief.test", ""
	require.NoError(t, mailer.Send(ctx, system))

	list, err := transport.ListOutbox(ctx, db, 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "system.1@fieldbrief.test", list[0].MessageID, "newest first")
	require.Zero(t, list[0].OrgID)
	require.Empty(t, list[0].OrgSlug)
	require.Equal(t, orgID, list[1].OrgID)
	require.Equal(t, "northwind", list[1].OrgSlug)
	require.Empty(t, list[1].HTML, "the list does not load bodies")

	older, err := transport.ListOutbox(ctx, db, 10, list[0].ID)
	require.NoError(t, err)
	require.Len(t, older, 1)
	require.Equal(t, list[1].ID, older[0].ID)

	got, err := transport.GetOutbox(ctx, db, list[1].ID)
	require.NoError(t, err)
	require.Equal(t, msg.MessageID, got.MessageID)
	require.Equal(t, "northwind", got.OrgSlug)
	require.Equal(t, msg.From, got.From)
	require.Equal(t, msg.To, got.To)
	require.Equal(t, msg.Subject, got.Subject)
	require.Equal(t, msg.Text, got.Text)
	require.Equal(t, msg.HTML, got.HTML)
	require.Equal(t, msg.Headers(), got.Headers)
	require.Equal(t, "List-Unsubscribe=One-Click", got.Headers["List-Unsubscribe-Post"])

	_, err = transport.GetOutbox(ctx, db, got.ID+100)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
}

func TestNewMailerPicksSMTP(t *testing.T) {
	t.Parallel()
	m, err := transport.NewMailer("smtp://127.0.0.1:2525?tls=none", nil)
	require.NoError(t, err)
	require.IsType(t, &transport.SMTPMailer{}, m)
	_, err = transport.NewMailer("smtp://user:hunter2@host?tls=none", nil)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "hunter2")
}
