package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// The password and copy-button states in coveredPages: each new-password field
// with its rule (Limits.PasswordLen as the web sets it) and a refusal, and
// a secret with its copy button.

func pwdLimits(p views.Page) views.Page {
	p.Limits.PasswordLen = 12
	return p
}

func pwdInvitePage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p = pwdLimits(p)
	p.Title = pl.Tf("invite.title", map[string]any{"Org": "Acme Field Services"})
	return views.InviteAccept(views.InvitePage{Page: p, Action: "/invites/tok", OrgName: "Acme Field Services",
		Email: "ana@acme.test", Role: "admin", Name: "Ana Lima", PassError: pl.T("pwrule.common")})
}

func pwdResetPage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p = pwdLimits(p)
	p.Title = pl.T("reset.title")
	return views.Reset(views.ResetPage{Page: p, Action: "/password/reset/tok", Email: "ana@acme.test",
		PassError: pl.Tn("pwrule.short", 12, map[string]any{"Count": "12"})})
}

func pwdProfilePage(p views.Page) templ.Component {
	pl := i18n.Pseudo()
	p = signedInBRF(pwdLimits(p))
	p.Title = pl.T("profile.title")
	pp := views.ProfilePage{Page: p, Email: "ada@acme.test", Name: "Ada Lovelace", NewError: pl.T("pwrule.common")}
	for _, o := range i18n.LanguageOptions() {
		pp.Languages = append(pp.Languages, views.Option{Value: o.Tag, Label: o.Name})
	}
	return views.Profile(pp)
}

func pwdTokenCreated(_ views.Page) templ.Component {
	return views.APITokensBlockView(views.APITokensBlock{I18n: i18n.Pseudo(), Base: "/orgs/acme/settings/api-tokens", CSRF: "tok", NameLen: 80,
		Created: "fb_live_0123456789abcdef"})
}

func pwdSecretRevealed(p views.Page) templ.Component {
	return views.WebhookSecret(p, views.SecretBlock{Base: "/b", CSRF: "tok", Revealed: "whsec_abc"})
}

func renderPWD(t *testing.T, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.Render(context.Background(), &buf))
	return buf.String()
}

// Each new-password field states the rule before typing: its hint, read
// with the field (aria-describedby), and minlength from Limits.PasswordLen,
// the number the server enforces (internal/web pageLimits).
func TestNewPasswordFieldsStateTheRule(t *testing.T) {
	t.Parallel()
	en := i18n.New("en", "en-US")
	p := views.Page{CSRF: "tok", I18n: en}
	p.Limits.PasswordLen = 12
	for name, c := range map[string]struct {
		page        templ.Component
		input, hint string
	}{
		"invite":  {views.InviteAccept(views.InvitePage{Page: p, Action: "/invites/tok", Email: "ana@acme.test", Role: "member"}), "password", "password-hint"},
		"reset":   {views.Reset(views.ResetPage{Page: p, Action: "/password/reset/tok", Email: "ana@acme.test"}), "password", "password-hint"},
		"profile": {views.Profile(views.ProfilePage{Page: p, Email: "ana@acme.test"}), "new_password", "new_password-rule"},
	} {
		out := renderPWD(t, c.page)
		require.Contains(t, out, `<p class="hint" id="`+c.hint+`">At least 12 characters; not a common password.</p>`, name)
		i := strings.Index(out, `<input id="`+c.input+`"`)
		require.GreaterOrEqual(t, i, 0, name)
		input := out[i : i+strings.Index(out[i:], ">")]
		require.Contains(t, input, `minlength="12"`, name)
		require.Contains(t, input, `autocomplete="new-password"`, name)
		require.Regexp(t, `aria-describedby="[^"]*\b`+c.hint+`\b`, input, name)
	}
}

// A secret shown once has a copy button, hidden until the script shows it
// (without JavaScript it would do nothing), and a live region for "Copied".
func TestSecretsHaveACopyButton(t *testing.T) {
	t.Parallel()
	en := i18n.New("en", "en-US")
	for name, c := range map[string]struct {
		page      templ.Component
		id, label string
	}{
		"token":  {views.APITokensBlockView(views.APITokensBlock{I18n: en, Created: "fb_live_x"}), "api-token-value", "Copy token"},
		"secret": {views.WebhookSecret(views.Page{I18n: en}, views.SecretBlock{Revealed: "whsec_x"}), "webhook-secret-value", "Copy secret"},
	} {
		out := renderPWD(t, c.page)
		require.Contains(t, out, `<code class="mono secret" id="`+c.id+`">`, name)
		require.Contains(t, out, `data-copy="`+c.id+`" data-copied="Copied" data-selected="Selected: press Ctrl+C (⌘C on a Mac) to copy." hidden>`+c.label+`</button>`, name)
		require.Contains(t, out, `<span class="copy-status" id="`+c.id+`-status" role="status" aria-live="polite"></span>`, name)
	}
	// No secret, no button: the masked webhook secret is not copyable.
	require.NotContains(t, renderPWD(t, views.WebhookSecret(views.Page{I18n: en}, views.SecretBlock{})), "data-copy")
}
