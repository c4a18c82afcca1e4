package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fieldbrief/internal/tenants"
)

// A new org's zone is the admin's browser zone, selected, whether the
// server knew it from the cookie static/app.js sets or the picker fills it
// in (docs/timezone-picker.md, "A new org's zone"); the admin still saves.
// Then text typed and never picked ("Bombay") is taken on blur, as the one
// zone it stands for, and saved.
func TestZonePickerBrowserDefaultAndBlur(t *testing.T) {
	e := newEnv(t)
	e.seed()
	org, err := e.store.Tenants.CreateOrg(e.ctx, "initech", "Initech Repairs", time.Time{})
	e.must("create a new org", err)
	newAdmin := account{"admin@initech.test", password}
	e.addUser(newAdmin, false, org, tenants.RoleAdmin)
	path := "/orgs/initech/settings/fieldforce"

	admin := e.newSession("admin")
	admin.do("the browser in Denver", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/Denver"})
		return chromedp.Void{}, err
	})
	admin.login(newAdmin)

	// The cookie came with the sign-in page: the server fills it in.
	admin.open(path)
	admin.waitText("#zone-from-browser", "America/Denver")
	if got := admin.value(zoneInput); got != "America/Denver" {
		t.Errorf("a new org's zone field says %q, want the browser's America/Denver", got)
	}
	admin.waitJS("the picker to be a combobox", `document.querySelector("#timezone").getAttribute("role") === "combobox"`)
	if got := admin.value(zoneField); got != "America/Denver" {
		t.Errorf("the form's zone is %q, want America/Denver selected", got)
	}
	admin.waitText("#timezone-hint", "America/Denver")
	admin.waitText(previewBox, "America/Denver")
	if cfg, err := e.store.Tenants.Fieldforce(e.ctx, org.ID); err != nil || cfg.Found {
		t.Errorf("showing the default saved it (found %v, err %v)", cfg.Found, err)
	}
	admin.screenshot("picker-new-org-browser-zone")

	// Without the cookie the server shows UTC and the picker fills in the
	// browser's zone, checked against the zones endpoint.
	// Through the browser's cookie store, not document.cookie: a page's
	// cookie write reaches the store asynchronously, and the next
	// navigation's request could still carry the old cookie.
	admin.do("forget the zone cookie", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.DeleteCookies, network.DeleteCookiesParams{Name: "tz", URL: e.url + "/"})
		return err
	}))
	if got, err := eval[bool](admin, `document.cookie.includes("tz=")`); err != nil || got {
		t.Fatalf("the zone cookie is still there (%v, %v)", got, err)
	}
	admin.open(path) // sent without the cookie; app.js sets it again once loaded
	if got := admin.attr(zoneInput, "data-zone-default"); got != "browser" {
		t.Errorf("without the cookie the server should leave the zone to the picker (data-zone-default=%q)", got)
	}
	admin.waitJS("the picker to fill in the browser's zone", `document.querySelector("#timezone").value === "America/Denver" && document.querySelector("#timezone-value").value === "America/Denver"`)
	admin.waitText("#zone-status", "your browser's")
	admin.waitText(previewBox, "America/Denver")

	// "Bombay", then Tab: the one zone it stands for is taken.
	admin.searchZone("Bombay", "Asia/Kolkata")
	admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
	admin.waitJS("Kolkata taken on blur", `document.querySelector("#timezone").value === "Asia/Kolkata" && document.querySelector("#timezone-value").value === "Asia/Kolkata"`)
	admin.expectClosed("after the blur")
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d:\n%s", status, admin.text("main"))
	}
	admin.waitText(`main .notice[role="status"]`)
	cfg, err := e.store.Tenants.Fieldforce(e.ctx, org.ID)
	e.must("read the saved config", err)
	if got := cfg.Config.Briefing.Timezone; got != "Asia/Kolkata" {
		t.Errorf("stored zone = %s, want Asia/Kolkata", got)
	}

	// "Springfield", then Tab: several zones, nothing taken; the field says
	// to choose one and the list stays open for the admin to choose from.
	admin.searchZone("Springfield", "America/Chicago")
	admin.do("Tab away", chromedp.SendKeys(chromedp.CSS(zoneInput), kb.Tab))
	admin.expectChooseOne("None of these places is called exactly that: choose one.")
	if got := admin.value(zoneField); got != "Asia/Kolkata" {
		t.Errorf("an ambiguous text changed the form's zone to %q", got)
	}
	for _, m := range admin.consoleErrors() {
		t.Errorf("browser console error: %s", m)
	}
}
