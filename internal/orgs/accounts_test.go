package orgs_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/orgs"
)

var accountsNow = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// mailJob runs what the worker's job does for the newest account email job
// of that kind, at now: mints the link's token and stores its hash. It
// returns the token, or "" when the email is no longer wanted.
func (b bundle) mailJob(t *testing.T, what string, now time.Time) string {
	t.Helper()
	var a orgs.SendAccountEmailArgs
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `
		SELECT args->>'what', (args->>'id')::bigint, coalesce((args->>'org_id')::bigint, 0), coalesce((args->>'send')::int, 0)
		  FROM river_job WHERE kind = 'send_account_email' AND args->>'what' = $1 ORDER BY id DESC LIMIT 1`, what).
		Scan(&a.What, &a.ID, &a.OrgID, &a.Send))
	return b.runMail(t, a, now)
}

func (b bundle) runMail(t *testing.T, a orgs.SendAccountEmailArgs, now time.Time) string {
	t.Helper()
	var token string
	err := pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		m, err := orgs.PrepareAccountEmail(b.ctx, tx, a, now)
		token = m.Token
		return err
	})
	if errors.Is(err, orgs.ErrEmailNotWanted) {
		return ""
	}
	require.NoError(t, err)
	require.NotEmpty(t, token)
	return token
}

func (b bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, sql, args...).Scan(&n))
	return n
}

func linkReason(err error) string {
	var le *orgs.LinkError
	if errors.As(err, &le) {
		return le.Reason
	}
	return ""
}

func (b bundle) admin(t *testing.T, org orgs.Org, email string) (orgs.User, orgs.Actor) {
	t.Helper()
	u, err := b.store.UpsertUser(b.ctx, email, "secret", false)
	require.NoError(t, err)
	require.NoError(t, b.store.AddMember(b.ctx, org.ID, u.ID, orgs.RoleAdmin))
	return u, orgs.Actor{UserID: u.ID, Email: u.Email}
}

func TestInviteIsSingleUseAndStoresOnlyAHash(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.acme, "boss@acme.test")
	inv, err := b.store.CreateInvite(b.ctx, actor, b.acme.ID, " New.Person@acme.test ", orgs.RoleMember, accountsNow)
	require.NoError(t, err)
	require.Equal(t, "New.Person@acme.test", inv.Email)
	require.True(t, accountsNow.Add(orgs.InviteLifetime).Equal(inv.ExpiresAt), inv.ExpiresAt)
	// The job went in with the invite; no token exists until it runs.
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'send_account_email'`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM invites WHERE token_hash IS NOT NULL`))

	token := b.mailJob(t, orgs.EmailInvite, accountsNow.Add(time.Second))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM invites i WHERE position($1 in i::text) > 0`, token))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM river_job j WHERE position($1 in j::text) > 0`, token))

	link, err := b.store.InviteByToken(b.ctx, token, accountsNow.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, link.HasAccount)
	require.Equal(t, "Acme Plumbing", link.OrgName)

	u, err := b.store.AcceptInviteNewAccount(b.ctx, token, "  Nia Person ", "a new password", accountsNow.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, "Nia Person", u.Name)
	m, err := b.store.MembershipBySlug(b.ctx, u.ID, "acme")
	require.NoError(t, err)
	require.Equal(t, orgs.RoleMember, m.Role)
	_, err = b.store.Authenticate(b.ctx, "new.person@acme.test", "a new password")
	require.NoError(t, err)

	// Used: a second accept, either way, is refused and changes nothing.
	_, err = b.store.AcceptInviteNewAccount(b.ctx, token, "Someone", "other", accountsNow.Add(2*time.Minute))
	require.Equal(t, orgs.LinkUsed, linkReason(err))
	require.Equal(t, orgs.LinkUsed, linkReason(b.store.AcceptInvite(b.ctx, token, u, accountsNow.Add(2*time.Minute))))
	require.Equal(t, orgs.LinkInvalid, linkReason(b.store.AcceptInvite(b.ctx, "NOTATOKEN", u, accountsNow)))

	var actions []string
	rows, err := b.store.DB.Query(b.ctx, `SELECT action FROM audit_log WHERE org_id = $1 OR action = 'user.create' ORDER BY id`, b.acme.ID)
	require.NoError(t, err)
	actions, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"invite.create", "user.create", "invite.accept", "membership.set"}, actions)
}

func TestInviteExpires(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.acme, "boss@acme.test")
	_, err := b.store.CreateInvite(b.ctx, actor, b.acme.ID, "late@acme.test", orgs.RoleAdmin, accountsNow)
	require.NoError(t, err)
	token := b.mailJob(t, orgs.EmailInvite, accountsNow)
	end := accountsNow.Add(orgs.InviteLifetime)
	_, err = b.store.InviteByToken(b.ctx, token, end.Add(-time.Second))
	require.NoError(t, err)
	_, err = b.store.AcceptInviteNewAccount(b.ctx, token, "Late", "pw", end)
	require.Equal(t, orgs.LinkExpired, linkReason(err))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM users WHERE email = 'late@acme.test'`))
	// A job that runs after the end sends nothing.
	var a orgs.SendAccountEmailArgs
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT id, org_id, sends FROM invites`).Scan(&a.ID, &a.OrgID, &a.Send))
	a.What = orgs.EmailInvite
	require.Empty(t, b.runMail(t, a, end))
	// An expired invite gives way to a new one for the same address.
	_, err = b.store.CreateInvite(b.ctx, actor, b.acme.ID, "late@acme.test", orgs.RoleAdmin, end)
	require.NoError(t, err)
}

func TestInviteRules(t *testing.T) {
	b := setup(t)
	boss, actor := b.admin(t, b.acme, "boss@acme.test")
	_ = boss
	for _, c := range []struct{ email, role string }{{"not-an-email", "member"}, {"x@acme.test", "owner"}, {"BOSS@acme.test", "member"}} {
		_, err := b.store.CreateInvite(b.ctx, actor, b.acme.ID, c.email, orgs.Role(c.role), accountsNow)
		require.Equal(t, apperr.Invalid, apperr.Code(err), c.email)
	}
	_, err := b.store.CreateInvite(b.ctx, actor, b.acme.ID, "twice@acme.test", orgs.RoleMember, accountsNow)
	require.NoError(t, err)
	_, err = b.store.CreateInvite(b.ctx, actor, b.acme.ID, "Twice@acme.test", orgs.RoleMember, accountsNow)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	// The same address in another org is another invite.
	_, otherActor := b.admin(t, b.other, "boss@globex.test")
	_, err = b.store.CreateInvite(b.ctx, otherActor, b.other.ID, "twice@acme.test", orgs.RoleMember, accountsNow)
	require.NoError(t, err)

	for i := 1; i < orgs.MaxInvitesPerDay; i++ {
		_, err := b.store.CreateInvite(b.ctx, actor, b.acme.ID, "p"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@acme.test", orgs.RoleMember, accountsNow)
		require.NoError(t, err)
	}
	_, err = b.store.CreateInvite(b.ctx, actor, b.acme.ID, "one-more@acme.test", orgs.RoleMember, accountsNow)
	require.Equal(t, apperr.TooMany, apperr.Code(err))
	_, err = b.store.CreateInvite(b.ctx, actor, b.acme.ID, "one-more@acme.test", orgs.RoleMember, accountsNow.Add(25*time.Hour))
	require.NoError(t, err)
}

func TestResendReplacesTheLinkAndRevokeEndsIt(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.acme, "boss@acme.test")
	inv, err := b.store.CreateInvite(b.ctx, actor, b.acme.ID, "again@acme.test", orgs.RoleMember, accountsNow)
	require.NoError(t, err)
	first := b.mailJob(t, orgs.EmailInvite, accountsNow)

	_, err = b.store.ResendInvite(b.ctx, actor, b.acme.ID, inv.ID, accountsNow.Add(30*time.Second))
	require.Equal(t, apperr.TooMany, apperr.Code(err), "a minute between sends")
	again, err := b.store.ResendInvite(b.ctx, actor, b.acme.ID, inv.ID, accountsNow.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 2, again.Sends)
	_, err = b.store.InviteByToken(b.ctx, first, accountsNow.Add(time.Minute))
	require.Equal(t, orgs.LinkInvalid, linkReason(err), "a resend retires the old link")
	// The first job, run late, sends nothing; the second does.
	require.Empty(t, b.runMail(t, orgs.SendAccountEmailArgs{What: orgs.EmailInvite, ID: inv.ID, OrgID: b.acme.ID, Send: 1}, accountsNow.Add(time.Minute)))
	second := b.mailJob(t, orgs.EmailInvite, accountsNow.Add(time.Minute))

	// Another org's admin cannot touch it: NotFound, as if it did not exist.
	_, otherActor := b.admin(t, b.other, "boss@globex.test")
	_, err = b.store.RevokeInvite(b.ctx, otherActor, b.other.ID, inv.ID, accountsNow)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.ResendInvite(b.ctx, otherActor, b.other.ID, inv.ID, accountsNow.Add(time.Hour))
	require.Equal(t, apperr.NotFound, apperr.Code(err))

	_, err = b.store.RevokeInvite(b.ctx, actor, b.acme.ID, inv.ID, accountsNow.Add(2*time.Minute))
	require.NoError(t, err)
	_, err = b.store.InviteByToken(b.ctx, second, accountsNow.Add(2*time.Minute))
	require.Equal(t, orgs.LinkRevoked, linkReason(err))
	_, err = b.store.ResendInvite(b.ctx, actor, b.acme.ID, inv.ID, accountsNow.Add(time.Hour))
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM audit_log WHERE action IN ('invite.create', 'invite.resend', 'invite.revoke')`))
}

func TestExistingAccountAcceptsAndKeepsItsRole(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.acme, "boss@acme.test")
	u, err := b.store.UpsertUser(b.ctx, "has@account.test", "pw", false)
	require.NoError(t, err)
	_, err = b.store.CreateInvite(b.ctx, actor, b.acme.ID, "HAS@account.test", orgs.RoleAdmin, accountsNow)
	require.NoError(t, err)
	token := b.mailJob(t, orgs.EmailInvite, accountsNow)
	link, err := b.store.InviteByToken(b.ctx, token, accountsNow)
	require.NoError(t, err)
	require.True(t, link.HasAccount)
	_, err = b.store.AcceptInviteNewAccount(b.ctx, token, "Dup", "pw2", accountsNow)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	stranger, err := b.store.UpsertUser(b.ctx, "stranger@x.test", "pw", false)
	require.NoError(t, err)
	require.Equal(t, apperr.Forbidden, apperr.Code(b.store.AcceptInvite(b.ctx, token, stranger, accountsNow)))
	require.NoError(t, b.store.AcceptInvite(b.ctx, token, u, accountsNow))
	m, err := b.store.MembershipBySlug(b.ctx, u.ID, "acme")
	require.NoError(t, err)
	require.Equal(t, orgs.RoleAdmin, m.Role)
}

func TestAnOrgNeverLosesItsLastAdmin(t *testing.T) {
	b := setup(t)
	first, actor := b.admin(t, b.acme, "first@acme.test")
	_, err := b.store.SetMemberRole(b.ctx, actor, b.acme.ID, first.ID, orgs.RoleMember)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	_, err = b.store.RemoveMember(b.ctx, actor, b.acme.ID, first.ID)
	require.Equal(t, apperr.Conflict, apperr.Code(err))

	// Another org's people are not found here.
	outsider, _ := b.admin(t, b.other, "boss@globex.test")
	_, err = b.store.SetMemberRole(b.ctx, actor, b.acme.ID, outsider.ID, orgs.RoleMember)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.RemoveMember(b.ctx, actor, b.acme.ID, outsider.ID)
	require.Equal(t, apperr.NotFound, apperr.Code(err))

	// Two admins demote each other (or remove each other) at once, many
	// times over: exactly one change succeeds each round.
	for round := range 10 {
		second, _ := b.admin(t, b.acme, "second@acme.test")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, target := range []int64{first.ID, second.ID} {
			wg.Go(func() {
				<-start
				if round%2 == 0 {
					_, errs[i] = b.store.SetMemberRole(b.ctx, actor, b.acme.ID, target, orgs.RoleMember)
				} else {
					_, errs[i] = b.store.RemoveMember(b.ctx, actor, b.acme.ID, target)
				}
			})
		}
		close(start)
		wg.Wait()
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'admin'`, b.acme.ID), "round %d: %v", round, errs)
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
		require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'admin'`, b.acme.ID).Scan(&admin))
		require.NoError(t, b.store.AddMember(b.ctx, b.acme.ID, first.ID, orgs.RoleAdmin))
		_, err := b.store.DB.Exec(b.ctx, `DELETE FROM memberships WHERE org_id = $1 AND user_id = $2`, b.acme.ID, second.ID)
		require.NoError(t, err)
	}
}

func TestRemoveMemberRevokesSessionsAndAudits(t *testing.T) {
	b := setup(t)
	_, actor := b.admin(t, b.acme, "boss@acme.test")
	m, err := b.store.UpsertUser(b.ctx, "leaving@acme.test", "pw", false)
	require.NoError(t, err)
	require.NoError(t, b.store.AddMember(b.ctx, b.acme.ID, m.ID, orgs.RoleMember))
	_, err = b.store.DB.Exec(b.ctx, `INSERT INTO sessions (id, user_id) VALUES ('s1', $1), ('s2', $1)`, m.ID)
	require.NoError(t, err)
	changed, err := b.store.SetMemberRole(b.ctx, actor, b.acme.ID, m.ID, orgs.RoleAdmin)
	require.NoError(t, err)
	require.Equal(t, orgs.RoleAdmin, changed.Role)
	_, err = b.store.RemoveMember(b.ctx, actor, b.acme.ID, m.ID)
	require.NoError(t, err)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM sessions WHERE user_id = $1 AND revoked_at IS NULL`, m.ID))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM memberships WHERE user_id = $1`, m.ID))
	var oldV, newV string
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT old_value::text, new_value::text FROM audit_log WHERE action = 'membership.set' AND org_id = $1`, b.acme.ID).Scan(&oldV, &newV))
	require.JSONEq(t, `{"role":"member"}`, oldV)
	require.JSONEq(t, `{"role":"admin"}`, newV)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM audit_log WHERE action = 'membership.remove' AND actor_email = 'boss@acme.test' AND target = 'leaving@acme.test'`))
}

func TestPasswordReset(t *testing.T) {
	b := setup(t)
	u, err := b.store.UpsertUser(b.ctx, "forgetful@acme.test", "old password", false)
	require.NoError(t, err)
	_, err = b.store.DB.Exec(b.ctx, `INSERT INTO sessions (id, user_id) VALUES ('s1', $1)`, u.ID)
	require.NoError(t, err)

	// An unknown address is not an error, and nothing is recorded.
	require.NoError(t, b.store.RequestPasswordReset(b.ctx, "nobody@acme.test", "192.0.2.1", accountsNow))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM password_resets`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM river_job`))

	require.NoError(t, b.store.RequestPasswordReset(b.ctx, "FORGETFUL@acme.test", "192.0.2.1", accountsNow))
	token := b.mailJob(t, orgs.EmailReset, accountsNow)
	_, err = b.store.CheckResetToken(b.ctx, token, accountsNow.Add(orgs.ResetLifetime))
	require.Equal(t, orgs.LinkExpired, linkReason(err))
	_, err = b.store.ResetPassword(b.ctx, token, "new password", accountsNow.Add(orgs.ResetLifetime))
	require.Equal(t, orgs.LinkExpired, linkReason(err))

	require.NoError(t, b.store.RequestPasswordReset(b.ctx, "forgetful@acme.test", "192.0.2.1", accountsNow.Add(time.Minute)))
	other := b.mailJob(t, orgs.EmailReset, accountsNow.Add(time.Minute))
	require.NoError(t, b.store.RequestPasswordReset(b.ctx, "forgetful@acme.test", "192.0.2.1", accountsNow.Add(2*time.Minute)))
	token = b.mailJob(t, orgs.EmailReset, accountsNow.Add(2*time.Minute))
	got, err := b.store.ResetPassword(b.ctx, token, "new password", accountsNow.Add(3*time.Minute))
	require.NoError(t, err)
	require.Equal(t, u.ID, got.ID)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL`))
	_, err = b.store.Authenticate(b.ctx, u.Email, "old password")
	require.Error(t, err)
	_, err = b.store.Authenticate(b.ctx, u.Email, "new password")
	require.NoError(t, err)
	// Single use, and the account's other open links die with it.
	_, err = b.store.ResetPassword(b.ctx, token, "third", accountsNow.Add(4*time.Minute))
	require.Equal(t, orgs.LinkUsed, linkReason(err))
	_, err = b.store.ResetPassword(b.ctx, other, "third", accountsNow.Add(4*time.Minute))
	require.Equal(t, orgs.LinkUsed, linkReason(err))

	// At most MaxResetsPerHour mails an hour per account, silently.
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM password_resets`))
	require.NoError(t, b.store.RequestPasswordReset(b.ctx, "forgetful@acme.test", "198.51.100.7", accountsNow.Add(5*time.Minute)))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM password_resets`))
	require.NoError(t, b.store.RequestPasswordReset(b.ctx, "forgetful@acme.test", "198.51.100.7", accountsNow.Add(61*time.Minute)))
	require.Equal(t, 4, b.count(t, `SELECT count(*) FROM password_resets`))
}

func TestChangePasswordNeedsTheCurrentOne(t *testing.T) {
	b := setup(t)
	u, err := b.store.UpsertUser(b.ctx, "me@acme.test", "current", false)
	require.NoError(t, err)
	_, err = b.store.DB.Exec(b.ctx, `INSERT INTO sessions (id, user_id) VALUES ('s1', $1)`, u.ID)
	require.NoError(t, err)
	actor := orgs.Actor{UserID: u.ID, Email: u.Email}
	err = b.store.ChangePassword(b.ctx, actor, "wrong", "next")
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL`))
	require.NoError(t, b.store.ChangePassword(b.ctx, actor, "current", "next"))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL`))
	_, err = b.store.Authenticate(b.ctx, u.Email, "next")
	require.NoError(t, err)
	name, err := b.store.SetName(b.ctx, actor, "  Me Myself ")
	require.NoError(t, err)
	require.Equal(t, "Me Myself", name)
	_, err = b.store.SetName(b.ctx, actor, "  ")
	require.Equal(t, apperr.Invalid, apperr.Code(err))
}

func TestProvisionOrgWithInvite(t *testing.T) {
	b := setup(t)
	staff := orgs.Actor{UserID: 0, Email: "staff@fieldbrief.test"}
	before := b.count(t, `SELECT count(*) FROM audit_log`)
	_, _, err := b.store.ProvisionOrgWithInvite(b.ctx, staff, "acme", "Again", "first@new.test", accountsNow)
	require.Equal(t, "slug", fieldOf(err))
	_, _, err = b.store.ProvisionOrgWithInvite(b.ctx, staff, "newco", "New Co", "not an email", accountsNow)
	require.Equal(t, "admin_email", fieldOf(err))
	_, _, err = b.store.ProvisionOrgWithInvite(b.ctx, staff, "Bad Slug", "New Co", "first@new.test", accountsNow)
	require.Equal(t, "slug", fieldOf(err))
	require.Equal(t, before, b.count(t, `SELECT count(*) FROM audit_log`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM invites`))

	org, inv, err := b.store.ProvisionOrgWithInvite(b.ctx, staff, "newco", "New Co", "first@new.test", accountsNow)
	require.NoError(t, err)
	require.Equal(t, org.ID, inv.OrgID)
	require.Equal(t, orgs.RoleAdmin, inv.Role)
	token := b.mailJob(t, orgs.EmailInvite, accountsNow)
	u, err := b.store.AcceptInviteNewAccount(b.ctx, token, "First Admin", "pw", accountsNow)
	require.NoError(t, err)
	m, err := b.store.MembershipBySlug(b.ctx, u.ID, "newco")
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
