package httpkit

import (
	"crypto/rand"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"fieldbrief/internal/apperr"
)

// CSRF cookie names; __Host- when cookies are Secure (see auth.CookieName).
const (
	CSRFCookie       = "_csrf"
	CSRFCookieSecure = "__Host-csrf"
	CSRFHeader       = "X-CSRF-Token"
)

// CSRF protects state-changing requests with echo's token middleware.
type CSRF struct {
	Secure     bool   // Secure cookies with the __Host- prefix (HTTPS)
	ContextKey string // where the request's token is kept for the pages' forms
	// Skip says which requests carry no cookies to forge (the bearer-token API).
	Skip func(echo.Context) bool
}

// Middleware returns the two halves of CSRF protection, both on echo's token
// middleware (form field _csrf or header X-CSRF-Token, equal to the _csrf
// cookie):
//
//   - issue runs on every request: on safe methods it sets the token cookie
//     and puts the token in the context for the layout's forms and
//     hx-headers.
//   - check goes last on every state-changing route, after the route's
//     access checks, so "not signed in", "not a member" and "not allowed"
//     answer the same whether a token came along or not; then no
//     valid token, no write.
//
// echo v4.16 lets a request with Sec-Fetch-Site same-origin or none through
// without any token and then exposes a dummy token to templates. We want
// the token always, so check rejects cross-site and same-site writes
// outright, and both remove Sec-Fetch-Site before echo sees it, which puts
// every request on echo's token path.
//
// echo's form lookup reads r.Form, which also holds the query string; a
// token in a URL leaks through logs, history and Referer, so check keeps
// only the body's _csrf there.
func (k CSRF) Middleware() (issue, check echo.MiddlewareFunc) {
	token := middleware.CSRFWithConfig(middleware.CSRFConfig{
		TokenLookup:    "header:" + CSRFHeader + ",form:_csrf",
		ContextKey:     k.ContextKey,
		CookieName:     k.CookieName(),
		CookiePath:     "/",
		CookieMaxAge:   csrfCookieMaxAge,
		CookieSecure:   k.Secure,
		CookieHTTPOnly: true,
		CookieSameSite: http.SameSiteLaxMode,
		ErrorHandler: func(error, echo.Context) error {
			return ErrCSRF
		},
	})
	issue = func(next echo.HandlerFunc) echo.HandlerFunc {
		issued := token(next)
		return func(c echo.Context) error {
			r := c.Request()
			if k.Skip(c) {
				return next(c) // bearer tokens, no cookies: nothing to forge
			}
			if !SafeMethod(r.Method) {
				// check verifies the token and sets it; until then (say, on
				// the error page of a refused write) pages show the browser's
				// own cookie, as echo does on every GET.
				if ck, err := c.Cookie(k.CookieName()); err == nil {
					c.Set(k.ContextKey, ck.Value)
				}
				return next(c)
			}
			r.Header.Del("Sec-Fetch-Site")
			return issued(c)
		}
	}
	check = func(next echo.HandlerFunc) echo.HandlerFunc {
		checked := token(next)
		return func(c echo.Context) error {
			r := c.Request()
			if SafeMethod(r.Method) {
				return next(c)
			}
			switch r.Header.Get("Sec-Fetch-Site") {
			case "cross-site", "same-site":
				return ErrCSRF
			}
			r.Header.Del("Sec-Fetch-Site")
			if r.Form == nil {
				_ = r.ParseMultipartForm(32 << 20) // as echo's form lookup would
			}
			if body := r.PostForm["_csrf"]; len(body) > 0 {
				r.Form["_csrf"] = body
			} else {
				delete(r.Form, "_csrf")
			}
			return checked(c)
		}
	}
	return issue, check
}

// csrfCookieMaxAge is echo's default lifetime of the token cookie.
const csrfCookieMaxAge = 86400

// CookieName is the token cookie's name.
func (k CSRF) CookieName() string {
	if k.Secure {
		return CSRFCookieSecure
	}
	return CSRFCookie
}

// Rotate replaces the request's CSRF token with a new one, at sign-in
// and sign-out, so a token planted or read before the change of identity
// is worthless after it. It drops the cookie echo set earlier in this
// response, so the browser gets exactly one token.
func (k CSRF) Rotate(c echo.Context) {
	token := rand.Text()
	name := k.CookieName()
	h := c.Response().Header()
	h["Set-Cookie"] = slices.DeleteFunc(h["Set-Cookie"], func(v string) bool { return strings.HasPrefix(v, name+"=") })
	c.SetCookie(&http.Cookie{
		Name: name, Value: token, Path: "/", MaxAge: csrfCookieMaxAge,
		Secure: k.Secure, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
	c.Set(k.ContextKey, token)
}

// ErrCSRF refuses a write without a valid token.
var ErrCSRF = apperr.Errorf(apperr.Forbidden,
	"This form has expired or did not come from this site. Reload the page and try again.")

// SafeMethod reports whether a request of method m changes nothing.
func SafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions || m == http.MethodTrace
}
