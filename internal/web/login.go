package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/auth"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/text"
	"fieldbrief/views"
)

// accountEmailProblem checks an address typed to find an account
// (sign-in, password reset) before it costs a query or a throttle entry:
// present, at most text.MaxAddressLen and with an @, as every account's
// has. Not the whole text.ParseAddress rule: accounts made before that rule
// must still be able to sign in. In the reader's language l.
func accountEmailProblem(l *i18n.Localizer, email string) string {
	switch {
	case email == "":
		return l.T("signin.email_missing")
	case len(email) > text.MaxAddressLen || !strings.Contains(email, "@"):
		return l.Tf("signin.email_invalid", map[string]any{"Max": text.MaxAddressLen})
	}
	return ""
}

// throttledMessage is what the sign-in form says of a throttled attempt,
// in the reader's language.
func throttledMessage(l *i18n.Localizer, t *auth.Throttled) string {
	if t.PerClient {
		return l.Tn("signin.throttled_network", t.Seconds(), nil)
	}
	return l.Tn("signin.throttled_account", t.Seconds(), nil)
}

// loginForm shows the sign-in form; someone already signed in goes on.
func (s *Server) loginForm(c echo.Context) error {
	next := c.QueryParam("next")
	if _, ok := currentUser(c); ok {
		return c.Redirect(http.StatusSeeOther, localPath(next))
	}
	return s.renderLogin(c, http.StatusOK, views.LoginForm{Next: next, Notice: pageNotice(c)})
}

// login takes a hashing slot, passes the throttle, checks the password,
// then starts a new session and sends the browser to `next` (a local path)
// or /.
//
// Statuses: missing fields and wrong credentials re-render the form with
// 422 (one generic message, so it does not tell which part was wrong);
// throttled attempts get 429 and the password is not even checked; when
// too many passwords are being hashed already, 503 with Retry-After.
func (s *Server) login(c echo.Context) error {
	f := views.LoginForm{Email: strings.TrimSpace(c.FormValue("email")), Next: c.FormValue("next")}
	password := c.FormValue("password")
	l := localizer(c)
	f.EmailError = accountEmailProblem(l, f.Email)
	if password == "" {
		f.PasswordError = l.T("signin.password_missing")
	}
	if f.EmailError != "" || f.PasswordError != "" {
		return s.renderLogin(c, http.StatusUnprocessableEntity, f)
	}

	ctx, now, ip := c.Request().Context(), s.now(), c.RealIP() // see httpkit.IPExtractor
	// A hashing slot first: when the server is saturated, turning the
	// request away costs neither a query nor a hash.
	release, err := s.hashes.Acquire(ctx)
	if errors.Is(err, auth.ErrBusy) {
		c.Response().Header().Set("Retry-After", "1")
		f.Error = l.T("signin.busy")
		return s.renderLogin(c, http.StatusServiceUnavailable, f)
	}
	if err != nil {
		return err
	}
	defer release()
	attempt, err := s.throttle.Admit(ctx, f.Email, clientNetwork(ip), now)
	if throttled, ok := errors.AsType[*auth.Throttled](err); ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(throttled.Seconds()))
		f.Error = throttledMessage(l, throttled)
		return s.renderLogin(c, http.StatusTooManyRequests, f)
	}
	if err != nil {
		return err
	}
	u, err := s.accounts.Authenticate(ctx, f.Email, password)
	if apperr.Code(err) == apperr.Unauthorized {
		f.Error = l.T("signin.wrong")
		return s.renderLogin(c, http.StatusUnprocessableEntity, f)
	}
	if err != nil {
		return err
	}
	if err := s.throttle.Succeeded(ctx, attempt); err != nil {
		return err
	}
	if err := s.signIn(c, u); err != nil {
		return err
	}
	return redirect(c, localPath(f.Next))
}

func (s *Server) renderLogin(c echo.Context, status int, f views.LoginForm) error {
	return s.render(c, status, views.Login(s.page(c, localizer(c).T("signin.title")), f))
}

// localPath returns next when it is a path on this site, else "/": no
// scheme, no host, no "//" or backslash tricks that browsers read as
// another host, no control characters.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\") || strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}
