package orgs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/database"
)

// Provisioning: the operator's changes to orgs and people (cmd/web's
// create-org and create-user), each made together with its audit entries in
// one transaction. A run that changes nothing writes no entry.
//
// Actions written (never with a password or its hash):
//
//	org.create           an org was created (new: slug, name)
//	user.create          a user was created (new: email, staff)
//	user.password.reset  an existing user's password was replaced by a different one
//	                     (and every session of theirs revoked)
//	user.staff.grant     a user became platform staff (also right after user.create)
//	membership.set       a user got a role in an org, or a different one (old/new: role)

// createOrg is CreateOrgAt on any Querier, so it can run inside a
// transaction. A zero at stands for the database's clock.
func createOrg(ctx context.Context, q database.Querier, slug, name string, at time.Time) (Org, error) {
	if err := ValidateOrg(slug, name); err != nil {
		return Org{}, err
	}
	var created *time.Time
	if !at.IsZero() {
		created = &at
	}
	var o Org
	err := q.QueryRow(ctx,
		`INSERT INTO orgs (slug, name, created_at) VALUES ($1, $2, coalesce($3, now())) RETURNING id, slug, name, created_at`,
		slug, strings.TrimSpace(name), created).Scan(&o.ID, &o.Slug, &o.Name, &o.CreatedAt)
	if isUniqueViolation(err, "orgs_slug_key") {
		return Org{}, apperr.Errorf(apperr.Conflict, "an org with slug %q already exists", slug)
	}
	if err != nil {
		return Org{}, fmt.Errorf("create org %q: %w", slug, err)
	}
	return o, nil
}

// ProvisionOrg creates an org and records "org.create", in one transaction.
// A taken slug is a conflict and records nothing.
func (s *Store) ProvisionOrg(ctx context.Context, actor Actor, slug, name string) (Org, error) {
	var org Org
	err := pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		o, err := createOrg(ctx, tx, slug, name, time.Time{})
		if err != nil {
			return err
		}
		org = o
		return Audit(ctx, tx, AuditEntry{Actor: actor, OrgID: o.ID, Action: "org.create", Target: o.Slug,
			New: map[string]string{"slug": o.Slug, "name": o.Name}})
	})
	if err != nil {
		return Org{}, err
	}
	return org, nil
}

func checkPassword(password string) error {
	if password == "" || len(password) > 1024 {
		return apperr.FieldError("password", "password is required (at most 1024 bytes)")
	}
	return nil
}

// upsertUser is UpsertUser on any Querier, so it can run inside a transaction.
func upsertUser(ctx context.Context, q database.Querier, email, password string, staff bool) (User, error) {
	email, err := normalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	if err := checkPassword(password); err != nil {
		return User{}, err
	}
	hash, err := hashPassword(password)
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

// addMember is AddMember on any Querier, so it can run inside a transaction.
func addMember(ctx context.Context, q database.Querier, orgID, userID int64, role Role) error {
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `
		INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)
		ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role`, orgID, userID, role)
	if err != nil {
		return fmt.Errorf("add user %d to org %d: %w", userID, orgID, err)
	}
	return nil
}

// Provisioned says what ProvisionUser found and changed.
type Provisioned struct {
	User            User // as it stands afterwards
	Created         bool // the user did not exist
	PasswordChanged bool // an existing user's password was replaced by a different one
	StaffGranted    bool // the user became platform staff
	OldRole         Role // role in the org before; "" when not a member (or no org)
	Role            Role // role in the org afterwards; "" without an org
}

// ProvisionUser creates a user, or updates an existing one (same email,
// case-insensitive): sets the password when it differs from the current one
// and then revokes every session of theirs, grants staff when asked (never
// takes it away), and with orgID != 0 gives the user role in that org. Everything, with one audit entry per change,
// happens in one transaction: an unknown org leaves no user behind, and
// running it again with the same arguments changes and records nothing.
func (s *Store) ProvisionUser(ctx context.Context, actor Actor, email, password string, staff bool, orgID int64, role Role) (Provisioned, error) {
	email, err := normalizeEmail(email)
	if err != nil {
		return Provisioned{}, err
	}
	if err := checkPassword(password); err != nil {
		return Provisioned{}, err
	}
	if orgID != 0 {
		if _, err := ParseRole(string(role)); err != nil {
			return Provisioned{}, err
		}
	}
	var p Provisioned
	err = pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		p = Provisioned{}
		// Two provisioners of the same new email must not both record user.create.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('fieldbrief.user:' || lower($1), 0))`, email); err != nil {
			return fmt.Errorf("lock user %q: %w", email, err)
		}
		var hash string
		err := tx.QueryRow(ctx, `
			SELECT id, email, is_staff, created_at, password_hash FROM users
			WHERE lower(email) = lower($1) FOR UPDATE`, email).
			Scan(&p.User.ID, &p.User.Email, &p.User.IsStaff, &p.User.CreatedAt, &hash)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			p.Created = true
		case err != nil:
			return fmt.Errorf("find user %q: %w", email, err)
		}
		p.PasswordChanged = !p.Created && !verifyPassword(hash, password)
		p.StaffGranted = staff && !p.User.IsStaff
		if p.Created || p.PasswordChanged || p.StaffGranted {
			if p.User, err = upsertUser(ctx, tx, email, password, staff); err != nil {
				return err
			}
		}
		if p.PasswordChanged {
			if err := revokeSessions(ctx, tx, p.User.ID); err != nil {
				return err
			}
		}
		var entries []AuditEntry
		if p.Created {
			entries = append(entries, AuditEntry{Action: "user.create",
				New: map[string]any{"email": p.User.Email, "staff": p.User.IsStaff}})
		}
		if p.PasswordChanged {
			entries = append(entries, AuditEntry{Action: "user.password.reset"})
		}
		if p.StaffGranted {
			entries = append(entries, AuditEntry{Action: "user.staff.grant",
				Old: map[string]bool{"staff": false}, New: map[string]bool{"staff": true}})
		}
		if orgID != 0 {
			err := tx.QueryRow(ctx, `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2 FOR UPDATE`,
				orgID, p.User.ID).Scan(&p.OldRole)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("membership of user %d in org %d: %w", p.User.ID, orgID, err)
			}
			p.Role = role
			if p.OldRole != role {
				if err := addMember(ctx, tx, orgID, p.User.ID, role); err != nil {
					return err
				}
				e := AuditEntry{Action: "membership.set", OrgID: orgID, New: map[string]Role{"role": role}}
				if p.OldRole != "" {
					e.Old = map[string]Role{"role": p.OldRole}
				}
				entries = append(entries, e)
			}
		}
		for _, e := range entries {
			e.Actor, e.Target = actor, p.User.Email
			if err := Audit(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Provisioned{}, err
	}
	return p, nil
}
