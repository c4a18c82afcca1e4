// Package apperr is the one application error type. Domain packages return
// it with a code; the web layer maps codes to HTTP statuses in one place
// (internal/web/errors.go).
package apperr

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Codes, independent of any transport.
const (
	Invalid      = "invalid"      // bad input: 422
	Malformed    = "malformed"    // a request nobody's form sends (unreadable, bad text): 400
	NotFound     = "not_found"    // missing, or not yours: 404
	Forbidden    = "forbidden"    // signed in but not allowed: 403
	Unauthorized = "unauthorized" // not signed in: 303 /login or 401
	Conflict     = "conflict"     // state forbids it: 409
	Stale        = "stale"        // saved over a newer version than the one read: 409 (docs/versions.md)
	Precondition = "precondition" // a request's precondition (the API's If-Match) does not hold: 412
	TooLarge     = "too_large"    // the body is over its cap: 413
	Unsupported  = "unsupported"  // a body of a kind not taken: 415
	TooMany      = "too_many"     // throttled: 429
	Unavailable  = "unavailable"  // busy right now, try again: 503
	Internal     = "internal"     // everything else: 500, logged
)

// Error is an error with a code and what to tell people about it.
//
// Message is written for people by construction: whoever builds an Error
// with a message means it to be shown. An Error without one leaves the words
// to its code (the web's words for it), and Detail says what exactly for
// operators and logs (`no org "acme"`), never for a page: a 404 must not say
// whether something exists in another org.
type Error struct {
	Code    string
	Message string
	Detail  string
	Fields  []Field // per-field problems of an Invalid error, in input order
	// RetryAfter is how long a TooMany or Unavailable refusal lasts, when
	// known: the web sends it as Retry-After (internal/web/errors.go), and
	// Message says it in words.
	RetryAfter time.Duration
	// Reason is a stable machine code for which refusal of its Code this
	// is ("last_admin", "job_not_found"; "" for none), and Args its named
	// arguments: pages, emails and the JSON API render them through the
	// catalog (i18n.Refusal, the one table). Stores and domain packages
	// build refusals with Refuse and FieldRefusal, never with a Message.
	Reason string
	Args   Args
}

// Field is one problem with one input: the form field or JSON path it is
// about, its reason code (for example "time_format", "zone_unknown"; ""
// when there is none) with its named arguments, which the catalog renders
// (i18n.Refusal), and, from the packages whose problems are not in the
// catalog's one table yet, a message for people.
type Field struct {
	Name    string
	Code    string
	Args    Args
	Message string
}

// words is f for logs: its message, else its code and arguments.
func (f Field) words() string {
	if f.Message != "" || f.Code == "" {
		return f.Message
	}
	return logWords(f.Code, f.Args)
}

// Error says e for logs and operators: its code, then its message or its
// reason with the arguments (`not_found: job_not_found Ref="J-1"`), then
// its fields'.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Reason != "" && !(len(e.Fields) == 1 && e.Fields[0].Code == e.Reason) {
		msg = logWords(e.Reason, e.Args)
		if e.Detail != "" {
			msg += ": " + e.Detail
		}
	}
	if msg == "" {
		msg = e.Detail
	}
	if len(e.Fields) == 0 {
		return fmt.Sprintf("%s: %s", e.Code, msg)
	}
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.words()
		if f.Name != "" {
			parts[i] = f.Name + ": " + parts[i]
		}
	}
	if msg == "" || len(e.Fields) == 1 && msg == e.Fields[0].Message {
		return fmt.Sprintf("%s: %s", e.Code, strings.Join(parts, "; "))
	}
	return fmt.Sprintf("%s: %s: %s", e.Code, msg, strings.Join(parts, "; "))
}

// For returns the messages about one field, "" when it has none.
func (e *Error) For(name string) string {
	var msgs []string
	for _, f := range e.Fields {
		if f.Name == name {
			msgs = append(msgs, f.Message)
		}
	}
	return strings.Join(msgs, "; ")
}

// Errorf builds an *Error with a formatted message for people.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Detailf builds an *Error whose words for people are its code's, with a
// formatted detail for operators and logs.
func Detailf(code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Throttled is a TooMany error that lasts wait, whose message for people
// says when to try again.
func Throttled(wait time.Duration, format string, args ...any) *Error {
	return &Error{Code: TooMany, Message: fmt.Sprintf(format, args...), RetryAfter: wait}
}

// RetryAfter is how long err's refusal lasts, 0 when it does not say.
func RetryAfter(err error) time.Duration {
	if e, ok := As(err); ok {
		return e.RetryAfter
	}
	return 0
}

// FieldError is an Invalid error about one field, whose message is for people.
func FieldError(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: Invalid, Message: msg, Fields: []Field{{Name: field, Message: msg}}}
}

// As returns the first *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Code returns the code of the first *Error in err's chain, Internal otherwise.
func Code(err error) string {
	if e, ok := As(err); ok {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return Internal
}

// Message returns the message for people, hiding internal details: "" for
// an Error that leaves its words to its code.
func Message(err error) string {
	if e, ok := As(err); ok && e.Code != Internal {
		return e.Message
	}
	return InternalMessage
}

// InternalMessage is what people are told of an internal error.
const InternalMessage = "Something went wrong on our side. It has been logged."

// FieldName is the field an error about one field concerns, "" otherwise.
func (e *Error) FieldName() string {
	if len(e.Fields) == 1 {
		return e.Fields[0].Name
	}
	return ""
}
