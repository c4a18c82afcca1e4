package accounts_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
)

var accountsNow = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// mailJob runs what the worker's job does for the newest account email job
// of that kind, at now: mints the link's token and stores its hash. It
// returns the token, or "" when the email is no longer wanted.
func (b bundle) mailJob(t *testing.T, what string, now time.Time) string {
	t.Helper()
	var a accounts.SendAccountEmailArgs
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `
		SELECT args->>'what', (args->>'id')::bigint, coalesce((args->>'org_id')::bigint, 0), coalesce((args->>'send')::int, 0)
		  FROM river_job WHERE kind = 'send_account_email' AND args->>'what' = $1 ORDER BY id DESC LIMIT 1`, what).
		Scan(&a.What, &a.ID, &a.OrgID, &a.Send))
	return b.runMail(t, a, now)
}

func (b bundle) runMail(t *testing.T, a accounts.SendAccountEmailArgs, now time.Time) string {
	t.Helper()
	var token string
	err := pgx.BeginFunc(b.Ctx, b.Store.DB, func(tx pgx.Tx) error {
		m, err := accounts.PrepareAccountEmail(b.Ctx, tx, a, now)
		token = m.Token
		return err
	})
	if errors.Is(err, accounts.ErrEmailNotWanted) {
		return ""
	}
	require.NoError(t, err)
	require.NotEmpty(t, token)
	return token
}

func (b bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, sql, args...).Scan(&n))
	return n
}

func linkReason(err error) string {
	var le *accounts.LinkError
	if errors.As(err, &le) {
		return le.Reason
	}
	return ""
}

func (b bundle) admin(t *testing.T, org tenants.Org, email string) (accounts.User, audit.Actor) {
	t.Helper()
	u, err := b.Store.Accounts.UpsertUser(b.Ctx, email, "secret", false)
	require.NoError(t, err)
	require.NoError(t, b.Store.Tenants.AddMember(b.Ctx, org.ID, u.ID, tenants.RoleAdmin))
	return u, audit.Actor{UserID: u.ID, Email: u.Email}
}

func TestInviteIsSingleUseAndStoresOnlyAHash(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.Acme, "boss@acme.test")
	inv, err := b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, " New.Person@acme.test ", tenants.RoleMember, accountsNow)
	require.NoError(t, err)
	require.Equal(t, "New.Person@acme.test", inv.Email)
	require.True(t, accountsNow.Add(accounts.InviteLifetime).Equal(inv.ExpiresAt), inv.ExpiresAt)
	// The job went in with the invite; no token exists until it runs.
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'send_account_email'`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM invites WHERE token_hash IS NOT NULL`))

	token := b.mailJob(t, accounts.EmailInvite, accountsNow.Add(time.Second))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM invites i WHERE position($1 in i::text) > 0`, token))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM river_job j WHERE position($1 in j::text) > 0`, token))

	link, err := b.Store.Accounts.InviteByToken(b.Ctx, token, accountsNow.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, link.HasAccount)
	require.Equal(t, "Acme Plumbing", link.OrgName)

	u, err := b.Store.Accounts.AcceptInviteNewAccount(b.Ctx, token, "  Nia Person ", "nia chooses a new password", accountsNow.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, "Nia Person", u.Name)
	m, err := b.Store.Tenants.MembershipBySlug(b.Ctx, u.ID, "acme")
	require.NoError(t, err)
	require.Equal(t, tenants.RoleMember, m.Role)
	_, err = b.Store.Accounts.Authenticate(b.Ctx, "new.person@acme.test", "nia chooses a new password")
	require.NoError(t, err)

	// Used: a second accept, either way, is refused and changes nothing.
	_, err = b.Store.Accounts.AcceptInviteNewAccount(b.Ctx, token, "Someone", "violet-harbor-tuesday-41", accountsNow.Add(2*time.Minute))
	require.Equal(t, accounts.LinkUsed, linkReason(err))
	require.Equal(t, accounts.LinkUsed, linkReason(b.Store.Accounts.AcceptInvite(b.Ctx, token, u, accountsNow.Add(2*time.Minute))))
	require.Equal(t, accounts.LinkInvalid, linkReason(b.Store.Accounts.AcceptInvite(b.Ctx, "NOTATOKEN", u, accountsNow)))

	var actions []string
	rows, err := b.Store.DB.Query(b.Ctx, `SELECT action FROM audit_log WHERE org_id = $1 OR action = 'user.create' ORDER BY id`, b.Acme.ID)
	require.NoError(t, err)
	actions, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"invite.create", "user.create", "invite.accept", "membership.set"}, actions)
}

func TestInviteExpires(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.Acme, "boss@acme.test")
	_, err := b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "late@acme.test", tenants.RoleAdmin, accountsNow)
	require.NoError(t, err)
	token := b.mailJob(t, accounts.EmailInvite, accountsNow)
	end := accountsNow.Add(accounts.InviteLifetime)
	_, err = b.Store.Accounts.InviteByToken(b.Ctx, token, end.Add(-time.Second))
	require.NoError(t, err)
	_, err = b.Store.Accounts.AcceptInviteNewAccount(b.Ctx, token, "Late", "violet-harbor-tuesday-41", end)
	require.Equal(t, accounts.LinkExpired, linkReason(err))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM users WHERE email = 'late@acme.test'`))
	// A job that runs after the end sends nothing.
	var a accounts.SendAccountEmailArgs
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `SELECT id, org_id, sends FROM invites`).Scan(&a.ID, &a.OrgID, &a.Send))
	a.What = accounts.EmailInvite
	require.Empty(t, b.runMail(t, a, end))
	// An expired invite gives way to a new one for the same address.
	_, err = b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "late@acme.test", tenants.RoleAdmin, end)
	require.NoError(t, err)
}

func TestInviteRules(t *testing.T) {
	b := setup(t)
	boss, actor := b.admin(t, b.Acme, "boss@acme.test")
	_ = boss
	for _, c := range []struct{ email, role string }{{"not-an-email", "member"}, {"x@acme.test", "owner"}, {"BOSS@acme.test", "member"}} {
		_, err := b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, c.email, tenants.Role(c.role), accountsNow)
		require.Equal(t, apperr.Invalid, apperr.Code(err), c.email)
	}
	_, err := b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "twice@acme.test", tenants.RoleMember, accountsNow)
	require.NoError(t, err)
	_, err = b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "Twice@acme.test", tenants.RoleMember, accountsNow)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	// The same address in another org is another invite.
	_, otherActor := b.admin(t, b.Other, "boss@globex.test")
	_, err = b.Store.Accounts.CreateInvite(b.Ctx, otherActor, b.Other.ID, "twice@acme.test", tenants.RoleMember, accountsNow)
	require.NoError(t, err)

	for i := 1; i < accounts.MaxInvitesPerDay; i++ {
		_, err := b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "p"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@acme.test", tenants.RoleMember, accountsNow)
		require.NoError(t, err)
	}
	_, err = b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "one-more@acme.test", tenants.RoleMember, accountsNow)
	require.Equal(t, apperr.TooMany, apperr.Code(err))
	_, err = b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "one-more@acme.test", tenants.RoleMember, accountsNow.Add(25*time.Hour))
	require.NoError(t, err)
}

func TestResendReplacesTheLinkAndRevokeEndsIt(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.Acme, "boss@acme.test")
	inv, err := b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "again@acme.test", tenants.RoleMember, accountsNow)
	require.NoError(t, err)
	first := b.mailJob(t, accounts.EmailInvite, accountsNow)

	_, err = b.Store.Accounts.ResendInvite(b.Ctx, actor, b.Acme.ID, inv.ID, accountsNow.Add(30*time.Second))
	require.Equal(t, apperr.TooMany, apperr.Code(err), "a minute between sends")
	again, err := b.Store.Accounts.ResendInvite(b.Ctx, actor, b.Acme.ID, inv.ID, accountsNow.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 2, again.Sends)
	_, err = b.Store.Accounts.InviteByToken(b.Ctx, first, accountsNow.Add(time.Minute))
	require.Equal(t, accounts.LinkInvalid, linkReason(err), "a resend retires the old link")
	// The first job, run late, sends nothing; the second does.
	require.Empty(t, b.runMail(t, accounts.SendAccountEmailArgs{What: accounts.EmailInvite, ID: inv.ID, OrgID: b.Acme.ID, Send: 1}, accountsNow.Add(time.Minute)))
	second := b.mailJob(t, accounts.EmailInvite, accountsNow.Add(time.Minute))

	// Another org's admin cannot touch it: NotFound, as if it did not exist.
	_, otherActor := b.admin(t, b.Other, "boss@globex.test")
	_, err = b.Store.Accounts.RevokeInvite(b.Ctx, otherActor, b.Other.ID, inv.ID, accountsNow)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.Store.Accounts.ResendInvite(b.Ctx, otherActor, b.Other.ID, inv.ID, accountsNow.Add(time.Hour))
	require.Equal(t, apperr.NotFound, apperr.Code(err))

	_, err = b.Store.Accounts.RevokeInvite(b.Ctx, actor, b.Acme.ID, inv.ID, accountsNow.Add(2*time.Minute))
	require.NoError(t, err)
	_, err = b.Store.Accounts.InviteByToken(b.Ctx, second, accountsNow.Add(2*time.Minute))
	require.Equal(t, accounts.LinkRevoked, linkReason(err))
	_, err = b.Store.Accounts.ResendInvite(b.Ctx, actor, b.Acme.ID, inv.ID, accountsNow.Add(time.Hour))
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM audit_log WHERE action IN ('invite.create', 'invite.resend', 'invite.revoke')`))
}

func TestExistingAccountAcceptsAndKeepsItsRole(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.Acme, "boss@acme.test")
	u, err := b.Store.Accounts.UpsertUser(b.Ctx, "has@account.test", "pw", false)
	require.NoError(t, err)
	_, err = b.Store.Accounts.CreateInvite(b.Ctx, actor, b.Acme.ID, "HAS@account.test", tenants.RoleAdmin, accountsNow)
	require.NoError(t, err)
	token := b.mailJob(t, accounts.EmailInvite, accountsNow)
	link, err := b.Store.Accounts.InviteByToken(b.Ctx, token, accountsNow)
	require.NoError(t, err)
	require.True(t, link.HasAccount)
	_, err = b.Store.Accounts.AcceptInviteNewAccount(b.Ctx, token, "Dup", "lantern-otter-quarry-58", accountsNow)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	stranger, err := b.Store.Accounts.UpsertUser(b.Ctx, "stranger@x.test", "pw", false)
	require.NoError(t, err)
	require.Equal(t, apperr.Forbidden, apperr.Code(b.Store.Accounts.AcceptInvite(b.Ctx, token, stranger, accountsNow)))
	require.NoError(t, b.Store.Accounts.AcceptInvite(b.Ctx, token, u, accountsNow))
	m, err := b.Store.Tenants.MembershipBySlug(b.Ctx, u.ID, "acme")
	require.NoError(t, err)
	require.Equal(t, tenants.RoleAdmin, m.Role)
}

func TestAnOrgNeverLosesItsLastAdmin(t *testing.T) {
	b := setup(t)
	first, actor := b.admin(t, b.Acme, "first@acme.test")
	_, err := b.Store.Tenants.SetMemberRole(b.Ctx, actor, b.Acme.ID, first.ID, tenants.RoleMember, 0)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	_, err = b.Store.Accounts.RemoveMember(b.Ctx, actor, b.Acme.ID, first.ID)
	require.Equal(t, apperr.Conflict, apperr.Code(err))

	// Another org's people are not found here.
	outsider, _ := b.admin(t, b.Other, "boss@globex.test")
	_, err = b.Store.Tenants.SetMemberRole(b.Ctx, actor, b.Acme.ID, outsider.ID, tenants.RoleMember, 0)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.Store.Accounts.RemoveMember(b.Ctx, actor, b.Acme.ID, outsider.ID)
	require.Equal(t, apperr.NotFound, apperr.Code(err))

	// Two admins demote each other (or remove each other) at once, many
	// times over: exactly one change succeeds each round.
	for round := range 10 {
		second, _ := b.admin(t, b.Acme, "second@acme.test")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, target := range []int64{first.ID, second.ID} {
			wg.Go(func() {
				<-start
				if round%2 == 0 {
					_, errs[i] = b.Store.Tenants.SetMemberRole(b.Ctx, actor, b.Acme.ID, target, tenants.RoleMember, 0)
				} else {
					_, errs[i] = b.Store.Accounts.RemoveMember(b.Ctx, actor, b.Acme.ID, target)
				}
			})
		}
		close(start)
		wg.Wait()
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'admin'`, b.Acme.ID), "round %d: %v", round, errs)
		failed := 0
		for _, err := range errs {
			if err != nil {
				require.Equal(t, apperr.Conflict, apperr.Code(err), "round %d", round)
				failed++
			}
		}
		require.Equal(t, 1, failed, "round %d", round)
		// Reset: first is the admin again, second is gone.
		var admin int64
		require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'admin'`, b.Acme.ID).Scan(&admin))
		require.NoError(t, b.Store.Tenants.AddMember(b.Ctx, b.Acme.ID, first.ID, tenants.RoleAdmin))
		_, err := b.Store.DB.Exec(b.Ctx, `DELETE FROM memberships WHERE org_id = $1 AND user_id = $2`, b.Acme.ID, second.ID)
		require.NoError(t, err)
	}
}

func TestRemoveMemberRevokesSessionsAndAudits(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.Acme, "boss@acme.test")
	m, err := b.Store.Accounts.UpsertUser(b.Ctx, "leaving@acme.test", "pw", false)
	require.NoError(t, err)
	require.NoError(t, b.Store.Tenants.AddMember(b.Ctx, b.Acme.ID, m.ID, tenants.RoleMember))
	_, err = b.Store.DB.Exec(b.Ctx, `INSERT INTO sessions (id, user_id) VALUES ('s1', $1), ('s2', $1)`, m.ID)
	require.NoError(t, err)
	changed, err := b.Store.Tenants.SetMemberRole(b.Ctx, actor, b.Acme.ID, m.ID, tenants.RoleAdmin, 0)
	require.NoError(t, err)
	require.Equal(t, tenants.RoleAdmin, changed.Role)
	_, err = b.Store.Accounts.RemoveMember(b.Ctx, actor, b.Acme.ID, m.ID)
	require.NoError(t, err)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM sessions WHERE user_id = $1 AND revoked_at IS NULL`, m.ID))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM memberships WHERE user_id = $1`, m.ID))
	var oldV, newV string
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `SELECT old_value::text, new_value::text FROM audit_log WHERE action = 'membership.set' AND org_id = $1`, b.Acme.ID).Scan(&oldV, &newV))
	require.JSONEq(t, `{"role":"member"}`, oldV)
	require.JSONEq(t, `{"role":"admin"}`, newV)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM audit_log WHERE action = 'membership.remove' AND actor_email = 'boss@acme.test' AND target = 'leaving@acme.test'`))
}

func TestPasswordReset(t *testing.T) {
	b := setup(t)
	u, err := b.Store.Accounts.UpsertUser(b.Ctx, "forgetful@acme.test", "old password", false)
	require.NoError(t, err)
	_, err = b.Store.DB.Exec(b.Ctx, `INSERT INTO sessions (id, user_id) VALUES ('s1', $1)`, u.ID)
	require.NoError(t, err)

	// An unknown address is not an error, and nothing is recorded.
	require.NoError(t, b.Store.Accounts.RequestPasswordReset(b.Ctx, "nobody@acme.test", "192.0.2.1", accountsNow))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM password_resets`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM river_job`))

	require.NoError(t, b.Store.Accounts.RequestPasswordReset(b.Ctx, "FORGETFUL@acme.test", "192.0.2.1", accountsNow))
	token := b.mailJob(t, accounts.EmailReset, accountsNow)
	_, err = b.Store.Accounts.CheckResetToken(b.Ctx, token, accountsNow.Add(accounts.ResetLifetime))
	require.Equal(t, accounts.LinkExpired, linkReason(err))
	_, err = b.Store.Accounts.ResetPassword(b.Ctx, token, "forgetful picks a new password", accountsNow.Add(accounts.ResetLifetime))
	require.Equal(t, accounts.LinkExpired, linkReason(err))

	require.NoError(t, b.Store.Accounts.RequestPasswordReset(b.Ctx, "forgetful@acme.test", "192.0.2.1", accountsNow.Add(time.Minute)))
	other := b.mailJob(t, accounts.EmailReset, accountsNow.Add(time.Minute))
	require.NoError(t, b.Store.Accounts.RequestPasswordReset(b.Ctx, "forgetful@acme.test", "192.0.2.1", accountsNow.Add(2*time.Minute)))
	token = b.mailJob(t, accounts.EmailReset, accountsNow.Add(2*time.Minute))
	got, err := b.Store.Accounts.ResetPassword(b.Ctx, token, "forgetful picks a new password", accountsNow.Add(3*time.Minute))
	require.NoError(t, err)
	require.Equal(t, u.ID, got.ID)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL`))
	_, err = b.Store.Accounts.Authenticate(b.Ctx, u.Email, "old password")
	require.Error(t, err)
	_, err = b.Store.Accounts.Authenticate(b.Ctx, u.Email, "forgetful picks a new password")
	require.NoError(t, err)
	// Single use, and the account's other open links die with it.
	_, err = b.Store.Accounts.ResetPassword(b.Ctx, token, "jumping-walrus-orbit-72", accountsNow.Add(4*time.Minute))
	require.Equal(t, accounts.LinkUsed, linkReason(err))
	_, err = b.Store.Accounts.ResetPassword(b.Ctx, other, "jumping-walrus-orbit-72", accountsNow.Add(4*time.Minute))
	require.Equal(t, accounts.LinkUsed, linkReason(err))

	// At most MaxResetsPerHour mails an hour per account, silently.
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM password_resets`))
	require.NoError(t, b.Store.Accounts.RequestPasswordReset(b.Ctx, "forgetful@acme.test", "198.51.100.7", accountsNow.Add(5*time.Minute)))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM password_resets`))
	require.NoError(t, b.Store.Accounts.RequestPasswordReset(b.Ctx, "forgetful@acme.test", "198.51.100.7", accountsNow.Add(61*time.Minute)))
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM password_resets`))
}

func TestChangePasswordNeedsTheCurrentOne(t *testing.T) {
	b := setup(t)
	u, err := b.Store.Accounts.UpsertUser(b.Ctx, "me@acme.test", "current", false)
	require.NoError(t, err)
	_, err = b.Store.DB.Exec(b.Ctx, `INSERT INTO sessions (id, user_id) VALUES ('s1', $1)`, u.ID)
	require.NoError(t, err)
	actor := audit.Actor{UserID: u.ID, Email: u.Email}
	err = b.Store.Accounts.ChangePassword(b.Ctx, actor, "wrong", "sunny-meadow-lamp-93")
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL`))
	require.NoError(t, b.Store.Accounts.ChangePassword(b.Ctx, actor, "current", "sunny-meadow-lamp-93"))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL`))
	_, err = b.Store.Accounts.Authenticate(b.Ctx, u.Email, "sunny-meadow-lamp-93")
	require.NoError(t, err)
	name, err := b.Store.Accounts.SetName(b.Ctx, actor, "  Me Myself ")
	require.NoError(t, err)
	require.Equal(t, "Me Myself", name)
	_, err = b.Store.Accounts.SetName(b.Ctx, actor, "  ")
	require.Equal(t, apperr.Invalid, apperr.Code(err))
}

func TestProvisionOrgWithInvite(t *testing.T) {
	b := setup(t)
	staff := audit.Actor{UserID: 0, Email: "staff@fieldbrief.test"}
	before := b.count(t, `SELECT count(*) FROM audit_log`)
	_, _, err := b.Store.Accounts.ProvisionOrgWithInvite(b.Ctx, staff, "acme", "Again", "", "first@new.test", accountsNow)
	require.Equal(t, "slug", fieldOf(err))
	_, _, err = b.Store.Accounts.ProvisionOrgWithInvite(b.Ctx, staff, "newco", "New Co", "", "not an email", accountsNow)
	require.Equal(t, "admin_email", fieldOf(err))
	_, _, err = b.Store.Accounts.ProvisionOrgWithInvite(b.Ctx, staff, "Bad Slug", "New Co", "", "first@new.test", accountsNow)
	require.Equal(t, "slug", fieldOf(err))
	require.Equal(t, before, b.count(t, `SELECT count(*) FROM audit_log`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM invites`))

	org, inv, err := b.Store.Accounts.ProvisionOrgWithInvite(b.Ctx, staff, "newco", "New Co", "", "first@new.test", accountsNow)
	require.NoError(t, err)
	require.Equal(t, org.ID, inv.OrgID)
	require.Equal(t, tenants.RoleAdmin, inv.Role)
	token := b.mailJob(t, accounts.EmailInvite, accountsNow)
	u, err := b.Store.Accounts.AcceptInviteNewAccount(b.Ctx, token, "First Admin", "first admin of the new org", accountsNow)
	require.NoError(t, err)
	m, err := b.Store.Tenants.MembershipBySlug(b.Ctx, u.ID, "newco")
	require.NoError(t, err)
	require.True(t, m.IsAdmin())
}

func fieldOf(err error) string {
	var e *apperr.Error
	if errors.As(err, &e) {
		return e.FieldName()
	}
	return ""
}
