package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/config"
	"fieldbrief/internal/transport"
)

// runAccountMail works the newest account email task of that kind with the
// worker's real handler, mail going to the outbox (SMTP_URL unset), and
// returns the handler's error.
func runAccountMail(t *testing.T, f *fixture, what string, production bool) error {
	t.Helper()
	ctx := context.Background()
	var a accounts.SendAccountEmailArgs
	var id int64
	require.NoError(t, f.db.QueryRow(ctx, `
		SELECT id, args->>'what', (args->>'id')::bigint, coalesce((args->>'org_id')::bigint, 0), coalesce((args->>'send')::int, 0)
		  FROM river_job WHERE kind = 'send_account_email' AND args->>'what' = $1 ORDER BY id DESC LIMIT 1`, what).
		Scan(&id, &a.What, &a.ID, &a.OrgID, &a.Send))
	h := &accounts.EmailHandler{DB: f.db, Mailer: transport.NewOutboxMailer(f.db), From: transport.DefaultMailFrom, BaseURL: f.ts.URL,
		Log: slog.New(slog.DiscardHandler), Now: f.clock.Now, Production: production}
	return h.Work(ctx, &river.Job[accounts.SendAccountEmailArgs]{JobRow: &rivertype.JobRow{ID: id, Attempt: 1}, Args: a})
}

// linkPattern finds an account link in a message as staff read it.
var linkPattern = regexp.MustCompile(`/(password/reset|invites)/[^\s<"]+`)

// docs/security.md, "Account emails and the staff outbox": staff read the outbox, where a password reset is kept
// when SMTP_URL is unset; the link they see cannot reset the password, so
// staff cannot take over an org admin's account. The same for an invite.
func TestStaffOutboxResetLinkCannotResetThePassword(t *testing.T) {
	t.Parallel()
	f := setup(t)
	require.Equal(t, http.StatusOK, f.anon().post("/password/forgot", url.Values{"email": {f.adminA.Email}}).Code)
	require.NoError(t, runAccountMail(t, f, accounts.EmailReset, false))
	require.Equal(t, http.StatusSeeOther, f.as(&f.adminA).post("/orgs/acme/members/invite", url.Values{"email": {"nia@acme.example"}, "role": {"admin"}}).Code)
	require.NoError(t, runAccountMail(t, f, accounts.EmailInvite, false))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM password_resets WHERE token_hash IS NOT NULL`), "the reset's token was minted")

	staff := f.as(&f.staff)
	var ids []int64
	rows, err := f.db.Query(context.Background(), `SELECT id FROM mail_outbox ORDER BY id`)
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	require.Len(t, ids, 2)
	for _, id := range ids {
		res := staff.get("/staff/outbox/" + strconv.FormatInt(id, 10))
		require.Equal(t, http.StatusOK, res.Code)
		link := linkPattern.FindString(res.Body)
		require.NotEmpty(t, link, "the message still shows where the link goes: %s", res.Body)
		require.Contains(t, res.Body, "withheld")

		mallory := f.anon()
		require.Equal(t, http.StatusGone, mallory.get(link).Code, link)
		r := mallory.post(link, url.Values{"name": {"Mallory"}, "password": {"mallory's own password"}})
		require.Equal(t, http.StatusGone, r.Code, link)
	}
	f.anon().login(f.adminA.Email, testPassword) // the password is unchanged
	require.Zero(t, f.count(`SELECT count(*) FROM users WHERE email = 'nia@acme.example'`))
	require.Zero(t, f.count(`SELECT count(*) FROM mail_outbox WHERE text_body ~ '/(invites|password/reset)/[A-Z0-9]{16,}'`),
		"no usable token is stored in the outbox")
}

// In production without SMTP_URL, account emails are refused with a clear
// message, not kept: no invite, no reset, no task.
func TestProductionWithoutSMTPRefusesAccountEmails(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.Production = true })
	res := f.as(&f.adminA).post("/orgs/acme/members/invite", url.Values{"email": {"nia@acme.example"}, "role": {"member"}})
	require.Equal(t, http.StatusServiceUnavailable, res.Code, res.Body)
	require.Contains(t, res.Body, "SMTP_URL")
	res = f.anon().post("/password/forgot", url.Values{"email": {f.adminA.Email}})
	require.Equal(t, http.StatusServiceUnavailable, res.Code, res.Body)
	require.Contains(t, res.Body, "SMTP_URL")
	require.Zero(t, f.count(`SELECT count(*) FROM invites`))
	require.Zero(t, f.count(`SELECT count(*) FROM password_resets`))
	require.Zero(t, f.count(`SELECT count(*) FROM river_job WHERE kind = 'send_account_email'`))

	// A task queued before (say, by a web without the check): the worker
	// refuses it too, and keeps nothing.
	require.NoError(t, f.store.Accounts.RequestPasswordReset(context.Background(), f.adminA.Email, "192.0.2.1", f.clock.Now()))
	err := runAccountMail(t, f, accounts.EmailReset, true)
	var cancel *river.JobCancelError
	require.ErrorAs(t, err, &cancel)
	require.ErrorContains(t, err, "SMTP_URL")
	require.Zero(t, f.count(`SELECT count(*) FROM mail_outbox`))
	require.Zero(t, f.count(`SELECT count(*) FROM password_resets WHERE token_hash IS NOT NULL`), "no token minted")
}

// A reset kept in the outbox before tokens were withheld at sending: the
// staff page shows its link withheld all the same.
func TestStaffOutboxWithholdsLinksKeptBefore(t *testing.T) {
	t.Parallel()
	f := setup(t)
	token := "WXGMHLNJ7UVANSMU2OE5EGEPPL"
	m := outboxMessage(1, 0)
	m.Text = "Choose a new password:\nhttp://fieldbrief.example/password/reset/" + token + "\n"
	m.HTML = `<a href="http://fieldbrief.example/invites/` + token + `">Accept</a>`
	id := strconv.FormatInt(f.keepMail(m), 10)
	staff := f.as(&f.staff)
	for _, p := range []string{"/staff/outbox/" + id, "/staff/outbox/" + id + "/html"} {
		res := staff.get(p)
		require.Equal(t, http.StatusOK, res.Code, p)
		require.NotContains(t, res.Body, token, p)
		require.Contains(t, res.Body, "/"+accounts.WithheldToken, p)
	}
}
