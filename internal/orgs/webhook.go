package orgs

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// Webhook signing secrets: one per org, created on first use and kept in
// org_webhook_secrets, never in the config document (which is audited and
// shown) nor in the audit log.
//
// Actions written:
//
//	webhook.secret.rotate  an admin or operator replaced the org's secret (new: {"webhook_secret": "rotated"};
//	                       never the value or a hash of it)

// secretPrefix marks a Standard Webhooks signing secret.
const secretPrefix = "whsec_"

// secretBytes is the secret's entropy: 256 bits, within Standard Webhooks'
// 24–64 bytes.
const secretBytes = 32

func newWebhookSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate webhook secret: %w", err)
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// WebhookSecret returns the org's signing secret, creating it on first use.
// Two first uses at once agree on one secret: the loser of the insert reads
// the winner's.
func (s *Store) WebhookSecret(ctx context.Context, orgID int64) (string, error) {
	fresh, err := newWebhookSecret()
	if err != nil {
		return "", err
	}
	var secret string
	// DO UPDATE SET nothing-changing makes RETURNING give the existing row;
	// DO NOTHING would return no row to the loser of a race.
	err = s.DB.QueryRow(ctx, `
		INSERT INTO org_webhook_secrets (org_id, secret) VALUES ($1, $2)
		ON CONFLICT (org_id) DO UPDATE SET org_id = EXCLUDED.org_id
		RETURNING secret`, orgID, fresh).Scan(&secret)
	if err != nil {
		return "", fmt.Errorf("webhook secret of org %d: %w", orgID, err)
	}
	return secret, nil
}

// RotateWebhookSecret replaces the org's signing secret (creating one if it
// had none) and records "webhook.secret.rotate" without any value, in one
// transaction. It returns the new secret.
func (s *Store) RotateWebhookSecret(ctx context.Context, actor Actor, orgID int64) (string, error) {
	fresh, err := newWebhookSecret()
	if err != nil {
		return "", err
	}
	err = pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := rotateSecret(ctx, tx, orgID, fresh); err != nil {
			return err
		}
		// What changed is said in words: neither the secret nor a hash of it
		// belongs in a log that staff and admins read.
		return Audit(ctx, tx, AuditEntry{Actor: actor, OrgID: orgID, Action: "webhook.secret.rotate", Target: "webhook",
			New: map[string]string{"webhook_secret": "rotated"}})
	})
	if err != nil {
		return "", err
	}
	return fresh, nil
}

func rotateSecret(ctx context.Context, q database.Querier, orgID int64, secret string) error {
	_, err := q.Exec(ctx, `
		INSERT INTO org_webhook_secrets (org_id, secret) VALUES ($1, $2)
		ON CONFLICT (org_id) DO UPDATE SET secret = EXCLUDED.secret, rotated_at = now()`, orgID, secret)
	if err != nil {
		return fmt.Errorf("rotate webhook secret of org %d: %w", orgID, err)
	}
	return nil
}

// checkDeliveryPolicy applies the network policy to a parsed config's
// webhook: the parser checks syntax only, as it cannot know the environment.
func (s *Store) checkDeliveryPolicy(cfg schedule.Config) error {
	if cfg.Delivery == nil || cfg.Delivery.Webhook == nil {
		return nil
	}
	if msg := webhookPolicyProblem(cfg.Delivery.Webhook.URL, s.AllowPrivateWebhooks); msg != "" {
		return &schedule.ValidationError{Errors: []schedule.FieldError{{Field: "delivery.webhook.url", Message: msg}}}
	}
	return nil
}

// cgnat is the carrier-grade NAT range (RFC 6598), which netip does not
// classify as private.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// webhookPolicyProblem says why a syntactically valid webhook URL may not be
// saved, "" if it may. Without allowPrivate it refuses http and hosts that
// are, literally, local or private addresses. No DNS here: a name is
// checked again after resolution when the delivery connects, so a name that
// resolves to a private address later still fails there.
func webhookPolicyProblem(raw string, allowPrivate bool) string {
	if allowPrivate {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a valid URL" // unreachable after schedule.ParseConfig
	}
	if u.Scheme != "https" {
		return "must start with https:// (http is allowed only when WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)"
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Sprintf("%s is this machine; webhooks must go to a public address", u.Hostname())
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		if numericHost(host) {
			// "127.1" or "2130706433" are loopback to some resolvers: only the
			// dotted-quad spelling is accepted, so the check above sees it.
			return fmt.Sprintf("%s is not an IP address in the usual form, such as 203.0.113.7", u.Hostname())
		}
		return ""
	}
	addr = addr.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || cgnat.Contains(addr) {
		return fmt.Sprintf("%s is a loopback, private, link-local or otherwise non-public address; webhooks must go to a public address", u.Hostname())
	}
	return ""
}

// numericHost reports whether a host that is not an IP address still looks
// like a number: its last label is all digits or 0x-hex, as no real
// top-level domain is.
func numericHost(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if after, ok := strings.CutPrefix(last, "0x"); ok {
		last = after
		return last == "" || strings.Trim(last, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}
