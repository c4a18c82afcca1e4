// Package flags holds the feature flags: each feature's global switch (the
// kill switch) and the orgs' overrides, what flipping a switch would
// reach, the one rule for whether an org's briefings run, and the history
// of that rule's inputs (docs/architecture.md, feature flags).
package flags

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/tenants"
)

// Flag is a feature's global switch (the kill switch).
type Flag struct {
	Key         string
	Description string
	Enabled     bool
	UpdatedAt   time.Time
}

// Override is an org's tri-state setting for one flag.
type Override string

const (
	Inherit Override = "inherit" // no row: follow the global switch
	On      Override = "on"
	Off     Override = "off"
)

// ParseOverride accepts inherit, on or off.
func ParseOverride(s string) (Override, error) {
	switch o := Override(s); o {
	case Inherit, On, Off:
		return o, nil
	}
	return "", apperr.FieldRefusal("state", "flag_state_invalid", apperr.Args{"State": s})
}

// Effective is the rule for every flag: global on AND org override not off.
func Effective(global bool, o Override) bool { return global && o != Off }

// OrgFlag is one org's view of a flag.
type OrgFlag struct {
	Org       tenants.Org
	Override  Override
	Effective bool
}

// Store reads and changes the flags.
type Store struct {
	DB *pgxpool.Pool
}

// List returns every global flag, by key.
func (s *Store) List(ctx context.Context) ([]Flag, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), "list flags", func(r pgx.CollectableRow) (Flag, error) {
		var f Flag
		return f, r.Scan(&f.Key, &f.Description, &f.Enabled, &f.UpdatedAt)
	}, `SELECT key, description, is_enabled, updated_at FROM admin_feature_flags ORDER BY key`)
}

// SetGlobal flips a kill switch. A reason is required; setting the value
// it already has changes nothing and writes no audit entry.
func (s *Store) SetGlobal(ctx context.Context, actor audit.Actor, key string, enabled bool, reason string) error {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return apperr.FieldRefusal("reason", "flag_reason_required", nil)
	}
	if err := checkReason(reason); err != nil {
		return err
	}
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var old bool
		err := tx.QueryRow(ctx, `SELECT is_enabled FROM admin_feature_flags WHERE key = $1 FOR UPDATE`, key).Scan(&old)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Detailf(apperr.NotFound, "no flag %q", key)
		}
		if err != nil {
			return fmt.Errorf("read flag %q: %w", key, err)
		}
		if old == enabled {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE admin_feature_flags SET is_enabled = $2, updated_at = now(), updated_by = nullif($3::bigint, 0) WHERE key = $1`,
			key, enabled, actor.UserID); err != nil {
			return fmt.Errorf("set flag %q: %w", key, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, Action: "flag.global.set", Target: key,
			Old: map[string]bool{"enabled": old}, New: map[string]bool{"enabled": enabled}, Reason: reason})
	})
}

// SetOrg sets an org's override. Inherit deletes the row.
func (s *Store) SetOrg(ctx context.Context, actor audit.Actor, orgID int64, key string, state Override, reason string) error {
	if _, err := ParseOverride(string(state)); err != nil {
		return err
	}
	if err := checkReason(reason); err != nil {
		return err
	}
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT key FROM admin_feature_flags WHERE key = $1`, key).Scan(&key); errors.Is(err, pgx.ErrNoRows) {
			return apperr.Detailf(apperr.NotFound, "no flag %q", key)
		} else if err != nil {
			return fmt.Errorf("read flag %q: %w", key, err)
		}
		old, err := orgOverride(ctx, tx, orgID, key)
		if err != nil {
			return err
		}
		if old == state {
			return nil
		}
		if state == Inherit {
			_, err = tx.Exec(ctx, `DELETE FROM org_feature_flags WHERE org_id = $1 AND key = $2`, orgID, key)
		} else {
			_, err = tx.Exec(ctx, `
				INSERT INTO org_feature_flags (org_id, key, is_enabled, updated_by, updated_at) VALUES ($1, $2, $3, nullif($4::bigint, 0), now())
				ON CONFLICT (org_id, key) DO UPDATE
				   SET is_enabled = EXCLUDED.is_enabled, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
				orgID, key, state == On, actor.UserID)
		}
		if err != nil {
			return fmt.Errorf("set flag %q for org %d: %w", key, orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "flag.org.set", Target: key,
			Old: map[string]Override{"state": old}, New: map[string]Override{"state": state}, Reason: strings.TrimSpace(reason)})
	})
}

// orgOverride reads an org's override inside the transaction that changes
// it, locking the row so concurrent changes audit the right "old" state.
func orgOverride(ctx context.Context, tx pgx.Tx, orgID int64, key string) (Override, error) {
	var on bool
	err := tx.QueryRow(ctx, `SELECT is_enabled FROM org_feature_flags WHERE org_id = $1 AND key = $2 FOR UPDATE`,
		orgID, key).Scan(&on)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Inherit, nil
	case err != nil:
		return "", fmt.Errorf("read flag %q for org %d: %w", key, orgID, err)
	case on:
		return On, nil
	default:
		return Off, nil
	}
}

// Orgs lists every org's override and effective state for one flag,
// optionally filtered by slug or name.
func (s *Store) Orgs(ctx context.Context, key, query string) ([]OrgFlag, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), fmt.Sprintf("org flags %q", key), func(r pgx.CollectableRow) (OrgFlag, error) {
		var f OrgFlag
		var global bool
		var override *bool
		err := r.Scan(&f.Org.ID, &f.Org.Slug, &f.Org.Name, &f.Org.CreatedAt, &global, &override)
		f.Override = overrideOf(override)
		f.Effective = Effective(global, f.Override)
		return f, err
	}, `
		SELECT o.id, o.slug, o.name, o.created_at, coalesce(af.is_enabled, false), off.is_enabled
		FROM orgs o
		LEFT JOIN admin_feature_flags af ON af.key = $1
		LEFT JOIN org_feature_flags off ON off.org_id = o.id AND off.key = $1
		WHERE $2 = '' OR o.slug ILIKE '%' || $2 || '%' OR o.name ILIKE '%' || $2 || '%'
		ORDER BY o.name, o.id`, key, database.EscapeLike(query))
}

// ForOrg returns one org's view of a flag.
func (s *Store) ForOrg(ctx context.Context, orgID int64, key string) (global bool, o Override, err error) {
	var override *bool
	err = database.Reader(ctx, s.DB).QueryRow(ctx, `
		SELECT coalesce((SELECT is_enabled FROM admin_feature_flags WHERE key = $2), false),
		       (SELECT is_enabled FROM org_feature_flags WHERE org_id = $1 AND key = $2)`, orgID, key).
		Scan(&global, &override)
	if err != nil {
		return false, "", fmt.Errorf("flag %q for org %d: %w", key, orgID, err)
	}
	return global, overrideOf(override), nil
}

// Enabled reports whether a flag is on for an org.
func (s *Store) Enabled(ctx context.Context, orgID int64, key string) (bool, error) {
	global, o, err := s.ForOrg(ctx, orgID, key)
	return Effective(global, o), err
}

func overrideOf(v *bool) Override {
	switch {
	case v == nil:
		return Inherit
	case *v:
		return On
	default:
		return Off
	}
}

// MaxReasonLen is the longest reason the audit log keeps, in characters.
const MaxReasonLen = 1000

func checkReason(reason string) error {
	if utf8.RuneCountInString(reason) > MaxReasonLen {
		return apperr.FieldRefusal("reason", "flag_reason_too_long", apperr.Args{"Max": MaxReasonLen})
	}
	return nil
}
