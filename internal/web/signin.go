package web

import (
	"errors"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/auth"
)

// signIn starts a new session for u in this browser (the one it held is
// revoked), gives it a new CSRF token and records the sign-in for the
// members page. Sign-in, accepting an invite and changing one's password
// all end here.
//
// The writes come before the cookies: when one fails (a busy hour's 503),
// the browser keeps the session and the CSRF token it had, so sending the
// same form again works, where a rotated token would have made it a 403
// "form expired". The sign-in is recorded first for the same reason; a
// session start that then fails leaves a recorded time of a sign-in whose
// password was right.
func (s *Server) signIn(c echo.Context, u accounts.User) error {
	ctx, now := c.Request().Context(), s.now()
	if err := s.accounts.RecordSignIn(ctx, u.ID, now); err != nil {
		return err
	}
	client := auth.Client{UserAgent: c.Request().UserAgent(), IP: c.RealIP()}
	if err := s.sessions.Start(ctx, c.Response(), c.Request(), u.ID, client, now); err != nil {
		return err
	}
	s.csrf.Rotate(c)
	return nil
}

// errHashBusy answers a request that needs a password hash while every
// hashing slot is taken (see auth.HashGate).
var errHashBusy = apperr.Errorf(apperr.Unavailable,
	"Many people are signing in right now. Try again in a moment.")

// hashSlot takes one of the bounded password-hashing slots for a handler
// that hashes or checks a password: accepting an invite, resetting or
// changing a password. The caller defers the release.
func (s *Server) hashSlot(c echo.Context) (release func(), err error) {
	release, err = s.hashes.Acquire(c.Request().Context())
	if errors.Is(err, auth.ErrBusy) {
		c.Response().Header().Set("Retry-After", "1")
		return nil, errHashBusy
	}
	return release, err
}

// linkError is why an invite or reset link does not work, if that is
// what err says.
func linkError(err error) (*accounts.LinkError, bool) {
	var le *accounts.LinkError
	ok := errors.As(err, &le)
	return le, ok
}

// fieldOf is the form field an invalid-input error concerns, "" for none.
func fieldOf(err error) string {
	if e, ok := errors.AsType[*apperr.Error](err); ok && e.Code == apperr.Invalid {
		return e.FieldName()
	}
	return ""
}
