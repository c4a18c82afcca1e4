package web

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFailedSignInKeepsTheFormGood: when a sign-in's write fails after the
// password was checked, the answer starts no session and keeps the token, so the browser keeps the
// CSRF token its form carries and sending the same form again signs in
// (no "form expired" 403).
func TestFailedSignInKeepsTheFormGood(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	_, err := f.db.Exec(ctx, `
		CREATE FUNCTION test_fail_sign_in() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'test: the sign-in write fails'; END $$;
		CREATE TRIGGER test_fail_sign_in BEFORE UPDATE OF last_sign_in_at ON users
		FOR EACH ROW EXECUTE FUNCTION test_fail_sign_in();`)
	require.NoError(t, err)

	c := f.anon()
	c.get("/login")
	token := c.csrfToken()
	require.NotEmpty(t, token)
	form := url.Values{"email": {f.adminA.Email}, "password": {testPassword}, "_csrf": {token}}
	failed := c.do(http.MethodPost, "/login", form)
	require.GreaterOrEqual(t, failed.Code, 500, failed.Body)
	require.Equal(t, token, c.csrfToken(), "the form's token is still the browser's")
	require.Len(t, failed.Header.Values("Set-Cookie"), 1, "no session cookie, only the unchanged token: %v", failed.Header.Values("Set-Cookie"))

	_, err = f.db.Exec(ctx, `DROP TRIGGER test_fail_sign_in ON users`)
	require.NoError(t, err)
	again := c.do(http.MethodPost, "/login", form)
	require.Equal(t, http.StatusSeeOther, again.Code, "the same form again: %s", again.Body)
}
