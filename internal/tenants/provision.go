package tenants

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
)

// Provisioning: the operator's changes to orgs (cmd/web's create-org, the
// staff console's "New org"), each made together with its audit entry in
// one transaction; people are provisioned by accounts.Store.ProvisionUser.
//
// Actions written:
//
//	org.create           an org was created (new: slug, name)

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
	if database.IsUniqueViolation(err, "orgs_slug_key") {
		return Org{}, apperr.Errorf(apperr.Conflict, "an org with slug %q already exists", slug)
	}
	if err != nil {
		return Org{}, fmt.Errorf("create org %q: %w", slug, err)
	}
	return o, nil
}

// ProvisionOrg creates an org and records "org.create", in one transaction.
// A taken slug is a conflict and records nothing.
func (s *Store) ProvisionOrg(ctx context.Context, actor audit.Actor, slug, name string) (Org, error) {
	var org Org
	err := pgx.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		org, err = ProvisionOrgTx(ctx, tx, actor, slug, name, time.Time{})
		return err
	})
	if err != nil {
		return Org{}, err
	}
	return org, nil
}

// ProvisionOrgTx is ProvisionOrg inside the caller's transaction, set up at
// (zero: the database's clock).
func ProvisionOrgTx(ctx context.Context, tx pgx.Tx, actor audit.Actor, slug, name string, at time.Time) (Org, error) {
	o, err := createOrg(ctx, tx, slug, name, at)
	if err != nil {
		return Org{}, err
	}
	return o, audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: o.ID, Action: "org.create", Target: o.Slug,
		New: map[string]string{"slug": o.Slug, "name": o.Name}})
}

// AddMember gives a user a role in an org, replacing any previous role, on
// any Querier, so it can run inside a transaction.
func AddMember(ctx context.Context, q database.Querier, orgID, userID int64, role Role) error {
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

// AddMember gives a user a role in an org, replacing any previous role.
func (s *Store) AddMember(ctx context.Context, orgID, userID int64, role Role) error {
	return AddMember(ctx, s.DB, orgID, userID, role)
}
