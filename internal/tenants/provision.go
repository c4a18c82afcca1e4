package tenants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/i18n"
)

// Provisioning: the operator's changes to orgs (cmd/web's create-org, the
// staff console's "New org"), each made together with its audit entry in
// one transaction; people are provisioned by accounts.Store.ProvisionUser.
//
// Actions written:
//
//	org.create           an org was created (new: slug, name, locale)
//	org.locale.set       an admin chose the org's locale (old, new: locale)

// createOrg is CreateOrg on any Querier, so it can run inside a
// transaction. A zero at stands for the database's clock; an empty locale
// for i18n.DefaultLocale.
func createOrg(ctx context.Context, q database.Querier, slug, name, locale string, at time.Time) (Org, error) {
	if err := ValidateOrg(slug, name); err != nil {
		return Org{}, err
	}
	if locale == "" {
		locale = i18n.DefaultLocale
	}
	locale, err := i18n.ParseLocale("locale", locale)
	if err != nil {
		return Org{}, err
	}
	var created *time.Time
	if !at.IsZero() {
		created = &at
	}
	var o Org
	err = q.QueryRow(ctx,
		`INSERT INTO orgs (slug, name, created_at, locale) VALUES ($1, $2, coalesce($3, now()), $4)
		 RETURNING id, slug, name, created_at, locale`,
		slug, strings.TrimSpace(name), created, locale).Scan(&o.ID, &o.Slug, &o.Name, &o.CreatedAt, &o.Locale)
	if database.IsUniqueViolation(err, "orgs_slug_key") {
		return Org{}, apperr.Refuse(apperr.Conflict, "org_slug_taken", apperr.Args{"Slug": slug})
	}
	if err != nil {
		return Org{}, fmt.Errorf("create org %q: %w", slug, err)
	}
	return o, nil
}

// ProvisionOrgIn creates an org in the locale given (i18n.ParseLocale; ""
// is the default, en-US; an unsupported one is a field error on "locale")
// and records "org.create", in one transaction. A taken slug is a conflict
// and records nothing.
func (s *Store) ProvisionOrgIn(ctx context.Context, actor audit.Actor, slug, name, locale string) (Org, error) {
	var org Org
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		org, err = ProvisionOrgTx(ctx, tx, actor, slug, name, locale, time.Time{})
		return err
	})
	if err != nil {
		return Org{}, err
	}
	return org, nil
}

// ProvisionOrgTx is ProvisionOrgIn inside the caller's transaction, set up
// at (zero: the database's clock).
func ProvisionOrgTx(ctx context.Context, tx pgx.Tx, actor audit.Actor, slug, name, locale string, at time.Time) (Org, error) {
	o, err := createOrg(ctx, tx, slug, name, locale, at)
	if err != nil {
		return Org{}, err
	}
	return o, audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: o.ID, Action: "org.create", Target: o.Slug,
		New: map[string]string{"slug": o.Slug, "name": o.Name, "locale": o.Locale}})
}

// SetLocale changes an org's locale (an admin's choice in its settings)
// and records "org.locale.set" with the old and new tags, in one
// transaction; choosing the current one changes and records nothing. An
// unsupported tag is a field error on "locale", nothing changed.
func (s *Store) SetLocale(ctx context.Context, actor audit.Actor, orgID int64, locale string) (string, error) {
	locale, err := i18n.ParseLocale("locale", locale)
	if err != nil {
		return "", err
	}
	return locale, database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var old, slug string
		err := tx.QueryRow(ctx, `SELECT locale, slug FROM orgs WHERE id = $1 FOR NO KEY UPDATE`, orgID).Scan(&old, &slug)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Refuse(apperr.NotFound, "org_gone", nil)
		}
		if err != nil {
			return fmt.Errorf("lock org %d: %w", orgID, err)
		}
		if old == locale {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE orgs SET locale = $2, updated_at = now() WHERE id = $1`, orgID, locale); err != nil {
			return fmt.Errorf("set locale of org %d: %w", orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "org.locale.set", Target: slug,
			Old: map[string]string{"locale": old}, New: map[string]string{"locale": locale}})
	})
}

// AddMember gives a user a role in an org, replacing any previous role, on
// any Querier, so it can run inside a transaction. An admin it demotes
// loses the API tokens they made (endAdminTokens), in the same statement's
// transaction when q is one.
func AddMember(ctx context.Context, q database.Querier, orgID, userID int64, role Role) error {
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	var old Role
	err := q.QueryRow(ctx, `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2 FOR UPDATE`, orgID, userID).Scan(&old)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("role of user %d in org %d: %w", userID, orgID, err)
	}
	if _, err := q.Exec(ctx, `
		INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)
		ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role`, orgID, userID, role); err != nil {
		return fmt.Errorf("add user %d to org %d: %w", userID, orgID, err)
	}
	return endAdminTokens(ctx, q, audit.System, orgID, userID, old, role)
}

// AddMember gives a user a role in an org, replacing any previous role.
func (s *Store) AddMember(ctx context.Context, orgID, userID int64, role Role) error {
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error { return AddMember(ctx, tx, orgID, userID, role) })
}
