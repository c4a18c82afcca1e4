// Package auth keeps people signed in and throttles password guessing.
//
// A session is a row in the sessions table; the browser holds only a random
// token in a signed cookie (gorilla/sessions over securecookie), and the row
// is keyed by the token's SHA-256, so a database dump holds no usable
// cookie. Because the row is the truth, logout and expiry really revoke: an
// old cookie is worthless once its row is revoked or expired. Every decision
// takes the time as a parameter, so tests drive it with a fake clock.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/database"
	"fieldbrief/internal/tenants"
)

// Cookie names. __Host- makes browsers refuse the cookie unless it is
// Secure, host-only and Path=/, so a sibling subdomain cannot plant one.
const (
	CookieName       = "fieldbrief_session"
	SecureCookieName = "__Host-fieldbrief_session"
)

// touchEvery limits last_seen_at writes to one a minute per session.
const touchEvery = time.Minute

const tokenValue = "token"

// Options configure Sessions.
type Options struct {
	// Keys sign the cookie: the first signs, all verify, so a key is rotated
	// by prepending the new one and dropping the old one a session
	// lifetime later.
	Keys            [][]byte
	Secure          bool
	IdleTimeout     time.Duration
	AbsoluteTimeout time.Duration
	// PoolWait is the longest loading a session waits for a pooled
	// connection (zero: database.AcquireWait).
	PoolWait time.Duration
}

// Sessions issues, loads and revokes sign-in sessions.
type Sessions struct {
	db       *pgxpool.Pool
	store    *sessions.CookieStore
	name     string
	idle     time.Duration
	absolute time.Duration
	wait     time.Duration
}

// NewSessions builds the session manager.
func NewSessions(db *pgxpool.Pool, o Options) *Sessions {
	pairs := make([][]byte, 0, 2*len(o.Keys))
	for _, k := range o.Keys {
		pairs = append(pairs, k, nil) // sign only: the token needs integrity, not secrecy from its holder
	}
	codecs := securecookie.CodecsFromPairs(pairs...)
	for _, c := range codecs {
		// securecookie's own expiry reads the wall clock; the sessions row
		// (with the injected clock) decides instead.
		c.(*securecookie.SecureCookie).MaxAge(0)
	}
	name := CookieName
	if o.Secure {
		name = SecureCookieName
	}
	return &Sessions{
		db: db,
		store: &sessions.CookieStore{Codecs: codecs, Options: &sessions.Options{
			Path:     "/",
			MaxAge:   int(o.AbsoluteTimeout / time.Second),
			Secure:   o.Secure,
			HttpOnly: true,
			SameSite: http.SameSiteLaxMode,
		}},
		name:     name,
		idle:     o.IdleTimeout,
		absolute: o.AbsoluteTimeout,
		wait:     o.PoolWait,
	}
}

// Client describes the browser a session was started from (kept on the
// row for people reviewing their sessions; never used to decide).
type Client struct {
	UserAgent string
	IP        string
}

// Start signs a user in: a fresh token and row every time (never a reused
// session id, so a planted cookie cannot be fixated), and revokes the
// session the browser held before, if any.
func (s *Sessions) Start(ctx context.Context, w http.ResponseWriter, r *http.Request, userID int64, client Client, now time.Time) error {
	if err := s.End(ctx, nil, r, now); err != nil {
		return err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("session token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	if _, err := s.db.Exec(ctx, `
		INSERT INTO sessions (id, user_id, created_at, last_seen_at, user_agent, client_ip)
		VALUES ($1, $2, $3, $3, $4, $5)`,
		sessionID(token), userID, now, truncate(client.UserAgent, 512), client.IP); err != nil {
		return fmt.Errorf("start session for user %d: %w", userID, err)
	}
	sess := sessions.NewSession(s.store, s.name)
	opts := *s.store.Options
	sess.Options = &opts
	sess.Values[tokenValue] = token
	if err := s.store.Save(r, w, sess); err != nil {
		return fmt.Errorf("write session cookie: %w", err)
	}
	return nil
}

// Load returns the signed-in user, or ok=false when the request has no
// valid session: no cookie, a bad signature, or a row that is revoked, idle
// for longer than the idle timeout or older than the absolute timeout.
func (s *Sessions) Load(ctx context.Context, r *http.Request, now time.Time) (u accounts.User, ok bool, err error) {
	v, ok, err := s.Visit(ctx, r, now, "")
	return v.User, ok, err
}

// Visit is who is asking, for a page: the signed-in user, their
// memberships (the org switcher, and the member check of an org's pages)
// and, for platform staff, the org named slug (staff see every org; ""
// skips it).
type Visit struct {
	User        accounts.User
	Memberships []tenants.Membership
	// StaffOrg is the org named slug when the user is staff and it exists.
	StaffOrg *tenants.Org
}

// Membership is the user's access to the org named slug, ok=false when
// they are not a member. Staff who are not members get read-only member
// access to any org that exists (role member, so admin routes refuse them).
func (v Visit) Membership(slug string) (tenants.Membership, bool) {
	for _, m := range v.Memberships {
		if m.Org.Slug == slug {
			return m, true
		}
	}
	if v.User.IsStaff && v.StaffOrg != nil && v.StaffOrg.Slug == slug {
		return tenants.Membership{Org: *v.StaffOrg, Role: tenants.RoleMember}, true
	}
	return tenants.Membership{}, false
}

// visitSQL loads a session's user, their memberships and, for staff, the
// org of the URL in one statement: one round trip and one transaction per
// request (docs/web.md, "Web under load"). Its UPDATE writes the
// last-seen time of a valid session at most once per touchEvery; the
// SELECT reads the row as it was before, as the checks in Go expect.
// Times come from Go ($3–$5), so the clock stays injectable. The user's
// memberships are read first (mine, materialized) rather than in a
// lateral subquery joined to the user: on Citus, memberships is
// distributed by org_id, and a lateral join on user_id cannot be pushed
// down to its shards (docs/scaling.md, "What the real cluster refused").
const visitSQL = `
WITH touch AS (
	UPDATE sessions SET last_seen_at = $2
	 WHERE id = $1 AND revoked_at IS NULL AND last_seen_at < $2
	   AND last_seen_at <= $5 AND last_seen_at > $4 AND created_at > $3
),
mine AS MATERIALIZED (
	SELECT m.org_id, m.role FROM memberships m
	 WHERE m.user_id = (SELECT user_id FROM sessions WHERE id = $1)
)
SELECT s.created_at, s.last_seen_at, s.revoked_at IS NOT NULL, u.id, u.email, u.is_staff, u.created_at,
       coalesce(u.language, ''),
       ms.ids, ms.slugs, ms.names, ms.created, ms.roles, ms.locales,
       so.id, so.slug, so.name, so.created_at, so.locale
  FROM sessions s
  JOIN users u ON u.id = s.user_id
  CROSS JOIN (
	SELECT coalesce(array_agg(o.id ORDER BY o.name, o.id), '{}') AS ids,
	       coalesce(array_agg(o.slug ORDER BY o.name, o.id), '{}') AS slugs,
	       coalesce(array_agg(o.name ORDER BY o.name, o.id), '{}') AS names,
	       coalesce(array_agg(o.created_at ORDER BY o.name, o.id), '{}') AS created,
	       coalesce(array_agg(m.role ORDER BY o.name, o.id), '{}') AS roles,
	       coalesce(array_agg(o.locale ORDER BY o.name, o.id), '{}') AS locales
	  FROM mine m JOIN orgs o ON o.id = m.org_id) ms
  LEFT JOIN orgs so ON u.is_staff AND so.slug = $6
 WHERE s.id = $1`

// Visit loads the request's session with the user's memberships (and, for
// staff, the org named slug) in one statement; ok is false as for Load.
func (s *Sessions) Visit(ctx context.Context, r *http.Request, now time.Time, slug string) (v Visit, ok bool, err error) {
	token := s.token(r)
	if token == "" {
		return Visit{}, false, nil
	}
	conn, err := database.Acquire(ctx, s.db, s.wait)
	if err != nil {
		return Visit{}, false, fmt.Errorf("load session: %w", err)
	}
	defer conn.Release()
	var created, lastSeen time.Time
	var revoked bool
	var ids []int64
	var slugs, names, roles, locales []string
	var orgsCreated []time.Time
	var staffID *int64
	var staffSlug, staffName, staffLocale *string
	var staffCreated *time.Time
	u := &v.User
	err = conn.QueryRow(ctx, visitSQL, sessionID(token), now, now.Add(-s.absolute), now.Add(-s.idle), now.Add(-touchEvery), slug).
		Scan(&created, &lastSeen, &revoked, &u.ID, &u.Email, &u.IsStaff, &u.CreatedAt, &u.Language,
			&ids, &slugs, &names, &orgsCreated, &roles, &locales,
			&staffID, &staffSlug, &staffName, &staffCreated, &staffLocale)
	if errors.Is(err, pgx.ErrNoRows) {
		return Visit{}, false, nil
	}
	if err != nil {
		return Visit{}, false, fmt.Errorf("load session: %w", err)
	}
	if revoked || now.Sub(created) >= s.absolute || now.Sub(lastSeen) >= s.idle {
		return Visit{}, false, nil
	}
	v.Memberships = make([]tenants.Membership, len(ids))
	for i := range ids {
		v.Memberships[i] = tenants.Membership{
			Org:  tenants.Org{ID: ids[i], Slug: slugs[i], Name: names[i], CreatedAt: orgsCreated[i], Locale: locales[i]},
			Role: tenants.Role(roles[i]),
		}
	}
	if staffID != nil {
		v.StaffOrg = &tenants.Org{ID: *staffID, Slug: *staffSlug, Name: *staffName, CreatedAt: *staffCreated, Locale: *staffLocale}
	}
	return v, true, nil
}

// End revokes the request's session (if any) and, when w is not nil,
// tells the browser to drop the cookie.
func (s *Sessions) End(ctx context.Context, w http.ResponseWriter, r *http.Request, now time.Time) error {
	if token := s.token(r); token != "" {
		if _, err := s.db.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`,
			sessionID(token), now); err != nil {
			return fmt.Errorf("revoke session: %w", err)
		}
	}
	if w != nil {
		opts := *s.store.Options
		opts.MaxAge = -1
		http.SetCookie(w, sessions.NewCookie(s.name, "", &opts))
	}
	return nil
}

// token is the verified token from the cookie, or "".
func (s *Sessions) token(r *http.Request) string {
	sess, err := s.store.New(r, s.name)
	if err != nil || sess.IsNew {
		return ""
	}
	token, _ := sess.Values[tokenValue].(string)
	return token
}

// sessionID is the row key: the token's SHA-256, so the table alone cannot
// be replayed as cookies.
func sessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
