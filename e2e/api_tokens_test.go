package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// An admin creates an API token from the settings (htmx), sees it once,
// the token works against the API, and revoking it (after the confirmation)
// refuses the token's next request.
func TestAdminCreatesAndRevokesAnAPIToken(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)

	admin.open(settingsPath)
	if status := admin.follow(`#api-tokens-link`); status != 200 {
		t.Fatalf("the API tokens page answered %d", status)
	}
	admin.watchHTMX()
	admin.typeInto(`#name`, "Dispatch sync")
	admin.click(`#create-token-button`)
	token := strings.TrimSpace(admin.waitText(`#api-token-value`, "fb_"))
	if p := admin.path(); p != "/orgs/acme/settings/api-tokens" {
		t.Errorf("creating left the page for %s; htmx should answer in place", p)
	}
	admin.waitText(`#api-token-list`, "Dispatch sync", token[:11], "never")
	admin.screenshot("api-tokens-created")

	call := func() int {
		t.Helper()
		req, err := http.NewRequestWithContext(e.ctx, http.MethodGet, e.url+"/api/v1/technicians", nil)
		e.must("build request", err)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		e.must("call the API", err)
		res.Body.Close()
		return res.StatusCode
	}
	if got := call(); got != http.StatusOK {
		t.Fatalf("the new token got %d from the API, want 200", got)
	}

	// hx-confirm asks the browser; say yes as a person would.
	if _, err := eval[bool](admin, `(window.confirm = () => true, true)`); err != nil {
		t.Fatalf("stub confirm: %v", err)
	}
	admin.click(`#api-token-list button.danger`)
	admin.waitText(`#api-tokens .notice`, "Revoked")
	admin.waitText(`#api-token-list`, "Revoked")
	if admin.exists(`#api-token-value`) {
		t.Error("the token is still shown after it was revoked")
	}
	if got := call(); got != http.StatusUnauthorized {
		t.Errorf("the revoked token got %d from the API, want 401", got)
	}
}
