package tenants

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/tokens"
)

// Members: an org's people and their roles, managed by its admins
// (docs/accounts.md). An org never loses its last admin: every change of
// role and every removal locks the org row first and counts the admins in
// the same transaction, so two admins demoting each other at once cannot
// both succeed.
//
// Actions written:
//
//	membership.set     old/new: {"role"}
//	membership.remove  old: {"role"}; the person's sessions are revoked
//
// An admin who stops being one, or leaves, takes the API tokens they made
// in the org with them, in the same transaction (tokens.RevokeCreatedBy;
// docs/security.md, "Access ends with its reason").

// maxMembersListed bounds the members page.
const maxMembersListed = 1000

// Member is a person in an org, as its members page shows them.
type Member struct {
	UserID       int64
	Email        string
	Name         string
	Role         Role
	JoinedAt     time.Time
	LastSignInAt *time.Time
	Version      int64 // of the membership: goes up when the role changes (docs/versions.md)
}

// Members lists an org's people, admins first, then by email.
func (s *Store) Members(ctx context.Context, orgID int64) ([]Member, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), fmt.Sprintf("members of org %d", orgID), func(r pgx.CollectableRow) (Member, error) {
		var m Member
		return m, r.Scan(&m.UserID, &m.Email, &m.Name, &m.Role, &m.JoinedAt, &m.LastSignInAt, &m.Version)
	}, `
		SELECT u.id, u.email, u.name, m.role, m.created_at, u.last_sign_in_at, m.version
		  FROM memberships m JOIN users u ON u.id = m.user_id
		 WHERE m.org_id = $1
		 ORDER BY m.role = 'admin' DESC, lower(u.email)
		 LIMIT $2`, orgID, maxMembersListed)
}

var errNoMember = apperr.Refuse(apperr.NotFound, "member_not_found", nil)

// lockMember locks the org (see LockOrg) and then the membership; a user
// of another org is NotFound.
func lockMember(ctx context.Context, tx pgx.Tx, orgID, userID int64) (Member, error) {
	if err := LockOrg(ctx, tx, orgID); err != nil {
		return Member{}, err
	}
	var m Member
	err := tx.QueryRow(ctx, `
		SELECT u.id, u.email, u.name, m.role, m.created_at, m.version
		  FROM memberships m JOIN users u ON u.id = m.user_id
		 WHERE m.org_id = $1 AND m.user_id = $2 FOR UPDATE OF m`, orgID, userID).
		Scan(&m.UserID, &m.Email, &m.Name, &m.Role, &m.JoinedAt, &m.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return Member{}, errNoMember
	}
	if err != nil {
		return Member{}, fmt.Errorf("lock membership of user %d in org %d: %w", userID, orgID, err)
	}
	return m, nil
}

// keepAnAdmin refuses a change that would leave the org without an admin:
// m is an admin about to stop being one. The org row is locked already.
func keepAnAdmin(ctx context.Context, tx pgx.Tx, orgID int64, m Member) error {
	if m.Role != RoleAdmin {
		return nil
	}
	var admins int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'admin'`, orgID).Scan(&admins); err != nil {
		return fmt.Errorf("count admins of org %d: %w", orgID, err)
	}
	if admins <= 1 {
		return apperr.Refuse(apperr.Conflict, "last_admin", apperr.Args{"Email": m.Email})
	}
	return nil
}

// SetMemberRole changes a member's role; the same role changes nothing.
// version is the membership's as the caller read it (Member.Version):
// another stored version is apperr.Stale, nothing saved; 0 means no check.
func (s *Store) SetMemberRole(ctx context.Context, actor audit.Actor, orgID, userID int64, role Role, version int64) (Member, error) {
	if _, err := ParseRole(string(role)); err != nil {
		return Member{}, err
	}
	var m Member
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if m, err = lockMember(ctx, tx, orgID, userID); err != nil {
			return err
		}
		if version != 0 && m.Version != version {
			return apperr.Refuse(apperr.Stale, "member_role_stale", apperr.Args{"Email": m.Email})
		}
		if m.Role == role {
			return nil
		}
		if role != RoleAdmin {
			if err := keepAnAdmin(ctx, tx, orgID, m); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, `UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2 RETURNING version`,
			orgID, userID, role).Scan(&m.Version); err != nil {
			return fmt.Errorf("set role of user %d in org %d: %w", userID, orgID, err)
		}
		old := m.Role
		m.Role = role
		if err := audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "membership.set", Target: m.Email,
			Old: map[string]Role{"role": old}, New: map[string]Role{"role": role}}); err != nil {
			return err
		}
		return endAdminTokens(ctx, tx, actor, orgID, userID, old, role)
	})
	return m, err
}

// endAdminTokens revokes the API tokens userID made in the org when their
// role goes from admin to from (none: "", they left); any other change
// leaves them.
func endAdminTokens(ctx context.Context, q database.Querier, actor audit.Actor, orgID, userID int64, from, to Role) error {
	if from != RoleAdmin || to == RoleAdmin {
		return nil
	}
	reason := tokens.RevokedCreatorNotAdmin
	if to == "" {
		reason = tokens.RevokedCreatorRemoved
	}
	if _, err := tokens.RevokeCreatedBy(ctx, q, actor, orgID, userID, reason); err != nil {
		return fmt.Errorf("end the api tokens of user %d in org %d: %w", userID, orgID, err)
	}
	return nil
}

// RemoveMemberTx takes a person out of the org in tx. The caller
// (accounts.Store.RemoveMember) revokes their sessions in the same
// transaction: sessions are not per org, and signing them out is what
// makes the removal felt at once in every open tab.
func RemoveMemberTx(ctx context.Context, tx pgx.Tx, actor audit.Actor, orgID, userID int64) (Member, error) {
	m, err := lockMember(ctx, tx, orgID, userID)
	if err != nil {
		return Member{}, err
	}
	if err := keepAnAdmin(ctx, tx, orgID, m); err != nil {
		return Member{}, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM memberships WHERE org_id = $1 AND user_id = $2`, orgID, userID); err != nil {
		return Member{}, fmt.Errorf("remove user %d from org %d: %w", userID, orgID, err)
	}
	if err := audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "membership.remove", Target: m.Email,
		Old: map[string]Role{"role": m.Role}}); err != nil {
		return Member{}, err
	}
	return m, endAdminTokens(ctx, tx, actor, orgID, userID, m.Role, "")
}
