package tenants

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Role is a user's role inside one org.
type Role string

const (
	RoleAdmin      Role = "admin"
	RoleDispatcher Role = "dispatcher"
	RoleMember     Role = "member"
)

// Roles are the roles in the order the members page offers them.
var Roles = []Role{RoleMember, RoleDispatcher, RoleAdmin}

// ParseRole accepts "admin", "dispatcher" or "member".
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleAdmin, RoleDispatcher, RoleMember:
		return r, nil
	}
	return "", apperr.FieldRefusal("role", "role_invalid", apperr.Args{"Role": s})
}

// Membership is a user's access to one org.
type Membership struct {
	Org  Org
	Role Role
}

// The capabilities of a role, the one place they are decided (docs/accounts.md,
// "Roles"); the web's route checks (requireAdmin, requireFieldEditor) and
// the pages' links ask these, never the role's name.
//
//	            read  edit field data (technicians, jobs, board, imports)  admin (settings, schedule, delivery, API tokens, members)
//	member      yes   no                                                   no
//	dispatcher  yes   yes                                                  no
//	admin       yes   yes                                                  yes

// IsAdmin reports whether the membership may change the org's settings,
// schedule, delivery, API tokens and members.
func (m Membership) IsAdmin() bool { return m.Role == RoleAdmin }

// ReadsAll reports whether the membership reads everything an admin reads
// (a briefing's errors, runs and delivery attempts, the day links sent):
// admins and dispatchers. Members see outcomes only.
func (m Membership) ReadsAll() bool { return m.Role == RoleAdmin || m.Role == RoleDispatcher }

// CanEditField reports whether the membership may change the field data:
// technicians, jobs, the board's assignments and statuses, CSV imports.
func (m Membership) CanEditField() bool { return m.Role == RoleAdmin || m.Role == RoleDispatcher }

// Memberships lists the orgs a user belongs to, by org name.
func (s *Store) Memberships(ctx context.Context, userID int64) ([]Membership, error) {
	return database.List(ctx, s.DB, fmt.Sprintf("memberships of user %d", userID), func(r pgx.CollectableRow) (Membership, error) {
		var m Membership
		return m, r.Scan(&m.Org.ID, &m.Org.Slug, &m.Org.Name, &m.Org.CreatedAt, &m.Role, &m.Org.Locale)
	}, `
		SELECT o.id, o.slug, o.name, o.created_at, m.role, o.locale
		FROM memberships m JOIN orgs o ON o.id = m.org_id
		WHERE m.user_id = $1 ORDER BY o.name, o.id`, userID)
}

// MembershipBySlug is the access check for every /orgs/{slug} route: an org
// the user does not belong to is NotFound, exactly like one that does not
// exist, so its existence is not revealed.
func (s *Store) MembershipBySlug(ctx context.Context, userID int64, slug string) (Membership, error) {
	var m Membership
	err := s.DB.QueryRow(ctx, `
		SELECT o.id, o.slug, o.name, o.created_at, m.role, o.locale
		FROM orgs o JOIN memberships m ON m.org_id = o.id AND m.user_id = $1
		WHERE o.slug = $2`, userID, slug).
		Scan(&m.Org.ID, &m.Org.Slug, &m.Org.Name, &m.Org.CreatedAt, &m.Role, &m.Org.Locale)
	if errors.Is(err, pgx.ErrNoRows) {
		return Membership{}, apperr.Detailf(apperr.NotFound, "no org %q", slug)
	}
	if err != nil {
		return Membership{}, fmt.Errorf("membership of user %d in %q: %w", userID, slug, err)
	}
	return m, nil
}
