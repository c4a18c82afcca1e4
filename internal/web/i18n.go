package web

import (
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/auth"
	"fieldbrief/internal/i18n"
)

// ctxI18n is the request's *i18n.Localizer, set by localize.
const ctxI18n = "fieldbrief.i18n"

// localize chooses the request's reader (docs/i18n.md, "Resolution") once
// the session is loaded, and puts it in the echo context and the request's
// context: the signed-in user's own language, else the locale of the org
// in the URL when they are its member (a slug they do not belong to tells
// nothing, not even its locale), else, on org-less pages, the locale their
// orgs share, else the browser's Accept-Language. The formats locale takes
// the org's region.
func (s *Server) localize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if sessionFree(c) {
			return next(c)
		}
		l := resolveReader(c)
		c.Set(ctxI18n, l)
		r := c.Request()
		c.SetRequest(r.WithContext(i18n.WithLocalizer(r.Context(), l)))
		defer c.SetRequest(r)
		h := c.Response().Header()
		h.Set("Content-Language", l.Lang())
		if _, ok := currentUser(c); !ok {
			h.Add("Vary", "Accept-Language")
		}
		return next(c)
	}
}

func resolveReader(c echo.Context) *i18n.Localizer {
	accept := c.Request().Header.Get("Accept-Language")
	v, ok := c.Get(ctxVisit).(auth.Visit)
	if !ok {
		return i18n.Resolve("", "", accept)
	}
	orgLocale := ""
	if slug := c.Param("slug"); slug != "" {
		if m, ok := v.Membership(slug); ok {
			orgLocale = m.Org.Locale
		}
	} else {
		orgLocale = sharedLocale(v)
	}
	return i18n.Resolve(v.User.Language, orgLocale, accept)
}

// sharedLocale is the locale every org of the user has, "" when they have
// none or their orgs differ (no org is "the" org of an org-less page).
func sharedLocale(v auth.Visit) string {
	shared := ""
	for i, m := range v.Memberships {
		if i > 0 && m.Org.Locale != shared {
			return ""
		}
		shared = m.Org.Locale
	}
	return shared
}

// localizer is the request's reader: localize's choice, or, for a request
// that failed before it ran (admission, body limits), the browser's.
func localizer(c echo.Context) *i18n.Localizer {
	if l, ok := c.Get(ctxI18n).(*i18n.Localizer); ok {
		return l
	}
	return resolveReader(c)
}
