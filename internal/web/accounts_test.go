package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/tenants"
)

// mailLink does what the account email job does for the newest job of
// that kind (mints the token, stores its hash) at the test clock, and
// returns the link's path.
func mailLink(t *testing.T, f *fixture, what string) string {
	t.Helper()
	ctx := context.Background()
	var a accounts.SendAccountEmailArgs
	require.NoError(t, f.db.QueryRow(ctx, `
		SELECT args->>'what', (args->>'id')::bigint, coalesce((args->>'org_id')::bigint, 0), coalesce((args->>'send')::int, 0)
		  FROM river_job WHERE kind = 'send_account_email' AND args->>'what' = $1 ORDER BY id DESC LIMIT 1`, what).
		Scan(&a.What, &a.ID, &a.OrgID, &a.Send))
	var m accounts.AccountEmail
	require.NoError(t, pgx.BeginFunc(ctx, f.db, func(tx pgx.Tx) error {
		var err error
		m, err = accounts.PrepareAccountEmail(ctx, tx, a, f.clock.Now())
		return err
	}))
	if what == accounts.EmailInvite {
		return "/invites/" + m.Token
	}
	return "/password/reset/" + m.Token
}

func TestMembersPageByRole(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	res := admin.get("/orgs/acme/members")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, f.memberA.Email)
	require.Contains(t, res.Body, `id="invite-email"`)
	require.Contains(t, res.Body, "/members/"+strconv.FormatInt(f.memberA.ID, 10)+"/remove")
	require.NotContains(t, res.Body, f.memberB.Email, "another org's people")
	// Last sign-in is recorded at sign-in and shown.
	require.Contains(t, res.Body, `datetime="`+f.clock.Now().UTC().Format(time.RFC3339)+`">Wed, Mar 4, 2026, 3:00`+"\u202f"+`PM UTC</time>`, "in UTC, in the en-US org's formats")

	for _, c := range []*client{f.as(&f.memberA), f.as(&f.staff)} {
		res := c.get("/orgs/acme/members")
		require.Equal(t, http.StatusOK, res.Code)
		require.Contains(t, res.Body, f.adminA.Email)
		require.NotContains(t, res.Body, `id="invite-email"`, "read-only for members and staff")
		require.NotContains(t, res.Body, "/remove")
	}
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get("/orgs/acme/members").Code)
}

func TestInviteAcceptSignIn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	res := admin.post("/orgs/acme/members/invite", url.Values{"email": {f.memberA.Email}, "role": {"member"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "already a member of this org")
	res = admin.post("/orgs/acme/members/invite", url.Values{"email": {"new@acme.test"}, "role": {"owner"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "Choose Member, Dispatcher or Admin")

	res = admin.post("/orgs/acme/members/invite", url.Values{"email": {"new@acme.test"}, "role": {"admin"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Contains(t, admin.get("/orgs/acme/members?notice=invited").Body, "new@acme.test")
	link := mailLink(t, f, accounts.EmailInvite)

	invitee := f.anon()
	res = invitee.get(link)
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, "Join Acme Field Services")
	res = invitee.post(link, url.Values{"name": {""}, "password": {"nia picks a long passphrase"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "Enter your name")
	res = invitee.post(link, url.Values{"name": {"Nia New"}, "password": {"nia picks a long passphrase"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Equal(t, "/orgs/acme/briefings", res.Header.Get("Location"))
	require.Contains(t, invitee.get("/orgs/acme/settings/fieldforce").Body, "Settings", "signed in, as an admin")

	// Single use.
	res = f.anon().get(link)
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "accepted already")
	// And the password works at /login.
	f.anon().login("new@acme.test", "nia picks a long passphrase")
}

func TestInviteForAnExistingAccount(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/invite", url.Values{"email": {f.adminB.Email}, "role": {"member"}}).Code)
	link := mailLink(t, f, accounts.EmailInvite)

	// Someone else signed in: told so, nothing accepted.
	res := f.as(&f.memberA).post(link, url.Values{})
	require.Equal(t, http.StatusForbidden, res.Code)
	require.Contains(t, res.Body, "This invite is for "+f.adminB.Email)

	c := f.anon()
	require.Contains(t, c.get(link).Body, "Sign in and join")
	res = c.post(link, url.Values{"password": {"wrong"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "not the password")
	res = c.post(link, url.Values{"password": {testPassword}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Equal(t, http.StatusOK, c.get("/orgs/acme/briefings").Code)
	require.Equal(t, http.StatusOK, c.get("/orgs/globex/briefings").Code, "still in their own org")
}

func TestInviteLinkPages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/invite", url.Values{"email": {"late@acme.test"}, "role": {"member"}}).Code)
	link := mailLink(t, f, accounts.EmailInvite)
	res := f.anon().get("/invites/NOTATOKEN")
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "not valid")
	f.advance(accounts.InviteLifetime)
	res = f.anon().post(link, url.Values{"name": {"Late"}, "password": {"pw"}})
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "expired")

	// A resend, then a revoke: the page says so.
	var id int64
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT id FROM invites`).Scan(&id))
	admin = f.as(&f.adminA) // the earlier session went idle
	require.Contains(t, admin.get("/orgs/acme/members").Body, "Expired")
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/invites/"+strconv.FormatInt(id, 10)+"/resend", nil).Code)
	res = admin.post("/orgs/acme/invites/"+strconv.FormatInt(id, 10)+"/resend", nil)
	require.Equal(t, http.StatusTooManyRequests, res.Code)
	require.Contains(t, res.Body, "less than a minute ago")
	link = mailLink(t, f, accounts.EmailInvite)
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/invites/"+strconv.FormatInt(id, 10)+"/revoke", nil).Code)
	res = f.anon().get(link)
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "withdrawn")
}

// TestOtherOrgsIDsAreNotFound: an admin of acme names globex's people and
// invites through acme's URLs: 404, and nothing changes.
func TestOtherOrgsIDsAreNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	adminB := f.as(&f.adminB)
	require.Equal(t, http.StatusSeeOther, adminB.post("/orgs/globex/members/invite", url.Values{"email": {"x@globex.test"}, "role": {"member"}}).Code)
	var inviteB int64
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT id FROM invites`).Scan(&inviteB))
	admin := f.as(&f.adminA)
	before := fingerprint(t, f) // after signing in, which wrote a session
	for _, path := range []string{
		"/orgs/acme/members/" + strconv.FormatInt(f.memberB.ID, 10) + "/role",
		"/orgs/acme/members/" + strconv.FormatInt(f.memberB.ID, 10) + "/remove",
		"/orgs/acme/invites/" + strconv.FormatInt(inviteB, 10) + "/resend",
		"/orgs/acme/invites/" + strconv.FormatInt(inviteB, 10) + "/revoke",
		"/orgs/acme/members/nope/remove",
	} {
		res := admin.post(path, url.Values{"role": {"admin"}})
		require.Equal(t, http.StatusNotFound, res.Code, path)
		require.NotContains(t, res.Body, f.memberB.Email)
	}
	require.Equal(t, before, fingerprint(t, f))
}

func TestLastAdminAndRemoval(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	self := strconv.FormatInt(f.adminA.ID, 10)
	res := admin.post("/orgs/acme/members/"+self+"/role", url.Values{"role": {"member"}})
	require.Equal(t, http.StatusConflict, res.Code)
	require.Contains(t, res.Body, "only admin")
	res = admin.post("/orgs/acme/members/"+self+"/remove", nil)
	require.Equal(t, http.StatusConflict, res.Code)

	member := f.as(&f.memberA)
	mid := strconv.FormatInt(f.memberA.ID, 10)
	// The remove route's access (it is left out of the route matrix).
	require.Equal(t, http.StatusSeeOther, f.anon().post("/orgs/acme/members/"+mid+"/remove", nil).Code)
	require.Equal(t, http.StatusForbidden, member.post("/orgs/acme/members/"+mid+"/remove", nil).Code)
	require.Equal(t, http.StatusForbidden, f.as(&f.staff).post("/orgs/acme/members/"+mid+"/remove", nil).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post("/orgs/acme/members/"+mid+"/remove", nil).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF("/orgs/acme/members/"+mid+"/remove", nil).Code)

	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/"+mid+"/role", url.Values{"role": {"admin"}}).Code)
	require.Contains(t, member.get("/orgs/acme/settings/fieldforce").Body, "Settings", "the new role applies at once")
	res = admin.post("/orgs/acme/members/"+mid+"/remove", nil)
	require.Equal(t, http.StatusSeeOther, res.Code)
	// Their session is gone: the next request is a sign-in.
	res = member.get("/orgs/acme/briefings")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, signInTo("/orgs/acme/briefings"), res.Header.Get("Location"))
	require.Equal(t, 1, countRows(t, f, `SELECT count(*) FROM audit_log WHERE action = 'membership.remove' AND org_id = $1`, f.orgA.ID))
}

func TestPasswordResetByEmail(t *testing.T) {
	t.Parallel()
	f := setup(t)
	other := f.as(&f.memberA) // another browser, signed in

	c := f.anon()
	require.Contains(t, c.get("/login").Body, `href="/password/forgot"`)
	ask := func(email string) response {
		return c.post("/password/forgot", url.Values{"email": {email}})
	}
	unknown, known := ask("nobody@acme.test"), ask(f.memberA.Email)
	require.Equal(t, http.StatusOK, unknown.Code)
	require.Equal(t, unknown.Code, known.Code)
	require.Equal(t, strings.ReplaceAll(unknown.Body, "nobody@acme.test", "X"), strings.ReplaceAll(known.Body, f.memberA.Email, "X"),
		"the same answer whether or not the address has an account")
	require.Equal(t, http.StatusUnprocessableEntity, ask("").Code)

	link := mailLink(t, f, accounts.EmailReset)
	res := c.get(link)
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, f.memberA.Email)
	require.Equal(t, http.StatusUnprocessableEntity, c.post(link, url.Values{"password": {""}}).Code)
	res = c.post(link, url.Values{"password": {"memberA picks a brand new password"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Equal(t, "/login?notice=password-reset", res.Header.Get("Location"))
	require.Contains(t, c.get("/login?notice=password-reset").Body, "new password is set")

	require.Equal(t, http.StatusSeeOther, other.get("/orgs/acme/briefings").Code, "every old session ended")
	require.Equal(t, http.StatusUnprocessableEntity, f.anon().post("/login", url.Values{"email": {f.memberA.Email}, "password": {testPassword}}).Code)
	f.anon().login(f.memberA.Email, "memberA picks a brand new password")
	res = c.post(link, url.Values{"password": {"again"}})
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "used already")

	// A link is good for 30 minutes.
	require.Equal(t, http.StatusOK, ask(f.adminA.Email).Code)
	link = mailLink(t, f, accounts.EmailReset)
	f.advance(accounts.ResetLifetime)
	res = c.get(link)
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "expired")
}

func TestPasswordResetIsThrottled(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	var last response
	for range 6 {
		last = c.post("/password/forgot", url.Values{"email": {"someone@acme.test"}})
	}
	require.Equal(t, http.StatusTooManyRequests, last.Code)
	require.NotEmpty(t, last.Header.Get("Retry-After"))
}

func TestProfileNameAndPassword(t *testing.T) {
	t.Parallel()
	f := setup(t)
	me, elsewhere := f.as(&f.memberA), f.as(&f.memberA)
	require.Equal(t, http.StatusOK, me.get("/profile").Code)
	res := me.post("/profile", url.Values{"name": {"  "}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Equal(t, http.StatusSeeOther, me.post("/profile", url.Values{"name": {"Mia Member"}}).Code)
	require.Contains(t, me.get("/profile").Body, `value="Mia Member"`)

	res = me.post("/profile/password", url.Values{"current_password": {"wrong"}, "new_password": {"violet-harbor-tuesday-41"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "not your current password")
	require.Equal(t, http.StatusOK, elsewhere.get("/orgs/acme/briefings").Code, "a refused change signs nobody out")

	res = me.post("/profile/password", url.Values{"current_password": {testPassword}, "new_password": {"violet-harbor-tuesday-41"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Equal(t, http.StatusOK, me.get("/orgs/acme/briefings").Code, "this browser stays signed in")
	require.Equal(t, http.StatusSeeOther, elsewhere.get("/orgs/acme/briefings").Code, "every other session ended")
	f.anon().login(f.memberA.Email, "violet-harbor-tuesday-41")
}

func TestStaffCreatesAnOrg(t *testing.T) {
	t.Parallel()
	f := setup(t)
	staff := f.as(&f.staff)
	require.Equal(t, http.StatusOK, staff.get("/staff/orgs/new").Code)
	before := fingerprint(t, f)
	for _, c := range []struct{ slug, name, email, want string }{
		{"Bad Slug", "Name", "a@b.test", "lowercase letters"},
		{"acme", "Again", "a@b.test", "is taken"},
		{"newco", "", "a@b.test", "Enter a name (at most 200 characters)."},
		{"newco", "New Co", "nope", "Enter the first admin"},
	} {
		res := staff.post("/staff/orgs", url.Values{"slug": {c.slug}, "name": {c.name}, "admin_email": {c.email}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, c.slug)
		require.Contains(t, res.Body, c.want)
	}
	require.Equal(t, before, fingerprint(t, f), "a refused form creates nothing")
	res := staff.post("/staff/orgs", url.Values{"slug": {"newco"}, "name": {"New Co"}, "admin_email": {"first@newco.test"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Contains(t, staff.get(res.Header.Get("Location")).Body, "Created New Co")
	require.Equal(t, 1, countRows(t, f, `SELECT count(*) FROM invites i JOIN orgs o ON o.id = i.org_id WHERE o.slug = 'newco' AND i.role = 'admin' AND i.email = 'first@newco.test'`))
	require.Equal(t, 1, countRows(t, f, `SELECT count(*) FROM audit_log WHERE action = 'org.create' AND actor_email = $1`, f.staff.Email))
	require.Equal(t, http.StatusForbidden, f.as(&f.adminA).get("/staff/orgs/new").Code)
}

func TestHomeWithoutAnOrg(t *testing.T) {
	t.Parallel()
	f := setup(t)
	loner := f.user("loner@nowhere.test", false)
	body := f.as(&loner).get("/").Body
	require.Contains(t, body, "You are not in an org yet")
	require.Contains(t, body, `href="/profile"`)
	require.Contains(t, body, `action="/logout"`)
	staffHome := f.as(&f.staff).get("/").Body
	require.NotContains(t, strings.ToLower(staffHome), "ask an")
	require.Contains(t, staffHome, `href="/staff/orgs/new"`)
}

func TestSwitcherMarksTheCurrentOrg(t *testing.T) {
	t.Parallel()
	f := setup(t)
	require.NoError(t, f.store.Tenants.AddMember(context.Background(), f.orgB.ID, f.memberA.ID, tenants.RoleMember))
	body := f.as(&f.memberA).get("/orgs/globex/briefings").Body
	i := strings.Index(body, `class="switcher"`)
	require.Greater(t, i, 0)
	switcher := body[i:]
	switcher = switcher[:strings.Index(switcher, "</details>")]
	require.Contains(t, switcher, `href="/orgs/globex/briefings" aria-current="true"`)
	require.NotContains(t, switcher, `href="/orgs/acme/briefings" aria-current`)
}
