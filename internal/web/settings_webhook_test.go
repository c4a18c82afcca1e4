package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	revealPath = settingsPath + "/webhook-secret/reveal"
	rotatePath = settingsPath + "/webhook-secret/rotate"
)

// secretAudits counts the org's rotation entries and any audit entry that
// holds a webhook secret.
func secretAudits(t *testing.T, f *fixture, orgID int64) (rotations, leaks int) {
	t.Helper()
	err := f.db.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'webhook.secret.rotate'),
		       (SELECT count(*) FROM audit_log WHERE concat_ws(' ', old_value::text, new_value::text, target, reason) LIKE '%whsec_%')`,
		orgID).Scan(&rotations, &leaks)
	require.NoError(t, err)
	return rotations, leaks
}

func TestWebhookSecretRevealAndRotate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	// The page shows it masked.
	doc := parseDoc(t, admin.get(settingsPath).Body)
	require.NotContains(t, doc.byID("webhook-secret-value").text(), "whsec_A")
	_, required := hasAttr(doc.byID("confirm").n, "required")
	require.True(t, required, "a no-JS confirmation")
	require.NotEmpty(t, doc.find(attrIs("hx-post", rotatePath)).attr("hx-confirm"))

	// Without JavaScript, reveal posts and the page comes back with it shown.
	r := admin.post(revealPath, nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	secret := parseDoc(t, r.Body).byID("webhook-secret-value").text()
	require.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	stored, err := f.store.Tenants.WebhookSecret(context.Background(), f.orgA.ID)
	require.NoError(t, err)
	require.Equal(t, stored, secret)
	require.NotNil(t, parseDoc(t, r.Body).byID("schedule-form"), "the whole page")

	// With htmx, the block alone.
	r = admin.htmx().post(revealPath, nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.NotContains(t, r.Body, "<html")
	require.Equal(t, secret, parseDoc(t, r.Body).byID("webhook-secret-value").text())

	// Rotating needs the confirmation, checked by the server.
	for _, c := range []*client{admin, admin.htmx()} {
		r = c.post(rotatePath, nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.Code)
		doc = parseDoc(t, r.Body)
		require.Contains(t, doc.byID("confirm-error").text(), "to confirm")
		require.Equal(t, "true", doc.byID("confirm").attr("aria-invalid"))
		require.NotContains(t, r.Body, secret)
	}
	again, err := f.store.Tenants.WebhookSecret(context.Background(), f.orgA.ID)
	require.NoError(t, err)
	require.Equal(t, secret, again, "not rotated")
	rotations, _ := secretAudits(t, f, f.orgA.ID)
	require.Zero(t, rotations)

	r = admin.post(rotatePath, url.Values{"confirm": {"rotate"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	doc = parseDoc(t, r.Body)
	rotated := doc.byID("webhook-secret-value").text()
	require.True(t, strings.HasPrefix(rotated, "whsec_"))
	require.NotEqual(t, secret, rotated)
	require.Contains(t, doc.byID("webhook-secret").text(), "new secret")
	now, err := f.store.Tenants.WebhookSecret(context.Background(), f.orgA.ID)
	require.NoError(t, err)
	require.Equal(t, rotated, now)

	r = admin.htmx().post(rotatePath, url.Values{"confirm": {"rotate"}})
	require.Equal(t, http.StatusOK, r.Code)
	require.NotContains(t, r.Body, rotated)

	rotations, leaks := secretAudits(t, f, f.orgA.ID)
	require.Equal(t, 2, rotations)
	require.Zero(t, leaks, "the audit log never holds a secret")
	entries, err := f.store.Audit.ForOrg(context.Background(), f.orgA.ID, 5)
	require.NoError(t, err)
	require.Equal(t, f.adminA.Email, entries[0].Actor.Email)
	latest, err := f.store.Tenants.WebhookSecret(context.Background(), f.orgA.ID)
	require.NoError(t, err)
	page := admin.get(settingsPath).Body
	require.Contains(t, parseDoc(t, page).find(hasClass("history")).text(), "webhook.secret.rotate", "admins see who rotated it")
	for _, s := range []string{secret, rotated, latest} {
		require.NotContains(t, page, s, "the page shows the secret only when asked")
	}
}

func TestWebhookSecretAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	secretA, err := f.store.Tenants.WebhookSecret(context.Background(), f.orgA.ID)
	require.NoError(t, err)
	confirm := url.Values{"confirm": {"rotate"}}

	for _, tc := range []struct {
		who  string
		c    *client
		want int
	}{
		{"member", f.as(&f.memberA), http.StatusForbidden}, // like every admin route (requireAdmin)
		{"other org's admin", f.as(&f.adminB), http.StatusNotFound},
		{"staff", f.as(&f.staff), http.StatusForbidden},
	} {
		t.Run(tc.who, func(t *testing.T) {
			for _, path := range []string{revealPath, rotatePath} {
				r := tc.c.post(path, confirm)
				require.Equal(t, tc.want, r.Code, path)
				require.NotContains(t, r.Body, secretA)
				r = tc.c.htmx().post(path, confirm)
				require.Equal(t, tc.want, r.Code, path)
				require.NotContains(t, r.Body, secretA)
			}
		})
	}

	admin := f.as(&f.adminA)
	for _, path := range []string{revealPath, rotatePath} {
		r := admin.postNoCSRF(path, confirm)
		require.Equal(t, http.StatusForbidden, r.Code, "no CSRF token: %s", path)
		require.NotContains(t, r.Body, secretA)
		require.NotEqual(t, http.StatusOK, admin.get(path).Code, "never a GET: %s", path)
	}
	r := f.anon().post(revealPath, nil)
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, "/login", r.Header.Get("Location"))

	// The other org's admin reveals their own secret, never acme's.
	r = f.as(&f.adminB).post("/orgs/globex/settings/fieldforce/webhook-secret/reveal", nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.NotContains(t, r.Body, secretA)

	now, err := f.store.Tenants.WebhookSecret(context.Background(), f.orgA.ID)
	require.NoError(t, err)
	require.Equal(t, secretA, now, "nobody but acme's admins rotated it")
	rotations, _ := secretAudits(t, f, f.orgA.ID)
	require.Zero(t, rotations)
}
