package tenants_test

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

func requireSecretFormat(t *testing.T, secret string) {
	t.Helper()
	raw, ok := strings.CutPrefix(secret, "whsec_")
	require.True(t, ok, secret)
	b, err := base64.StdEncoding.DecodeString(raw)
	require.NoError(t, err)
	require.Len(t, b, 32)
}

func TestWebhookSecretIsCreatedOnceAndScopedToTheOrg(t *testing.T) {
	b := setup(t)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			s, err := b.Store.Tenants.WebhookSecret(b.Ctx, b.Acme.ID)
			require.NoError(t, err)
			got[i] = s
		})
	}
	wg.Wait()
	requireSecretFormat(t, got[0])
	for _, s := range got {
		require.Equal(t, got[0], s, "first uses at once agree on one secret")
	}
	other, err := b.Store.Tenants.WebhookSecret(b.Ctx, b.Other.ID)
	require.NoError(t, err)
	require.NotEqual(t, got[0], other)
	require.Zero(t, b.AuditCount(t), "reading or creating is not a change to audit")
}

func TestRotateWebhookSecret(t *testing.T) {
	b := setup(t)
	before, err := b.Store.Tenants.WebhookSecret(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	otherBefore, err := b.Store.Tenants.WebhookSecret(b.Ctx, b.Other.ID)
	require.NoError(t, err)

	actor := audit.Actor{Email: "admin@acme.test"}
	rotated, err := b.Store.Tenants.RotateWebhookSecret(b.Ctx, actor, b.Acme.ID)
	require.NoError(t, err)
	requireSecretFormat(t, rotated)
	require.NotEqual(t, before, rotated)
	now, err := b.Store.Tenants.WebhookSecret(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Equal(t, rotated, now)
	otherNow, err := b.Store.Tenants.WebhookSecret(b.Ctx, b.Other.ID)
	require.NoError(t, err)
	require.Equal(t, otherBefore, otherNow, "another org's secret is untouched")

	entries, err := b.Store.Audit.ForOrg(b.Ctx, b.Acme.ID, 10)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "webhook.secret.rotate", entries[0].Action)
	require.Equal(t, actor.Email, entries[0].Actor.Email)
	var leaks int
	require.NoError(t, b.Store.DB.QueryRow(b.Ctx, `
		SELECT count(*) FROM audit_log
		WHERE concat_ws(' ', old_value::text, new_value::text, target, reason) ~ 'whsec_|[A-Za-z0-9+/]{40,}'`).Scan(&leaks))
	require.Zero(t, leaks, "no secret, nor anything like a hash of it, in the audit log")

	// An org that never had a secret gets one by rotating.
	third, err := b.Store.Tenants.CreateOrg(b.Ctx, "initech", "Initech", time.Time{})
	require.NoError(t, err)
	first, err := b.Store.Tenants.RotateWebhookSecret(b.Ctx, audit.System, third.ID)
	require.NoError(t, err)
	requireSecretFormat(t, first)
}

func TestSaveFieldforceWebhookPolicy(t *testing.T) {
	b := setup(t)
	strict := &tenants.Store{DB: b.Store.DB}
	lenient := &tenants.Store{DB: b.Store.DB, AllowPrivateWebhooks: true}
	doc := func(url string) []byte {
		return []byte(`{"briefing":{"timezone":"UTC","schedule_local_time":"08:00"},"delivery":{"webhook":{"url":"` + url + `"}}}`)
	}
	for url, refusal := range map[string]string{
		"https://hooks.acme.example/fieldbrief": "",
		"https://93.184.216.34/hook":            "",
		"https://[2606:4700::1111]/hook":        "",
		// Documentation ranges: the dialer would refuse them at every delivery.
		"https://203.0.113.7/hook":       "is in a reserved, non-public range",
		"https://[2001:db8::1]/hook":     "is in a reserved, non-public range",
		"https://1.example/hook":         "",
		"http://hooks.acme.example/x":    "must start with https://",
		"http://127.0.0.1:9/x":           "must start with https://",
		"https://127.0.0.1:9/x":          "127.0.0.1 is a loopback",
		"https://[::1]/x":                "::1 is a loopback",
		"https://[::ffff:127.0.0.1]/x":   "(IPv4-mapped 127.0.0.1) is a loopback",
		"https://[::ffff:10.1.2.3]/x":    "(IPv4-mapped 10.1.2.3) is a private",
		"https://10.0.0.1/x":             "10.0.0.1 is a private address",
		"https://172.16.5.4/x":           "is a private address",
		"https://192.168.1.1/x":          "is a private address",
		"https://169.254.169.254/latest": "is a link-local address",
		"https://100.64.0.1/x":           "is a shared (CGNAT) address",
		"https://224.0.0.1/x":            "is a multicast address",
		"https://0.0.0.0/x":              "is the unspecified address",
		"https://[::]/x":                 "is the unspecified address",
		"https://[fd00::1]/x":            "is a private address",
		"https://[fe80::1%25eth0]/x":     "is a link-local address",
		"https://localhost/x":            "points at this server (localhost)",
		"https://api.LOCALHOST./x":       "points at this server",
		"https://127.1/x":                "not an IP address in the usual form",
		"https://2130706433/x":           "not an IP address in the usual form",
		"https://0x7f000001/x":           "not an IP address in the usual form",
	} {
		_, err := strict.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, doc(url), tenants.AnyVersion)
		if refusal == "" {
			require.NoError(t, err, url)
		} else {
			var verr *schedule.ValidationError
			require.ErrorAs(t, err, &verr, url)
			require.Contains(t, verr.For("delivery.webhook.url"), refusal, url)
		}
		_, err = lenient.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, doc(url), tenants.AnyVersion)
		require.NoError(t, err, "allowed with private networks: %s", url)
	}
}
