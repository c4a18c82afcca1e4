package tenants

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/transport"
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
	// Every webhook delivery reads it: a plain read first, so the common case
	// writes nothing (the upsert below leaves a dead row each time).
	var secret string
	err := s.DB.QueryRow(ctx, `SELECT secret FROM org_webhook_secrets WHERE org_id = $1`, orgID).Scan(&secret)
	if err == nil {
		return secret, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("webhook secret of org %d: %w", orgID, err)
	}
	fresh, err := newWebhookSecret()
	if err != nil {
		return "", err
	}
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
func (s *Store) RotateWebhookSecret(ctx context.Context, actor audit.Actor, orgID int64) (string, error) {
	fresh, err := newWebhookSecret()
	if err != nil {
		return "", err
	}
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := rotateSecret(ctx, tx, orgID, fresh); err != nil {
			return err
		}
		// What changed is said in words: neither the secret nor a hash of it
		// belongs in a log that staff and admins read.
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "webhook.secret.rotate", Target: "webhook",
			New: map[string]string{"webhook_secret": "rotated"}})
	})
	if err != nil {
		return "", err
	}
	return fresh, nil
}

func rotateSecret(ctx context.Context, q database.Querier, orgID int64, secret string) error {
	_, err := q.Exec(ctx, `
		INSERT INTO org_webhook_secrets (org_id, secret, created_at) VALUES ($1, $2, now())
		ON CONFLICT (org_id) DO UPDATE SET secret = EXCLUDED.secret, rotated_at = EXCLUDED.created_at`, orgID, secret)
	if err != nil {
		return fmt.Errorf("rotate webhook secret of org %d: %w", orgID, err)
	}
	return nil
}

// checkDeliveryPolicy applies the network policy to a parsed config's
// webhook: the parser checks syntax only, as it cannot know the environment.
// The rule is delivery's, the one the settings form and the dialer share;
// here its refusal becomes a field error beside the webhook URL.
func (s *Store) checkDeliveryPolicy(cfg schedule.Config) error {
	if cfg.Delivery == nil || cfg.Delivery.Webhook == nil {
		return nil
	}
	if err := transport.CheckWebhookURL(cfg.Delivery.Webhook.URL, s.AllowPrivateWebhooks); err != nil {
		return &schedule.ValidationError{Errors: []schedule.FieldError{{Field: "delivery.webhook.url", Code: schedule.CodeWebhookRefused, Message: apperr.Message(err)}}}
	}
	return nil
}
