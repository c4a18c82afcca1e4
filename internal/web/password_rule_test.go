package web

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
)

// The password rule (accounts.CheckNewPassword) on each page that sets a
// password: stated under the field before typing, with minlength from the
// enforcing constant; "texas" refused as too short, "password1234" as
// common, each beside the field in the reader's language, nothing changed;
// a strong one accepted.

const strongTestPassword = "violet-harbor-tuesday-41"

// requireRuleShown checks the page states the rule under the field.
func requireRuleShown(t *testing.T, body, input, hint, words string) {
	t.Helper()
	doc := parseDoc(t, body)
	require.Equal(t, words, doc.byID(hint).text())
	in := doc.byID(input)
	require.Equal(t, "12", in.attr("minlength"))
	require.Contains(t, in.attr("aria-describedby"), hint)
}

func TestPasswordRuleOnInvite(t *testing.T) {
	t.Parallel()
	f := setup(t)
	require.Equal(t, http.StatusSeeOther, f.as(&f.adminA).post("/orgs/acme/members/invite", url.Values{"email": {"nia@acme.test"}, "role": {"member"}}).Code)
	link := mailLink(t, f, accounts.EmailInvite)

	c := f.anon()
	requireRuleShown(t, c.get(link).Body, "password", "password-hint", "At least 12 characters; not a common password.")
	for pw, want := range map[string]string{
		"texas":            "Use at least 12 characters.",
		"password1234":     "This password is too easy to guess",
		"nia@acme.test123": "This password is too easy to guess", // their own address
	} {
		res := c.post(link, url.Values{"name": {"Nia"}, "password": {pw}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, pw)
		require.Contains(t, parseDoc(t, res.Body).byID("password-error").text(), want, pw)
	}
	var users int
	require.NoError(t, f.db.QueryRow(t.Context(), `SELECT count(*) FROM users WHERE email = 'nia@acme.test'`).Scan(&users))
	require.Zero(t, users, "a refused password creates no account")

	// In the reader's language.
	de := f.anon().with("Accept-Language", "de-DE")
	requireRuleShown(t, de.get(link).Body, "password", "password-hint", "Mindestens 12 Zeichen; kein gängiges Passwort.")
	res := de.post(link, url.Values{"name": {"Nia"}, "password": {"password1234"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("password-error").text(), "Dieses Passwort ist zu leicht zu erraten")

	res = c.post(link, url.Values{"name": {"Nia"}, "password": {strongTestPassword}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	f.anon().login("nia@acme.test", strongTestPassword)
}

func TestPasswordRuleOnReset(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	require.Equal(t, http.StatusOK, c.post("/password/forgot", url.Values{"email": {f.memberA.Email}}).Code)
	link := mailLink(t, f, accounts.EmailReset)

	requireRuleShown(t, c.get(link).Body, "password", "password-hint", "At least 12 characters; not a common password.")
	for pw, want := range map[string]string{
		"texas":        "Use at least 12 characters.",
		"password1234": "This password is too easy to guess",
	} {
		res := c.post(link, url.Values{"password": {pw}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, pw)
		doc := parseDoc(t, res.Body)
		require.Contains(t, doc.byID("password-error").text(), want, pw)
		require.Equal(t, "12", doc.byID("password").attr("minlength"), "the page again, with the rule")
	}
	fr := f.anon().with("Accept-Language", "fr-FR")
	res := fr.post(link, url.Values{"password": {"texas"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Equal(t, "Utilisez au moins 12 caractères.", parseDoc(t, res.Body).byID("password-error").text())
	f.anon().login(f.memberA.Email, testPassword) // the old one still works: nothing changed

	res = c.post(link, url.Values{"password": {strongTestPassword}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	f.anon().login(f.memberA.Email, strongTestPassword)
	// A weak password on a used link: the link's problem, not the password's.
	require.Equal(t, http.StatusGone, c.post(link, url.Values{"password": {"texas"}}).Code)
}

func TestPasswordRuleOnProfile(t *testing.T) {
	t.Parallel()
	f := setup(t)
	me, elsewhere := f.as(&f.memberA), f.as(&f.memberA)
	requireRuleShown(t, me.get("/profile").Body, "new_password", "new_password-rule", "At least 12 characters; not a common password.")
	for pw, want := range map[string]string{
		"texas":        "Use at least 12 characters.",
		"password1234": "This password is too easy to guess",
	} {
		res := me.post("/profile/password", url.Values{"current_password": {testPassword}, "new_password": {pw}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, pw)
		require.Contains(t, parseDoc(t, res.Body).byID("new_password-error").text(), want, pw)
	}
	// In the reader's language: their own, set on the profile.
	_, err := f.db.Exec(t.Context(), `UPDATE users SET language = 'es' WHERE id = $1`, f.memberA.ID)
	require.NoError(t, err)
	res := me.post("/profile/password", url.Values{"current_password": {testPassword}, "new_password": {"password1234"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("new_password-error").text(), "Esta contraseña es demasiado fácil de adivinar")
	require.Equal(t, http.StatusOK, elsewhere.get("/orgs/acme/briefings").Code, "a refused change signs nobody out")
	_, err = f.db.Exec(t.Context(), `UPDATE users SET language = NULL WHERE id = $1`, f.memberA.ID)
	require.NoError(t, err)

	res = me.post("/profile/password", url.Values{"current_password": {testPassword}, "new_password": {strongTestPassword}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	f.anon().login(f.memberA.Email, strongTestPassword)
}
