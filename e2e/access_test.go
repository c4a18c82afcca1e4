package e2e

import (
	"regexp"
	"strings"
	"testing"

	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
)

const briefingsPath = "/orgs/acme/briefings"

// A member reads briefings but has no way to the settings: no nav entry,
// and the URL itself answers 403. Another org's pages do not exist for them.
func TestMemberCannotReachSettings(t *testing.T) {
	e := newEnv(t)
	e.seed()
	m := e.newSession("member")
	m.login(memberA)

	if status := m.open(briefingsPath); status != 200 {
		t.Fatalf("member opening %s got %d, want 200", briefingsPath, status)
	}
	m.waitText(`nav.nav`, "Briefings")
	if m.exists(settingsNavLink) || m.exists(`a[href*="/settings/"]`) {
		t.Errorf("a member's page links to the settings:\n%s", m.text("header"))
	}

	if status := m.open(settingsPath); status != 403 {
		t.Errorf("member opening %s got %d, want 403", settingsPath, status)
	}
	page := m.text("main")
	if !strings.Contains(page, "403") {
		t.Errorf("the 403 page should say 403; it says:\n%s", page)
	}
	if m.exists(zoneInput) || m.exists(`form[action$="/settings/fieldforce"]`) {
		t.Errorf("the 403 page shows the settings form")
	}
	m.screenshot("forbidden-settings")

	// An org they are not in reads as not found, like one that does not exist.
	if status := m.open("/orgs/globex/briefings"); status != 404 {
		t.Errorf("member of acme opening globex's briefings got %d, want 404", status)
	}

	// The admin of the same org does get the nav entry: the check above is
	// about roles, not a nav that never shows it.
	a := e.newSession("admin")
	a.login(adminA)
	a.open(briefingsPath)
	a.waitText(`nav.nav`, "Settings")
	if !a.exists(settingsNavLink) {
		t.Errorf("the admin's nav has no settings link:\n%s", a.text("header"))
	}
}

// Staff switch one org's override off on /staff/flags; that org's briefings
// page then says briefings are off by the flag, and the other org's does not.
func TestStaffOrgOverrideOffShowsOnBriefings(t *testing.T) {
	e := newEnv(t)
	e.seed()
	st := e.newSession("staff")
	st.login(staff)

	st.open("/staff/flags")
	row := `#org-acme`
	st.waitText(row, "Acme Field Services", "inherit")
	st.setValue(`#state-acme`, "off")
	st.typeInto(`#org-reason-acme`, "e2e: acme asked to pause")
	st.click(row + ` button[type="submit"]`)
	saved := st.waitText(row, "Saved")
	if !regexp.MustCompile(`\boff\b`).MatchString(saved) {
		t.Errorf("the acme row should show the override off; it says: %s", saved)
	}
	if got := st.value(`#state-acme`); got != "off" {
		t.Errorf("after saving, acme's override select says %q, want off", got)
	}
	st.screenshot("staff-flags")

	_, o, err := e.store.Flags.ForOrg(e.ctx, e.orgA.ID, schedule.FlagKey)
	e.must("read acme's override", err)
	if o != flags.Off {
		t.Fatalf("stored override of acme = %s, want off", o)
	}

	// The org admin sees it on the briefings page.
	a := e.newSession("admin-acme")
	a.login(adminA)
	a.open(briefingsPath)
	state := a.waitText(`section[data-state]`)
	kind, err := eval[string](a, `document.querySelector("section[data-state]").dataset.state`)
	e.must("read the briefing state", err)
	if kind != "flag_off" {
		t.Errorf("acme's briefings state = %q, want flag_off; the page says: %s", kind, state)
	}
	if !regexp.MustCompile(`(?i)\boff\b|switched off|turned off|disabled`).MatchString(state) {
		t.Errorf("acme's briefings page should say briefings are off; it says: %s", state)
	}
	a.screenshot("briefings-flag-off")

	// Globex inherits the global switch, which is on.
	b := e.newSession("admin-globex")
	b.login(adminB)
	b.open("/orgs/globex/briefings")
	b.waitText(`section[data-state]`)
	kind, err = eval[string](b, `document.querySelector("section[data-state]").dataset.state`)
	e.must("read the briefing state", err)
	if kind == "flag_off" {
		t.Errorf("globex's briefings are off too, but only acme's override was changed")
	}
}
