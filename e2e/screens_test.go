package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/demo"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/tenants"
)

// The screenshot tours visit the main pages on the demo data and save a
// screenshot of each (some at phone width too), for people to look at the
// layout. They check only that each page is the page it should be.

// Signed out, and an org admin's pages: briefings, a ready and a failed
// briefing, settings.
func TestScreenshotsOfOrgPages(t *testing.T) {
	e, sum, _, today := demoEnv(t)
	admin, _, _, slug := demoAccounts(t, sum)

	// Signed out.
	anon := e.newSession("anonymous")
	if status := anon.open("/orgs/" + slug + "/briefings"); status != 200 || anon.path() != "/login" {
		t.Errorf("signed out, the briefings page should send to /login; got %d at %s", status, anon.path())
	}
	anon.waitText("main", "Sign in")
	anon.screenshot("01-login")
	anon.do("fill in a wrong password",
		chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), admin.Email),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), "not the password"),
	)
	anon.submit(`form:has(input[name="password"]) [type="submit"]`)
	anon.waitText(`#login-error`)
	if v := anon.value(`input[name="email"]`); v != admin.Email {
		t.Errorf("the login form lost the email: %q", v)
	}
	if v := anon.value(`input[name="password"]`); v != "" {
		t.Errorf("the login form echoed the password back")
	}
	anon.screenshot("01b-login-error")

	// An org admin: briefings, one briefing, settings.
	a := e.newSession("admin")
	a.login(admin)
	a.open("/orgs/" + slug + "/briefings")
	list := a.waitText("main", "Briefings", "Last two weeks")
	// The dates are in the reader's words ("Thu, Nov 26"); the row keeps the ISO date.
	a.waitText(`tr[data-date="`+today.Date.String()+`"]`, "ready")
	if !strings.Contains(list, "ready") || !strings.Contains(list, "failed") {
		t.Errorf("the briefings list should show today's ready and yesterday's failed briefing:\n%s", list)
	}
	a.screenshot("02-briefings")
	a.follow(`tr[data-date="` + today.Date.String() + `"] a[href$="/briefings/` + today.Date.String() + `"]`)
	a.waitText("main", "Briefing for "+locale.Default().LongDate(today.Date.Time()), "Technicians")
	a.screenshot("03-briefing")
	a.open("/orgs/" + slug + "/briefings/" + today.Date.AddDays(-1).String())
	a.waitText("main", "failed")
	a.screenshot("03b-briefing-failed")
	a.open("/orgs/" + slug + "/settings/fieldforce")
	a.waitText(previewBox, "UTC")
	a.screenshot("04-settings")

	// At phone width.
	a.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	a.open("/orgs/" + slug + "/briefings/" + today.Date.String())
	a.waitText("main", "Technicians")
	a.screenshot("08-phone-briefing")
	a.open("/orgs/" + slug + "/settings/fieldforce")
	a.waitText(previewBox, "UTC")
	a.screenshot("09-phone-settings")
	a.open("/orgs/" + slug + "/briefings")
	a.waitText("main", "Briefings")
	a.screenshot("10-phone-briefings")
}

// The staff console and the start page of someone in several orgs.
func TestScreenshotsOfStaffAndHome(t *testing.T) {
	e, sum, org, _ := demoEnv(t)
	_, multi, staffAcc, _ := demoAccounts(t, sum)

	// Staff console.
	s := e.newSession("staff")
	s.login(staffAcc)
	s.open("/staff/flags")
	s.waitText("main", "fieldforce.briefing", org.Name)
	s.screenshot("05-staff-flags")
	s.open("/staff/audit")
	s.waitText(`table.audit`, "fieldforce.config.update")
	s.screenshot("06-staff-audit")

	// Someone in several orgs: the start page and the org switcher.
	m := e.newSession("multi-org")
	m.login(multi)
	m.open("/")
	m.waitText("main", "Your orgs")
	m.screenshot("07-home")
	m.open(m.firstOrgLink())
	m.click(`details.switcher summary`)
	m.waitJS("the switcher opens", `document.querySelector("details.switcher").open`)
	m.screenshot("07b-org-switcher")
}

// demoEnv is a test environment with the demo data, today's briefing of the
// first demo admin's org generated and yesterday's failed.
func demoEnv(t *testing.T) (*env, demo.Summary, tenants.Org, briefing.Briefing) {
	t.Helper()
	e := newEnv(t)
	sum, org, today := e.seedDemo()
	return e, sum, org, today
}

// seedDemo seeds the demo data, generates today's briefing of the first
// demo admin's org and records yesterday's as failed.
func (e *env) seedDemo() (demo.Summary, tenants.Org, briefing.Briefing) {
	e.t.Helper()
	sum, err := demo.Seed(e.ctx, e.store.Accounts, time.Now())
	e.must("seed the demo data", err)
	e.trace("demo seeded")
	_, _, _, slug := demoAccounts(e.t, sum)
	org, err := e.store.Tenants.OrgBySlug(e.ctx, slug)
	e.must("find demo org "+slug, err)
	today := e.generateBriefing(org)
	e.failedBriefing(org, today.Date.Time().AddDate(0, 0, -1), today.Timezone)
	e.trace("briefings made")
	return sum, org, today
}

// demoAccounts picks from the demo: an admin of one org (and that org), a
// person in several orgs, and staff.
func demoAccounts(t *testing.T, sum demo.Summary) (admin, multi, staffAcc account, slug string) {
	t.Helper()
	for _, u := range sum.Users {
		acc := account{u.Email, sum.Password}
		switch {
		case u.Staff:
			staffAcc = acc
		case len(u.Roles) > 1:
			multi = acc
		case len(u.Roles) == 1 && strings.HasPrefix(u.Roles[0], "admin of ") && admin.Email == "":
			admin, slug = acc, strings.TrimPrefix(u.Roles[0], "admin of ")
		}
	}
	if admin.Email == "" || multi.Email == "" || staffAcc.Email == "" {
		t.Fatalf("the demo data lacks an admin, a person in several orgs or staff: %+v", sum.Users)
	}
	if !slices.ContainsFunc(sum.Orgs, func(o demo.OrgSummary) bool { return o.Slug == slug }) {
		t.Fatalf("demo admin %s is admin of %q, which the demo did not seed", admin.Email, slug)
	}
	return admin, multi, staffAcc, slug
}

// failedBriefing records a failed briefing for a date with its job, as the
// worker leaves them after the last retry. It replaces the briefing the
// demo seed requested for that date, if any (the seed backfills yesterday on
// the org's scheduled days).
func (e *env) failedBriefing(org tenants.Org, date time.Time, zone string) {
	e.t.Helper()
	_, err := e.db.Exec(e.ctx, `DELETE FROM ff_briefings WHERE org_id = $1 AND briefing_date = $2`, org.ID, date)
	e.must("clear the date for a failed briefing", err)
	_, err = e.db.Exec(e.ctx, `
		WITH b AS (
		    INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, status, last_error, requested_revision)
		    VALUES ($1, $2, $3, $4, $4, 'failed', $5, 1)
		    RETURNING id, org_id, fired_at
		)
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, attempt, trigger, started_at, finished_at,
		                              outcome, error, worker)
		SELECT org_id, id, 1, 5, 'schedule', fired_at + interval '25 minutes', fired_at + interval '31 minutes',
		       'failed', $5, 'e2e-worker:1' FROM b`,
		org.ID, date, zone, date.Add(12*time.Hour), "snapshot query timed out (seeded by the e2e test)")
	e.must("insert a failed briefing", err)
}

// firstOrgLink is the path of the first org on the start page.
func (s *session) firstOrgLink() string {
	s.t.Helper()
	href, err := eval[string](s, `document.querySelector("main a[href^='/orgs/']").getAttribute("href")`)
	if err != nil {
		s.t.Fatalf("%s: find an org link on the start page: %v", s.name, err)
	}
	return href
}
