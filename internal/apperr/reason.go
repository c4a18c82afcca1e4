package apperr

import "fmt"

// Stable codes for messages that a page says in its reader's language
// (docs/i18n.md): a refusal's Reason, a field problem's Field.Code. The
// lower packages keep writing their English Message; the web maps the
// code to a catalog message in one place (internal/web/errors.go).

// Reasonf builds an *Error with a reason code and a formatted message for
// people.
func Reasonf(code, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// FieldCodef is FieldError with the problem's machine code.
func FieldCodef(field, code, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: Invalid, Message: msg, Fields: []Field{{Name: field, Code: code, Message: msg}}}
}

// ReasonOf is err's reason code: its Reason, else the code of its one
// field problem; "" when it has none.
func ReasonOf(err error) string {
	e, ok := As(err)
	if !ok {
		return ""
	}
	if e.Reason != "" {
		return e.Reason
	}
	if len(e.Fields) == 1 {
		return e.Fields[0].Code
	}
	return ""
}
