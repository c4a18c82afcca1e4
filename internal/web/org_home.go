package web

import "github.com/labstack/echo/v4"

// orgHome sends an org's members to its briefings, the page they come for.
func (s *Server) orgHome(c echo.Context) error {
	return redirect(c, briefingsURL(currentMembership(c).Org.Slug))
}
