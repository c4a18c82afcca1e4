package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/auth"
	"fieldbrief/views"
)

// An invite link (docs/accounts.md): anyone holding it may open it; the
// token in the path is the authority. The invitee creates an account, or
// signs in to theirs, and is a member.

// inviteShow shows what accepting takes: a name and a password, the
// account's password, or (signed in as the invited address) one button.
func (s *Server) inviteShow(c echo.Context) error {
	token := c.Param("token")
	l, err := s.accounts.InviteByToken(c.Request().Context(), token, s.now())
	if le, ok := linkError(err); ok {
		return s.linkProblem(c, accounts.EmailInvite, le.Reason)
	}
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.InviteAccept(s.invitePage(c, l, token)))
}

func (s *Server) invitePage(c echo.Context, l accounts.InviteLink, token string) views.InvitePage {
	lz := localizer(c)
	p := views.InvitePage{Page: s.page(c, lz.Tf("invite.title", map[string]any{"Org": l.OrgName})), Action: "/invites/" + token, OrgName: l.OrgName,
		Email: l.Email, Role: string(l.Role), HasAccount: l.HasAccount}
	if u, ok := currentUser(c); ok {
		p.SignedInAs = u.Email
		if !strings.EqualFold(u.Email, l.Email) {
			p.Error = lz.Tf("members.err.invite_other_account", map[string]any{"Email": l.Email, "Current": u.Email})
		}
	}
	return p
}

// inviteAccept accepts the invite and signs the invitee in, then takes
// them to the org.
func (s *Server) inviteAccept(c echo.Context) error {
	ctx, now, token := c.Request().Context(), s.now(), c.Param("token")
	l, err := s.accounts.InviteByToken(ctx, token, now)
	if le, ok := linkError(err); ok {
		return s.linkProblem(c, accounts.EmailInvite, le.Reason)
	}
	if err != nil {
		return err
	}
	p, lz := s.invitePage(c, l, token), localizer(c)
	render := func(status int) error { return s.render(c, status, views.InviteAccept(p)) }
	done := func(u accounts.User, signIn bool) error {
		if signIn {
			if err := s.signIn(c, u); err != nil {
				return err
			}
		}
		return redirect(c, briefingsURL(l.OrgSlug))
	}

	if u, ok := currentUser(c); ok {
		err := s.accounts.AcceptInvite(ctx, token, u, now)
		if apperr.Code(err) == apperr.Forbidden {
			return render(http.StatusForbidden)
		}
		if le, ok := linkError(err); ok {
			return s.linkProblem(c, accounts.EmailInvite, le.Reason)
		}
		if err != nil {
			return err
		}
		return done(u, false)
	}

	password := c.FormValue("password")
	if l.HasAccount && password == "" {
		p.PassError = lz.T("signin.password_missing")
		return render(http.StatusUnprocessableEntity)
	}
	release, err := s.hashSlot(c)
	if err != nil {
		return err
	}
	defer release()

	if l.HasAccount {
		// Signing in here is a sign-in like /login's: throttled alike.
		attempt, err := s.throttle.Admit(ctx, l.Email, clientNetwork(c.RealIP()), now)
		if throttled, ok := errors.AsType[*auth.Throttled](err); ok {
			c.Response().Header().Set("Retry-After", itoa(throttled.Seconds()))
			p.Error = throttledMessage(lz, throttled)
			return render(http.StatusTooManyRequests)
		}
		if err != nil {
			return err
		}
		u, err := s.accounts.Authenticate(ctx, l.Email, password)
		if apperr.Code(err) == apperr.Unauthorized {
			p.PassError = lz.Tf("invite.wrong_password", map[string]any{"Email": l.Email})
			return render(http.StatusUnprocessableEntity)
		}
		if err != nil {
			return err
		}
		if err := s.throttle.Succeeded(ctx, attempt); err != nil {
			return err
		}
		if err := s.accounts.AcceptInvite(ctx, token, u, now); err != nil {
			if le, ok := linkError(err); ok {
				return s.linkProblem(c, accounts.EmailInvite, le.Reason)
			}
			return err
		}
		return done(u, true)
	}

	p.Name = c.FormValue("name")
	u, err := s.accounts.AcceptInviteNewAccount(ctx, token, p.Name, password, now)
	switch field := fieldOf(err); {
	case field == "name":
		p.NameError = lz.Message(err)
		return render(http.StatusUnprocessableEntity)
	case field == "password":
		p.PassError = lz.Message(err)
		return render(http.StatusUnprocessableEntity)
	case apperr.Code(err) == apperr.Conflict:
		p.Error, p.HasAccount = lz.Message(err), true
		return render(http.StatusConflict)
	}
	if le, ok := linkError(err); ok {
		return s.linkProblem(c, accounts.EmailInvite, le.Reason)
	}
	if err != nil {
		return err
	}
	return done(u, true)
}

// linkProblem is the page of an invite or reset link that does not work:
// 410, with what happened in the reader's words and the way on.
func (s *Server) linkProblem(c echo.Context, what, reason string) error {
	l := localizer(c)
	p := views.LinkProblemPage{Next: "/", NextText: l.T("link.start")}
	if what == accounts.EmailInvite {
		p.Heading = l.T("link.invite_heading")
		switch reason {
		case accounts.LinkExpired:
			p.Message = l.T("link.invite_expired")
		case accounts.LinkUsed:
			p.Message = l.T("link.invite_used")
			p.Next, p.NextText = "/login", l.T("signin.submit")
		case accounts.LinkRevoked:
			p.Message = l.T("link.invite_revoked")
		default:
			p.Message = l.T("link.invite_invalid")
		}
	} else {
		p.Heading = l.T("link.reset_heading")
		p.Next, p.NextText = "/password/forgot", l.T("link.new_link")
		switch reason {
		case accounts.LinkExpired:
			p.Message = l.T("link.reset_expired")
		case accounts.LinkUsed:
			p.Message = l.T("link.reset_used")
		default:
			p.Message = l.T("link.reset_invalid")
		}
	}
	p.Page = s.page(c, p.Heading)
	return s.render(c, http.StatusGone, views.LinkProblem(p))
}
