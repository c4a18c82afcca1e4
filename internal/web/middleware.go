package web

import (
	"errors"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"fieldbrief/internal/api"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/auth"
	"fieldbrief/internal/config"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/httpkit"
)

// contentSecurityPolicy allows only our own scripts, styles and requests:
// no inline script or style attribute anywhere (htmx is configured through
// a meta tag, behaviour lives in /static/app.js).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// securityHeaders runs before everything else, so error pages, 404s,
// static files and htmx fragments all carry the headers. Everything but
// /static is no-store: pages show tenant data and must not outlive logout
// in a shared browser's cache.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if s.cfg.SecureCookies {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		if isStatic(c) {
			h.Set("Cache-Control", "no-cache") // not fingerprinted: revalidate
		} else {
			h.Set("Cache-Control", "no-store")
		}
		return next(c)
	}
}

// admissionExempt says which requests skip the admission limit: probes,
// metrics and static files, cheap and needed while the pages are saturated,
// and signing in, which has its own, tighter bound: the hash gate
// (internal/auth/hashgate.go) answers 503 with Retry-After when too many
// passwords are being hashed, and the throttle counts every attempt. Gating
// it twice would turn throttled attempts into 503s the throttle never saw.
func admissionExempt(c echo.Context) bool {
	switch c.Request().URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return true
	case "/login":
		return c.Request().Method == http.MethodPost
	}
	return isStatic(c)
}

func staticDirectory(echo.Context) error { return echo.ErrNotFound }

func isStatic(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/static/") }

// Request metrics, labelled by route pattern (never the raw path, so the
// label set stays bounded).
var (
	httpRequests = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "fieldbrief_http_requests_total", Help: "HTTP requests, by method, route pattern and status.",
	}, []string{"method", "route", "status"})
	httpDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name: "fieldbrief_http_request_duration_seconds", Help: "HTTP request latency, by method and route pattern.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method", "route"})
)

// logPanic logs a recovered panic with its stack through our logger (echo's
// would print it unstructured); the error then goes to handleError, which
// answers 500 and logs it like any internal error.
func (s *Server) logPanic(c echo.Context, err error, stack []byte) error {
	s.log.Error("panic", "err", err, "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "stack", string(stack))
	return err
}

// requestLog writes one log line and the metrics per request. It hands a
// handler's error to the error handler itself, so the status it records
// is the one the client got.
func (s *Server) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now() // measures latency only; decisions use s.now
		if err := next(c); err != nil {
			c.Error(err)
		}
		elapsed := time.Since(start)
		status := c.Response().Status
		route := routeLabel(c)
		method := methodLabel(c.Request().Method)
		httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
		httpDuration.WithLabelValues(method, route).Observe(elapsed.Seconds())
		u, _ := currentUser(c)
		attrs := []any{"method", method, "route", route, "status", status,
			"duration_ms", float64(elapsed.Microseconds()) / 1000,
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID), "user_id", u.ID}
		if t := api.Token(c); t.ID != 0 {
			// Which integration sent it: the token by id, never the token.
			attrs = append(attrs, "api_token_id", t.ID, "org_id", t.OrgID)
		}
		s.log.InfoContext(c.Request().Context(), "request", attrs...)
		return nil
	}
}

// methodLabel is the request method as a label value: the standard
// methods by name, anything a client made up as OTHER, so the label set
// stays bounded.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// routeLabel is the matched route pattern; requests that matched no
// route share one label.
func routeLabel(c echo.Context) string {
	if p := c.Path(); p != "" {
		return p
	}
	return "unmatched"
}

// maxFormBytes caps a form body (the JSON editor's document included): the
// largest real form is a few KiB, and every byte is parsed and validated.
const maxFormBytes = 64 << 10

var errFormTooLarge = apperr.Errorf(apperr.TooLarge,
	"This form is larger than 64 KiB, so it was not saved. Shorten what you entered and try again.")

// maxUploadBytes is the CSV import's cap: a file of up to
// fieldimport.MaxBytes, plus room for the form's other fields and the
// multipart framing.
const maxUploadBytes = fieldimport.MaxBytes + maxFormBytes

// errUploadTooLarge says what fieldimport says of a file too large to read,
// as a 413: here the body is refused before the file is parsed.
var errUploadTooLarge = &apperr.Error{Code: apperr.TooLarge, Reason: fieldimport.ErrTooLarge.Reason, Args: fieldimport.ErrTooLarge.Args}

// bodyCap is a route's own body cap, given where the route is registered
// (routes.go, capBody). Such a route reads its body itself, in a route
// middleware after its access checks (readUpload), so nobody but those it
// admits makes the server buffer that much; readForm and bodyLimit leave it.
type bodyCap struct {
	limit int64
	err   *apperr.Error
}

var uploadCap = bodyCap{limit: maxUploadBytes, err: errUploadTooLarge}

// capBody gives the route r its own body cap.
func (s *Server) capBody(r *echo.Route, bc bodyCap) {
	s.bodyCaps[r.Method+" "+r.Path] = bc
}

// ownCap is the request's route's own body cap, if it has one.
func (s *Server) ownCap(c echo.Context) (bodyCap, bool) {
	bc, ok := s.bodyCaps[c.Request().Method+" "+c.Path()]
	return bc, ok
}

// formLimit is the body cap of the request's route and the error that says so.
func (s *Server) formLimit(c echo.Context) (int64, *apperr.Error) {
	if bc, ok := s.ownCap(c); ok {
		return bc.limit, bc.err
	}
	return maxFormBytes, errFormTooLarge
}

// bodyLimit is echo's 1 MiB cap on any body, except on a route with a cap
// of its own (readUpload enforces it) and the API (which reads its own).
func (s *Server) bodyLimit() echo.MiddlewareFunc {
	return middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
		Limit: "1M",
		Skipper: func(c echo.Context) bool {
			_, own := s.ownCap(c)
			return own || api.Serves(c)
		},
	})
}

// readForm parses the body of every form post here, under maxFormBytes, so
// a body too large is a 413 that says so and a malformed one a 400, rather
// than fields silently read as empty further on (c.FormValue drops parse
// errors). The cap holds while reading (http.MaxBytesReader), whatever
// Content-Length claims. The import upload is the exception: its fieldimport.MaxBytes
// body is read by readUpload, after the route has checked that an admin
// of the org is asking, so nobody else makes the server buffer that much.
func (s *Server) readForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, own := s.ownCap(c); own {
			return next(c)
		}
		if err := s.parseForm(c); err != nil {
			return err
		}
		return next(c)
	}
}

// readUpload reads the body of a route with its own cap (readForm leaves
// it), checking its text as httpkit.CheckText does every other form's. The route
// puts it after its access checks and before checkCSRF, which reads the
// form's token.
func (s *Server) readUpload(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.parseForm(c); err != nil {
			return err
		}
		if err := httpkit.CheckValues(c.Request().PostForm); err != nil {
			return err
		}
		return next(c)
	}
}

// parseForm parses a form post's body under its route's cap (formLimit).
func (s *Server) parseForm(c echo.Context) error {
	r := c.Request()
	if httpkit.SafeMethod(r.Method) || !isForm(r) || api.Serves(c) {
		return nil
	}
	limit, errTooLarge := s.formLimit(c)
	if r.ContentLength > limit {
		return errTooLarge
	}
	r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
	// Files stay in memory up to the cap (never on disk), which the
	// body cap above bounds.
	err := r.ParseMultipartForm(limit)
	if errors.Is(err, http.ErrNotMultipart) {
		err = nil // url-encoded: ParseForm has run
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge), errors.Is(err, multipart.ErrMessageTooLarge):
		return errTooLarge
	case err != nil:
		return apperr.Errorf(apperr.Malformed, "This form could not be read. Reload the page and try again.")
	}
	return nil
}

func isForm(r *http.Request) bool {
	ct := r.Header.Get(echo.HeaderContentType)
	return strings.HasPrefix(ct, echo.MIMEApplicationForm) || strings.HasPrefix(ct, echo.MIMEMultipartForm)
}

// loadSession sets the user, their memberships (for the org switcher and
// requireMember) and, for staff, the org in the URL, when the request
// carries a valid session: one statement (auth.Sessions.Visit), which also
// writes the session's last-seen time once a minute. An invalid or expired
// session is simply anonymous; the access middleware decides what that
// means. Probes, metrics and static files never need the user, so a cookie
// the browser happens to send does not cost them a database round trip
// (nor fail them while the database is down).
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if sessionFree(c) {
			return next(c)
		}
		v, ok, err := s.sessions.Visit(c.Request().Context(), c.Request(), s.now(), c.Param("slug"))
		if err != nil {
			return err
		}
		if ok {
			c.Set(ctxUser, v.User)
			c.Set(ctxMemberships, v.Memberships)
			c.Set(ctxVisit, v)
		}
		return next(c)
	}
}

// noReadTx says which requests get no read transaction (httpkit.Reads):
// probes, metrics and static files, and pages with a transaction of their
// own. The JSON API's reads share one, on the primary.
func noReadTx(c echo.Context) bool {
	return sessionFree(c) && !api.Serves(c) || ownTransactionPages[c.Path()]
}

// ownTransactionPages are GET routes that run a read-write transaction of
// their own (the import preview does the import and rolls it back): their
// reads stay out of the request's read-only transaction, which would
// otherwise hold a second connection while the preview waits for one, a
// wait that never ends behind PgBouncer once every server connection is
// held that way (found by TestRouteMatrixThroughPgBouncer). They read the
// primary.
var ownTransactionPages = map[string]bool{
	"/orgs/:slug/import/:kind/:id": true,
}

// The JSON API is session-free too: a cookie must never authenticate it
// (its bearer token does: internal/api).
func sessionFree(c echo.Context) bool {
	switch c.Request().URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return isStatic(c) || api.Serves(c)
}

// requireUser turns anonymous requests away: 303 to /login for browsers,
// 401 for htmx (errors.go maps the code).
func (s *Server) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, ok := currentUser(c); !ok {
			return apperr.Errorf(apperr.Unauthorized, "Sign in to continue.")
		}
		return next(c)
	}
}

// requireMember resolves the org in the URL through the user's membership.
// An org they do not belong to is 404, exactly like a missing one. Platform
// staff see all orgs: a staff user who is not a member gets read-only
// member access (role member, so requireAdmin still refuses writes).
func (s *Server) requireMember(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		slug := c.Param("slug")
		v, _ := c.Get(ctxVisit).(auth.Visit) // loadSession read the memberships with the session
		m, ok := v.Membership(slug)
		if !ok {
			return apperr.Detailf(apperr.NotFound, "no org %q", slug)
		}
		c.Set(ctxOrg, &orgScope{m: m})
		return next(c)
	}
}

// requireAdmin lets only the org's admins through (403 for members and
// for staff viewing an org they do not belong to).
func (s *Server) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !currentMembership(c).IsAdmin() {
			return apperr.Refuse(apperr.Forbidden, "admins_only", nil)
		}
		return next(c)
	}
}

// requireFieldEditor lets the org's admins and dispatchers through: the
// writes to technicians, jobs and the board, and the CSV imports (403 for
// members and for staff viewing an org they do not belong to). Who may do
// what is tenants.Membership's (docs/accounts.md, "Roles").
func (s *Server) requireFieldEditor(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !currentMembership(c).CanEditField() {
			return apperr.Refuse(apperr.Forbidden, "editors_only", nil)
		}
		return next(c)
	}
}

// requireStaff guards the staff console (403 for everyone else).
func (s *Server) requireStaff(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u, _ := currentUser(c); !u.IsStaff {
			return apperr.Errorf(apperr.Forbidden, "The staff console is for platform staff only.")
		}
		return next(c)
	}
}

// slowRoutes wait for something besides the database: a CSV upload's body
// (up to the server's 30 s ReadTimeout) or a test send's receiver (an SMTP
// server has 30 s). Their request deadline is this instead of
// RequestTimeout; their transactions keep the lock and statement timeouts.
var slowRoutes = map[string]bool{
	"POST /orgs/:slug/import/:kind":                     true,
	"POST /orgs/:slug/settings/fieldforce/test-email":   true,
	"POST /orgs/:slug/settings/fieldforce/test-webhook": true,
}

const slowRouteDeadline = config.SlowWriteDeadline // the API feed's settle time outlasts it (config.LoadWeb)

func (s *Server) longerDeadline(c echo.Context) time.Duration {
	if slowRoutes[c.Request().Method+" "+c.Path()] {
		return slowRouteDeadline
	}
	return 0
}
