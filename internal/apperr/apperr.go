// Package apperr is the one application error type. Domain packages return
// it with a code; the web layer maps codes to HTTP statuses in one place.
package apperr

import (
	"errors"
	"fmt"
)

// Codes, independent of any transport.
const (
	Invalid      = "invalid"      // bad input: 422
	NotFound     = "not_found"    // missing, or not yours: 404
	Forbidden    = "forbidden"    // signed in but not allowed: 403
	Unauthorized = "unauthorized" // not signed in: 303 /login or 401
	Conflict     = "conflict"     // state forbids it: 409
	TooMany      = "too_many"     // throttled: 429
	Internal     = "internal"     // everything else: 500, logged
)

// Error is an error with a code, a message safe to show to the user, and
// optionally the form field it concerns.
type Error struct {
	Code    string
	Field   string
	Message string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError is an Invalid error about one form field.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: Invalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Code returns the code of the first *Error in err's chain, Internal otherwise.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return Internal
}

// Message returns the user-facing message, hiding internal details.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side. It has been logged."
}
