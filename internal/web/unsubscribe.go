package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/unsubscribe"
	"fieldbrief/views"
)

// One-click unsubscribe (RFC 8058). Both routes need no session: the signed
// token in the link is the authority, and unsubscribe.Store checks it (length,
// encoding, MAC) before anything else, so a bad one is a 422 page.
//
// The pages are in the recipient's language (docs/i18n.md): the language of
// the org's technician with that address when they have one, else the org's
// locale, else the browser's; a link that does not open is in the
// browser's.

// unsubscribeConfirm shows who the link is for and a button. It changes
// nothing, as mail scanners open links in messages before anyone reads them.
func (s *Server) unsubscribeConfirm(c echo.Context) error {
	token := c.QueryParam("t")
	target, err := s.unsubscribes.Target(c.Request().Context(), token)
	if err != nil {
		return err
	}
	l := s.unsubscribeReader(c, target)
	m := views.Unsubscribe{Page: s.readerPage(c, l, l.T("unsubscribe.title")), Token: token, Email: target.Email, OrgName: target.OrgName}
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
	l := s.unsubscribeReader(c, res)
	m := views.Unsubscribe{Page: s.readerPage(c, l, l.T("unsubscribe.done_title")), Email: res.Email, OrgName: res.OrgName}
	return s.render(c, http.StatusOK, views.UnsubscribedPage(m))
}

// unsubscribeReader is who reads an unsubscribe page: the recipient.
func (s *Server) unsubscribeReader(c echo.Context, r unsubscribe.Result) *i18n.Localizer {
	return i18n.Resolve(r.Language, r.OrgLocale, c.Request().Header.Get("Accept-Language"))
}

// readerPage is s.page for a page whose reader is l rather than the
// request's (localize's): its words, <html lang> and Content-Language.
func (s *Server) readerPage(c echo.Context, l *i18n.Localizer, title string) views.Page {
	p := s.page(c, title)
	p.I18n = l
	c.Response().Header().Set("Content-Language", l.Lang())
	return p
}
