package web

import "github.com/labstack/echo/v4"

// orgHome sends an org's members to its briefings, the page they come
// for; an admin of an org whose first setup is not done lands on its
// checklist instead (docs/web.md, "First setup").
func (s *Server) orgHome(c echo.Context) error {
	m := currentMembership(c)
	if m.IsAdmin() {
		steps, err := s.setupSteps(c, m)
		if err != nil {
			return err
		}
		if !setupDone(steps) {
			return redirect(c, orgBase(m.Org.Slug)+"/setup")
		}
	}
	return redirect(c, briefingsURL(m.Org.Slug))
}
