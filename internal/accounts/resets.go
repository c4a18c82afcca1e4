package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
)

// Password resets by email (docs/accounts.md); the profile page is in profile.go.
//
// Actions written (never a password, its hash or a token):
//
//	user.password.reset_request  a reset link was asked for (reason: the client's IP)
//	user.password.reset          the password was set through a reset link, or by create-user
//	user.password.change         the user changed it on the profile page
//	user.name.set                old/new: {"name"}
//
// Setting a password either way revokes the user's sessions (the profile
// page then signs the browser that changed it in again).

// Limits on resets.
const (
	ResetLifetime    = 30 * time.Minute
	MaxResetsPerHour = 3 // mails per account in an hour, whoever asks
)

// RequestPasswordReset records a reset of the account with that email and
// queues the mail of its link, in one transaction. An unknown email, or an
// account that asked MaxResetsPerHour times in the last hour, changes
// nothing and is not an error: the caller answers the same either way, so
// the answer does not tell who has an account.
func (s *Store) RequestPasswordReset(ctx context.Context, email, clientIP string, now time.Time) error {
	if err := s.mailOn(); err != nil {
		return err
	}
	email = strings.TrimSpace(email)
	return database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var userID int64
		var addr string
		err := tx.QueryRow(ctx, `SELECT id, email FROM users WHERE lower(email) = lower($1) FOR UPDATE`, email).Scan(&userID, &addr)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find user for reset: %w", err)
		}
		var recent int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM password_resets WHERE user_id = $1 AND created_at > $2`,
			userID, now.Add(-time.Hour)).Scan(&recent); err != nil {
			return fmt.Errorf("count resets of user %d: %w", userID, err)
		}
		if recent >= MaxResetsPerHour {
			return nil
		}
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO password_resets (user_id, created_at, expires_at, client_ip) VALUES ($1, $2, $3, $4) RETURNING id`,
			userID, now, now.Add(ResetLifetime), clientIP).Scan(&id); err != nil {
			return fmt.Errorf("insert reset of user %d: %w", userID, err)
		}
		if err := insertAccountEmail(ctx, tx, SendAccountEmailArgs{What: EmailReset, ID: id}); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: audit.Actor{UserID: userID, Email: addr}, Action: "user.password.reset_request",
			Target: addr, Reason: "from " + clientIP})
	})
}

// resetByToken finds the reset a link names and its user, locked, or says
// why the link does not work.
func resetByToken(ctx context.Context, tx pgx.Tx, token string, now time.Time) (int64, User, error) {
	var u User
	if token == "" || len(token) > 64 {
		return 0, u, &LinkError{Reason: LinkInvalid}
	}
	var id int64
	var expires time.Time
	var used *time.Time
	err := tx.QueryRow(ctx, `
		SELECT r.id, r.expires_at, r.used_at, u.id, u.email, u.is_staff, u.created_at, u.name
		  FROM password_resets r JOIN users u ON u.id = r.user_id
		 WHERE r.token_hash = $1 FOR UPDATE OF r, u`, hashLinkToken(token)).
		Scan(&id, &expires, &used, &u.ID, &u.Email, &u.IsStaff, &u.CreatedAt, &u.Name)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, u, &LinkError{Reason: LinkInvalid}
	case err != nil:
		return 0, u, fmt.Errorf("find reset by token: %w", err)
	case used != nil:
		return 0, u, &LinkError{Reason: LinkUsed}
	case !now.Before(expires):
		return 0, u, &LinkError{Reason: LinkExpired}
	}
	return id, u, nil
}

// CheckResetToken says whether a reset link works at now (a *LinkError
// when not), without using it.
func (s *Store) CheckResetToken(ctx context.Context, token string, now time.Time) (User, error) {
	var u User
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		_, u, err = resetByToken(ctx, tx, token, now)
		return err
	})
	return u, err
}

// ResetPassword sets the password of the reset link's account, uses up
// that link and every other open one of the account, and revokes all its
// sessions, in one transaction. The caller holds a hashing slot.
func (s *Store) ResetPassword(ctx context.Context, token, password string, now time.Time) (User, error) {
	if err := CheckNewPassword(password); err != nil {
		return User{}, err
	}
	hash, err := s.Hashing.hash(password)
	if err != nil {
		return User{}, err
	}
	var u User
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if _, u, err = resetByToken(ctx, tx, token, now); err != nil {
			return err
		}
		// Now that the account is known: not guessable from its email or name.
		if err := CheckNewPassword(password, u.Email, u.Name); err != nil {
			return err
		}
		if err := setPassword(ctx, tx, u.ID, hash); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`,
			u.ID, now); err != nil {
			return fmt.Errorf("use up resets of user %d: %w", u.ID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: audit.Actor{UserID: u.ID, Email: u.Email}, Action: "user.password.reset", Target: u.Email,
			Reason: "reset link"})
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// setPassword stores a new hash and revokes every session of the user.
func setPassword(ctx context.Context, tx pgx.Tx, userID int64, hash string) error {
	if _, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, hash); err != nil {
		return fmt.Errorf("set password of user %d: %w", userID, err)
	}
	return revokeSessions(ctx, tx, userID)
}
