package web

import (
	"github.com/labstack/echo/v4/middleware"

	"fieldbrief/static"
)

// routes registers every route, readable top to bottom. Access is decided by
// the group a route is in: public, signed in, org member, org admin, staff.
func (s *Server) routes() {
	e := s.echo
	e.Pre(middleware.RemoveTrailingSlash())
	e.Use(
		middleware.RequestID(),
		s.securityHeaders, // first, so error pages and fragments carry them too
		middleware.Recover(),
		s.requestLog,
		middleware.BodyLimit("1M"),
		s.loadSession, // sets the user when a valid session cookie is present
		s.csrf(),
	)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metrics)
	e.StaticFS("/static", static.FS)

	e.GET("/login", s.loginForm)
	e.POST("/login", s.login)
	e.POST("/logout", s.logout)

	// Signed in: a route middleware, not an e.Group("", …), because a group
	// with middleware also catches every unmatched path, which would send
	// anonymous visitors of a missing page to /login instead of a 404.
	e.GET("/", s.home, s.requireUser)

	member := e.Group("/orgs/:slug", s.requireUser, s.requireMember)
	member.GET("", s.orgHome)
	member.GET("/briefings", s.briefingList)
	member.GET("/briefings/:date", s.briefingShow)

	admin := e.Group("/orgs/:slug", s.requireUser, s.requireMember, s.requireAdmin)
	admin.POST("/briefings/generate", s.briefingGenerate)
	admin.GET("/settings/fieldforce", s.settingsForm)
	admin.POST("/settings/fieldforce", s.settingsSave)
	admin.POST("/settings/fieldforce/json", s.settingsSaveJSON)
	admin.POST("/settings/fieldforce/enabled", s.settingsSetEnabled)
	admin.GET("/settings/fieldforce/preview", s.settingsPreview)
	admin.GET("/settings/fieldforce/zones", s.zoneSearch)

	staff := e.Group("/staff", s.requireUser, s.requireStaff)
	staff.GET("", s.staffHome)
	staff.GET("/flags", s.staffFlags)
	staff.POST("/flags/:key", s.staffSetFlag)
	staff.POST("/orgs/:slug/flags/:key", s.staffSetOrgFlag)
	staff.GET("/audit", s.staffAudit)
}
