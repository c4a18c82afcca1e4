package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/views"
)

// One-click unsubscribe (RFC 8058). Both routes need no session: the signed
// token in the link is the authority, and unsubscribe.Store checks it (length,
// encoding, MAC) before anything else, so a bad one is a 422 page.

// unsubscribeConfirm shows who the link is for and a button. It changes
// nothing, as mail scanners open links in messages before anyone reads them.
func (s *Server) unsubscribeConfirm(c echo.Context) error {
	token := c.QueryParam("t")
	target, err := s.unsubscribes.Target(c.Request().Context(), token)
	if err != nil {
		return err
	}
	m := views.Unsubscribe{Page: s.page(c, "Unsubscribe"), Token: token, Email: target.Email, OrgName: target.OrgName}
	return s.render(c, http.StatusOK, views.UnsubscribeConfirmPage(m))
}

// unsubscribe acts on the token in the form (the confirmation page's
// button) or in the query (a mail provider's one-click POST, whose body is
// List-Unsubscribe=One-Click). Repeating it is harmless and answers the same.
func (s *Server) unsubscribe(c echo.Context) error {
	res, err := s.unsubscribes.Unsubscribe(c.Request().Context(), c.FormValue("t"))
	if err != nil {
		return err
	}
	m := views.Unsubscribe{Page: s.page(c, "Unsubscribed"), Email: res.Email, OrgName: res.OrgName}
	return s.render(c, http.StatusOK, views.UnsubscribedPage(m))
}
