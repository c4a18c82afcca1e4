package accounts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/tenants"
)

// An invite as a dispatcher says so in each language (mail.account.roles).
func TestComposeInviteAsDispatcher(t *testing.T) {
	t.Parallel()
	for lang, line := range map[string]string{
		"en": "Boss invited you to join Acme on fieldbrief as a dispatcher.",
		"de": "Boss hat Sie eingeladen, Acme auf fieldbrief als Disponent beizutreten.",
		"es": "Boss le envió una invitación para unirse a Acme en fieldbrief como despachador.",
		"fr": "Boss vous invite à rejoindre Acme sur fieldbrief en tant que répartiteur.",
	} {
		m := accounts.AccountEmail{What: accounts.EmailInvite, To: "nia@acme.test", OrgID: 1, OrgName: "Acme", Inviter: "Boss",
			Role: tenants.RoleDispatcher, Token: "TOK", ExpiresAt: time.Date(2026, 11, 28, 15, 4, 0, 0, time.UTC),
			Key: "invite:1:1", Language: lang, Locale: "en-US"}
		msg, err := accounts.Compose(m, "fieldbrief@app.test", "https://app.test")
		require.NoError(t, err)
		require.Contains(t, msg.Text, line, lang)
	}
}
