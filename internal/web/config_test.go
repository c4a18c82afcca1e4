package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
)

func TestLoadConfigDelivery(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("ab", 32)
	load := func(m map[string]string) (Config, error) {
		m["SESSION_KEYS"] = key
		return LoadConfig(func(k string) string { return m[k] })
	}

	cfg, err := load(map[string]string{})
	require.NoError(t, err)
	require.Empty(t, cfg.SMTPURL, "unset: mail stays in the outbox")
	require.Equal(t, delivery.DefaultMailFrom, cfg.MailFrom)
	require.Empty(t, cfg.BaseURL, "cmd/web derives it from the listen address")
	require.False(t, cfg.AllowPrivateWebhooks)

	cfg, err = load(map[string]string{
		"SMTP_URL":                       "smtp://user:pass@mail.example:587",
		"MAIL_FROM":                      "Acme Briefings <briefings@acme.example>",
		"BASE_URL":                       "https://fieldbrief.example.com/app/",
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
	})
	require.NoError(t, err)
	require.Equal(t, "smtp://user:pass@mail.example:587", cfg.SMTPURL, "checked, and passed on as is")
	require.Equal(t, "Acme Briefings <briefings@acme.example>", cfg.MailFrom)
	require.Equal(t, "https://fieldbrief.example.com/app", cfg.BaseURL, "no trailing slash: links append paths")
	require.True(t, cfg.AllowPrivateWebhooks)

	for env, want := range map[string]map[string]string{
		"MAIL_FROM":                       {"MAIL_FROM": "not an address"},
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS":  {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "sometimes"},
		"BASE_URL must be an absolute":    {"BASE_URL": "fieldbrief.example.com"},
		"BASE_URL must be an absolute ":   {"BASE_URL": "ftp://fieldbrief.example.com"},
		"BASE_URL must not have a query":  {"BASE_URL": "https://fieldbrief.example.com/?a=b"},
		"BASE_URL must not have a query ": {"BASE_URL": "https://fieldbrief.example.com/#top"},
		"BASE_URL must not contain":       {"BASE_URL": "https://u:p@fieldbrief.example.com"},
		"SMTP_URL: scheme":                {"SMTP_URL": "http://mail.example:587"},
		"SMTP_URL: credentials":           {"SMTP_URL": "smtp://user@mail.example:587"},
	} {
		_, err := load(want)
		require.ErrorContains(t, err, strings.TrimSpace(env), want)
	}
}

func TestBaseURLFor(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		":8080":          "http://localhost:8080",
		"0.0.0.0:9000":   "http://localhost:9000",
		"[::]:8080":      "http://localhost:8080",
		"127.0.0.1:8081": "http://127.0.0.1:8081",
		"[::1]:8080":     "http://[::1]:8080",
		"app.local:80":   "http://app.local:80",
	} {
		require.Equal(t, want, BaseURLFor(addr), addr)
		require.NoError(t, delivery.Settings{BaseURL: BaseURLFor(addr)}.Check(), addr)
	}
}

// TestSessionKeysOfZeroBytesAreRefused: a key of zero bytes (an empty
// file piped through base64, a template's placeholder) signs nothing an
// attacker could not sign too.
func TestSessionKeysOfZeroBytesAreRefused(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("ab", 32)
	for _, keys := range []string{
		strings.Repeat("00", 32),                       // hex
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", // base64
		good + "," + strings.Repeat("0", 128),
	} {
		_, err := LoadConfig(func(k string) string { return map[string]string{"SESSION_KEYS": keys}[k] })
		require.ErrorContains(t, err, "only zero bytes", keys)
	}
	_, err := New(Config{SessionKeys: [][]byte{make([]byte, 32)}, IdleTimeout: 1, AbsoluteTimeout: 1,
		MaxLoginFailuresPerAccount: 1, MaxLoginFailuresPerClient: 1}, nil, nil)
	require.ErrorContains(t, err, "only zero bytes")
}
