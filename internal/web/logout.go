package web

import "github.com/labstack/echo/v4"

// logout revokes the session row (so a copy of the cookie is worthless
// from now on), drops the cookie and goes to the sign-in page. It is open
// to anonymous requests so a stale tab's "Sign out" still lands somewhere
// sensible; CSRF protection keeps other sites from signing people out.
// The CSRF token rotates as well: the next person at this browser starts
// with a token of their own.
func (s *Server) logout(c echo.Context) error {
	if err := s.sessions.End(c.Request().Context(), c.Response(), c.Request(), s.now()); err != nil {
		return err
	}
	s.csrf.Rotate(c)
	return redirect(c, "/login")
}
