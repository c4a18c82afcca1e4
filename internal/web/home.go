package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/views"
)

// home lists the user's orgs. Someone in exactly one org (and not staff,
// who also need the way to the console) goes straight to its briefings.
func (s *Server) home(c echo.Context) error {
	p := s.page(c, localizer(c).T("home.title"))
	if len(p.Orgs) == 1 && !p.User.IsStaff {
		return c.Redirect(http.StatusSeeOther, "/orgs/"+p.Orgs[0].Slug+"/briefings")
	}
	return s.render(c, http.StatusOK, views.Home(p))
}
