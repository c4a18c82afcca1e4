package i18n

import "context"

type ctxKey struct{}

// WithLocalizer is ctx carrying the request's reader (the web's middleware
// puts it there), so code below the handlers reads it with From.
func WithLocalizer(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From is the reader ctx carries, or English.
func From(ctx context.Context) *Localizer {
	if l, ok := ctx.Value(ctxKey{}).(*Localizer); ok && l != nil {
		return l
	}
	return English
}
