// Package unsubscribe is the recipients' one-click opt-out of an org's
// briefing emails (RFC 8058): the signed link every briefing email carries,
// acting on it, and the org's suppression list the delivery code reads.
package unsubscribe

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
)

// Every briefing email carries a link
// signed for its recipient and org; following it (a POST, never a GET)
// removes the address from the org's recipients and suppresses it, so the
// dispatchers' briefing skips it. A technician's day sheet carries no such
// link (it is their work); a link from an older one records their request
// to stop on the technician, where the office sees it.
//
// Actions written:
//
//	delivery.unsubscribe  a recipient (the actor, by address) unsubscribed: old → new
//	                      {"to": [...], "suppressed": bool}; nothing when a click changes nothing

// MaxTokenLen bounds the token a request may present: a real one is
// under 400 characters (an org id, an address of at most 254 bytes and a
// MAC, in base64), and anything longer is refused before any work.
const MaxTokenLen = 512

// unsubscribeKey names the signing key in app_signing_keys.
const unsubscribeKey = "unsubscribe"

// unsubscribeMACSize truncates HMAC-SHA256 to 128 bits: far beyond online
// guessing, and it keeps the link short enough for every mail client.
const unsubscribeMACSize = 16

// signingKeySize is a new key's length: HMAC-SHA256's block of entropy.
const signingKeySize = 32

// Store signs and acts on unsubscribe links.
type Store struct {
	DB  *pgxpool.Pool
	Now func() time.Time // default time.Now
}

func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Result is who a valid link is for.
type Result struct {
	OrgName string
	Email   string
	// The reader's language (docs/i18n.md): Language is that of the org's
	// technician with this address ("" when none has one), OrgLocale the
	// org's locale.
	Language  string
	OrgLocale string
}

// errBadUnsubscribeLink is every way a token can fail, told apart nowhere:
// the person holding it can do nothing different in either case.
var errBadUnsubscribeLink = apperr.Refuse(apperr.Invalid, "unsubscribe_link_invalid", nil)

// URL returns the one-click unsubscribe link of email for the
// org: baseURL/unsubscribe?t=<token>. The token is base64url of the org id,
// the address and their HMAC under the shared signing key. It does not
// expire: an unsubscribe link in an old email must keep working.
func (s *Store) URL(ctx context.Context, baseURL string, orgID int64, email string) (string, error) {
	if a, err := text.NormalizeAddress(email); err != nil || a != email {
		return "", fmt.Errorf("unsubscribe link for org %d: %q is not a bare address", orgID, email)
	}
	if orgID <= 0 {
		return "", fmt.Errorf("unsubscribe link for %q: no org", email)
	}
	key, err := s.signingKey(ctx, unsubscribeKey)
	if err != nil {
		return "", err
	}
	payload := binary.AppendUvarint(nil, uint64(orgID))
	payload = append(payload, email...)
	token := base64.RawURLEncoding.EncodeToString(append(payload, unsubscribeMAC(key, payload)...))
	return strings.TrimSuffix(baseURL, "/") + "/unsubscribe?t=" + token, nil
}

// Target verifies a token and says who and which org it is for,
// changing nothing: the confirmation page shows it before the POST.
func (s *Store) Target(ctx context.Context, token string) (Result, error) {
	orgID, email, err := s.verifyUnsubscribe(ctx, token)
	if err != nil {
		return Result{}, err
	}
	res, err := orgOf(ctx, s.DB, orgID, email)
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// Unsubscribe acts on a verified token, in one transaction: it removes the
// address (ignoring case) from the org's delivery.email.to, dropping the
// email delivery when no one is left to mail and technicians are off;
// records the suppression; and audits "delivery.unsubscribe" with the
// address as the actor. A second click changes nothing and succeeds. A bad
// token is apperr.Invalid and changes nothing.
func (s *Store) Unsubscribe(ctx context.Context, token string) (Result, error) {
	orgID, email, err := s.verifyUnsubscribe(ctx, token)
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if res, err = orgOf(ctx, tx, orgID, email); err != nil {
			return err
		}
		oldTo, newTo, err := removeRecipient(ctx, tx, orgID, email)
		if err != nil {
			return err
		}
		suppressed, err := suppress(ctx, tx, orgID, email)
		if err != nil {
			return err
		}
		// A technician's day sheets no longer carry this link, but older
		// ones did: their stop is recorded where the office sees it
		// (docs/delivery.md, "Stopping day sheets").
		if err := field.StopDaySheetsOf(ctx, tx, audit.Actor{Email: email}, orgID, email, s.now()); err != nil {
			return err
		}
		if !suppressed && slices.Equal(oldTo, newTo) {
			return nil // an earlier click did it all
		}
		return audit.Record(ctx, tx, audit.Entry{
			Actor: audit.Actor{Email: email}, OrgID: orgID, Action: "delivery.unsubscribe", Target: "delivery.email.to",
			Old: unsubscribeState{To: oldTo, Suppressed: !suppressed},
			New: unsubscribeState{To: newTo, Suppressed: true},
		})
	})
	if err != nil {
		return Result{}, fmt.Errorf("unsubscribe %s from org %d: %w", email, orgID, err)
	}
	return res, nil
}

// unsubscribeState is what an audit entry shows of an unsubscribe: the
// org's recipient list and whether the address was suppressed.
type unsubscribeState struct {
	To         []string `json:"to"`
	Suppressed bool     `json:"suppressed"`
}

const suppressedSQL = `SELECT lower(email) FROM email_suppressions WHERE org_id = $1`

// QueueSuppressed queues the read of the org's unsubscribed addresses,
// lowercased, on b, for the delivery code that picks recipients
// (dispatchers and technicians alike) in the generation's one round trip;
// the map is filled when the batch is closed.
func QueueSuppressed(b *pgx.Batch, orgID int64) map[string]bool {
	out := map[string]bool{}
	b.Queue(suppressedSQL, orgID).Query(func(rows pgx.Rows) error {
		var e string
		_, err := pgx.ForEachRow(rows, []any{&e}, func() error {
			out[e] = true
			return nil
		})
		if err != nil {
			return fmt.Errorf("suppressed addresses of org %d: %w", orgID, err)
		}
		return nil
	})
	return out
}

// verifyUnsubscribe returns the org and address a token was signed for.
// The MAC is compared in constant time before anything in the token is
// believed.
func (s *Store) verifyUnsubscribe(ctx context.Context, token string) (int64, string, error) {
	if token == "" || len(token) > MaxTokenLen {
		return 0, "", errBadUnsubscribeLink
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) <= unsubscribeMACSize {
		return 0, "", errBadUnsubscribeLink
	}
	key, err := s.signingKey(ctx, unsubscribeKey)
	if err != nil {
		return 0, "", err
	}
	payload, sum := raw[:len(raw)-unsubscribeMACSize], raw[len(raw)-unsubscribeMACSize:]
	if !hmac.Equal(sum, unsubscribeMAC(key, payload)) {
		return 0, "", errBadUnsubscribeLink
	}
	id, n := binary.Uvarint(payload)
	if n <= 0 || id == 0 || id > math.MaxInt64 || n == len(payload) {
		return 0, "", errBadUnsubscribeLink // signed by us, so unreachable short of a bug
	}
	return int64(id), string(payload[n:]), nil
}

func unsubscribeMAC(key, payload []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(payload)
	return h.Sum(nil)[:unsubscribeMACSize]
}

// signingKey returns the named key, creating it at random on first use.
// The web and the worker share it through the database, so neither needs
// it configured. Two first uses at once agree: the loser of the insert
// reads the winner's key.
func (s *Store) signingKey(ctx context.Context, name string) ([]byte, error) {
	var key []byte
	err := s.DB.QueryRow(ctx, `SELECT key FROM app_signing_keys WHERE name = $1`, name).Scan(&key)
	if err == nil {
		return key, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("signing key %q: %w", name, err)
	}
	fresh := make([]byte, signingKeySize)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("generate signing key %q: %w", name, err)
	}
	// DO UPDATE SET nothing-changing makes RETURNING give the existing row;
	// DO NOTHING would return no row to the loser of a race.
	err = s.DB.QueryRow(ctx, `
		INSERT INTO app_signing_keys (name, key) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
		RETURNING key`, name, fresh).Scan(&key)
	if err != nil {
		return nil, fmt.Errorf("create signing key %q: %w", name, err)
	}
	return key, nil
}

// orgName is the org's display name; a link for an org deleted since is
// NotFound.
// orgOf is who a link is for: the org's name and locale, and the language
// of the org's technician with that address, if one has a language (a
// technician's briefing email has the link too).
func orgOf(ctx context.Context, q database.Querier, orgID int64, email string) (Result, error) {
	res := Result{Email: email}
	err := q.QueryRow(ctx, `SELECT name, locale FROM orgs WHERE id = $1`, orgID).Scan(&res.OrgName, &res.OrgLocale)
	if errors.Is(err, pgx.ErrNoRows) {
		return Result{}, apperr.Refuse(apperr.NotFound, "unsubscribe_org_gone", nil)
	}
	if err != nil {
		return Result{}, fmt.Errorf("org %d of an unsubscribe link: %w", orgID, err)
	}
	if res.Language, err = field.LanguageByEmail(ctx, q, orgID, email); err != nil {
		return Result{}, fmt.Errorf("an unsubscribe link: %w", err)
	}
	return res, nil
}

// removeRecipient takes email out of the org's stored recipient list, if
// it is there, and saves the canonical config. It returns the list before
// and after. An org without a config, or with one that no longer parses
// (the worker sends nothing from it), is left as it is: the suppression
// alone keeps the address from being mailed.
func removeRecipient(ctx context.Context, tx pgx.Tx, orgID int64, email string) (before, after []string, err error) {
	doc, err := tenants.LockFieldforce(ctx, tx, orgID)
	if err != nil || doc == nil {
		return []string{}, []string{}, err
	}
	cfg, _, parseErr := schedule.ParseConfig(doc)
	if parseErr != nil {
		return []string{}, []string{}, nil
	}
	before = recipients(cfg)
	i := slices.IndexFunc(before, func(to string) bool { return strings.EqualFold(to, email) })
	if i < 0 {
		return before, before, nil
	}
	cfg.Delivery.Email.To = slices.Delete(slices.Clone(before), i, i+1)
	after = recipients(cfg)
	// What is left must be a config the form would accept: an email
	// delivery with no one to send to is dropped, then an empty delivery.
	if len(after) == 0 {
		cfg.Delivery.Email.To = nil
		if !cfg.Delivery.Email.Technicians {
			cfg.Delivery.Email = nil
		}
	}
	if cfg.Delivery.Email == nil && cfg.Delivery.Webhook == nil {
		cfg.Delivery = nil
	}
	return before, after, tenants.WriteFieldforce(ctx, tx, orgID, 0, cfg.JSON())
}

// recipients is the config's email list, never nil (the audit shows []).
func recipients(cfg schedule.Config) []string {
	if cfg.Delivery == nil || cfg.Delivery.Email == nil {
		return []string{}
	}
	return append([]string{}, cfg.Delivery.Email.To...)
}

// suppress records that email unsubscribed from the org; false when it
// already had.
func suppress(ctx context.Context, q database.Querier, orgID int64, email string) (bool, error) {
	tag, err := q.Exec(ctx, `
		INSERT INTO email_suppressions (org_id, email) VALUES ($1, $2)
		ON CONFLICT (org_id, lower(email)) DO NOTHING`, orgID, email)
	if err != nil {
		return false, fmt.Errorf("suppress %s for org %d: %w", email, orgID, err)
	}
	return tag.RowsAffected() == 1, nil
}
