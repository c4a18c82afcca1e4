// Package tenants holds the orgs and who belongs to them: orgs, memberships
// and roles, provisioning, the per-org module config store and the org's
// webhook signing secret. Every org-scoped statement carries the org key.
package tenants

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
	"fieldbrief/internal/text"
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
	Locale    string // BCP 47, one of i18n.Locales: the language and formats its people read by default
}

// MaxSlugLen is the longest org slug (a DNS label's length).
const MaxSlugLen = 63

var slugRE = regexp.MustCompile(fmt.Sprintf(`^[a-z0-9][a-z0-9_-]{0,%d}$`, MaxSlugLen-1))

// ValidateOrg checks a slug and name before they reach the database.
func ValidateOrg(slug, name string) error {
	if !slugRE.MatchString(slug) {
		return apperr.FieldRefusal("slug", "org_slug_invalid", apperr.Args{"Max": MaxSlugLen})
	}
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n == 0 || n > text.MaxNameLen {
		return apperr.FieldRefusal("name", "org_name_required", apperr.Args{"Max": text.MaxNameLen})
	}
	if text.HasControl(name) {
		return apperr.FieldRefusal("name", "org_name_invalid", nil)
	}
	return nil
}

// CreateOrg creates a tenant set up at the caller's instant at; the zero
// time means now by the database's clock. The briefings page reads dates
// before it as "before the org was set up" rather than missed, so a caller
// on another clock (a test's) passes its own instant instead of rewriting
// created_at afterwards (docs/scheduling.md, "Time comes from the
// caller"). A taken slug is a conflict.
func (s *Store) CreateOrg(ctx context.Context, slug, name string, at time.Time) (Org, error) {
	return createOrg(ctx, s.DB, slug, name, "", at)
}

// OrgBySlug finds an org for staff pages and the CLI. Member-facing code
// goes through MembershipBySlug instead, which also checks access.
func (s *Store) OrgBySlug(ctx context.Context, slug string) (Org, error) {
	var o Org
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `SELECT id, slug, name, created_at, locale FROM orgs WHERE slug = $1`, slug).
		Scan(&o.ID, &o.Slug, &o.Name, &o.CreatedAt, &o.Locale)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.Detailf(apperr.NotFound, "no org %q", slug)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org by slug %q: %w", slug, err)
	}
	return o, nil
}

// OrgByID finds the org an API token belongs to (the token's org_id is
// the authority: the token was checked before).
func (s *Store) OrgByID(ctx context.Context, id int64) (Org, error) {
	var o Org
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `SELECT id, slug, name, created_at, locale FROM orgs WHERE id = $1`, id).
		Scan(&o.ID, &o.Slug, &o.Name, &o.CreatedAt, &o.Locale)
	if errors.Is(err, pgx.ErrNoRows) {
		return Org{}, apperr.Refuse(apperr.NotFound, "org_gone", nil)
	}
	if err != nil {
		return Org{}, fmt.Errorf("org %d: %w", id, err)
	}
	return o, nil
}

// Locale is the org's locale (BCP 47) on q.
func Locale(ctx context.Context, q database.Querier, orgID int64) (string, error) {
	var tag string
	if err := q.QueryRow(ctx, `SELECT locale FROM orgs WHERE id = $1`, orgID).Scan(&tag); err != nil {
		return "", fmt.Errorf("locale of org %d: %w", orgID, err)
	}
	return tag, nil
}

// LockOrg serialises changes to an org's people (invites, roles,
// removals) in tx; a missing org is NotFound.
func LockOrg(ctx context.Context, tx pgx.Tx, orgID int64) error {
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM orgs WHERE id = $1 FOR NO KEY UPDATE`, orgID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.Refuse(apperr.NotFound, "org_gone", nil)
	}
	if err != nil {
		return fmt.Errorf("lock org %d: %w", orgID, err)
	}
	return nil
}
