package config

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/transport"
)

func TestLoadWebDelivery(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("ab", 32)
	load := func(m map[string]string) (Web, error) {
		m["SESSION_KEYS"] = key
		return LoadWeb(func(k string) string { return m[k] })
	}

	cfg, err := load(map[string]string{})
	require.NoError(t, err)
	require.Empty(t, cfg.SMTPURL, "unset: mail stays in the outbox")
	require.Equal(t, transport.DefaultMailFrom, cfg.MailFrom)
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
		require.NoError(t, transport.Settings{BaseURL: BaseURLFor(addr)}.Check(), addr)
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
		_, err := LoadWeb(func(k string) string { return map[string]string{"SESSION_KEYS": keys}[k] })
		require.ErrorContains(t, err, "only zero bytes", keys)
	}
}

func TestLoadWeb(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	_, err := LoadWeb(env(map[string]string{"FIELDBRIEF_ENV": "production"}))
	require.ErrorContains(t, err, "SESSION_KEYS is required in production: generate one with `openssl rand -base64 32`")

	_, err = LoadWeb(env(map[string]string{"FIELDBRIEF_ENV": "production", "SESSION_KEYS": "c2hvcnQ="}))
	require.ErrorContains(t, err, "at least 32")

	hexKey := strings.Repeat("ab", 32)
	b64Key := "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
	cfg, err := LoadWeb(env(map[string]string{"FIELDBRIEF_ENV": "production", "SESSION_KEYS": b64Key + ", " + hexKey}))
	require.NoError(t, err)
	require.True(t, cfg.Production)
	require.True(t, cfg.SecureCookies, "secure by default in production")
	require.Len(t, cfg.SessionKeys, 2)
	require.Len(t, cfg.SessionKeys[0], 32)
	require.Equal(t, byte(0xab), cfg.SessionKeys[1][0])
	require.Equal(t, 12*time.Hour, cfg.IdleTimeout)
	require.Equal(t, 168*time.Hour, cfg.AbsoluteTimeout)
	require.Equal(t, 10, cfg.MaxLoginFailuresPerAccount)
	require.Equal(t, 1000, cfg.MaxLoginFailuresPerClient)

	// Development generates a key file once and keeps using it.
	keyFile := filepath.Join(t.TempDir(), "dev", "session.key")
	dev := env(map[string]string{"SESSION_KEY_FILE": keyFile, "SESSION_IDLE_TIMEOUT": "30m", "LOGIN_MAX_FAILURES_PER_CLIENT": "7"})
	first, err := LoadWeb(dev)
	require.NoError(t, err)
	require.False(t, first.SecureCookies)
	require.Equal(t, 30*time.Minute, first.IdleTimeout)
	require.Equal(t, 7, first.MaxLoginFailuresPerClient)
	st, err := os.Stat(keyFile)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	again, err := LoadWeb(dev)
	require.NoError(t, err)
	require.Equal(t, first.SessionKeys, again.SessionKeys)
	require.Empty(t, again.Warnings)

	// A key file that can't be written (here: under a regular file) doesn't
	// stop development; the server warns and keeps sessions until restart.
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	unwritable, err := LoadWeb(env(map[string]string{"SESSION_KEY_FILE": filepath.Join(blocker, "session.key")}))
	require.NoError(t, err)
	require.Len(t, unwritable.SessionKeys, 1)
	require.Len(t, unwritable.SessionKeys[0], 32)
	require.Len(t, unwritable.Warnings, 1)
	require.Contains(t, unwritable.Warnings[0], "lasts until restart")

	require.Empty(t, first.TrustedProxies, "trust no proxy by default")

	proxied, err := LoadWeb(env(map[string]string{"SESSION_KEYS": hexKey, "TRUSTED_PROXIES": "10.0.0.0/8, 2001:db8::/32,192.0.2.7/32"}))
	require.NoError(t, err)
	var ranges []string
	for _, n := range proxied.TrustedProxies {
		ranges = append(ranges, n.String())
	}
	require.Equal(t, []string{"10.0.0.0/8", "2001:db8::/32", "192.0.2.7/32"}, ranges)
	for _, bad := range []string{"10.0.0.1", "10.0.0.0/8,", "proxy.internal/8"} {
		_, err = LoadWeb(env(map[string]string{"SESSION_KEYS": hexKey, "TRUSTED_PROXIES": bad}))
		require.ErrorContains(t, err, "TRUSTED_PROXIES", bad)
	}

	_, err = LoadWeb(env(map[string]string{"SESSION_KEYS": hexKey, "SESSION_ABSOLUTE_TIMEOUT": "soon", "COOKIE_SECURE": "maybe"}))
	require.ErrorContains(t, err, "SESSION_ABSOLUTE_TIMEOUT")
	require.ErrorContains(t, err, "COOKIE_SECURE")
}

// TestAdmissionConfig: the admission limits come from the environment.
func TestAdmissionConfig(t *testing.T) {
	t.Parallel()
	load := func(m map[string]string) (Web, error) {
		m["SESSION_KEYS"] = strings.Repeat("ab", 32)
		return LoadWeb(func(k string) string { return m[k] })
	}
	cfg, err := load(map[string]string{"WEB_MAX_IN_FLIGHT": "6", "WEB_MAX_QUEUE": "12", "WEB_QUEUE_WAIT": "250ms", "WEB_POOL_WAIT": "5s"})
	require.NoError(t, err)
	require.Equal(t, 6, cfg.MaxInFlight)
	require.Equal(t, 12, cfg.MaxQueue)
	require.Equal(t, 250*time.Millisecond, cfg.QueueWait)
	require.Equal(t, 5*time.Second, cfg.PoolWait)
	for _, bad := range []map[string]string{{"WEB_MAX_IN_FLIGHT": "-1"}, {"WEB_MAX_QUEUE": "many"}, {"WEB_QUEUE_WAIT": "0"}, {"WEB_POOL_WAIT": "-2s"}} {
		_, err := load(bad)
		require.Error(t, err, "%v", bad)
	}
}

func TestZoneRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tzdata.zi"), []byte("# version 2031c\n"), 0o644))
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, v := range []string{"", "embedded"} {
		r, err := ZoneRules(env("TZ_SOURCE", v, "ZONEINFO", dir))
		require.NoError(t, err, v)
		require.Same(t, schedule.EmbeddedZoneRules(), r, v)
	}
	r, err := ZoneRules(env("TZ_SOURCE", "host", "ZONEINFO", dir))
	require.NoError(t, err)
	require.Equal(t, "tzdata 2031c (host)", r.String())

	_, err = ZoneRules(env("TZ_SOURCE", "host", "ZONEINFO", filepath.Join(dir, "nope")))
	require.ErrorContains(t, err, "host zone rules:")
	for _, bad := range []string{"Embedded", "system", "host ", "local"} {
		_, err := ZoneRules(env("TZ_SOURCE", bad))
		require.EqualError(t, err, fmt.Sprintf(`TZ_SOURCE=%q: want "embedded" (the default) or "host"`, bad))
	}
}

func TestMetricsConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"METRICS_ADDR": "127.0.0.1:9464", "SESSION_KEYS": strings.Repeat("ab", 32)}
	c, err := LoadWeb(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9464", c.MetricsAddr)
	require.Empty(t, c.Warnings)

	env = map[string]string{"FIELDBRIEF_ENV": "production", "SESSION_KEYS": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}
	c, err = LoadWeb(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Contains(t, strings.Join(c.Warnings, "\n"), "METRICS_ADDR", "production without a metrics listener says so")
}

func TestWorkers(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string { return map[string]string{"WORKERS": v}[k] }
	}
	n, set, err := Workers(env(""))
	require.NoError(t, err)
	require.False(t, set)
	require.Zero(t, n)
	n, set, err = Workers(env("0"))
	require.NoError(t, err, "the range is checked with the flag's")
	require.True(t, set)
	require.Zero(t, n)
	n, _, err = Workers(env("8"))
	require.NoError(t, err)
	require.Equal(t, 8, n)
	_, _, err = Workers(env("many"))
	require.EqualError(t, err, `WORKERS="many" is not a whole number`)
}

func TestAddr(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	require.Equal(t, ":8080", Addr(env()))
	require.Equal(t, ":9000", Addr(env("PORT", "9000")))
	require.Equal(t, "127.0.0.1:7000", Addr(env("ADDR", "127.0.0.1:7000", "PORT", "9000")))
}

func TestLogLevel(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string { return map[string]string{"LOG_LEVEL": v}[k] }
	}
	for v, want := range map[string]slog.Level{"": slog.LevelInfo, "debug": slog.LevelDebug, "warn": slog.LevelWarn, "ERROR": slog.LevelError} {
		got, err := LogLevel(env(v))
		require.NoError(t, err, v)
		require.Equal(t, want, got, v)
	}
	_, err := LogLevel(env("loud"))
	require.ErrorContains(t, err, "LOG_LEVEL")
}

// Production without SMTP_URL says that account emails are refused (issue
// 19, item 12); with it, or in development, nothing is said.
func TestProductionWithoutSMTPWarns(t *testing.T) {
	t.Parallel()
	key := "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"FIELDBRIEF_ENV": "production", "SESSION_KEYS": key, "METRICS_ADDR": "127.0.0.1:9464"}, true},
		{map[string]string{"FIELDBRIEF_ENV": "production", "SESSION_KEYS": key, "METRICS_ADDR": "127.0.0.1:9464", "SMTP_URL": "smtp://u:p@mail.example:587"}, false},
		{map[string]string{"SESSION_KEYS": key}, false},
	} {
		w, err := LoadWeb(func(k string) string { return c.env[k] })
		require.NoError(t, err)
		require.Equal(t, c.want, strings.Contains(strings.Join(w.Warnings, "\n"), "invites and password resets are refused"), c.env)
	}
}

// TestReplicaConfig: the read replica's bounds default, parse and refuse
// nonsense; the URLs are read as given.
func TestReplicaConfig(t *testing.T) {
	t.Parallel()
	key := "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	load := func(m map[string]string) (Web, error) {
		m["SESSION_KEYS"] = key
		return LoadWeb(func(k string) string { return m[k] })
	}
	c, err := load(map[string]string{})
	require.NoError(t, err)
	require.Equal(t, DefaultReplicaMaxLag, c.ReplicaMaxLag)
	require.Equal(t, DefaultReadYourWrites, c.ReadYourWrites)

	c, err = load(map[string]string{"REPLICA_MAX_LAG": "30s", "REPLICA_READ_YOUR_WRITES": "2s"})
	require.NoError(t, err)
	require.Equal(t, 30*time.Second, c.ReplicaMaxLag)
	require.Equal(t, 2*time.Second, c.ReadYourWrites)

	_, err = load(map[string]string{"REPLICA_MAX_LAG": "soon", "REPLICA_READ_YOUR_WRITES": "-1s"})
	require.ErrorContains(t, err, "REPLICA_MAX_LAG")
	require.ErrorContains(t, err, "REPLICA_READ_YOUR_WRITES")

	env := map[string]string{"DATABASE_REPLICA_URL": "postgres://r/db", "DATABASE_DIRECT_URL": "postgres://p/db"}
	get := func(k string) string { return env[k] }
	require.Equal(t, "postgres://r/db", DatabaseReplicaURL(get))
	require.Equal(t, "postgres://p/db", DatabaseDirectURL(get))
}

// HISTORY_RETENTION: days or a Go duration, 400 days unset; under 35 days
// or unparsable stops both processes with the variable named, the web's
// LoadWeb too (docs/configuration.md).
func TestHistoryRetention(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	d, err := HistoryRetention(env(map[string]string{}))
	require.NoError(t, err)
	require.Equal(t, 400*24*time.Hour, d)
	d, err = HistoryRetention(env(map[string]string{"HISTORY_RETENTION": "90d"}))
	require.NoError(t, err)
	require.Equal(t, 90*24*time.Hour, d)
	d, err = HistoryRetention(env(map[string]string{"HISTORY_RETENTION": "2160h"}))
	require.NoError(t, err)
	require.Equal(t, 90*24*time.Hour, d)
	for _, bad := range []string{"30d", "1h", "a year", "400"} {
		_, err := HistoryRetention(env(map[string]string{"HISTORY_RETENTION": bad}))
		require.ErrorContains(t, err, "HISTORY_RETENTION", bad)
	}
	_, err = LoadWeb(env(map[string]string{"SESSION_KEY_FILE": filepath.Join(t.TempDir(), "k"), "HISTORY_RETENTION": "7d"}))
	require.ErrorContains(t, err, "HISTORY_RETENTION")
	cfg, err := LoadWeb(env(map[string]string{"SESSION_KEY_FILE": filepath.Join(t.TempDir(), "k"), "HISTORY_RETENTION": "500d"}))
	require.NoError(t, err)
	require.Equal(t, 500*24*time.Hour, cfg.HistoryRetention)
}

// The daily email cap's two settings (docs/delivery.md, "Daily cap"): 5
// per address and at least 50 unset; anything but a positive whole number
// stops both processes with the variable named.
func TestDailyEmailCap(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := Delivery(env(map[string]string{}))
	require.NoError(t, err)
	require.Equal(t, transport.DailyCap{PerAddress: 5, Min: 50}, s.DailyCap)
	require.Equal(t, 50, s.DailyCap.Of(3))
	require.Equal(t, 60, s.DailyCap.Of(12))
	s, err = Delivery(env(map[string]string{"MAIL_DAILY_CAP_PER_ADDRESS": "2", "MAIL_DAILY_CAP_MIN": "10"}))
	require.NoError(t, err)
	require.Equal(t, 24, s.DailyCap.Of(12))
	// A huge setting saturates (no cap in effect) instead of overflowing
	// the counter and stopping every email.
	s, err = Delivery(env(map[string]string{"MAIL_DAILY_CAP_PER_ADDRESS": "4611686018427387904"}))
	require.NoError(t, err)
	require.Equal(t, 1<<30, s.DailyCap.Of(4))
	require.Equal(t, 1<<30, transport.DailyCap{PerAddress: 1 << 30, Min: 1}.Of(2))
	for _, name := range []string{"MAIL_DAILY_CAP_PER_ADDRESS", "MAIL_DAILY_CAP_MIN"} {
		for _, bad := range []string{"0", "-1", "many"} {
			_, err := Delivery(env(map[string]string{name: bad}))
			require.ErrorContains(t, err, name, bad)
		}
	}
}

// The feed's horizon (docs/api.md, "Reading what changed") is only
// complete when API_FEED_SETTLE is longer than any write transaction may
// run: a change is stamped when its transaction begins, so one that runs
// past the settle time commits behind a horizon already given out, and a
// client that passes complete_until on never sees it. A settle time that
// short (or none) is refused, as is a WEB_REQUEST_TIMEOUT that outruns it.
func TestLoadWebRefusesAFeedSettleShorterThanAWrite(t *testing.T) {
	t.Parallel()
	load := func(m map[string]string) (Web, error) {
		m["SESSION_KEYS"] = strings.Repeat("ab", 32)
		return LoadWeb(func(k string) string { return m[k] })
	}
	cfg, err := load(map[string]string{})
	require.NoError(t, err)
	require.Equal(t, DefaultFeedSettle, cfg.FeedSettle)
	for _, m := range []map[string]string{
		{"API_FEED_SETTLE": "0s"},
		{"API_FEED_SETTLE": "10s"},
		{"API_FEED_SETTLE": "45s"},
		{"WEB_REQUEST_TIMEOUT": "2m"},
		{"API_FEED_SETTLE": "90s", "WEB_REQUEST_TIMEOUT": "90s"},
	} {
		_, err := load(m)
		require.ErrorContains(t, err, "API_FEED_SETTLE", "%v", m)
	}
	cfg, err = load(map[string]string{"API_FEED_SETTLE": "3m", "WEB_REQUEST_TIMEOUT": "2m"})
	require.NoError(t, err)
	require.Equal(t, 3*time.Minute, cfg.FeedSettle)
}
