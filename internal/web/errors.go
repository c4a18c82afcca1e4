package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/api"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// handleError renders every error that escapes a handler. Not signed in
// sends browsers to /login (303) and htmx requests get a bare 401; the
// JSON API gets JSON, whatever the error (api.WriteError). A refusal (a
// reason code and its arguments) is said in the reader's words by the one
// table (i18n.Refusal, docs/i18n.md "Refusals: one table"); an application
// error of a package not converted yet shows its own English message, or,
// to a reader of another language, the words for its status; any other
// error shows words for its status, and a 500 is logged with its detail.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := httpkit.StatusOf(err)
	httpkit.SetRetryAfter(c, err)
	if status == http.StatusUnauthorized && !isHTMX(c) && !api.Serves(c) {
		_ = c.Redirect(http.StatusSeeOther, loginFor(c.Request()))
		return
	}
	requestID := ""
	if status == http.StatusInternalServerError {
		// The detail (a database's own words, say) goes to the log only; the
		// person gets a plain message and the id that finds the log line.
		requestID = c.Response().Header().Get(echo.HeaderXRequestID)
		s.log.ErrorContext(c.Request().Context(), "request failed",
			"method", c.Request().Method, "path", c.Path(), "request_id", requestID, "error", err)
	}
	if api.Serves(c) {
		api.WriteError(c, err)
		return
	}
	l := localizer(c)
	msg, ok := l.Refusal(err)
	if !ok {
		msg = httpkit.MessageOf(err, inWords(l, status))
		if w, ok := catalogWords(l, status); ok && l.Language() != "en" {
			// Messages of packages not converted yet are English
			// (docs/i18n.md); for these statuses the reader's own words
			// say the same.
			msg = w
		}
	}
	if isHTMX(c) {
		if requestID != "" {
			msg += " " + l.Tf("error.request_id", map[string]any{"ID": requestID})
		}
		if status == http.StatusConflict {
			// htmx swaps 409s (layout.templ: a stale change answers with the
			// latest); this bare message is no fragment, so it replaces nothing.
			c.Response().Header().Set("HX-Reswap", "none")
		}
		_ = c.String(status, msg)
		return
	}
	if err := s.render(c, status, views.ErrorPage(s.page(c, errorTitle(l, status)), status, msg, requestID)); err != nil {
		s.log.Error("render error page", "error", err)
	}
}

// maxNextLen bounds the page a sign-in returns to: a longer address
// (nothing of ours makes one) signs in to the start page instead.
const maxNextLen = 2048

// loginFor is where a signed-out visitor of r goes: the sign-in form,
// which returns them to the page they asked for (a GET's own local path
// and query: a link in an email, a bookmark) once signed in. Other methods
// go to the form alone; their request cannot be made again by a redirect.
func loginFor(r *http.Request) string {
	if r.Method != http.MethodGet {
		return "/login"
	}
	next := r.URL.RequestURI()
	if len(next) > maxNextLen || localPath(next) != next || next == "/" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(next)
}

func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// errorTitle is an error page's heading, in the reader's words.
func errorTitle(l *i18n.Localizer, status int) string {
	switch status {
	case http.StatusNotFound:
		return l.T("error.title.not_found")
	case http.StatusForbidden:
		return l.T("error.title.forbidden")
	case http.StatusMethodNotAllowed:
		return l.T("error.title.method")
	case http.StatusServiceUnavailable:
		return l.T("error.title.busy")
	case http.StatusTooManyRequests:
		return l.T("error.title.too_many")
	case http.StatusConflict:
		return l.T("error.title.conflict")
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		return l.T("error.title.invalid")
	}
	if status >= 500 {
		return l.T("error.title.internal")
	}
	return http.StatusText(status)
}

// catalogWords are the reader's words for a status the catalog has words
// for; ok is false for the others. A 404 never says whether the thing
// exists in someone else's org.
func catalogWords(l *i18n.Localizer, status int) (string, bool) {
	switch status {
	case http.StatusNotFound:
		return l.T("error.text.not_found"), true
	case http.StatusMethodNotAllowed:
		return l.T("error.text.method"), true
	case http.StatusServiceUnavailable:
		return l.T("error.text.busy"), true
	case http.StatusForbidden:
		return l.T("error.text.forbidden"), true
	case http.StatusTooManyRequests:
		return l.T("error.text.too_many"), true
	}
	if status >= 500 {
		return l.T("error.text.internal"), true
	}
	return "", false
}

// inWords is a page's words for a status, for the errors that leave their
// words to it.
func inWords(l *i18n.Localizer, status int) string {
	if w, ok := catalogWords(l, status); ok {
		return w
	}
	return http.StatusText(status) + "."
}
