package web

import (
	"errors"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

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
	msg = inWords(status, msg)
	if isHTMX(c) {
		if requestID != "" {
			msg += " Request id: " + requestID
		}
		_ = c.String(status, msg)
		return
	}
	if err := s.render(c, status, views.ErrorPage(s.page(c, errorTitle(status)), status, msg, requestID)); err != nil {
		s.log.Error("render error page", "error", err)
	}
}

func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// errorTitle is an error page's heading, in words.
func errorTitle(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Page not found"
	case http.StatusForbidden:
		return "No access"
	case http.StatusMethodNotAllowed:
		return "Not possible here"
	case http.StatusServiceUnavailable:
		return "Busy right now"
	case http.StatusTooManyRequests:
		return "Too many requests"
	case http.StatusConflict:
		return "Not possible right now"
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		return "Not valid"
	}
	if status >= 500 {
		return "Something went wrong"
	}
	return http.StatusText(status)
}

// inWords is the message a person sees for an error page or fragment: the
// error's own message when it is a sentence written for people, else
// words for its status. Internal messages ("no org \"bergmann\"", a Go
// error, echo's "Not Found") never reach the page; a 404 never says
// whether the thing exists in someone else's org.
func inWords(status int, msg string) string {
	switch {
	case status == http.StatusNotFound && !isSentence(msg):
		return "We could not find that page. Check the address, or go back and follow a link from there."
	case status == http.StatusMethodNotAllowed:
		return "This address does not take that kind of request. Go back and use the page's own buttons and links."
	case status == http.StatusServiceUnavailable && !isSentence(msg):
		return "fieldbrief is busy right now. Wait a moment, then try again."
	case status == http.StatusForbidden && !isSentence(msg):
		return "You do not have access to this page."
	case status >= 500 && status != http.StatusServiceUnavailable:
		return msg // already the plain message and the request id (above)
	case !isSentence(msg):
		return http.StatusText(status) + "."
	}
	return msg
}

// isSentence reports whether msg reads as written for people: it starts
// with a capital letter and ends with a full stop (our apperr messages
// for people do; internal ones like "no flag \"x\"" do not).
func isSentence(msg string) bool {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(msg)
	return unicode.IsUpper(r) && strings.ContainsAny(msg[len(msg)-1:], ".!?")
}
