package accounts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
)

// Provisioning people: the operator's create-user, made together with its
// audit entries in one transaction. A run that changes nothing writes no
// entry.
//
// Actions written (never with a password or its hash):
//
//	user.create          a user was created (new: email, staff)
//	user.password.reset  an existing user's password was replaced by a different one
//	                     (and every session of theirs revoked)
//	user.staff.grant     a user became platform staff (also right after user.create)
//	membership.set       a user got a role in an org, or a different one (old/new: role)

// Provisioned says what ProvisionUser found and changed.
type Provisioned struct {
	User            User         // as it stands afterwards
	Created         bool         // the user did not exist
	PasswordChanged bool         // an existing user's password was replaced by a different one
	StaffGranted    bool         // the user became platform staff
	OldRole         tenants.Role // role in the org before; "" when not a member (or no org)
	Role            tenants.Role // role in the org afterwards; "" without an org
}

// ProvisionUser creates a user, or updates an existing one (same email,
// case-insensitive): sets the password when it differs from the current one
// and then revokes every session of theirs, grants staff when asked (never
// takes it away), and with orgID != 0 gives the user role in that org. Everything, with one audit entry per change,
// happens in one transaction: an unknown org leaves no user behind, and
// running it again with the same arguments changes and records nothing.
func (s *Store) ProvisionUser(ctx context.Context, actor audit.Actor, email, password string, staff bool, orgID int64, role tenants.Role) (Provisioned, error) {
	email, err := normalizeEmail(email)
	if err != nil {
		return Provisioned{}, err
	}
	if err := CheckNewPassword(password, email); err != nil {
		return Provisioned{}, err
	}
	if orgID != 0 {
		if _, err := tenants.ParseRole(string(role)); err != nil {
			return Provisioned{}, err
		}
	}
	var p Provisioned
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		p = Provisioned{}
		// Two provisioners of the same new email must not both record
		// user.create: the email's unique key decides which one creates
		// (the other's insert waits for it, inserts nothing, and then
		// finds and locks the user as an existing one).
		var hash string
		for attempt := 0; ; attempt++ {
			err := tx.QueryRow(ctx, `
				SELECT id, email, is_staff, created_at, password_hash FROM users
				WHERE lower(email) = lower($1) FOR UPDATE`, email).
				Scan(&p.User.ID, &p.User.Email, &p.User.IsStaff, &p.User.CreatedAt, &hash)
			if err == nil {
				break
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("find user %q: %w", email, err)
			}
			if p.User, p.Created, err = s.insertUser(ctx, tx, email, password, staff); err != nil {
				return err
			}
			if p.Created {
				break
			}
			if attempt == 2 {
				return fmt.Errorf("user %q: created and deleted by others three times in a row", email)
			}
		}
		p.PasswordChanged = !p.Created && !verifyPassword(hash, password)
		// A new staff user's grant is recorded as a grant too, as before.
		p.StaffGranted = staff && (p.Created || !p.User.IsStaff)
		if !p.Created && (p.PasswordChanged || p.StaffGranted) {
			if p.User, err = s.upsertUser(ctx, tx, email, password, staff); err != nil {
				return err
			}
		}
		if p.PasswordChanged {
			if err := revokeSessions(ctx, tx, p.User.ID); err != nil {
				return err
			}
		}
		var entries []audit.Entry
		if p.Created {
			entries = append(entries, audit.Entry{Action: "user.create",
				New: map[string]any{"email": p.User.Email, "staff": p.User.IsStaff}})
		}
		if p.PasswordChanged {
			entries = append(entries, audit.Entry{Action: "user.password.reset"})
		}
		if p.StaffGranted {
			entries = append(entries, audit.Entry{Action: "user.staff.grant",
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
				if err := tenants.AddMember(ctx, tx, orgID, p.User.ID, role); err != nil {
					return err
				}
				e := audit.Entry{Action: "membership.set", OrgID: orgID, New: map[string]tenants.Role{"role": role}}
				if p.OldRole != "" {
					e.Old = map[string]tenants.Role{"role": p.OldRole}
				}
				entries = append(entries, e)
			}
		}
		for _, e := range entries {
			e.Actor, e.Target = actor, p.User.Email
			if err := audit.Record(ctx, tx, e); err != nil {
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

// ProvisionOrgWithInvite creates an org and invites its first admin, in
// one transaction (the staff console's "New org"): a taken slug or a bad
// address creates nothing. locale is the org's (i18n.ParseLocale; "" is
// the default).
func (s *Store) ProvisionOrgWithInvite(ctx context.Context, actor audit.Actor, slug, name, locale, adminEmail string, now time.Time) (tenants.Org, Invite, error) {
	if err := tenants.ValidateOrg(slug, name); err != nil {
		return tenants.Org{}, Invite{}, err
	}
	if locale != "" {
		if _, err := i18n.ParseLocale("locale", locale); err != nil {
			return tenants.Org{}, Invite{}, err
		}
	}
	if err := s.mailOn(); err != nil {
		return tenants.Org{}, Invite{}, err
	}
	if _, err := normalizeInvitee(adminEmail); err != nil {
		// addressError's field, renamed; its own refusal when it says
		// more than "not an address".
		if e, ok := apperr.As(err); ok && len(e.Fields) == 1 {
			switch f := e.Fields[0]; f.Code {
			case text.CodeAddressIP, text.CodeAddressDotless, text.CodeAddressInternal:
				return tenants.Org{}, Invite{}, apperr.FieldRefusal("admin_email", f.Code, f.Args)
			}
		}
		return tenants.Org{}, Invite{}, apperr.FieldRefusal("admin_email", "admin_email_invalid", nil)
	}
	var org tenants.Org
	var inv Invite
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		org, err = tenants.ProvisionOrgTx(ctx, tx, actor, slug, name, locale, now)
		if apperr.Code(err) == apperr.Conflict {
			return apperr.FieldRefusal("slug", "org_slug_taken", apperr.Args{"Slug": slug})
		}
		if err != nil {
			return err
		}
		inv, err = createInvite(ctx, tx, actor, org.ID, adminEmail, tenants.RoleAdmin, now)
		return err
	})
	if err != nil {
		return tenants.Org{}, Invite{}, err
	}
	return org, inv, nil
}
