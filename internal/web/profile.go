package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/auth"
	"fieldbrief/views"
)

// The profile page: the signed-in person's name and password.

func (s *Server) profile(c echo.Context) error {
	return s.showProfile(c, http.StatusOK, views.ProfilePage{Notice: pageNotice(c)}, false)
}

// showProfile renders the page; typed keeps the name as typed (a refused
// save) instead of the stored one.
func (s *Server) showProfile(c echo.Context, status int, p views.ProfilePage, typed bool) error {
	u, _ := currentUser(c)
	pr, err := s.accounts.ProfileOf(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	p.Page = s.page(c, localizer(c).T("profile.title"))
	p.Section = "profile"
	p.Email = pr.Email
	if !typed {
		p.Name = pr.Name
	}
	if p.LanguageError == "" {
		p.Language = pr.Language
	}
	p.Languages = languageOptions()
	return s.render(c, status, views.Profile(p))
}

func (s *Server) profileSave(c echo.Context) error {
	name := c.FormValue("name")
	_, err := s.accounts.SetName(c.Request().Context(), actor(c), name)
	if fieldOf(err) != "" {
		return s.showProfile(c, http.StatusUnprocessableEntity, views.ProfilePage{Name: name, NameError: localizer(c).Message(err)}, true)
	}
	if err != nil {
		return err
	}
	return redirect(c, "/profile?notice=name-saved")
}

// profileLanguage sets the user's own language ("" for the org's),
// audited; another value than the select offers is a 422 beside the field,
// nothing saved. The next page is in the new language.
func (s *Server) profileLanguage(c echo.Context) error {
	lang := c.FormValue("language")
	_, err := s.accounts.SetLanguage(c.Request().Context(), actor(c), lang)
	if fieldOf(err) != "" {
		return s.showProfile(c, http.StatusUnprocessableEntity, views.ProfilePage{Language: lang,
			LanguageError: localizer(c).T("profile.language_invalid")}, false)
	}
	if err != nil {
		return err
	}
	return redirect(c, "/profile?notice=language-saved")
}

// profilePassword changes the password: the current one is checked under
// the sign-in throttle (a stolen session must not become a way to guess
// it), every session ends, and this browser is signed in again.
func (s *Server) profilePassword(c echo.Context) error {
	ctx, now := c.Request().Context(), s.now()
	u, _ := currentUser(c)
	current, next := c.FormValue("current_password"), c.FormValue("new_password")
	var p views.ProfilePage
	l := localizer(c)
	switch {
	case current == "":
		p.CurrentError = l.T("profile.current_missing")
	case next == "" || len(next) > accounts.MaxPasswordLen:
		p.NewError = l.T("profile.new_missing")
	default:
		// The rule first, so a weak new password costs no hashing slot and
		// no sign-in attempt; ChangePassword checks it again with the name.
		if err := accounts.CheckNewPassword(next, u.Email); err != nil {
			p.NewError = l.Message(err)
		}
	}
	if p.CurrentError != "" || p.NewError != "" {
		return s.showProfile(c, http.StatusUnprocessableEntity, p, false)
	}
	release, err := s.hashSlot(c)
	if err != nil {
		return err
	}
	defer release()
	attempt, err := s.throttle.Admit(ctx, u.Email, clientNetwork(c.RealIP()), now)
	if throttled, ok := errors.AsType[*auth.Throttled](err); ok {
		c.Response().Header().Set("Retry-After", itoa(throttled.Seconds()))
		p.Error = throttledMessage(l, throttled)
		return s.showProfile(c, http.StatusTooManyRequests, p, false)
	}
	if err != nil {
		return err
	}
	err = s.accounts.ChangePassword(ctx, actor(c), current, next)
	switch fieldOf(err) {
	case "current_password":
		p.CurrentError = l.Message(err)
		return s.showProfile(c, http.StatusUnprocessableEntity, p, false)
	case "new_password":
		p.NewError = l.Message(err)
		return s.showProfile(c, http.StatusUnprocessableEntity, p, false)
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
	return redirect(c, "/profile?notice=password-changed")
}
