package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"fieldbrief/internal/database"
	"fieldbrief/internal/tenants"
)

// Account emails: invite and password-reset links (docs/accounts.md).
//
// The web inserts a SendAccountEmailArgs task in the transaction that
// records the invite or the reset request; the worker's task handler
// (EmailHandler) mints the link's token, stores its SHA-256 and mails the
// link, in one transaction (PrepareAccountEmail), so the token exists in
// that email only: not in the database, not in the task's arguments.

// What an account email is about.
const (
	EmailInvite = "invite"
	EmailReset  = "reset"
)

// SendAccountEmailArgs asks the worker to mail the link of one invite or
// password reset. Send is the invite's send counter when the task was
// inserted: a resend bumps it, so an older task finds itself superseded
// and mails nothing.
type SendAccountEmailArgs struct {
	What  string `json:"what"` // EmailInvite or EmailReset
	ID    int64  `json:"id"`   // invites.id or password_resets.id
	OrgID int64  `json:"org_id,omitempty"`
	Send  int    `json:"send,omitempty"`
}

// Kind names the task kind in River.
func (SendAccountEmailArgs) Kind() string { return "send_account_email" }

// InsertOpts: a few attempts; a link that cannot be mailed within minutes
// is better asked for again than sent late.
func (SendAccountEmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5}
}

func insertAccountEmail(ctx context.Context, tx pgx.Tx, a SendAccountEmailArgs) error {
	c, err := database.InsertClient()
	if err != nil {
		return err
	}
	if _, err := c.InsertTx(ctx, tx, a, nil); err != nil {
		return fmt.Errorf("enqueue %s email %d: %w", a.What, a.ID, err)
	}
	return nil
}

// newLinkToken is a link's secret: 130 bits of base32 from crypto/rand,
// safe in a URL path.
func newLinkToken() string { return rand.Text() }

// hashLinkToken is what the database keeps. SHA-256 rather than a password
// hash, as for API tokens: the token is random, not chosen by a person.
func hashLinkToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// AccountEmail is what the mail of one invite or reset says.
type AccountEmail struct {
	What      string
	To        string
	OrgID     int64        // the invite's org; 0 for a reset
	OrgName   string       // invites only
	Inviter   string       // invites only: who invited
	Role      tenants.Role // invites only
	Token     string       // the link's secret, minted now
	ExpiresAt time.Time
	Key       string // names this send, for the Message-ID

	// Who reads it (docs/i18n.md, "Who reads what"): the person's own
	// language when they have an account and chose one; else the invite's
	// org's locale, or for a reset the locale all the person's orgs share.
	Language string // "" for none
	Locale   string // an org locale, "" for none (en-US)
	// Where its times are read: the invite's org's zone; for a reset, the
	// zone of the person's org when they have one org. Nil reads UTC, the
	// one zone a person of several orgs (or none) has in common.
	Zone *time.Location
}

// ErrEmailNotWanted means the task has nothing to send: the invite was
// accepted, revoked, resent since (a newer task sends) or expired, or the
// reset was used or expired.
var ErrEmailNotWanted = errors.New("account email no longer wanted")

// PrepareAccountEmail locks the invite or reset of a in tx and, when its
// email is still wanted at now, mints a new token, stores its hash and
// returns the email's content. The caller sends the email and commits tx:
// if the commit fails after an SMTP send, that link is dead, and the
// retried task mints and sends a new one.
func PrepareAccountEmail(ctx context.Context, tx pgx.Tx, a SendAccountEmailArgs, now time.Time) (AccountEmail, error) {
	m := AccountEmail{What: a.What, Token: newLinkToken()}
	var err error
	switch a.What {
	case EmailInvite:
		var sends int
		var accepted, revoked *time.Time
		err = tx.QueryRow(ctx, `
			SELECT i.email, i.role, i.expires_at, i.sends, i.accepted_at, i.revoked_at, o.id, o.name, i.invited_by_email
			  FROM invites i JOIN orgs o ON o.id = i.org_id
			 WHERE i.id = $1 AND i.org_id = $2 FOR UPDATE OF i`, a.ID, a.OrgID).
			Scan(&m.To, &m.Role, &m.ExpiresAt, &sends, &accepted, &revoked, &m.OrgID, &m.OrgName, &m.Inviter)
		if err != nil {
			break
		}
		if accepted != nil || revoked != nil || sends != a.Send || !now.Before(m.ExpiresAt) {
			return AccountEmail{}, ErrEmailNotWanted
		}
		m.Key = fmt.Sprintf("invite:%d:%d", a.ID, sends)
		// The org's locale; the invited person's own language when they
		// already have an account.
		err = tx.QueryRow(ctx, `
			SELECT o.locale, coalesce((SELECT u.language FROM users u WHERE lower(u.email) = lower($3)), '')
			  FROM orgs o WHERE o.id = $1 AND o.id = $2`, m.OrgID, a.OrgID, m.To).Scan(&m.Locale, &m.Language)
		if err != nil {
			break
		}
		if m.Zone, err = orgZone(ctx, tx, m.OrgID); err != nil {
			break
		}
		_, err = tx.Exec(ctx, `UPDATE invites SET token_hash = $3 WHERE id = $1 AND org_id = $2`, a.ID, a.OrgID, hashLinkToken(m.Token))
	case EmailReset:
		var used *time.Time
		err = tx.QueryRow(ctx, `
			SELECT u.email, r.expires_at, r.used_at FROM password_resets r JOIN users u ON u.id = r.user_id
			 WHERE r.id = $1 FOR UPDATE OF r`, a.ID).Scan(&m.To, &m.ExpiresAt, &used)
		if err != nil {
			break
		}
		if used != nil || !now.Before(m.ExpiresAt) {
			return AccountEmail{}, ErrEmailNotWanted
		}
		m.Key = fmt.Sprintf("reset:%d", a.ID)
		// Their own language; else their orgs' locale when they all share
		// one; their org's zone when they have one org.
		var only int64
		err = tx.QueryRow(ctx, `
			SELECT coalesce(u.language, ''),
			       coalesce((SELECT min(o.locale) FROM memberships ms JOIN orgs o ON o.id = ms.org_id
			                  WHERE ms.user_id = u.id HAVING count(DISTINCT o.locale) = 1), ''),
			       coalesce((SELECT min(ms.org_id) FROM memberships ms WHERE ms.user_id = u.id HAVING count(*) = 1), 0)
			  FROM password_resets r JOIN users u ON u.id = r.user_id WHERE r.id = $1`, a.ID).Scan(&m.Language, &m.Locale, &only)
		if err != nil {
			break
		}
		if only != 0 {
			if m.Zone, err = orgZone(ctx, tx, only); err != nil {
				break
			}
		}
		_, err = tx.Exec(ctx, `UPDATE password_resets SET token_hash = $2 WHERE id = $1`, a.ID, hashLinkToken(m.Token))
	default:
		return AccountEmail{}, fmt.Errorf("account email: unknown kind %q", a.What)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return AccountEmail{}, ErrEmailNotWanted // its org or user was deleted since
	}
	if err != nil {
		return AccountEmail{}, fmt.Errorf("prepare %s email %d: %w", a.What, a.ID, err)
	}
	return m, nil
}

// LinkError is why an invite or reset link does not work; its Reason is
// what the page says.
type LinkError struct{ Reason string }

// Reasons a link does not work.
const (
	LinkInvalid = "invalid"
	LinkExpired = "expired"
	LinkUsed    = "used"
	LinkRevoked = "revoked"
)

func (e *LinkError) Error() string { return "link " + e.Reason }

// orgZone is the zone an org's people read times in: its briefing's
// (tenants.FieldforceConfig.Zone), nil (UTC) while it has none saved.
func orgZone(ctx context.Context, tx pgx.Tx, orgID int64) (*time.Location, error) {
	cfg, err := tenants.ReadFieldforce(ctx, tx, orgID)
	if err != nil {
		return nil, fmt.Errorf("org %d's zone: %w", orgID, err)
	}
	z, err := cfg.Zone()
	if err != nil {
		return nil, nil // none saved (or unusable): the email reads UTC, and says so
	}
	return z.Loc, nil
}
