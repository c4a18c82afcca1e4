package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/text"
)

// Invites: an org admin (or staff, for a new org's first admin) invites an
// email address with a role; the invitee follows the mailed link, sets a
// name and password (or signs in, when the address has an account) and is
// a member (docs/accounts.md).
//
// Actions written:
//
//	invite.create  new: {"email", "role"}
//	invite.resend  the link was mailed again (the previous link no longer works)
//	invite.revoke  old: {"email", "role"}
//	invite.accept  new: {"email", "role"}; the actor is the invitee
//	user.create    when accepting created the account (never the password)
//	membership.set old/new: {"role"}, when accepting gave a role

// Limits on invites, so an admin (or a stolen admin session) cannot turn
// the org into a mail cannon.
const (
	InviteLifetime    = 7 * 24 * time.Hour
	MaxOpenInvites    = 100 // pending invites per org
	MaxInvitesPerDay  = 50  // invites created per org in 24 hours
	MaxInviteSends    = 5   // mails per invite, resends included
	InviteResendPause = time.Minute
	maxInvitesListed  = 200
)

// Invite is an invitation to an org, as admins see it.
type Invite struct {
	ID         int64
	OrgID      int64
	Email      string
	Role       tenants.Role
	InvitedBy  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastSentAt time.Time
	Sends      int
	AcceptedAt *time.Time
	RevokedAt  *time.Time
}

// Expired reports whether the link no longer works at now.
func (i Invite) Expired(now time.Time) bool { return !now.Before(i.ExpiresAt) }

const inviteColumns = `id, org_id, email, role, invited_by_email, created_at, expires_at, last_sent_at, sends, accepted_at, revoked_at`

func scanInvite(r pgx.Row) (Invite, error) {
	var i Invite
	err := r.Scan(&i.ID, &i.OrgID, &i.Email, &i.Role, &i.InvitedBy, &i.CreatedAt, &i.ExpiresAt, &i.LastSentAt, &i.Sends, &i.AcceptedAt, &i.RevokedAt)
	return i, err
}

// CreateInvite invites email to the org with role, and queues its email,
// in one transaction.
func (s *Store) CreateInvite(ctx context.Context, actor audit.Actor, orgID int64, email string, role tenants.Role, now time.Time) (Invite, error) {
	if err := s.mailOn(); err != nil {
		return Invite{}, err
	}
	var inv Invite
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		inv, err = createInvite(ctx, tx, actor, orgID, email, role, now)
		return err
	})
	return inv, err
}

// createInvite is CreateInvite inside the caller's transaction. It locks
// the org row (FOR NO KEY UPDATE, which leaves inserts referencing the org
// alone), so the per-org limits hold under concurrent invites.
func createInvite(ctx context.Context, tx pgx.Tx, actor audit.Actor, orgID int64, email string, role tenants.Role, now time.Time) (Invite, error) {
	email, err := normalizeInvitee(email)
	if err != nil {
		return Invite{}, err
	}
	if _, err := tenants.ParseRole(string(role)); err != nil {
		return Invite{}, err
	}
	if err := tenants.LockOrg(ctx, tx, orgID); err != nil {
		return Invite{}, err
	}
	var member bool
	if err := tx.QueryRow(ctx, `
		SELECT EXISTS (SELECT FROM memberships m JOIN users u ON u.id = m.user_id
		                WHERE m.org_id = $1 AND lower(u.email) = lower($2))`, orgID, email).Scan(&member); err != nil {
		return Invite{}, fmt.Errorf("check membership of %q: %w", email, err)
	}
	if member {
		return Invite{}, apperr.FieldRefusal("email", "already_member", apperr.Args{"Email": email})
	}
	open, err := scanInvite(tx.QueryRow(ctx, `SELECT `+inviteColumns+` FROM invites
		WHERE org_id = $1 AND lower(email) = lower($2) AND accepted_at IS NULL AND revoked_at IS NULL`, orgID, email))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return Invite{}, fmt.Errorf("find open invite of %q: %w", email, err)
	case !open.Expired(now):
		return Invite{}, apperr.FieldRefusal("email", "already_invited", apperr.Args{"Email": email})
	default: // an expired one gives way to the new one
		if _, err := tx.Exec(ctx, `UPDATE invites SET revoked_at = $3 WHERE id = $1 AND org_id = $2`, open.ID, orgID, now); err != nil {
			return Invite{}, fmt.Errorf("retire expired invite %d: %w", open.ID, err)
		}
	}
	var pending, today int
	if err := tx.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2),
		       count(*) FILTER (WHERE created_at > $3)
		  FROM invites WHERE org_id = $1`, orgID, now, now.Add(-24*time.Hour)).Scan(&pending, &today); err != nil {
		return Invite{}, fmt.Errorf("count invites of org %d: %w", orgID, err)
	}
	if pending >= MaxOpenInvites {
		return Invite{}, apperr.Refuse(apperr.TooMany, "invites_waiting", apperr.Args{"Count": pending})
	}
	if today >= MaxInvitesPerDay {
		return Invite{}, apperr.Refuse(apperr.TooMany, "invites_today", apperr.Args{"Count": today})
	}
	inv, err := scanInvite(tx.QueryRow(ctx, `
		INSERT INTO invites (org_id, email, role, invited_by, invited_by_email, created_at, expires_at, last_sent_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $6)
		RETURNING `+inviteColumns, orgID, email, role, nullID(actor.UserID), actor.Email, now, now.Add(InviteLifetime)))
	if err != nil {
		return Invite{}, fmt.Errorf("insert invite of %q: %w", email, err)
	}
	if err := insertAccountEmail(ctx, tx, SendAccountEmailArgs{What: EmailInvite, ID: inv.ID, OrgID: orgID, Send: inv.Sends}); err != nil {
		return Invite{}, err
	}
	return inv, audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "invite.create", Target: email,
		New: map[string]string{"email": email, "role": string(role)}})
}

func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// OpenInvites lists an org's invites that are neither accepted nor
// revoked (expired ones included, so they can be resent), newest first.
func (s *Store) OpenInvites(ctx context.Context, orgID int64) ([]Invite, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), fmt.Sprintf("invites of org %d", orgID), func(r pgx.CollectableRow) (Invite, error) { return scanInvite(r) },
		`SELECT `+inviteColumns+` FROM invites WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL
		 ORDER BY created_at DESC, id DESC LIMIT $2`, orgID, maxInvitesListed)
}

var errNoInvite = apperr.Refuse(apperr.NotFound, "invite_not_found", nil)

// lockInvite locks an org's invite; another org's id is NotFound.
func lockInvite(ctx context.Context, tx pgx.Tx, orgID, id int64) (Invite, error) {
	inv, err := scanInvite(tx.QueryRow(ctx, `SELECT `+inviteColumns+` FROM invites WHERE id = $1 AND org_id = $2 FOR UPDATE`, id, orgID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Invite{}, errNoInvite
	}
	if err != nil {
		return Invite{}, fmt.Errorf("lock invite %d: %w", id, err)
	}
	return inv, nil
}

// ResendInvite mails a new link (the old one stops working) and restarts
// the invite's lifetime; at most MaxInviteSends mails per invite, one a
// minute.
func (s *Store) ResendInvite(ctx context.Context, actor audit.Actor, orgID, id int64, now time.Time) (Invite, error) {
	if err := s.mailOn(); err != nil {
		return Invite{}, err
	}
	var inv Invite
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if inv, err = lockInvite(ctx, tx, orgID, id); err != nil {
			return err
		}
		switch {
		case inv.AcceptedAt != nil:
			return apperr.Refuse(apperr.Conflict, "invite_accepted", apperr.Args{"Email": inv.Email})
		case inv.RevokedAt != nil:
			return apperr.Refuse(apperr.Conflict, "invite_revoked", apperr.Args{"Email": inv.Email})
		case inv.Sends >= MaxInviteSends:
			return apperr.Refuse(apperr.TooMany, "invite_sends", apperr.Args{"Count": inv.Sends, "Email": inv.Email})
		case now.Sub(inv.LastSentAt) < InviteResendPause:
			return apperr.Refuse(apperr.TooMany, "invite_too_soon", nil)
		}
		inv, err = scanInvite(tx.QueryRow(ctx, `
			UPDATE invites SET sends = sends + 1, last_sent_at = $3, expires_at = $4, token_hash = NULL
			 WHERE id = $1 AND org_id = $2 RETURNING `+inviteColumns, id, orgID, now, now.Add(InviteLifetime)))
		if err != nil {
			return fmt.Errorf("resend invite %d: %w", id, err)
		}
		if err := insertAccountEmail(ctx, tx, SendAccountEmailArgs{What: EmailInvite, ID: inv.ID, OrgID: orgID, Send: inv.Sends}); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "invite.resend", Target: inv.Email,
			New: map[string]any{"sends": inv.Sends}})
	})
	return inv, err
}

// RevokeInvite makes an invite's link stop working. Revoking a revoked
// invite changes nothing; an accepted one cannot be revoked (remove the
// member instead).
func (s *Store) RevokeInvite(ctx context.Context, actor audit.Actor, orgID, id int64, now time.Time) (Invite, error) {
	var inv Invite
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if inv, err = lockInvite(ctx, tx, orgID, id); err != nil {
			return err
		}
		switch {
		case inv.RevokedAt != nil:
			return nil
		case inv.AcceptedAt != nil:
			return apperr.Refuse(apperr.Conflict, "invite_accepted_remove", apperr.Args{"Email": inv.Email})
		}
		if _, err := tx.Exec(ctx, `UPDATE invites SET revoked_at = $3 WHERE id = $1 AND org_id = $2`, id, orgID, now); err != nil {
			return fmt.Errorf("revoke invite %d: %w", id, err)
		}
		inv.RevokedAt = &now
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "invite.revoke", Target: inv.Email,
			Old: map[string]string{"email": inv.Email, "role": string(inv.Role)}})
	})
	return inv, err
}

// InviteLink is what an invite link's page shows.
type InviteLink struct {
	Invite
	OrgName    string
	OrgSlug    string
	HasAccount bool // the invited address has an account: sign in to accept
}

// inviteByToken finds the invite a link names (locking it when lock) and
// says why it does not work, if it does not.
func inviteByToken(ctx context.Context, q database.Querier, token string, now time.Time, lock bool) (InviteLink, error) {
	var l InviteLink
	if token == "" || len(token) > 64 {
		return l, &LinkError{Reason: LinkInvalid}
	}
	sql := `SELECT i.id, i.org_id, i.email, i.role, i.invited_by_email, i.created_at, i.expires_at, i.last_sent_at, i.sends,
	               i.accepted_at, i.revoked_at, o.name, o.slug,
	               EXISTS (SELECT FROM users u WHERE lower(u.email) = lower(i.email))
	          FROM invites i JOIN orgs o ON o.id = i.org_id WHERE i.token_hash = $1`
	args := []any{hashLinkToken(token)}
	if lock {
		// The row is locked by its org too: on Citus a lock is taken on one
		// shard, and invites is distributed by org_id (docs/scaling.md,
		// "What the real cluster refused"). The org is the token's.
		var orgID int64
		err := q.QueryRow(ctx, `SELECT org_id FROM invites WHERE token_hash = $1`, args[0]).Scan(&orgID)
		if errors.Is(err, pgx.ErrNoRows) {
			return l, &LinkError{Reason: LinkInvalid}
		}
		if err != nil {
			return l, fmt.Errorf("find invite by token: %w", err)
		}
		sql += ` AND i.org_id = $2 FOR UPDATE OF i`
		args = append(args, orgID)
	}
	i := &l.Invite
	err := q.QueryRow(ctx, sql, args...).Scan(&i.ID, &i.OrgID, &i.Email, &i.Role, &i.InvitedBy, &i.CreatedAt,
		&i.ExpiresAt, &i.LastSentAt, &i.Sends, &i.AcceptedAt, &i.RevokedAt, &l.OrgName, &l.OrgSlug, &l.HasAccount)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, &LinkError{Reason: LinkInvalid}
	}
	if err != nil {
		return l, fmt.Errorf("find invite by token: %w", err)
	}
	switch {
	case l.AcceptedAt != nil:
		return l, &LinkError{Reason: LinkUsed}
	case l.Expired(now):
		return l, &LinkError{Reason: LinkExpired}
	case l.RevokedAt != nil:
		return l, &LinkError{Reason: LinkRevoked}
	}
	return l, nil
}

// InviteByToken finds the open invite an invite link names; a link that
// does not work is a *LinkError saying why.
func (s *Store) InviteByToken(ctx context.Context, token string, now time.Time) (InviteLink, error) {
	return inviteByToken(ctx, s.DB, token, now, false)
}

// ValidateName checks a person's display name.
func ValidateName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n == 0 || n > text.MaxNameLen {
		return "", apperr.FieldRefusal("name", "name_required", apperr.Args{"Max": text.MaxNameLen})
	}
	if text.HasControl(name) {
		return "", apperr.FieldRefusal("name", "name_characters", nil)
	}
	return name, nil
}

// AcceptInviteNewAccount accepts an invite for an address without an
// account: creates the account with name and password (the rules and the
// hashing of create-user), gives it the invite's role and marks the invite
// used, in one transaction. The caller holds a hashing slot.
func (s *Store) AcceptInviteNewAccount(ctx context.Context, token, name, password string, now time.Time) (User, error) {
	name, err := ValidateName(name)
	if err != nil {
		return User{}, err
	}
	if err := CheckNewPassword(password, name); err != nil {
		return User{}, err
	}
	hash, err := s.Hashing.hash(password) // before the transaction: it takes ~50 ms
	if err != nil {
		return User{}, err
	}
	var u User
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		l, err := inviteByToken(ctx, tx, token, now, true)
		if err != nil {
			return err
		}
		// Now that the address is known: not guessable from it either.
		if err := CheckNewPassword(password, name, l.Email); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `
			INSERT INTO users (email, password_hash, name, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (lower(email)) DO NOTHING
			RETURNING id, email, is_staff, created_at, name`, l.Email, hash, name, now).
			Scan(&u.ID, &u.Email, &u.IsStaff, &u.CreatedAt, &u.Name)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Refuse(apperr.Conflict, "has_account", apperr.Args{"Email": l.Email})
		}
		if err != nil {
			return fmt.Errorf("create invited user %q: %w", l.Email, err)
		}
		actor := audit.Actor{UserID: u.ID, Email: u.Email}
		if err := audit.Record(ctx, tx, audit.Entry{Actor: actor, Action: "user.create", Target: u.Email,
			New: map[string]any{"email": u.Email, "staff": false}}); err != nil {
			return err
		}
		return acceptInvite(ctx, tx, l, u, now)
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// AcceptInvite accepts an invite for the signed-in (or just
// authenticated) user u, whose email must be the invited one.
func (s *Store) AcceptInvite(ctx context.Context, token string, u User, now time.Time) error {
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		l, err := inviteByToken(ctx, tx, token, now, true)
		if err != nil {
			return err
		}
		if !strings.EqualFold(l.Email, u.Email) {
			return apperr.Refuse(apperr.Forbidden, "invite_other_account", apperr.Args{"Email": l.Email, "Current": u.Email})
		}
		return acceptInvite(ctx, tx, l, u, now)
	})
}

// acceptInvite gives u the invite's role (an existing membership keeps
// its role: an invite never demotes) and marks the invite accepted.
func acceptInvite(ctx context.Context, tx pgx.Tx, l InviteLink, u User, now time.Time) error {
	tag, err := tx.Exec(ctx, `
		INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (org_id, user_id) DO NOTHING`, l.OrgID, u.ID, l.Role, now)
	if err != nil {
		return fmt.Errorf("add invited user %d to org %d: %w", u.ID, l.OrgID, err)
	}
	if _, err := tx.Exec(ctx, `UPDATE invites SET accepted_at = $3, accepted_by = $4 WHERE id = $1 AND org_id = $2`,
		l.ID, l.OrgID, now, u.ID); err != nil {
		return fmt.Errorf("mark invite %d accepted: %w", l.ID, err)
	}
	actor := audit.Actor{UserID: u.ID, Email: u.Email}
	if err := audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: l.OrgID, Action: "invite.accept", Target: u.Email,
		New: map[string]string{"email": l.Email, "role": string(l.Role)}}); err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: l.OrgID, Action: "membership.set", Target: u.Email,
		New: map[string]tenants.Role{"role": l.Role}})
}
