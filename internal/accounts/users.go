// Package accounts holds the people who sign in: users and their
// passwords, sign-in, invites to an org, password resets, the profile, and
// the account emails (invite and reset links) with their task handler
// (docs/accounts.md).
package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
)

// Store is the accounts repository over one pool.
type Store struct {
	DB *pgxpool.Pool
	// Hashing is the cost of hashing new passwords; zero is the production
	// cost.
	Hashing Argon2
	// MailOff refuses every account email (invites, resends, password
	// resets) with ErrAccountMailOff: production without SMTP_URL, where
	// such an email could only be kept in the staff-readable outbox.
	MailOff bool
}

// ErrAccountMailOff is why an invite or a reset cannot be sent: the server
// runs in production without SMTP_URL (docs/security.md, "Account emails and the staff outbox").
var ErrAccountMailOff = &apperr.Error{Code: apperr.Unavailable, Reason: "account_mail_off",
	Detail: "FIELDBRIEF_ENV=production and SMTP_URL is not set"}

// mailOn refuses when account emails are off.
func (s *Store) mailOn() error {
	if s.MailOff {
		return ErrAccountMailOff
	}
	return nil
}

// User is a person who can sign in.
type User struct {
	ID        int64
	Email     string
	IsStaff   bool
	CreatedAt time.Time
	Name      string // may be empty (accounts made by create-user)
	Language  string // their own language (i18n.Languages), "" for the org's
}

// normalizeEmail is the address an account is stored under (create-user,
// which may name an operator's own host: the loose rule).
func normalizeEmail(email string) (string, error) {
	addr, err := text.NormalizeAddress(email)
	if err != nil {
		return "", addressError(err)
	}
	return addr, nil
}

// normalizeInvitee is the address an invite is stored under and mailed
// to: text.NormalizeRecipient, so never an IP literal or an internal or
// dotless domain (docs/security.md, "Email addresses we send to").
func normalizeInvitee(email string) (string, error) {
	addr, err := text.NormalizeRecipient(email)
	if err != nil {
		return "", addressError(err)
	}
	return addr, nil
}

// addressError is an email field's error with a code for pages to word
// (web/account_messages.go): email_invalid, or for an address at a domain
// we never send to, text's code for it (address_ip_literal,
// address_dotless_domain, address_internal_domain).
func addressError(err error) error {
	switch code := text.AddressCode(err); code {
	case text.CodeAddressIP, text.CodeAddressDotless, text.CodeAddressInternal:
		return apperr.FieldRefusal("email", code, apperr.Args{"Address": err.Error()})
	}
	return apperr.FieldRefusal("email", "email_invalid", apperr.Args{"Max": text.MaxAddressLen})
}

// UpsertUser creates a user, or sets the password of an existing one with
// the same email (case-insensitive) and signs them out everywhere; staff is
// only ever granted here, never taken away, so re-running a provisioning
// script is safe.
func (s *Store) UpsertUser(ctx context.Context, email, password string, staff bool) (User, error) {
	var u User
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if u, err = s.upsertUser(ctx, tx, email, password, staff); err != nil {
			return err
		}
		return revokeSessions(ctx, tx, u.ID) // a new user has none
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// upsertUser is UpsertUser on any Querier, so it can run inside a transaction.
func (s *Store) upsertUser(ctx context.Context, q database.Querier, email, password string, staff bool) (User, error) {
	email, err := normalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	if err := checkPassword(password); err != nil {
		return User{}, err
	}
	hash, err := s.Hashing.hash(password)
	if err != nil {
		return User{}, err
	}
	var u User
	err = q.QueryRow(ctx, `
		INSERT INTO users (email, password_hash, is_staff) VALUES ($1, $2, $3)
		ON CONFLICT (lower(email)) DO UPDATE
		   SET password_hash = EXCLUDED.password_hash, is_staff = users.is_staff OR EXCLUDED.is_staff
		RETURNING id, email, is_staff, created_at`, email, hash, staff).
		Scan(&u.ID, &u.Email, &u.IsStaff, &u.CreatedAt)
	if err != nil {
		return User{}, fmt.Errorf("upsert user %q: %w", email, err)
	}
	return u, nil
}

// insertUser adds a user with a new email; one whose email is taken
// (or being taken by a concurrent transaction that then commits) is left
// as it is, and inserted is false.
func (s *Store) insertUser(ctx context.Context, q database.Querier, email, password string, staff bool) (u User, inserted bool, err error) {
	hash, err := s.Hashing.hash(password)
	if err != nil {
		return User{}, false, err
	}
	err = q.QueryRow(ctx, `
		INSERT INTO users (email, password_hash, is_staff) VALUES ($1, $2, $3)
		ON CONFLICT (lower(email)) DO NOTHING
		RETURNING id, email, is_staff, created_at`, email, hash, staff).
		Scan(&u.ID, &u.Email, &u.IsStaff, &u.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, false, nil
	}
	if err != nil {
		return User{}, false, fmt.Errorf("insert user %q: %w", email, err)
	}
	return u, true, nil
}

// revokeSessions signs a user out everywhere. Every way of setting a
// password calls it in the same transaction, so no session outlives the
// password it was started with (whoever knew the old one is out).
func revokeSessions(ctx context.Context, q database.Querier, userID int64) error {
	if _, err := q.Exec(ctx, `UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
		return fmt.Errorf("revoke sessions of user %d: %w", userID, err)
	}
	return nil
}

// RemoveMember takes a person out of the org and revokes every session of
// theirs, in one transaction: sessions are not per org, and signing them
// out is what makes the removal felt at once in every open tab (their next
// request to the org would be refused anyway, as membership is checked per
// request).
func (s *Store) RemoveMember(ctx context.Context, actor audit.Actor, orgID, userID int64) (tenants.Member, error) {
	var m tenants.Member
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if m, err = tenants.RemoveMemberTx(ctx, tx, actor, orgID, userID); err != nil {
			return err
		}
		return revokeSessions(ctx, tx, userID)
	})
	return m, err
}

var errBadCredentials = apperr.Refuse(apperr.Unauthorized, "credentials_wrong", nil)

// UserByEmail is the account with the address email (in any case); none
// is apperr.NotFound.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.DB.QueryRow(ctx, `SELECT id, email, is_staff, created_at FROM users WHERE lower(email) = lower($1)`, email).
		Scan(&u.ID, &u.Email, &u.IsStaff, &u.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, apperr.Detailf(apperr.NotFound, "no user %q", email)
	}
	if err != nil {
		return User{}, fmt.Errorf("user %q: %w", email, err)
	}
	return u, nil
}

// Authenticate checks an email and password. Unknown emails cost the same
// hashing work as known ones, so timing does not reveal who has an account.
func (s *Store) Authenticate(ctx context.Context, email, password string) (User, error) {
	var u User
	var hash string
	err := s.DB.QueryRow(ctx,
		`SELECT id, email, is_staff, created_at, password_hash FROM users WHERE lower(email) = lower($1)`,
		strings.TrimSpace(email)).Scan(&u.ID, &u.Email, &u.IsStaff, &u.CreatedAt, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		verifyPassword(s.Hashing.dummyHash(), password)
		return User{}, errBadCredentials
	}
	if err != nil {
		return User{}, fmt.Errorf("authenticate %q: %w", email, err)
	}
	if !verifyPassword(hash, password) {
		return User{}, errBadCredentials
	}
	return u, nil
}
