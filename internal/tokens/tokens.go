// Package tokens holds the API tokens: org-scoped bearer credentials for
// integrations (docs/api.md).
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/text"
)

// A token is shown once, when created; the database keeps its SHA-256 only.
//
// Actions written:
//
//	api_token.create  an admin or operator created a token (new: {"name", "hint"}; never the token)
//	api_token.revoke  an admin revoked one (old: {"name", "hint"}), or its
//	                  creator stopped being an admin of the org or left it
//	                  (reason: "creator_not_admin", "creator_removed")

// Prefix starts every token, so secret scanners (and people) can
// recognise one pasted where it should not be.
const Prefix = "fb_"

// TouchEvery is how stale last_used_at may get: a token used
// continuously writes its row at most once per interval, not per request.
const TouchEvery = time.Minute

// MaxLive is how many live tokens one org may hold.
const MaxLive = 50

// hintLen is how much of the token the list shows ("fb_" and 8
// characters: 40 of the 260 random bits).
const hintLen = len(Prefix) + 8

// Token is a token's record; the token itself is never stored.
type Token struct {
	ID        int64
	OrgID     int64
	Name      string
	Hint      string // the token's first characters, e.g. "fb_K3XQ2M7A"
	CreatedBy string // the creator's email, "system" for web create-token
	// CreatorID is the admin who made it; 0 for a token of the org itself
	// (web create-token), which no membership change ends, and for one
	// whose creator's user was deleted (which no longer works).
	CreatorID int64
	// OrgOwned: made by web create-token, the org's (migration 00044).
	OrgOwned bool
	// Scope is what the token may do: ScopeRead or ScopeWrite.
	Scope      Scope
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used
	RevokedAt  time.Time // zero: live
	// RevokedFor says why a revoked token was: an admin revoked it, or its
	// creator stopped being an admin or left; "" for a live token and for
	// those revoked before reasons were kept.
	RevokedFor RevokeReason
}

// Scope is what a token may do (migration 00045).
type Scope string

const (
	ScopeRead  Scope = "read"  // GET only
	ScopeWrite Scope = "write" // GET and every write
)

// ParseScope reads a scope as a form or a flag gives it; "" is write, the
// default (and what every token made before scopes is).
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case "", ScopeWrite:
		return ScopeWrite, nil
	case ScopeRead:
		return ScopeRead, nil
	}
	return "", apperr.FieldRefusal("scope", "token_scope", apperr.Args{"Scope": s})
}

// RevokeReason is why a token was revoked (docs/security.md, "Access ends
// with its reason").
type RevokeReason string

const (
	RevokedByAdmin         RevokeReason = "admin"             // an admin revoked it on the tokens page
	RevokedCreatorRemoved  RevokeReason = "creator_removed"   // its creator left the org
	RevokedCreatorNotAdmin RevokeReason = "creator_not_admin" // its creator is no longer an admin
)

// Revoked reports whether the token no longer authenticates.
func (t Token) Revoked() bool { return !t.RevokedAt.IsZero() }

// newToken returns a fresh token: the prefix and 52 characters of
// base32 from crypto/rand (260 bits).
func newToken() string {
	return Prefix + rand.Text() + rand.Text()
}

// hashToken is what the database stores. SHA-256, not a password hash
// like argon2: a token is 260 random bits, so nobody can guess it from its
// hash however fast the hash is, and slowness would only cost every API
// request its milliseconds. A password is different: people pick guessable
// ones, which only a slow hash protects.
func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// MaxNameLen is the longest token name, in characters.
const MaxNameLen = 100

// ValidateName checks a token's name, which the audit log shows as
// the actor of the token's writes.
func ValidateName(name string) error {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n == 0 || n > MaxNameLen {
		return apperr.FieldRefusal("name", "token_name_required", apperr.Args{"Max": MaxNameLen})
	}
	if text.HasControl(name) {
		return apperr.FieldRefusal("name", "token_name_characters", nil)
	}
	// The audit log shows the name where it shows a person's email (or
	// "system" for operators), so it must not pass for either.
	if strings.Contains(name, "@") || strings.EqualFold(name, audit.System.Email) {
		return apperr.FieldRefusal("name", "token_name_reserved", nil)
	}
	return nil
}

// Store keeps the orgs' API tokens.
type Store struct {
	DB *pgxpool.Pool
}

// Create creates a token for the org and records "api_token.create" in the
// same transaction. It returns the record and the token, which exists
// nowhere else from then on.
func (s *Store) Create(ctx context.Context, actor audit.Actor, orgID int64, name string, scope Scope, now time.Time) (Token, string, error) {
	if scope != ScopeRead && scope != ScopeWrite {
		return Token{}, "", apperr.FieldRefusal("scope", "token_scope", apperr.Args{"Scope": string(scope)})
	}
	name = strings.TrimSpace(name)
	if err := ValidateName(name); err != nil {
		return Token{}, "", err
	}
	token := newToken()
	t := Token{OrgID: orgID, Name: name, Hint: token[:hintLen], CreatedBy: actor.Email, CreatedAt: now, Scope: scope,
		OrgOwned: actor.UserID == 0}
	var createdBy *int64
	if actor.UserID != 0 {
		createdBy = &actor.UserID
	}
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		// Serialises creations in one org, so the cap below holds.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE`, orgID); err != nil {
			return fmt.Errorf("lock org %d: %w", orgID, err)
		}
		var live int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE org_id = $1 AND revoked_at IS NULL`, orgID).Scan(&live); err != nil {
			return fmt.Errorf("count api tokens of org %d: %w", orgID, err)
		}
		if live >= MaxLive {
			return apperr.FieldRefusal("name", "token_limit", apperr.Args{"Count": MaxLive})
		}
		err := tx.QueryRow(ctx, `
			INSERT INTO api_tokens (org_id, name, token_hash, hint, created_by, created_by_email, created_at, scope)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			RETURNING id`, orgID, name, hashToken(token), t.Hint, createdBy, actor.Email, now, scope).Scan(&t.ID)
		if database.IsUniqueViolation(err, "api_tokens_org_name_key") {
			return apperr.FieldRefusal("name", "token_name_taken", apperr.Args{"Name": name})
		}
		if err != nil {
			return fmt.Errorf("create api token for org %d: %w", orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "api_token.create",
			Target: fmt.Sprintf("api token %d", t.ID), New: map[string]string{"name": name, "hint": t.Hint}})
	})
	if err != nil {
		return Token{}, "", err
	}
	return t, token, nil
}

const tokenColumns = `id, org_id, name, hint, created_by_email, coalesce(created_by, 0), created_at, last_used_at, revoked_at, coalesce(revoked_reason, ''), org_owned, scope`

func scanToken(row pgx.Row) (Token, error) {
	var t Token
	var used, revoked *time.Time
	err := row.Scan(&t.ID, &t.OrgID, &t.Name, &t.Hint, &t.CreatedBy, &t.CreatorID, &t.CreatedAt, &used, &revoked, &t.RevokedFor, &t.OrgOwned, &t.Scope)
	if used != nil {
		t.LastUsedAt = *used
	}
	if revoked != nil {
		t.RevokedAt = *revoked
	}
	return t, err
}

// List lists the org's live tokens, newest first, then the 20 most
// recently revoked ones.
func (s *Store) List(ctx context.Context, orgID int64) ([]Token, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), fmt.Sprintf("api tokens of org %d", orgID),
		func(r pgx.CollectableRow) (Token, error) { return scanToken(r) }, `
		(SELECT `+tokenColumns+` FROM api_tokens WHERE org_id = $1 AND revoked_at IS NULL
		  ORDER BY created_at DESC, id DESC LIMIT $2)
		UNION ALL
		(SELECT `+tokenColumns+` FROM api_tokens WHERE org_id = $1 AND revoked_at IS NOT NULL
		  ORDER BY revoked_at DESC, id DESC LIMIT 20)`, orgID, MaxLive)
}

// Revoke revokes one of the org's tokens and records
// "api_token.revoke"; its next request is refused. Revoking it again
// changes nothing (a double click); a token of another org is NotFound.
func (s *Store) Revoke(ctx context.Context, actor audit.Actor, orgID, id int64, now time.Time) (Token, error) {
	var t Token
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		t, err = scanToken(tx.QueryRow(ctx, `
			SELECT `+tokenColumns+` FROM api_tokens WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Refuse(apperr.NotFound, "token_not_found", apperr.Args{"ID": id})
		}
		if err != nil {
			return fmt.Errorf("revoke api token %d of org %d: %w", id, orgID, err)
		}
		if t.Revoked() {
			return nil
		}
		t.RevokedAt, t.RevokedFor = now, RevokedByAdmin
		if _, err := tx.Exec(ctx, `UPDATE api_tokens SET revoked_at = $3, revoked_reason = $4 WHERE org_id = $1 AND id = $2`,
			orgID, id, now, RevokedByAdmin); err != nil {
			return fmt.Errorf("revoke api token %d of org %d: %w", id, orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "api_token.revoke",
			Target: fmt.Sprintf("api token %d", id), Old: map[string]string{"name": t.Name, "hint": t.Hint}})
	})
	return t, err
}

// RevokeCreatedBy revokes the live tokens that userID made in the org, in
// the caller's transaction q: the membership change that ends their being
// an admin (tenants), so the two commit together, stamped with that
// transaction's time as its audit entry is. Each is recorded as
// "api_token.revoke" with the reason; it returns how many were.
func RevokeCreatedBy(ctx context.Context, q database.Querier, actor audit.Actor, orgID, userID int64, reason RevokeReason) (int, error) {
	revoked, err := database.List(ctx, q, fmt.Sprintf("revoke api tokens of user %d in org %d", userID, orgID),
		func(r pgx.CollectableRow) (Token, error) { return scanToken(r) }, `
		UPDATE api_tokens SET revoked_at = now(), revoked_reason = $3
		 WHERE org_id = $1 AND created_by = $2 AND revoked_at IS NULL
		RETURNING `+tokenColumns, orgID, userID, reason)
	if err != nil {
		return 0, err
	}
	for _, t := range revoked {
		if err := audit.Record(ctx, q, audit.Entry{Actor: actor, OrgID: orgID, Action: "api_token.revoke",
			Target: fmt.Sprintf("api token %d", t.ID), Old: map[string]string{"name": t.Name, "hint": t.Hint},
			Reason: string(reason)}); err != nil {
			return 0, err
		}
	}
	return len(revoked), nil
}

// errBadToken is every authentication failure, alike: a caller learns
// nothing about which tokens exist or were revoked.
var errBadToken = apperr.Refuse(apperr.Unauthorized, "token_invalid", nil)

// Authenticate returns the live token's record, or an Unauthorized error.
// Nothing is cached, so a revocation holds from the next request. It
// refreshes last_used_at when it is older than TouchEvery.
func (s *Store) Authenticate(ctx context.Context, token string, now time.Time) (Token, error) {
	// Cheap checks first: anything that cannot be one of ours costs no query.
	if !strings.HasPrefix(token, Prefix) || len(token) != len(Prefix)+52 {
		return Token{}, errBadToken
	}
	hash := hashToken(token)
	var stored []byte
	var used *time.Time
	var t Token
	// Looking the row up by hash leaks nothing through timing: a caller
	// controls the token, not its hash, so how far an index comparison gets
	// says nothing about any stored token. The constant-time comparison
	// after it keeps the check itself free of early exits all the same.
	//
	// A token is the org's (web create-token) or its creator's, and then
	// works only while they are an admin of its org: revoking on a demotion
	// or a removal (RevokeCreatedBy) is the record; this is the rule, which
	// also holds when a membership or a user ends some other way
	// (docs/security.md, "Access ends with its reason").
	err := s.DB.QueryRow(ctx, `
		SELECT t.id, t.org_id, t.name, t.hint, t.token_hash, t.last_used_at, t.scope
		  FROM api_tokens t
		  LEFT JOIN memberships m ON m.org_id = t.org_id AND m.user_id = t.created_by
		 WHERE t.token_hash = $1 AND t.revoked_at IS NULL
		   AND (t.org_owned OR m.role = 'admin')`, hash).Scan(&t.ID, &t.OrgID, &t.Name, &t.Hint, &stored, &used, &t.Scope)
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, errBadToken
	}
	if err != nil {
		return Token{}, fmt.Errorf("authenticate api token: %w", err)
	}
	if subtle.ConstantTimeCompare(stored, hash) != 1 {
		return Token{}, errBadToken
	}
	if used != nil {
		t.LastUsedAt = *used
	}
	if used == nil || now.Sub(*used) >= TouchEvery {
		// The WHERE repeats the check, so a burst of requests arriving
		// together still writes the row once.
		_, err := s.DB.Exec(ctx, `
			UPDATE api_tokens SET last_used_at = $2
			 WHERE org_id = $4 AND id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`, t.ID, now, now.Add(-TouchEvery), t.OrgID)
		if err != nil {
			return Token{}, fmt.Errorf("touch api token %d: %w", t.ID, err)
		}
		t.LastUsedAt = now
	}
	return t, nil
}
