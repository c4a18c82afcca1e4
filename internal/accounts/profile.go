package accounts

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/i18n"
)

// The profile page: a user's name, password and last sign-in
// (docs/accounts.md). The actions it writes are listed in resets.go.

// Profile is what the profile page shows of the signed-in user.
type Profile struct {
	User
	LastSignInAt *time.Time
}

// ProfileOf reads a user's profile.
func (s *Store) ProfileOf(ctx context.Context, userID int64) (Profile, error) {
	var p Profile
	err := database.Reader(ctx, s.DB).QueryRow(ctx, `SELECT id, email, is_staff, created_at, name, last_sign_in_at, coalesce(language, '') FROM users WHERE id = $1`, userID).
		Scan(&p.ID, &p.Email, &p.IsStaff, &p.CreatedAt, &p.Name, &p.LastSignInAt, &p.Language)
	if err != nil {
		return Profile{}, fmt.Errorf("profile of user %d: %w", userID, err)
	}
	return p, nil
}

// SetName changes a user's display name.
func (s *Store) SetName(ctx context.Context, actor audit.Actor, name string) (string, error) {
	name, err := ValidateName(name)
	if err != nil {
		return "", err
	}
	return name, database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var old string
		if err := tx.QueryRow(ctx, `SELECT name FROM users WHERE id = $1 FOR UPDATE`, actor.UserID).Scan(&old); err != nil {
			return fmt.Errorf("lock user %d: %w", actor.UserID, err)
		}
		if old == name {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET name = $2 WHERE id = $1`, actor.UserID, name); err != nil {
			return fmt.Errorf("set name of user %d: %w", actor.UserID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, Action: "user.name.set", Target: actor.Email,
			Old: map[string]string{"name": old}, New: map[string]string{"name": name}})
	})
}

// SetLanguage sets the user's own language (i18n.ParseLanguage: "en",
// "de", "es", "fr"; "" is the org's) and records "user.language.set" with
// the old and new values; the same value changes and records nothing. An
// unsupported language is a field error on "language", nothing changed.
func (s *Store) SetLanguage(ctx context.Context, actor audit.Actor, language string) (string, error) {
	language, err := i18n.ParseLanguage("language", language)
	if err != nil {
		return "", err
	}
	return language, database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var old string
		if err := tx.QueryRow(ctx, `SELECT coalesce(language, '') FROM users WHERE id = $1 FOR UPDATE`, actor.UserID).Scan(&old); err != nil {
			return fmt.Errorf("lock user %d: %w", actor.UserID, err)
		}
		if old == language {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET language = nullif($2, '') WHERE id = $1`, actor.UserID, language); err != nil {
			return fmt.Errorf("set language of user %d: %w", actor.UserID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, Action: "user.language.set", Target: actor.Email,
			Old: map[string]string{"language": old}, New: map[string]string{"language": language}})
	})
}

// ChangePassword sets a new password after checking the current one, and
// revokes every session of the user (the caller signs the current browser
// in again). A wrong current password is a field error and changes
// nothing. The caller holds a hashing slot: this hashes twice.
func (s *Store) ChangePassword(ctx context.Context, actor audit.Actor, current, next string) error {
	if current == "" {
		return apperr.FieldRefusal("current_password", "current_password_missing", nil)
	}
	var hash, name string
	if err := s.DB.QueryRow(ctx, `SELECT password_hash, coalesce(name, '') FROM users WHERE id = $1`, actor.UserID).Scan(&hash, &name); err != nil {
		return fmt.Errorf("read password of user %d: %w", actor.UserID, err)
	}
	if err := CheckNewPassword(next, actor.Email, name); err != nil {
		return asField(err, "new_password")
	}
	if !verifyPassword(hash, current) {
		return apperr.FieldRefusal("current_password", "current_password_wrong", nil)
	}
	newHash, err := s.Hashing.hash(next)
	if err != nil {
		return err
	}
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := setPassword(ctx, tx, actor.UserID, newHash); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, Action: "user.password.change", Target: actor.Email})
	})
}

// RecordSignIn notes when a user last signed in (the members page shows it).
func (s *Store) RecordSignIn(ctx context.Context, userID int64, at time.Time) error {
	if _, err := s.DB.Exec(ctx, `UPDATE users SET last_sign_in_at = $2 WHERE id = $1`, userID, at); err != nil {
		return fmt.Errorf("record sign-in of user %d: %w", userID, err)
	}
	return nil
}
