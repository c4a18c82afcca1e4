package e2e

import (
	"context"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// grantClipboard lets the session's pages write and read the clipboard, as
// a person's browser does after they allow it (headless Chromium asks no
// one, and refuses by default).
func (s *session) grantClipboard() {
	s.t.Helper()
	s.do("grant the clipboard", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		id := chromedp.FromContext(ctx).BrowserContextID
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted,
				Origin: s.e.url, BrowserContextID: id,
			}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// requireCopyButtonInside checks, at the current width, that the page does
// not reach past the screen and that the copy button of the secret id is
// shown whole inside it.
func (s *session) requireCopyButtonInside(id string) {
	s.t.Helper()
	if over := s.overflow(390); over != "" {
		s.t.Errorf("%s: at 390 px the page is wider than the screen: %s", id, over)
	}
	where, err := eval[string](s, `(() => {
		const b = document.getElementById(`+jsString(id+"-copy")+`);
		if (!b) return "no button";
		if (b.hidden || getComputedStyle(b).display === "none") return "hidden";
		const r = b.getBoundingClientRect(), c = document.getElementById(`+jsString(id)+`).getBoundingClientRect();
		if (r.width < 24 || r.height < 24) return "too small: " + r.width + "x" + r.height;
		if (r.left < 0 || r.right > innerWidth) return "button outside: " + r.left + ".." + r.right + " of " + innerWidth;
		if (c.left < 0 || c.right > innerWidth) return "text outside: " + c.left + ".." + c.right + " of " + innerWidth;
		return "";
	})()`)
	if err != nil {
		s.t.Fatalf("measure the copy button of %s: %v", id, err)
	}
	if where != "" {
		s.t.Errorf("the copy button of %s at 390 px: %s", id, where)
	}
}

// clipboardText reads the clipboard through the page (the permission is
// granted) and returns it.
func (s *session) clipboardText() string {
	s.t.Helper()
	s.do("read the clipboard", chromedp.Evaluate[chromedp.Void](`(window.__e2eClip = null, navigator.clipboard.readText().then(t => { window.__e2eClip = t; }, e => { window.__e2eClip = "error: " + e; }), undefined)`))
	s.waitJS("the clipboard is read", `window.__e2eClip !== null`)
	txt, err := eval[string](s, `window.__e2eClip`)
	if err != nil {
		s.t.Fatalf("read the clipboard: %v", err)
	}
	return txt
}

// On a 390-px phone, a new API token and the revealed webhook secret stay
// inside the screen with their copy button visible; the button copies the
// whole secret and announces "Copied". Where the browser refuses the
// clipboard, it selects the secret instead and says how to copy it.
func TestSecretCopyButtonsAt390px(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.grantClipboard()
	admin.do("viewport 390 px", chromedp.EmulateViewport(390, 900, chromedp.EmulateMobile))

	// A new API token.
	admin.open("/orgs/acme/settings/api-tokens")
	admin.watchHTMX()
	admin.typeInto(`#name`, "Dispatch sync with a rather long name")
	admin.click(`#create-token-button`)
	token := strings.TrimSpace(admin.waitText(`#api-token-value`, "fb_"))
	admin.waitJS("the copy button shows", `!document.getElementById("api-token-value-copy").hidden`)
	admin.requireCopyButtonInside("api-token-value")
	admin.screenshot("pwd-api-token-copy-390")
	admin.click(`#api-token-value-copy`)
	admin.waitText(`#api-token-value-status`, "Copied")
	if got := admin.clipboardText(); got != token {
		t.Errorf("the clipboard holds %q, want the token %q", got, token)
	}

	// The webhook secret, revealed.
	admin.open(settingsPath)
	admin.watchHTMX()
	admin.click(`#webhook-secret form button.secondary`)
	secret := strings.TrimSpace(admin.waitTextWhere(`#webhook-secret-value`, func(s string) bool {
		return strings.HasPrefix(s, "whsec_") && !strings.Contains(s, "•")
	}, "show the secret unmasked"))
	admin.waitJS("the copy button shows", `!document.getElementById("webhook-secret-value-copy").hidden`)
	admin.requireCopyButtonInside("webhook-secret-value")
	admin.click(`#webhook-secret-value-copy`)
	admin.waitText(`#webhook-secret-value-status`, "Copied")
	if got := admin.clipboardText(); got != secret {
		t.Errorf("the clipboard holds %q, want the secret %q", got, secret)
	}

	// No Clipboard API (an old browser, or refused): the secret is selected
	// for the person to copy, and the live region says so or that it copied
	// (document.execCommand may still copy a selection).
	admin.do("take the Clipboard API away", chromedp.Evaluate[chromedp.Void](`(Object.defineProperty(navigator, "clipboard", {value: undefined, configurable: true}), document.getSelection().removeAllRanges(), undefined)`))
	admin.click(`#webhook-secret-value-copy`)
	said := admin.waitTextWhere(`#webhook-secret-value-status`, func(s string) bool {
		return strings.Contains(s, "Selected") || strings.Contains(s, "Copied")
	}, "say Selected or Copied")
	selected, err := eval[string](admin, `document.getSelection().toString()`)
	if err != nil {
		t.Fatalf("read the selection: %v", err)
	}
	if strings.TrimSpace(selected) != secret {
		t.Errorf("without the Clipboard API the selection is %q (status %q), want the secret", selected, said)
	}
}
