// Package delivery is the transport under briefing delivery: it sends an
// email (over SMTP, or into the outbox when no SMTP server is configured) and
// posts a signed webhook, and it says of every failure whether a retry can
// help. It knows nothing about briefings: callers build the Message or the
// Webhook payload. See docs/delivery.md.
package transport

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Error is a failed delivery attempt, for email and webhook alike. The worker
// retries temporary errors with backoff and gives up at once on permanent
// ones; Code and Detail are recorded with the attempt and shown to admins.
type Error struct {
	// Permanent means a retry of the same request cannot succeed (SMTP 5xx,
	// HTTP 4xx other than 408/429, a refused address, a redirect).
	Permanent bool
	// Code is the SMTP reply code ("451", "550") or the HTTP status ("503"),
	// "" when no reply came (network error, timeout, refused address).
	Code string
	// Detail says what happened in a line that is safe to show to admins:
	// never a password or a signing secret, at most maxDetail characters.
	Detail string
	// RetryAfter is how long the other side asked us to wait (HTTP
	// Retry-After), 0 when it did not say.
	RetryAfter time.Duration

	err error // the cause, for errors.Is (e.g. context.Canceled)
}

func (e *Error) Error() string {
	kind := "temporary"
	if e.Permanent {
		kind = "permanent"
	}
	if e.Code != "" {
		return fmt.Sprintf("delivery failed (%s, %s): %s", kind, e.Code, e.Detail)
	}
	return fmt.Sprintf("delivery failed (%s): %s", kind, e.Detail)
}

func (e *Error) Unwrap() error { return e.err }

// IsPermanent reports whether err is a delivery error that a retry cannot
// fix. Any other error (a database outage, say) is worth retrying.
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Permanent
}

// RetryAfter returns the wait the other side asked for, 0 when none.
func RetryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// maxDetail bounds Error.Detail: it is stored with every attempt and shown
// in a table, and remote servers can answer with anything.
const maxDetail = 200

func temporary(code, detail string, cause error) *Error {
	return &Error{Code: code, Detail: clip(detail, maxDetail), err: cause}
}

func permanent(code, detail string, cause error) *Error {
	return &Error{Permanent: true, Code: code, Detail: clip(detail, maxDetail), err: cause}
}

// clip makes s one printable line of at most n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Message is one email to one recipient.
type Message struct {
	From    string // "Name <addr>" or addr; MAIL_FROM
	To      string // exactly one recipient
	Subject string
	Text    string // the text/plain part, required
	HTML    string // the text/html alternative, optional
	// MessageID is the Message-ID without its angle brackets
	// ("left@domain"). We choose it (see MessageID) so that a retried send
	// carries the same one and the outbox can deduplicate on it.
	MessageID string
	// UnsubscribeURL, when set, is announced as a one-click unsubscribe
	// (RFC 8058): List-Unsubscribe and List-Unsubscribe-Post headers.
	UnsubscribeURL string
	// OrgID is the tenant the mail is for; 0 for system mail.
	OrgID int64
}

// Headers returns the header fields, beyond the usual ones, that the message
// carries. Both mailers write exactly these, so the outbox shows what SMTP
// would have sent.
func (m Message) Headers() map[string]string {
	// Auto-Submitted keeps vacation responders from answering a briefing
	// (RFC 3834).
	h := map[string]string{"Auto-Submitted": "auto-generated"}
	if m.UnsubscribeURL != "" {
		h["List-Unsubscribe"] = "<" + m.UnsubscribeURL + ">"
		h["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
	}
	return h
}

// validate rejects a message that no server should see. These are bugs in
// the caller, so they are permanent: a retry would fail the same way.
func (m Message) validate() error {
	bad := func(format string, args ...any) error {
		return permanent("", fmt.Sprintf(format, args...), nil)
	}
	if _, err := mail.ParseAddress(m.From); err != nil {
		return bad("invalid From address %q", m.From)
	}
	if _, err := mail.ParseAddress(m.To); err != nil {
		return bad("invalid recipient address %q", m.To)
	}
	if m.Subject == "" || strings.ContainsAny(m.Subject, "\r\n") {
		return bad("the subject must be one non-empty line")
	}
	if m.Text == "" {
		return bad("the text part is empty")
	}
	if !validMessageID(m.MessageID) {
		return bad("invalid Message-ID %q: want left@domain without angle brackets", m.MessageID)
	}
	if strings.ContainsAny(m.UnsubscribeURL, "\r\n <>") {
		return bad("invalid unsubscribe URL")
	}
	return nil
}

func validMessageID(id string) bool {
	left, right, ok := strings.Cut(id, "@")
	return ok && left != "" && right != "" && !strings.ContainsAny(id, "<>\r\n \t\"") && !strings.Contains(right, "@")
}

// MessageIDFor derives a Message-ID from a key that names what is sent to
// whom (for a briefing: revision and recipient) and the domain of the From
// address. The same key always gives the same id, so a retry or a re-send is
// recognisably the same message; the key is hashed so that the id does not
// reveal the recipient's address.
func MessageIDFor(key, from string) (string, error) {
	addr, err := mail.ParseAddress(from)
	if err != nil {
		return "", fmt.Errorf("message id: from address %q: %w", from, err)
	}
	_, domain, _ := strings.Cut(addr.Address, "@")
	sum := sha256.Sum256([]byte(key))
	return "fb." + hex.EncodeToString(sum[:16]) + "@" + domain, nil
}
