package web

import (
	"github.com/labstack/echo/v4/middleware"

	"fieldbrief/internal/httpkit"
	"fieldbrief/static"
)

// routes registers every route, readable top to bottom. Each route names
// its access checks: the group's (signed in, org member, staff) and, on an
// org's routes that change something, s.requireFieldEditor (the field data:
// admins and dispatchers) or s.requireAdmin (settings, schedule, delivery,
// API tokens, members: admins only). routes_test.go lists every route with
// who may use it. Every state-changing route ends with
// checkCSRF, so the access checks answer first (303 to /login, 404, 403)
// and only then is a missing or wrong token a 403.
func (s *Server) routes() {
	e := s.echo
	issueCSRF, checkCSRF := s.csrf.Middleware()
	e.Pre(middleware.RemoveTrailingSlash())
	e.Use(
		httpkit.SafeRequestID, // a client's X-Request-Id only if it is a short safe token
		middleware.RequestID(),
		s.securityHeaders, // first, so error pages and fragments carry them too
		middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, LogErrorFunc: s.logPanic}),
		s.requestLog,
		s.admission.Admit(admissionExempt), // at most MaxInFlight at once, a short queue, 503 for the rest
		s.bodyLimit(),                      // 1 MiB; a route with its own cap (capBody) reads its own body, so does the API (internal/api)
		s.readForm,                         // forms and the JSON editor: 64 KiB, parsed once here (a CSV upload, fieldimport.MaxBytes: readUpload, after its access checks)
		httpkit.CheckText,                  // no NUL or invalid UTF-8 in the path, query or form
		httpkit.Bound(s.dbLimits, s.requestTimeout, s.longerDeadline), // lock_timeout, statement_timeout and a deadline on a request's database work, from when its form is read: 503 past them
		httpkit.RetryLostReads(s.db, s.log),                           // a GET or HEAD runs again once when the database connection was lost
		s.loadSession,                                                 // sets the user when a valid session cookie is present
		s.localize,                                                    // the reader's language and formats (docs/i18n.md)
		s.reads.Tx,                                                    // a GET's or HEAD's store reads share one read-only transaction
		issueCSRF,                                                     // the token every page's forms and hx-headers carry
	)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	if s.publicMetrics() {
		e.GET("/metrics", s.metrics)
	}
	e.GET("/static/favicon.svg", favicon("favicon.svg", "image/svg+xml"))
	e.GET("/static/favicon.png", favicon("favicon.png", "image/png"))
	e.StaticFS("/static", static.FS)
	// The directory itself: echo would redirect to /static/, which the
	// trailing-slash rule above sends back here.
	e.GET("/static", staticDirectory)

	e.GET("/login", s.loginForm)
	e.POST("/login", s.login, checkCSRF)
	e.POST("/logout", s.logout, checkCSRF)
	// Accounts (docs/accounts.md): the link's token is the authority on the
	// invite and reset pages, so they need no sign-in.
	e.GET("/password/forgot", s.forgotForm)
	e.POST("/password/forgot", s.forgot, checkCSRF)
	e.GET("/password/reset/:token", s.resetForm)
	e.POST("/password/reset/:token", s.reset, checkCSRF)
	e.GET("/invites/:token", s.inviteShow)
	e.POST("/invites/:token", s.inviteAccept, checkCSRF)

	// One-click unsubscribe from a briefing email: no sign-in, the signed
	// token in the link is the authority. The POST alone goes without
	// checkCSRF: mail providers send it (RFC 8058) with no cookie and no
	// token of ours, and a CSRF token would add nothing, as a forger who
	// has the link's token could unsubscribe that address anyway.
	e.GET("/unsubscribe", s.unsubscribeConfirm)
	e.POST("/unsubscribe", s.unsubscribe)

	// A technician's day link (docs/delivery.md, "Day links"): no sign-in,
	// the token is the authority; rate-limited per client. Its one form asks
	// the office to stop (or restart) the technician's day sheets: like the
	// unsubscribe POST it goes without checkCSRF, as there is no session and
	// a forger would need the link's token (docs/delivery.md, "Stopping day
	// sheets").
	e.GET("/t/:token", s.technicianDay, dayLinkHeaders, s.dayLinkRateLimit)
	e.POST("/t/:token/day-sheets", s.technicianDaySheets, dayLinkHeaders, s.dayLinkRateLimit)

	// Signed in: a route middleware, not an e.Group("", …), because a group
	// with middleware also catches every unmatched path, which would send
	// anonymous visitors of a missing page to /login instead of a 404.
	e.GET("/", s.home, s.requireUser)
	e.GET("/profile", s.profile, s.requireUser)
	e.POST("/profile", s.profileSave, s.requireUser, checkCSRF)
	e.POST("/profile/password", s.profilePassword, s.requireUser, checkCSRF)
	e.POST("/profile/language", s.profileLanguage, s.requireUser, checkCSRF)

	// Org members. The group's catch-all answers unmatched paths and methods
	// under /orgs/:slug with 404 once the member checks have passed.
	org := e.Group("/orgs/:slug", s.requireUser, s.requireMember)
	org.GET("", s.orgHome)
	org.GET("/setup", s.setupPage, s.requireAdmin)
	org.GET("/briefings", s.briefingList)
	org.GET("/members", s.members)
	org.POST("/members/invite", s.memberInvite, s.requireAdmin, checkCSRF)
	org.POST("/members/:user/role", s.memberSetRole, s.requireAdmin, checkCSRF)
	org.POST("/members/:user/remove", s.memberRemove, s.requireAdmin, checkCSRF)
	org.POST("/invites/:invite/resend", s.inviteResend, s.requireAdmin, checkCSRF)
	org.POST("/invites/:invite/revoke", s.inviteRevoke, s.requireAdmin, checkCSRF)
	org.GET("/briefings/:date", s.briefingShow)
	org.POST("/briefings/generate", s.briefingGenerate, s.requireAdmin, checkCSRF)
	org.POST("/briefings/:date/deliveries/:id/resend", s.deliveryResend, s.requireAdmin, checkCSRF)
	// Field data (docs/field-data.md): members read, admins and dispatchers write.
	// The board of a busy day is a big page (a form per job): compressed.
	org.GET("/board", s.board, middleware.Gzip())
	org.GET("/technicians", s.technicianList)
	org.POST("/technicians", s.technicianCreate, s.requireFieldEditor, checkCSRF)
	org.GET("/technicians/:id", s.technicianShow)
	org.POST("/technicians/:id", s.technicianUpdate, s.requireFieldEditor, checkCSRF)
	org.POST("/technicians/:id/active", s.technicianSetActive, s.requireFieldEditor, checkCSRF)
	org.POST("/technicians/:id/revoke-links", s.technicianRevokeLinks, s.requireAdmin, checkCSRF)
	org.POST("/technicians/:id/day-sheets", s.technicianResumeDaySheets, s.requireAdmin, checkCSRF)
	org.GET("/jobs", s.jobList)
	org.POST("/jobs", s.jobCreate, s.requireFieldEditor, checkCSRF)
	org.GET("/jobs/:id", s.jobShow)
	org.POST("/jobs/:id", s.jobUpdate, s.requireFieldEditor, checkCSRF)
	org.POST("/jobs/:id/assign", s.jobAssign, s.requireFieldEditor, checkCSRF, middleware.Gzip())
	org.POST("/jobs/:id/status", s.jobSetStatus, s.requireFieldEditor, checkCSRF, middleware.Gzip())
	org.POST("/jobs/:id/move", s.jobMove, s.requireFieldEditor, checkCSRF, middleware.Gzip())
	org.POST("/jobs/:id/delete", s.jobDelete, s.requireFieldEditor, checkCSRF)
	org.GET("/settings/fieldforce", s.settingsForm, s.requireAdmin)
	org.POST("/settings/fieldforce", s.settingsSave, s.requireAdmin, checkCSRF)
	org.POST("/settings/fieldforce/json", s.settingsSaveJSON, s.requireAdmin, checkCSRF)
	org.POST("/settings/locale", s.settingsSetLocale, s.requireAdmin, checkCSRF)
	org.POST("/settings/fieldforce/enabled", s.settingsSetEnabled, s.requireAdmin, checkCSRF)
	org.POST("/settings/fieldforce/webhook-secret/reveal", s.webhookSecretReveal, s.requireAdmin, checkCSRF)
	org.POST("/settings/fieldforce/webhook-secret/rotate", s.webhookSecretRotate, s.requireAdmin, checkCSRF)
	org.POST("/settings/fieldforce/test-email", s.settingsTestEmail, s.requireAdmin, checkCSRF)
	org.POST("/settings/fieldforce/test-webhook", s.settingsTestWebhook, s.requireAdmin, checkCSRF)
	// A test email kept in the outbox, for the org's admins (the outbox itself is staff's).
	org.GET("/settings/fieldforce/tests/:id", s.testMessage, s.requireAdmin)
	org.GET("/settings/fieldforce/tests/:id/html", s.testMessageHTML, s.requireAdmin)
	org.GET("/settings/fieldforce/preview", s.settingsPreview, s.requireAdmin)
	org.GET("/settings/fieldforce/json/preview", s.settingsPreviewJSON, s.requireAdmin)
	org.GET("/settings/fieldforce/zones", s.zoneSearch, s.requireAdmin)
	org.GET("/import", s.importPage, s.requireFieldEditor)
	org.GET("/import/:kind/template.csv", s.importTemplate, s.requireFieldEditor)
	// The CSV upload has its own cap (fieldimport.MaxBytes), read by readUpload for admins and dispatchers only.
	s.capBody(org.POST("/import/:kind", s.importUpload, s.requireFieldEditor, s.readUpload, checkCSRF), uploadCap)
	// A preview lists every row of a file (3 MB of HTML at 10,000 rows): compressed.
	org.GET("/import/:kind/:id", s.importPreview, s.requireFieldEditor, middleware.Gzip())
	org.POST("/import/:kind/:id", s.importSave, s.requireFieldEditor, checkCSRF, middleware.Gzip())
	org.POST("/import/:kind/:id/delimiter", s.importDelimiter, s.requireFieldEditor, checkCSRF)
	org.POST("/import/:kind/:id/columns", s.importColumns, s.requireFieldEditor, checkCSRF)
	org.POST("/import/:kind/:id/technicians", s.importSuggestion, s.requireFieldEditor, checkCSRF)
	org.GET("/settings/api-tokens", s.apiTokensPage, s.requireAdmin)
	org.POST("/settings/api-tokens", s.apiTokenCreate, s.requireAdmin, checkCSRF)
	org.POST("/settings/api-tokens/:id/revoke", s.apiTokenRevoke, s.requireAdmin, checkCSRF)
	org.GET("/settings/webhooks", s.webhookEndpointsPage, s.requireAdmin)
	org.POST("/settings/webhooks", s.webhookEndpointCreate, s.requireAdmin, checkCSRF)
	org.GET("/settings/webhooks/:id", s.webhookEndpointPage, s.requireAdmin)
	org.POST("/settings/webhooks/:id", s.webhookEndpointUpdate, s.requireAdmin, checkCSRF)
	org.POST("/settings/webhooks/:id/delete", s.webhookEndpointDelete, s.requireAdmin, checkCSRF)
	org.POST("/settings/webhooks/:id/secret", s.webhookEndpointSecret, s.requireAdmin, checkCSRF)
	org.POST("/settings/webhooks/:id/rotate", s.webhookEndpointRotate, s.requireAdmin, checkCSRF)

	// The JSON API (docs/api.md): its route table is internal/api's
	// (api.Routes), on the same port; none of the browser's middleware
	// above touches it but what every request gets (api.Serves).
	s.api.Routes(e.Group("/api/v1"))

	staff := e.Group("/staff", s.requireUser, s.requireStaff)
	staff.GET("", s.staffHome)
	staff.GET("/flags", s.staffFlags)
	staff.GET("/orgs/new", s.staffNewOrg)
	staff.POST("/orgs", s.staffCreateOrg, checkCSRF)
	staff.POST("/flags/:key", s.staffSetFlag, checkCSRF)
	staff.POST("/orgs/:slug/flags/:key", s.staffSetOrgFlag, checkCSRF)
	staff.GET("/audit", s.staffAudit)
	staff.GET("/audit/export.csv", s.staffAuditExport)
	staff.GET("/outbox", s.staffOutbox)
	staff.GET("/outbox/:id", s.staffOutboxMessage)
	staff.GET("/outbox/:id/html", s.staffOutboxHTML)
}
