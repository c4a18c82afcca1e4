package e2e

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
	"fieldbrief/internal/worker"
)

// sendAccountMail runs a real worker until every account email job has
// run, with links to this test's server, and returns the path of the link
// in the newest email to rcpt, caught by an SMTP sink: the outbox's copy
// withholds the link's token (accounts.WithheldToken).
func (e *env) sendAccountMail(rcpt string) string {
	e.t.Helper()
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	sink := transporttest.NewSMTPServer(e.t)
	sender, err := delivery.NewSender(e.db, transport.Settings{SMTPURL: sink.URL, BaseURL: e.url}, log)
	e.must("sender", err)
	w := &worker.Worker{DB: e.db, Log: log, Sender: sender}
	e.must("start the worker", w.Start(e.ctx))
	deadline := time.Now().Add(stepTimeout)
	for {
		var pending int
		e.must("count account email jobs", e.db.QueryRow(e.ctx,
			`SELECT count(*) FROM river_job WHERE kind = 'send_account_email' AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&pending))
		if pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.must("stop the worker", w.Stop(e.ctx))
	var body string
	for _, m := range sink.Messages() {
		if strings.Join(m.To, ",") == rcpt {
			body, _, err = m.Bodies()
			e.must("read the email to "+rcpt, err)
		}
	}
	link := regexp.MustCompile(regexp.QuoteMeta(e.url) + `(/(invites|password/reset)/[A-Z0-9]+)`).FindStringSubmatch(body)
	if link == nil {
		e.t.Fatalf("no link to %s in the email to %s:\n%s", e.url, rcpt, body)
	}
	return link[1]
}

// An admin invites someone from the members page; the invitee follows the
// emailed link, sets a name and password, lands in the org, signs out and
// signs in again with that password.
func TestInviteAcceptSignIn(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open("/orgs/acme/members")
	admin.typeInto("#invite-email", "nia@acme.test")
	admin.setValue("#invite-role", "member")
	admin.submit("#invite-button")
	admin.waitText("#members-notice", "Invite sent")
	admin.waitText("#invite-list", "nia@acme.test")

	link := e.sendAccountMail("nia@acme.test")
	nia := e.newSession("invitee")
	if status := nia.open(link); status != 200 {
		t.Fatalf("the invite link answered %d", status)
	}
	nia.waitText("main h1", "Join Acme Field Services")
	nia.typeInto("#name", "Nia Okafor")
	nia.typeInto("#password", "nia's own password")
	nia.submit("#accept-button")
	if p := nia.path(); p != "/orgs/acme/briefings" {
		t.Fatalf("after accepting, the invitee is at %s, want the org's briefings", p)
	}
	nia.submit(`form.signout button[type="submit"]`)
	nia.login(account{"nia@acme.test", "nia's own password"})
	if p := nia.path(); p != "/orgs/acme/briefings" {
		t.Errorf("signed in again, the invitee is at %s", p)
	}
	// The link was single-use.
	if status := nia.open(link); status != 410 {
		t.Errorf("the used link answered %d, want 410", status)
	}
	nia.waitText("#link-problem", "accepted already")

	admin.open("/orgs/acme/members")
	admin.waitText("#member-list", "Nia Okafor", "nia@acme.test")
	if admin.exists("#invite-list") {
		t.Errorf("the accepted invite is still listed as pending: %s", admin.text("#invite-list"))
	}
}

// Forgot password: the link arrives by email, sets a new password, signs
// the account out everywhere, and the new password signs in.
func TestPasswordReset(t *testing.T) {
	e := newEnv(t)
	e.seed()
	old := e.newSession("old browser")
	old.login(memberA)

	s := e.newSession("member")
	s.open("/login")
	s.follow("#forgot-link")
	s.typeInto("#email", memberA.Email)
	s.submit("#forgot-button")
	s.waitText("#forgot-sent", "If "+memberA.Email+" has a fieldbrief account")

	link := e.sendAccountMail(memberA.Email)
	s.open(link)
	s.typeInto("#password", "a brand new password")
	s.submit("#reset-button")
	if p := s.path(); p != "/login" {
		t.Fatalf("after the reset the page is %s, want /login", p)
	}
	s.waitText("#login-notice", "signed out everywhere")

	old.open("/orgs/acme/briefings")
	if p := old.path(); p != "/login" {
		t.Errorf("the session started before the reset still works: at %s", p)
	}
	s.login(account{memberA.Email, "a brand new password"})
	if status := s.open(link); status != 410 {
		t.Errorf("the used reset link answered %d, want 410", status)
	}
}

// Staff create an org in the console; its first admin gets the invite and
// joins as an admin.
func TestStaffCreatesAnOrg(t *testing.T) {
	e := newEnv(t)
	e.seed()
	st := e.newSession("staff")
	st.login(staff)
	st.open("/")
	st.follow(`a[href="/staff/orgs/new"]`)
	st.typeInto("#slug", "acme")
	st.typeInto("#name", "Taken Slug")
	st.typeInto("#admin_email", "first@newco.test")
	if status := st.submit("#create-org"); status != 422 {
		t.Errorf("a taken slug answered %d, want 422", status)
	}
	st.waitText("#slug-error", "taken")
	st.typeInto("#slug", "newco")
	st.typeInto("#name", "New Co")
	st.submit("#create-org")
	st.waitText("#new-org-notice", "Created New Co")

	link := e.sendAccountMail("first@newco.test")
	first := e.newSession("first admin")
	first.open(link)
	first.waitText("main", "Join New Co", "as an admin")
	first.typeInto("#name", "Fay First")
	first.typeInto("#password", "first admin password")
	first.submit("#accept-button")
	if p := first.path(); p != "/orgs/newco/briefings" {
		t.Fatalf("the first admin is at %s, want /orgs/newco/briefings", p)
	}
	first.waitText("nav.nav", "Settings", "Members")
}

// The org switcher marks the current org and closes with Escape.
func TestOrgSwitcherEscape(t *testing.T) {
	e := newEnv(t)
	e.seed()
	u, err := e.store.Accounts.UpsertUser(e.ctx, "two@orgs.test", password, false)
	e.must("user", err)
	e.must("member of A", e.store.Tenants.AddMember(e.ctx, e.orgA.ID, u.ID, "member"))
	e.must("member of B", e.store.Tenants.AddMember(e.ctx, e.orgB.ID, u.ID, "member"))
	s := e.newSession("two orgs")
	s.login(account{"two@orgs.test", password})
	s.open("/orgs/globex/briefings")
	s.click("details.switcher summary")
	s.waitJS("the switcher opens", `document.querySelector("details.switcher").open`)
	current := s.text(`details.switcher a[aria-current="true"]`)
	if !strings.Contains(current, "Globex") {
		t.Errorf("the switcher marks %q as current, want Globex", current)
	}
	s.do("press Escape", chromedp.KeyEvent(kb.Escape))
	s.waitJS("Escape closes the switcher", `!document.querySelector("details.switcher").open`)
	if focused, _ := eval[bool](s, `document.activeElement === document.querySelector("details.switcher summary")`); !focused {
		t.Errorf("after Escape the focus is not on the switcher's summary")
	}
}
