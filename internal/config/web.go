package config

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fieldbrief/internal/transport"
)

// Web is cmd/web's configuration (docs/configuration.md).
type Web struct {
	// Production refuses to start without SessionKeys.
	Production bool
	// SecureCookies sets Secure and the __Host- prefix on cookies: turn on
	// whenever the site is served over TLS.
	SecureCookies bool
	// SessionKeys sign session cookies; the first signs, all verify, so a
	// key can be rotated by prepending a new one.
	SessionKeys [][]byte
	// IdleTimeout ends a session nobody used for this long; AbsoluteTimeout
	// ends any session this long after sign-in.
	IdleTimeout     time.Duration
	AbsoluteTimeout time.Duration
	// HistoryRetention is HISTORY_RETENTION: the briefing page says how
	// long history is kept (docs/operations.md, "History retention").
	HistoryRetention time.Duration
	// MaxLoginFailuresPerAccount (one email from one client) and
	// MaxLoginFailuresPerClient (one client, any email) are the failures in
	// an hour before further attempts must wait (auth.Throttle).
	MaxLoginFailuresPerAccount int
	MaxLoginFailuresPerClient  int
	// MetricsAddr, when set, is where cmd/web serves /metrics, on a
	// listener of its own; the public listener then does not serve it, and
	// in production it never does.
	MetricsAddr string
	// TrustedProxies are the proxies whose X-Forwarded-For is believed;
	// empty trusts none, and the client is the TCP peer.
	TrustedProxies []*net.IPNet
	// Settings are how mail and webhooks go out (SMTP_URL, MAIL_FROM,
	// BASE_URL, WEBHOOK_ALLOW_PRIVATE_NETWORKS), checked by Validate.
	transport.Settings
	// APIRate (requests per second) and APIBurst limit each API token;
	// zero takes the defaults (DefaultAPIRate, DefaultAPIBurst).
	APIRate  float64
	APIBurst int
	// MaxInFlight requests are served at once; up to MaxQueue more wait at
	// most QueueWait for a turn, and the rest get 503 with Retry-After at
	// once (internal/httpkit). Zero takes the defaults: the pool's connection
	// count, 4 per in-flight slot, 50 ms.
	MaxInFlight int
	MaxQueue    int
	QueueWait   time.Duration
	// PoolWait is the longest an admitted request waits for a pooled
	// connection for its reads or its session, past which it answers 503
	// with Retry-After. Zero takes the default, database.AcquireWait (2 s).
	PoolWait time.Duration
	// LockTimeout and StatementTimeout bound each statement of a request's
	// transactions, RequestTimeout all of a request's database work; past
	// one the request answers 503 with Retry-After, nothing changed
	// (internal/httpkit, Bound). Zero takes the defaults: 4 s, 10 s, 12 s.
	LockTimeout      time.Duration
	StatementTimeout time.Duration
	RequestTimeout   time.Duration
	// FeedSettle is how far behind the database's clock the API's feed
	// stops (docs/api.md, "Reading what changed"): a write is stamped
	// when its transaction began and seen when it commits, so the feed
	// lists only what no transaction still open can join. LoadWeb's
	// default, DefaultFeedSettle, is longer than any write transaction may
	// run; zero (tests) lists up to now.
	FeedSettle time.Duration
	// Warnings are configuration problems that did not stop the server
	// (LoadWeb fills them; cmd/web logs them).
	Warnings []string

	// ReplicaMaxLag is how far behind the primary a read replica
	// (DATABASE_REPLICA_URL) may be and still serve pages; past it pages
	// read the primary. ReadYourWrites is the longest a browser session
	// reads the primary after a write while the replica has not replayed
	// it (the web makes it at least ReplicaMaxLag + 2 s). Zero: the
	// defaults (DefaultReplicaMaxLag, DefaultReadYourWrites).
	ReplicaMaxLag  time.Duration
	ReadYourWrites time.Duration
}

// Defaults of the read replica's bounds (docs/scaling.md, step 3).
const (
	DefaultReplicaMaxLag  = 10 * time.Second
	DefaultReadYourWrites = 5 * time.Second
)

// Defaults of the API's per-token rate limit.
const (
	// DefaultFeedSettle is past the longest a write transaction can run:
	// a request's 12 s, a CSV upload's 45 s (internal/httpkit, Bound).
	DefaultFeedSettle = time.Minute
	// SlowWriteDeadline is the request deadline of the routes that wait
	// for something besides the database (a CSV upload's body, a test
	// send's receiver: internal/web's slowRoutes), whose transactions may
	// run this long: the feed's settle time must be longer.
	SlowWriteDeadline = 45 * time.Second
	DefaultAPIRate    = 50  // requests per second, sustained
	DefaultAPIBurst   = 100 // requests at once
)

// minKeyLen is the shortest session signing key accepted (256 bits).
const minKeyLen = 32

// LoadWeb reads cmd/web's configuration from the environment:
//
//	FIELDBRIEF_ENV                  production | development (default development)
//	SESSION_KEYS                    comma-separated signing keys, base64 or hex, ≥32 bytes each;
//	                                the first signs, all verify (rotate by prepending a new key).
//	                                Required in production.
//	SESSION_KEY_FILE                development only, used when SESSION_KEYS is unset: a file holding
//	                                one key, generated (0600) on first start so sessions survive
//	                                restarts (default .dev/session.key)
//	COOKIE_SECURE                   Secure cookies with the __Host- prefix; requires HTTPS
//	                                (default true in production, false in development)
//	SESSION_IDLE_TIMEOUT            sign out after this long without a request (default 12h)
//	SESSION_ABSOLUTE_TIMEOUT        sign out this long after sign-in, used or not (default 168h)
//	LOGIN_MAX_FAILURES_PER_ACCOUNT  failed sign-ins for one email from one client IP in an hour before each
//	                                further attempt from there must wait: 1 s after the latest failure,
//	                                doubling up to 15 min (default 10); other addresses are not held back
//	LOGIN_MAX_FAILURES_PER_CLIENT   the same for one client IP over every email (default 1000; many people
//	                                can share one address behind a NAT)
//	TRUSTED_PROXIES                 comma-separated CIDRs of the load balancers or proxies in front of the
//	                                server, e.g. 10.0.0.0/8 (default empty: trust none). When set, the client
//	                                IP (for sign-in throttling and the session record) is the nearest
//	                                X-Forwarded-For address outside these ranges; when the TCP peer is not
//	                                in them, X-Forwarded-For is ignored. Unset, the client is the TCP peer.
//	REPLICA_MAX_LAG                 with DATABASE_REPLICA_URL: pages read the primary while the replica's replay
//	                                is further behind than this (default 10s)
//	REPLICA_READ_YOUR_WRITES        with DATABASE_REPLICA_URL: after a write a browser session reads the primary
//	                                until the replica has replayed it, this long at most, so it sees what it
//	                                saved (default 5s; at least REPLICA_MAX_LAG + 2s)
//	METRICS_ADDR                    serve Prometheus /metrics on this address only, e.g. 127.0.0.1:9464; the
//	                                public listener then answers 404 there (default: the public listener
//	                                serves it, except in production, where it never does)
//	SMTP_URL                        where mail is sent (smtp://user:pass@host:587, smtps://…, or
//	                                smtp://127.0.0.1:2525?tls=none); unset keeps mail in the outbox
//	MAIL_FROM                       the From of every email (default transport.DefaultMailFrom)
//	BASE_URL                        the app's public address, for links in emails and webhooks: an absolute
//	                                http(s) URL without query or fragment (default: from the listen address,
//	                                see BaseURLFor)
//	WEBHOOK_ALLOW_PRIVATE_NETWORKS  true lets webhooks use http and reach loopback and private addresses
//	                                (tests, local development; default false)
//	API_RATE_LIMIT                  requests per second each API token may make, sustained (default 50)
//	API_RATE_BURST                  requests an API token may make at once above that (default 100)
//	WEB_MAX_IN_FLIGHT               requests served at once (default: the pool's connections, pool_max_conns)
//	WEB_MAX_QUEUE                   requests that may wait for a turn beyond those (default 4 per in-flight)
//	WEB_QUEUE_WAIT                  longest a request waits for a turn before 503 (default 50ms)
//	WEB_POOL_WAIT                   longest an admitted request waits for a pooled connection before 503
//	                                (default database.AcquireWait, 2s)
//
// getenv is os.Getenv in cmd/web and a map lookup in tests.
func LoadWeb(getenv func(string) string) (Web, error) {
	var c Web
	var err error
	if c.Production, err = IsProduction(getenv); err != nil {
		return Web{}, err
	}

	var errs []error
	// A missing or short key is Validate's to report, as for a hand-built Web.
	if keys := getenv("SESSION_KEYS"); keys != "" {
		var err error
		if c.SessionKeys, err = parseKeys(keys); err != nil {
			errs = append(errs, fmt.Errorf("SESSION_KEYS: %w", err))
		}
	} else if !c.Production {
		path := getenv("SESSION_KEY_FILE")
		if path == "" {
			path = filepath.Join(".dev", "session.key")
		}
		key, err := devKey(path)
		if err != nil {
			// Development only: an unwritable working directory must not stop
			// the server; sessions then last until it restarts.
			c.Warnings = append(c.Warnings, fmt.Sprintf("SESSION_KEY_FILE %s: %v; using a key that lasts until restart", path, err))
			if key, err = randomKey(); err != nil {
				errs = append(errs, fmt.Errorf("session key: %w", err))
			}
		}
		c.SessionKeys = [][]byte{key}
	}

	c.SecureCookies = envBool(getenv, "COOKIE_SECURE", c.Production, &errs)
	c.IdleTimeout = envDuration(getenv, "SESSION_IDLE_TIMEOUT", 12*time.Hour, &errs)
	c.AbsoluteTimeout = envDuration(getenv, "SESSION_ABSOLUTE_TIMEOUT", 168*time.Hour, &errs)
	if d, err := HistoryRetention(getenv); err != nil {
		errs = append(errs, err)
	} else {
		c.HistoryRetention = d
	}
	c.MaxLoginFailuresPerAccount = envInt(getenv, "LOGIN_MAX_FAILURES_PER_ACCOUNT", 10, &errs)
	c.MaxLoginFailuresPerClient = envInt(getenv, "LOGIN_MAX_FAILURES_PER_CLIENT", 1000, &errs)
	if v := getenv("TRUSTED_PROXIES"); v != "" {
		var err error
		if c.TrustedProxies, err = parseCIDRs(v); err != nil {
			errs = append(errs, fmt.Errorf("TRUSTED_PROXIES: %w", err))
		}
	}
	c.APIRate = float64(envInt(getenv, "API_RATE_LIMIT", DefaultAPIRate, &errs))
	c.APIBurst = envInt(getenv, "API_RATE_BURST", DefaultAPIBurst, &errs)
	c.MaxInFlight = envInt(getenv, "WEB_MAX_IN_FLIGHT", 0, &errs)
	c.MaxQueue = envInt(getenv, "WEB_MAX_QUEUE", 0, &errs)
	c.QueueWait = envDuration(getenv, "WEB_QUEUE_WAIT", 0, &errs)
	c.PoolWait = envDuration(getenv, "WEB_POOL_WAIT", 0, &errs)
	c.LockTimeout = envDuration(getenv, "WEB_LOCK_TIMEOUT", 0, &errs)
	c.StatementTimeout = envDuration(getenv, "WEB_STATEMENT_TIMEOUT", 0, &errs)
	c.RequestTimeout = envDuration(getenv, "WEB_REQUEST_TIMEOUT", 0, &errs)
	c.FeedSettle = envDuration(getenv, "API_FEED_SETTLE", DefaultFeedSettle, &errs)
	// A write stamped when its transaction began and committed after the
	// horizon a feed gave out is never listed (docs/api.md, "Reading what
	// changed"): the settle time outlasts every write transaction.
	if longest := max(c.RequestTimeout, SlowWriteDeadline); c.FeedSettle <= longest {
		errs = append(errs, fmt.Errorf("API_FEED_SETTLE (%s) must be longer than the longest write transaction (%s: WEB_REQUEST_TIMEOUT, or a CSV upload's %s), or the API's feed skips changes",
			c.FeedSettle, longest, SlowWriteDeadline))
	}
	c.MetricsAddr = getenv("METRICS_ADDR")
	c.ReplicaMaxLag = envDuration(getenv, "REPLICA_MAX_LAG", DefaultReplicaMaxLag, &errs)
	c.ReadYourWrites = envDuration(getenv, "REPLICA_READ_YOUR_WRITES", DefaultReadYourWrites, &errs)
	if c.Production && c.MetricsAddr == "" {
		c.Warnings = append(c.Warnings, "METRICS_ADDR is unset: /metrics is not served (production never serves it on the public listener)")
	}
	if c.Settings, err = Delivery(getenv); err != nil {
		errs = append(errs, err)
	}
	if c.Production && c.SMTPURL == "" {
		c.Warnings = append(c.Warnings, "SMTP_URL is unset: invites and password resets are refused "+
			"(production keeps no account email in the staff-readable outbox)")
	}
	if err := errors.Join(errs...); err != nil {
		return Web{}, err
	}
	return c, c.Validate()
}

// IsProduction reads FIELDBRIEF_ENV: production, or development (the
// default); anything else is a mistake worth stopping for.
func IsProduction(getenv func(string) string) (bool, error) {
	switch env := getenv("FIELDBRIEF_ENV"); env {
	case "production":
		return true, nil
	case "", "development":
		return false, nil
	default:
		return false, fmt.Errorf("FIELDBRIEF_ENV must be production or development, not %q", env)
	}
}

// BaseURLFor is BASE_URL's default for a server listening on addr: the same
// port on localhost, which is right for `make run` and wrong anywhere else,
// where operators set BASE_URL.
func BaseURLFor(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// Validate is the check web.New runs, so a hand-built Web gets the same
// guarantees as one from LoadWeb.
func (c Web) Validate() error {
	var errs []error
	if len(c.SessionKeys) == 0 {
		if c.Production {
			errs = append(errs, errors.New("SESSION_KEYS is required in production: generate one with `openssl rand -base64 32`"))
		} else {
			errs = append(errs, errors.New("at least one session key is required"))
		}
	}
	for i, k := range c.SessionKeys {
		switch {
		case len(k) < minKeyLen:
			errs = append(errs, fmt.Errorf("session key %d is %d bytes; use at least %d (`openssl rand -base64 32`)", i+1, len(k), minKeyLen))
		case !slices.ContainsFunc(k, func(b byte) bool { return b != 0 }):
			errs = append(errs, fmt.Errorf("session key %d is only zero bytes, which anyone can guess; generate one with `openssl rand -base64 32`", i+1))
		}
	}
	if c.IdleTimeout <= 0 || c.AbsoluteTimeout <= 0 {
		errs = append(errs, errors.New("session timeouts must be positive"))
	}
	if c.MaxLoginFailuresPerAccount <= 0 || c.MaxLoginFailuresPerClient <= 0 {
		errs = append(errs, errors.New("sign-in failure limits must be positive"))
	}
	if c.APIRate < 0 || c.APIBurst < 0 {
		errs = append(errs, errors.New("API_RATE_LIMIT and API_RATE_BURST must be positive"))
	}
	if c.LockTimeout < 0 || c.StatementTimeout < 0 || c.RequestTimeout < 0 {
		errs = append(errs, errors.New("WEB_LOCK_TIMEOUT, WEB_STATEMENT_TIMEOUT and WEB_REQUEST_TIMEOUT must be positive"))
	}
	if c.MaxInFlight < 0 || c.MaxQueue < 0 || c.QueueWait < 0 || c.PoolWait < 0 {
		errs = append(errs, errors.New("WEB_MAX_IN_FLIGHT, WEB_MAX_QUEUE, WEB_QUEUE_WAIT and WEB_POOL_WAIT must be positive"))
	}
	if err := c.Settings.Check(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// parseCIDRs reads comma-separated CIDRs. A bare address is refused rather
// than guessed at: the operator says /32 when they mean one host.
func parseCIDRs(s string) ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		_, n, err := net.ParseCIDR(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or 192.0.2.7/32", part)
		}
		nets = append(nets, n)
	}
	return nets, nil
}

// parseKeys decodes comma-separated keys. A key made only of hex digits is
// hex (64 hex digits would also be valid base64, so hex wins); anything else
// is standard or URL-safe base64, padded or not.
func parseKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(s, ",") {
		k, err := decodeKey(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func decodeKey(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("empty key")
	}
	if b, err := hex.DecodeString(s); err == nil {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("neither hex nor base64")
}

// devKey reads the development signing key, creating it on first use so a
// developer never has to think about it and sessions survive restarts.
func devKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		return decodeKey(strings.TrimSpace(string(b)))
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key, err := randomKey()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process won the race: use its key
		return devKey(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	return key, f.Close()
}

func randomKey() ([]byte, error) {
	key := make([]byte, minKeyLen)
	_, err := rand.Read(key)
	return key, err
}
