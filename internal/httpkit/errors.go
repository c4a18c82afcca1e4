package httpkit

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
)

// StatusOf is the one mapping from errors to HTTP statuses: an
// application error by its code; echo's own errors (no such route, wrong
// method, body over echo's cap) by theirs; anything else is a 500.
func StatusOf(err error) int {
	if e, ok := apperr.As(err); ok {
		switch e.Code {
		case apperr.Invalid:
			return http.StatusUnprocessableEntity
		case apperr.Malformed:
			return http.StatusBadRequest
		case apperr.NotFound:
			return http.StatusNotFound
		case apperr.Forbidden:
			return http.StatusForbidden
		case apperr.Unauthorized:
			return http.StatusUnauthorized
		case apperr.Conflict, apperr.Stale:
			return http.StatusConflict
		case apperr.Precondition:
			return http.StatusPreconditionFailed
		case apperr.TooLarge:
			return http.StatusRequestEntityTooLarge
		case apperr.Unsupported:
			return http.StatusUnsupportedMediaType
		case apperr.TooMany:
			return http.StatusTooManyRequests
		case apperr.Unavailable:
			return http.StatusServiceUnavailable
		}
		return http.StatusInternalServerError
	}
	if he, ok := errors.AsType[*echo.HTTPError](err); ok {
		return he.Code
	}
	return http.StatusInternalServerError
}

// SetRetryAfter sends Retry-After, in whole seconds rounded up, for a
// refusal that says how long it lasts (apperr.Error.RetryAfter).
func SetRetryAfter(c echo.Context, err error) {
	if d := apperr.RetryAfter(err); d > 0 {
		c.Response().Header().Set("Retry-After", strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10))
	}
}

// MessageOf is what a person is told of err: an application error's own
// message, else (an error that leaves its words to its code, echo's own,
// an internal one) fallback.
func MessageOf(err error, fallback string) string {
	if e, ok := apperr.As(err); ok && e.Code != apperr.Internal && e.Message != "" {
		return e.Message
	}
	if StatusOf(err) == http.StatusInternalServerError {
		return apperr.InternalMessage
	}
	return fallback
}
