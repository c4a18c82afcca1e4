package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Mailer sends one message. SMTPMailer delivers it; OutboxMailer keeps it
// for staff to read when no SMTP server is configured.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// NewMailer returns an SMTPMailer when smtpURL is set, else an OutboxMailer
// on db.
func NewMailer(smtpURL string, db database.Querier) (Mailer, error) {
	if smtpURL == "" {
		return NewOutboxMailer(db), nil
	}
	c, err := ParseSMTPURL(smtpURL)
	if err != nil {
		return nil, err
	}
	return NewSMTPMailer(c), nil
}

// OutboxMailer stores messages in mail_outbox instead of sending them.
type OutboxMailer struct {
	db database.Querier
}

// NewOutboxMailer returns a mailer that writes to db.
func NewOutboxMailer(db database.Querier) *OutboxMailer { return &OutboxMailer{db: db} }

// Send stores m. A message whose Message-ID is already there is not stored
// again, so a retried send is harmless.
func (o *OutboxMailer) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	var orgID *int64
	if m.OrgID != 0 {
		orgID = &m.OrgID
	}
	_, err := o.db.Exec(ctx, `
		INSERT INTO mail_outbox (org_id, message_id, mail_from, rcpt, subject, text_body, html_body, headers)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (message_id) DO NOTHING`,
		orgID, m.MessageID, m.From, m.To, m.Subject, m.Text, m.HTML, m.Headers())
	if err != nil {
		return fmt.Errorf("store message %s in the outbox: %w", m.MessageID, err)
	}
	return nil
}

// OutboxEntry is a stored message.
type OutboxEntry struct {
	ID        int64
	OrgID     int64  // 0 for system mail
	OrgSlug   string // "" for system mail
	MessageID string
	From      string
	To        string
	Subject   string
	Text      string // empty in ListOutbox
	HTML      string // empty in ListOutbox
	Headers   map[string]string
	CreatedAt time.Time
}

// MaxOutboxPage bounds a ListOutbox page.
const MaxOutboxPage = 200

// ListOutbox returns up to limit messages, newest first, older than the
// message beforeID (0: from the newest). Newest is by created_at: ids
// carry no order (migration 00043, docs/security.md "Ids and ETags"). Bodies are not loaded: the list
// shows headers, GetOutbox the rest. Staff read every org's mail here.
func ListOutbox(ctx context.Context, q database.Querier, limit int, beforeID int64) ([]OutboxEntry, error) {
	limit = min(max(limit, 1), MaxOutboxPage)
	rows, err := q.Query(ctx, `
		SELECT m.id, coalesce(m.org_id, 0), coalesce(o.slug, ''), m.message_id, m.mail_from, m.rcpt, m.subject, '', '', m.headers, m.created_at
		FROM mail_outbox m LEFT JOIN orgs o ON o.id = m.org_id
		WHERE $1::bigint = 0
		   OR (m.created_at, m.id) < (SELECT b.created_at, b.id FROM mail_outbox b WHERE b.id = $1::bigint)
		ORDER BY m.created_at DESC, m.id DESC
		LIMIT $2`, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	entries, err := pgx.CollectRows(rows, scanOutbox)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	return entries, nil
}

// GetOutbox returns one message with its bodies.
func GetOutbox(ctx context.Context, q database.Querier, id int64) (OutboxEntry, error) {
	rows, err := q.Query(ctx, `
		SELECT m.id, coalesce(m.org_id, 0), coalesce(o.slug, ''), m.message_id, m.mail_from, m.rcpt, m.subject, m.text_body, m.html_body, m.headers, m.created_at
		FROM mail_outbox m LEFT JOIN orgs o ON o.id = m.org_id
		WHERE m.id = $1`, id)
	if err != nil {
		return OutboxEntry{}, fmt.Errorf("get outbox message %d: %w", id, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, scanOutbox)
	if errors.Is(err, pgx.ErrNoRows) {
		return OutboxEntry{}, apperr.Refuse(apperr.NotFound, "outbox_not_found", nil)
	}
	if err != nil {
		return OutboxEntry{}, fmt.Errorf("get outbox message %d: %w", id, err)
	}
	return e, nil
}

// GetOrgOutbox returns the org's message whose Message-ID is messageID,
// with its bodies; another org's message, or none, is NotFound. An org's
// admins read their own test emails this way (docs/delivery.md, "The
// outbox").
func GetOrgOutbox(ctx context.Context, q database.Querier, orgID int64, messageID string) (OutboxEntry, error) {
	rows, err := q.Query(ctx, `
		SELECT m.id, coalesce(m.org_id, 0), coalesce(o.slug, ''), m.message_id, m.mail_from, m.rcpt, m.subject, m.text_body, m.html_body, m.headers, m.created_at
		FROM mail_outbox m JOIN orgs o ON o.id = m.org_id
		WHERE m.message_id = $1 AND m.org_id = $2`, messageID, orgID)
	if err != nil {
		return OutboxEntry{}, fmt.Errorf("get outbox message %s of org %d: %w", messageID, orgID, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, scanOutbox)
	if errors.Is(err, pgx.ErrNoRows) {
		return OutboxEntry{}, apperr.Refuse(apperr.NotFound, "outbox_not_found", nil)
	}
	if err != nil {
		return OutboxEntry{}, fmt.Errorf("get outbox message %s of org %d: %w", messageID, orgID, err)
	}
	return e, nil
}

func scanOutbox(row pgx.CollectableRow) (OutboxEntry, error) {
	var e OutboxEntry
	err := row.Scan(&e.ID, &e.OrgID, &e.OrgSlug, &e.MessageID, &e.From, &e.To, &e.Subject, &e.Text, &e.HTML, &e.Headers, &e.CreatedAt)
	return e, err
}
