package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/schedule"
	"fieldbrief/views"
)

// statusOf is the one mapping from application error codes to HTTP.
func statusOf(err error) int {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return he.Code
	}
	var ve *schedule.ValidationError
	if errors.As(err, &ve) {
		return http.StatusUnprocessableEntity
	}
	switch apperr.Code(err) {
	case apperr.Invalid:
		return http.StatusUnprocessableEntity
	case apperr.NotFound:
		return http.StatusNotFound
	case apperr.Forbidden:
		return http.StatusForbidden
	case apperr.Unauthorized:
		return http.StatusUnauthorized
	case apperr.Conflict:
		return http.StatusConflict
	case apperr.TooMany:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// handleError renders every error that escapes a handler. Not signed in
// sends browsers to /login (303) and htmx requests get a bare 401; the
// JSON API gets JSON, whatever the error (api.go); only internal errors are
// logged with their detail.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := statusOf(err)
	if status == http.StatusUnauthorized && !isHTMX(c) && !isAPI(c) {
		_ = c.Redirect(http.StatusSeeOther, "/login")
		return
	}
	msg, requestID := apperr.Message(err), ""
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg = http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && (he.Code < 500 || overloaded(err)) {
			msg = m
		}
	}
	if status >= 500 && !overloaded(err) { // a shed request is no failure (overload.go)
		// The detail (a database's own words, say) goes to the log only; the
		// person gets a plain message and the id that finds the log line.
		requestID = c.Response().Header().Get(echo.HeaderXRequestID)
		s.log.ErrorContext(c.Request().Context(), "request failed",
			"method", c.Request().Method, "path", c.Path(), "request_id", requestID, "error", err)
		msg = apperr.Message(errors.New("internal"))
	}
	if isAPI(c) {
		writeAPIError(c, err, status, msg)
		return
	}
	if isHTMX(c) {
		if requestID != "" {
			msg += " Request id: " + requestID
		}
		_ = c.String(status, msg)
		return
	}
	if err := s.render(c, status, views.ErrorPage(s.page(c, http.StatusText(status)), status, msg, requestID)); err != nil {
		s.log.Error("render error page", "error", err)
	}
}

func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }
