// Package daylinks holds technicians' day links: BASE_URL/t/<token>, which
// opens one technician's jobs of one date on a phone without an account
// (docs/delivery.md, "Day links").
//
// A token is 32 random bytes in base64url, in the email only; the database
// keeps its SHA-256. Each call of Issue mints a new link: a token cannot be
// derived again from its hash, and deriving it from something the server
// keeps would be keeping it. So a technician may hold several links for one
// date (the morning email's, an update's, a retry's), each valid until the
// end of the date's following local day, and an earlier email's link keeps
// working when a later one is sent.
package daylinks

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// tokenBytes is a token's randomness: 256 bits, far past guessing.
const tokenBytes = 32

// TokenLen is a token's length in base64url without padding. Anything
// else is refused before it costs a query.
const TokenLen = 43

// MaxPerDay bounds the links one technician holds for one date. Updates
// come at most every 15 minutes, so a real day mints a handful; past the
// bound the oldest go, so a runaway caller cannot grow the table.
const MaxPerDay = 50

// Retention is how long a link's row is kept after it expired, so the
// briefing page and staff can still see that it was sent; Issue prunes
// the org's older ones.
const Retention = 30 * 24 * time.Hour

// ErrExpired is Issue's answer for a date whose link would already have
// expired at now (a re-send of an old briefing): no link is made, and the
// email goes without one.
var ErrExpired = errors.New("daylinks: the date's links have expired")

// ErrNoTechnician is Issue's answer for a technician the org no longer
// has (deleted since the email was planned): no link is made.
var ErrNoTechnician = errors.New("daylinks: no such technician in the org")

// errNotFound is every way a token can fail (unknown, tampered, expired,
// revoked, its technician deactivated or deleted), told apart nowhere: the
// person holding it can do nothing different in either case.
var errNotFound = apperr.Refuse(apperr.NotFound, "daylink_not_found", nil)

// Expiry is when a link for date d stops working: the end of the
// following local day in loc, that is midnight starting the day after,
// whatever the length of the days between (DST). A midnight that does not
// exist in loc is the first instant after it.
func Expiry(d schedule.Date, loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day+2, 0, 0, 0, 0, loc)
}

// Issue mints a link for the technician's jobs of date, valid until the
// end of the following local day in loc, and returns its token (never
// stored: put it in the email, nowhere else). Every call makes a new link;
// earlier links of the same technician and date stay valid (see the
// package comment). It runs on q, so a caller may issue inside its own
// transaction. loc is a schedule.Zone's (the briefing's), recorded by name for
// the page. A date whose links would have expired at now is ErrExpired; a
// technician who is not the org's (another org's, or deleted, also
// meanwhile: by its foreign key) is ErrNoTechnician. With to set (the
// address the link is sent to), the link is minted only while to is the
// active technician's address (ErrNoTechnician otherwise), read with their
// link generation: an address change or a deactivation committed after
// that read moves the generation on, which ends the link, so it never
// works for an address the technician no longer has.
func Issue(ctx context.Context, q database.Querier, orgID, technicianID int64, date schedule.Date, loc *time.Location, now time.Time, to string) (token string, err error) {
	if orgID <= 0 || technicianID <= 0 || date.IsZero() || loc == nil {
		return "", fmt.Errorf("issue day link: org %d, technician %d, date %s: missing argument", orgID, technicianID, date)
	}
	expires := Expiry(date, loc)
	if !now.Before(expires) {
		return "", ErrExpired
	}
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("issue day link: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(raw)
	// The link is of the technician's link generation as this transaction
	// reads it: a change that ends their links (migration 00036) and
	// commits after it ends this one too.
	generation, found, err := field.LinkGeneration(ctx, q, orgID, technicianID, to)
	if err != nil {
		return "", fmt.Errorf("issue day link: %w", err)
	}
	if !found {
		return "", ErrNoTechnician
	}
	var made int
	if err := q.QueryRow(ctx, `
		WITH ins AS (
			INSERT INTO technician_day_links (org_id, technician_id, briefing_date, timezone, token_hash, created_at, expires_at, generation)
			VALUES ($1, $2, $3, $9, $4, $5, $6, $10)
			RETURNING id
		), over AS (
			DELETE FROM technician_day_links
			 WHERE org_id = $1 AND id IN (SELECT id FROM technician_day_links
			               WHERE org_id = $1 AND briefing_date = $3 AND technician_id = $2
			               ORDER BY id DESC OFFSET $7)
		), old AS (
			DELETE FROM technician_day_links WHERE org_id = $1 AND expires_at < $8
		)
		SELECT count(*) FROM ins`,
		orgID, technicianID, date.Time(), hash(token), now, expires, MaxPerDay-1, now.Add(-Retention), loc.String(), generation).Scan(&made); err != nil {
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "23503" { // foreign_key_violation
			return "", ErrNoTechnician
		}
		return "", fmt.Errorf("issue day link for technician %d of org %d on %s: %w", technicianID, orgID, date, err)
	}
	if made == 0 {
		return "", ErrNoTechnician
	}
	return token, nil
}

// URL is the link a technician opens: baseURL/t/<token>.
func URL(baseURL, token string) string {
	return strings.TrimSuffix(baseURL, "/") + "/t/" + token
}

func hash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// wellFormed reports whether token could be one Issue made: 43
// characters of base64url that decode to 32 bytes.
func wellFormed(token string) bool {
	if len(token) != TokenLen {
		return false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	return err == nil && len(raw) == tokenBytes
}

// Store reads links over one pool.
type Store struct {
	DB *pgxpool.Pool
}

// Link is what an open link grants: one technician's jobs of one date.
type Link struct {
	ID             int64
	OrgID          int64
	OrgName        string
	TechnicianID   int64
	TechnicianName string
	Date           schedule.Date
	Zone           string // the zone the date is read in, as Issue was given it: "America/Chicago"
	ExpiresAt      time.Time
}

// Open returns the link of token at now. An unknown or malformed token,
// an expired or revoked link, and one whose technician is deactivated or
// deleted are all the same apperr.NotFound, whose message never says
// which. The token appears in no error.
//
// A link is revoked when its technician's link generation has moved past
// the one it was issued in: their email changed, they were deactivated, or
// an admin revoked their links (docs/security.md, "Access ends with its
// reason"). Reactivation does not move it back. The check reads the
// primary, never a page's replica transaction: a replica behind by a
// second would open a link revoked a second ago.
func (s *Store) Open(ctx context.Context, token string, now time.Time) (Link, error) {
	if !wellFormed(token) {
		return Link{}, errNotFound
	}
	var l Link
	var d time.Time
	var generation int64
	err := s.DB.QueryRow(ctx, `
		SELECT l.id, l.org_id, o.name, l.technician_id, l.generation, l.briefing_date, l.timezone, l.expires_at
		  FROM technician_day_links l
		  JOIN orgs o ON o.id = l.org_id
		 WHERE l.token_hash = $1 AND l.expires_at > $2 AND l.revoked_at IS NULL`,
		hash(token), now).Scan(&l.ID, &l.OrgID, &l.OrgName, &l.TechnicianID, &generation, &d, &l.Zone, &l.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Link{}, errNotFound
	}
	if err != nil {
		return Link{}, fmt.Errorf("open day link: %w", err)
	}
	// Read after the link: a change that ends it and commits in between
	// is seen here.
	holders, err := field.LinkHolders(ctx, s.DB, l.OrgID, []int64{l.TechnicianID})
	if err != nil {
		return Link{}, fmt.Errorf("open day link: %w", err)
	}
	h, ok := holders[l.TechnicianID]
	if !ok || !h.Active || h.Generation != generation {
		return Link{}, errNotFound
	}
	l.TechnicianName = h.Name
	l.Date = schedule.DateOf(d)
	return l, nil
}

// Info is what admins and staff see of a link: that it exists, for whom
// and until when. Never the token, which nobody holds but its email.
type Info struct {
	ID             int64
	TechnicianID   int64
	TechnicianName string
	Date           schedule.Date
	CreatedAt      time.Time
	ExpiresAt      time.Time
	Revoked        bool
}

// Live reports whether the link still opens at now (its technician's
// being active aside).
func (i Info) Live(now time.Time) bool { return !i.Revoked && now.Before(i.ExpiresAt) }

// Filter narrows List. The zero Filter is the org's newest links.
type Filter struct {
	Date         schedule.Date // zero: any date
	TechnicianID int64         // 0: any technician
	Limit        int           // 0 or over MaxList: MaxList
}

// MaxList bounds one List.
const MaxList = 500

// List returns the org's links, newest first, within f.
func (s *Store) List(ctx context.Context, orgID int64, f Filter) ([]Info, error) {
	return List(ctx, database.Reader(ctx, s.DB), orgID, f)
}

// List is Store.List on q.
func List(ctx context.Context, q database.Querier, orgID int64, f Filter) ([]Info, error) {
	limit := f.Limit
	if limit <= 0 || limit > MaxList {
		limit = MaxList
	}
	var date *time.Time
	if !f.Date.IsZero() {
		d := f.Date.Time()
		date = &d
	}
	generations := map[int64]int64{}
	list, err := database.List(ctx, q, "day links", func(r pgx.CollectableRow) (Info, error) {
		var i Info
		var d time.Time
		var generation int64
		err := r.Scan(&i.ID, &i.TechnicianID, &generation, &d, &i.CreatedAt, &i.ExpiresAt, &i.Revoked)
		i.Date = schedule.DateOf(d)
		generations[i.ID] = generation
		return i, err
	}, `
		SELECT l.id, l.technician_id, l.generation, l.briefing_date, l.created_at, l.expires_at, l.revoked_at IS NOT NULL
		  FROM technician_day_links l
		 WHERE l.org_id = $1
		   AND ($2::date IS NULL OR l.briefing_date = $2)
		   AND ($3::bigint = 0 OR l.technician_id = $3)
		 ORDER BY l.id DESC
		 LIMIT $4`, orgID, date, f.TechnicianID, limit)
	if err != nil || len(list) == 0 {
		return list, err
	}
	ids := make([]int64, 0, len(list))
	for _, i := range list {
		ids = append(ids, i.TechnicianID)
	}
	holders, err := field.LinkHolders(ctx, q, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("day links of org %d: %w", orgID, err)
	}
	// A link of a technician deleted since the first read went with them.
	kept := list[:0]
	for _, i := range list {
		h, ok := holders[i.TechnicianID]
		if !ok {
			continue
		}
		i.TechnicianName = h.Name
		i.Revoked = i.Revoked || generations[i.ID] != h.Generation
		kept = append(kept, i)
	}
	return kept, nil
}
