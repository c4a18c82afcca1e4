package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/auth"
	"fieldbrief/views"
)

// Password reset by email (docs/accounts.md). The request answers the same
// whether or not the address has an account; the link works once, for 30
// minutes, and setting the password signs the account out everywhere.

// resetThrottle bounds reset requests per address and client, with the
// sign-in throttle's counting (auth.Throttle); its entries are keyed
// "reset:<email>", apart from sign-in failures of the same address. The
// store also caps mails per account an hour, whoever asks
// (accounts.MaxResetsPerHour).
func (s *Server) resetThrottle() *auth.Throttle {
	return &auth.Throttle{DB: s.db, PerAccount: 3, PerClient: 20}
}

func (s *Server) forgotForm(c echo.Context) error {
	return s.render(c, http.StatusOK, views.Forgot(views.ForgotPage{Page: s.page(c, localizer(c).T("forgot.title"))}))
}

// forgot queues a reset link for the address, when it has an account.
func (s *Server) forgot(c echo.Context) error {
	l := localizer(c)
	p := views.ForgotPage{Page: s.page(c, l.T("forgot.title")), Email: strings.TrimSpace(c.FormValue("email"))}
	if p.EmailError = accountEmailProblem(l, p.Email); p.EmailError != "" {
		return s.render(c, http.StatusUnprocessableEntity, views.Forgot(p))
	}
	ctx, now, ip := c.Request().Context(), s.now(), c.RealIP()
	_, err := s.resetThrottle().Admit(ctx, "reset:"+p.Email, clientNetwork(ip), now)
	if throttled, ok := errors.AsType[*auth.Throttled](err); ok {
		c.Response().Header().Set("Retry-After", itoa(throttled.Seconds()))
		p.Error = l.Tn("forgot.throttled", throttled.Seconds(), map[string]any{"Count": l.Locale().Number(throttled.Seconds())})
		return s.render(c, http.StatusTooManyRequests, views.Forgot(p))
	}
	if err != nil {
		return err
	}
	err = s.accounts.RequestPasswordReset(ctx, p.Email, ip, now)
	if errors.Is(err, accounts.ErrAccountMailOff) { // the same for every address: it says nothing about accounts
		p.Error = l.Message(err)
		return s.render(c, http.StatusServiceUnavailable, views.Forgot(p))
	}
	if err != nil {
		return err
	}
	p.Sent = true
	return s.render(c, http.StatusOK, views.Forgot(p))
}

func (s *Server) resetForm(c echo.Context) error {
	token := c.Param("token")
	u, err := s.accounts.CheckResetToken(c.Request().Context(), token, s.now())
	if le, ok := linkError(err); ok {
		return s.linkProblem(c, accounts.EmailReset, le.Reason)
	}
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.Reset(s.resetPage(c, token, u)))
}

func (s *Server) resetPage(c echo.Context, token string, u accounts.User) views.ResetPage {
	return views.ResetPage{Page: s.page(c, localizer(c).T("reset.title")), Action: "/password/reset/" + token, Email: u.Email}
}

// reset sets the new password; every session of the account ends, this
// browser's included, and the person signs in with the new password.
func (s *Server) reset(c echo.Context) error {
	ctx, now, token := c.Request().Context(), s.now(), c.Param("token")
	password := c.FormValue("password")
	if password == "" || len(password) > accounts.MaxPasswordLen {
		u, err := s.accounts.CheckResetToken(ctx, token, now)
		if le, ok := linkError(err); ok {
			return s.linkProblem(c, accounts.EmailReset, le.Reason)
		}
		if err != nil {
			return err
		}
		p := s.resetPage(c, token, u)
		l := localizer(c)
		p.PassError = l.Tf("reset.password_choose", map[string]any{"Max": l.Locale().Number(accounts.MaxPasswordLen)})
		return s.render(c, http.StatusUnprocessableEntity, views.Reset(p))
	}
	release, err := s.hashSlot(c)
	if err != nil {
		return err
	}
	defer release()
	_, err = s.accounts.ResetPassword(ctx, token, password, now)
	if le, ok := linkError(err); ok {
		return s.linkProblem(c, accounts.EmailReset, le.Reason)
	}
	if fieldOf(err) == "password" {
		// Too short or too easy to guess (accounts.CheckNewPassword): the
		// page again, unless the link stopped working meanwhile.
		u, lerr := s.accounts.CheckResetToken(ctx, token, now)
		if le, ok := linkError(lerr); ok {
			return s.linkProblem(c, accounts.EmailReset, le.Reason)
		}
		if lerr != nil {
			return lerr
		}
		p := s.resetPage(c, token, u)
		p.PassError = localizer(c).Message(err)
		return s.render(c, http.StatusUnprocessableEntity, views.Reset(p))
	}
	if err != nil {
		return err
	}
	if err := s.sessions.End(ctx, c.Response(), c.Request(), now); err != nil {
		return err
	}
	s.csrf.Rotate(c)
	return redirect(c, "/login?notice=password-reset")
}

func itoa(n int) string { return strconv.Itoa(n) }
