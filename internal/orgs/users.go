package orgs

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/argon2"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Role is a user's role inside one org.
type Role string

const (
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// ParseRole accepts "admin" or "member".
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleAdmin, RoleMember:
		return r, nil
	}
	return "", apperr.FieldError("role", "role must be admin or member")
}

// User is a person who can sign in.
type User struct {
	ID        int64
	Email     string
	IsStaff   bool
	CreatedAt time.Time
	Name      string // may be empty (accounts made by create-user)
}

// Membership is a user's access to one org.
type Membership struct {
	Org  Org
	Role Role
}

// IsAdmin reports whether the membership may change the org's settings.
func (m Membership) IsAdmin() bool { return m.Role == RoleAdmin }

func normalizeEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	at := strings.IndexByte(email, '@')
	if at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t\r\n") || len(email) > 254 {
		return "", apperr.FieldError("email", "enter a valid email address")
	}
	return email, nil
}

// UpsertUser creates a user, or sets the password of an existing one with
// the same email (case-insensitive) and signs them out everywhere; staff is
// only ever granted here, never taken away, so re-running a provisioning
// script is safe.
func (s *Store) UpsertUser(ctx context.Context, email, password string, staff bool) (User, error) {
	var u User
	err := pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if u, err = upsertUser(ctx, tx, email, password, staff); err != nil {
			return err
		}
		return revokeSessions(ctx, tx, u.ID) // a new user has none
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
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

// AddMember gives a user a role in an org, replacing any previous role.
func (s *Store) AddMember(ctx context.Context, orgID, userID int64, role Role) error {
	return addMember(ctx, s.DB, orgID, userID, role)
}

var errBadCredentials = apperr.Errorf(apperr.Unauthorized, "email or password is incorrect")

// Authenticate checks an email and password. Unknown emails cost the same
// hashing work as known ones, so timing does not reveal who has an account.
func (s *Store) Authenticate(ctx context.Context, email, password string) (User, error) {
	var u User
	var hash string
	err := s.DB.QueryRow(ctx,
		`SELECT id, email, is_staff, created_at, password_hash FROM users WHERE lower(email) = lower($1)`,
		strings.TrimSpace(email)).Scan(&u.ID, &u.Email, &u.IsStaff, &u.CreatedAt, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		verifyPassword(dummyHash(), password)
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

// Memberships lists the orgs a user belongs to, by org name.
func (s *Store) Memberships(ctx context.Context, userID int64) ([]Membership, error) {
	return list(ctx, s.DB, fmt.Sprintf("memberships of user %d", userID), func(r pgx.CollectableRow) (Membership, error) {
		var m Membership
		return m, r.Scan(&m.Org.ID, &m.Org.Slug, &m.Org.Name, &m.Org.CreatedAt, &m.Role)
	}, `
		SELECT o.id, o.slug, o.name, o.created_at, m.role
		FROM memberships m JOIN orgs o ON o.id = m.org_id
		WHERE m.user_id = $1 ORDER BY o.name, o.id`, userID)
}

// MembershipBySlug is the access check for every /orgs/{slug} route: an org
// the user does not belong to is NotFound, exactly like one that does not
// exist, so its existence is not revealed.
func (s *Store) MembershipBySlug(ctx context.Context, userID int64, slug string) (Membership, error) {
	var m Membership
	err := s.DB.QueryRow(ctx, `
		SELECT o.id, o.slug, o.name, o.created_at, m.role
		FROM orgs o JOIN memberships m ON m.org_id = o.id AND m.user_id = $1
		WHERE o.slug = $2`, userID, slug).
		Scan(&m.Org.ID, &m.Org.Slug, &m.Org.Name, &m.Org.CreatedAt, &m.Role)
	if errors.Is(err, pgx.ErrNoRows) {
		return Membership{}, apperr.Detailf(apperr.NotFound, "no org %q", slug)
	}
	if err != nil {
		return Membership{}, fmt.Errorf("membership of user %d in %q: %w", userID, slug, err)
	}
	return m, nil
}

// argon2id parameters: OWASP's 19 MiB / 2 passes / 1 lane.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// dummyHash is what Authenticate verifies an unknown email's password
// against; hashed on first use, not at every process start.
var dummyHash = sync.OnceValue(func() string {
	h, _ := hashPassword("not a real password")
	return h
})

func hashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// verifyPassword checks a password against an encoded argon2id hash, using
// the parameters recorded in the hash so they can be raised later.
func verifyPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var memory, time uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	want, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, time, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
