// Package orgs holds the tenants and the people in them: orgs, users,
// memberships and roles, per-org module configs, feature flags and the audit
// log. Every org-scoped statement carries the org key.
package orgs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Store is the orgs repository over one pool.
type Store struct {
	DB *pgxpool.Pool
	// AllowPrivateWebhooks lets configs name http:// webhooks and local or
	// private addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS, for tests and
	// development); off, saving such a config is refused.
	AllowPrivateWebhooks bool
}

// Org is a tenant.
type Org struct {
	ID        int64
	Slug      string
	Name      string
	CreatedAt time.Time
}

var slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// ValidateOrg checks a slug and name before they reach the database.
func ValidateOrg(slug, name string) error {
	if !slugRE.MatchString(slug) {
		return apperr.FieldError("slug", "use 1–63 lowercase letters, digits, '-' or '_', starting with a letter or digit")
	}
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n == 0 || n > 200 {
		return apperr.FieldError("name", "name is required (at most 200 characters)")
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, controlChar) {
		return apperr.FieldError("name", "use letters, digits, spaces and punctuation only: no control characters")
	}
	return nil
}

// controlChar is a character that changes how text around it is shown
// rather than showing itself: C0/C1 controls (newlines and terminal escapes
// included) and the bidirectional overrides and isolates.
func controlChar(r rune) bool {
	return unicode.IsControl(r) || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// CreateOrg creates a tenant, set up now by the database's clock. A taken
// slug is a conflict.
func (s *Store) CreateOrg(ctx context.Context, slug, name string) (Org, error) {
	return createOrg(ctx, s.DB, slug, name, time.Time{})
}

// CreateOrgAt creates a tenant set up at the caller's instant: the
// briefings page reads dates before it as "before the org was set up"
// rather than missed, so a caller on another clock (a test's) passes its
// own instant instead of rewriting created_at afterwards
// (docs/architecture.md, "Time comes from the caller").
func (s *Store) CreateOrgAt(ctx context.Context, slug, name string, at time.Time) (Org, error) {
	return createOrg(ctx, s.DB, slug, name, at)
}

// OrgBySlug finds an org for staff pages and the CLI. Member-facing code
// goes through MembershipBySlug instead, which also checks access.
func (s *Store) OrgBySlug(ctx context.Context, slug string) (Org, error) {
	var o Org
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `SELECT id, slug, name, created_at FROM orgs WHERE slug = $1`, slug).
		Scan(&o.ID, &o.Slug, &o.Name, &o.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.Detailf(apperr.NotFound, "no org %q", slug)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org by slug %q: %w", slug, err)
	}
	return o, nil
}

// list runs a query and scans every row, wrapping either failure with what
// was being listed.
func list[T any](ctx context.Context, q database.Querier, what string, scan func(pgx.CollectableRow) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// isUniqueViolation reports whether err broke the named unique constraint
// (and not, say, a primary key whose sequence rows inserted by hand got ahead of).
func isUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint
}

// escapeLike makes user input literal inside ILIKE patterns.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.TrimSpace(s))
}
