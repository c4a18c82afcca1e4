package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/views"
)

// home lists the user's orgs. Someone in exactly one org (and not staff,
// who also need the way to the console) goes straight to it: its
// briefings, or its first setup's checklist for an admin (orgHome).
func (s *Server) home(c echo.Context) error {
	p := s.page(c, localizer(c).T("home.title"))
	if len(p.Orgs) == 1 && !p.User.IsStaff {
		to := briefingsURL(p.Orgs[0].Slug)
		if p.Orgs[0].Admin { // the checklist while the org's first setup is not done
			to = orgBase(p.Orgs[0].Slug)
		}
		return c.Redirect(http.StatusSeeOther, to)
	}
	return s.render(c, http.StatusOK, views.Home(p))
}
