package apperr

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Refusals by stable code (docs/i18n.md, "Refusals: one table"). A store
// or domain package says which refusal it is — a reason code and its
// named arguments — and never a sentence: pages (in the reader's
// language), emails and the JSON API (in English) render the code through
// the catalog, by the one table in internal/i18n (i18n.Refusal).

// Args are a refusal's named arguments, the fields of its catalog message
// ({{.Ref}}, {{.Email}}). Numbers stay numbers (the renderer writes them in
// the reader's locale), a time.Duration stays a duration.
type Args map[string]any

// Refuse builds an *Error of code for the refusal reason with its args.
func Refuse(code, reason string, args Args) *Error {
	return &Error{Code: code, Reason: reason, Args: args}
}

// FieldRefusal is an Invalid error about one field: the refusal reason
// with its args, said beside the field.
func FieldRefusal(field, reason string, args Args) *Error {
	return &Error{Code: Invalid, Reason: reason, Args: args,
		Fields: []Field{{Name: field, Code: reason, Args: args}}}
}

// After sets how long e's refusal lasts (a TooMany or Unavailable one): the
// web and the API send it as Retry-After. It returns e.
func (e *Error) After(wait time.Duration) *Error {
	e.RetryAfter = wait
	return e
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

// logWords is a reason with its args for logs: `job_not_found Ref="J-1"`.
func logWords(reason string, args Args) string {
	if len(args) == 0 {
		return reason
	}
	var b strings.Builder
	b.WriteString(reason)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		fmt.Fprintf(&b, " %s=%s", k, logValue(args[k]))
	}
	return b.String()
}

func logValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}
