package e2e

import (
	"testing"

	"fieldbrief/internal/tenants"
)

var dispatcherA = account{"dispatcher@acme.test", password}

// A dispatcher's nav has the import and no settings; the board's and the
// job's forms are theirs, the settings and API tokens answer 403, and the
// jobs search finds a job across days (docs/accounts.md "Roles",
// docs/field-data.md "Finding work").
func TestAccessDispatcher(t *testing.T) {
	e := newEnv(t)
	e.seed()
	e.addUser(dispatcherA, false, e.orgA, tenants.RoleDispatcher)
	s := e.newSession("dispatcher")
	s.login(dispatcherA)

	if status := s.open("/orgs/acme/jobs"); status != 200 {
		t.Fatalf("dispatcher opening the jobs got %d", status)
	}
	s.waitText(`nav.nav`, "Jobs")
	if !s.exists(`nav a[href="/orgs/acme/import"]`) {
		t.Errorf("a dispatcher's nav has no import link:\n%s", s.text("header"))
	}
	if s.exists(settingsNavLink) {
		t.Errorf("a dispatcher's nav links to the settings:\n%s", s.text("header"))
	}
	if !s.exists(`#add-job-title`) {
		t.Errorf("a dispatcher gets no add-job form")
	}
	for _, path := range []string{settingsPath, "/orgs/acme/settings/api-tokens"} {
		if status := s.open(path); status != 403 {
			t.Errorf("dispatcher opening %s got %d, want 403", path, status)
		}
	}
	if status := s.open("/orgs/acme/import"); status != 200 {
		t.Errorf("dispatcher opening the import got %d, want 200", status)
	}
	s.screenshot("dispatcher-import")
}
