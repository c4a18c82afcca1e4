package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// The members page (docs/accounts.md): everyone in the org reads it;
// admins invite, change roles, remove people and resend or revoke
// invites. Every change redirects back here with a notice; a refused one
// re-renders the page with its message.

func membersURL(slug string) string { return "/orgs/" + slug + "/members" }

// accountNotices are the messages the accounts pages show after a
// redirect (see notices in notices.go).
var accountNotices = map[string]string{
	"invited":          "Invite sent. The link in it works once, for 7 days.",
	"resent":           "Invite sent again. The earlier link no longer works.",
	"revoked":          "Invite revoked: its link no longer works.",
	"role-changed":     "Role changed.",
	"removed":          "Removed from the org, and signed out everywhere.",
	"name-saved":       "Name saved.",
	"password-changed": "Password changed. You are signed out on every other device.",
	"password-reset":   "Your new password is set, and you are signed out everywhere. Sign in with it.",
}

// accountNoticeIDs are the catalog ids of accountNotices (localNotice).
var accountNoticeIDs = map[string]string{
	"invited":      "members.notice.invited",
	"resent":       "members.notice.resent",
	"revoked":      "members.notice.revoked",
	"role-changed": "members.notice.role_changed",
	"removed":      "members.notice.removed",
}

func (s *Server) members(c echo.Context) error {
	return s.showMembers(c, http.StatusOK, views.MembersPage{Notice: pageNotice(c)})
}

func (s *Server) showMembers(c echo.Context, status int, p views.MembersPage) error {
	return s.showMembersKeeping(c, status, p, 0, "")
}

// showMembersKeeping is showMembers with the role chosen for one member
// kept in their row's select (a refused, stale change; 0 for none).
func (s *Server) showMembersKeeping(c echo.Context, status int, p views.MembersPage, userID int64, chosen string) error {
	ctx, m := c.Request().Context(), currentMembership(c)
	people, err := s.tenants.Members(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	p.CanManage = m.IsAdmin()
	var invites []accounts.Invite
	if p.CanManage {
		if invites, err = s.accounts.OpenInvites(ctx, m.Org.ID); err != nil {
			return err
		}
	}
	l := localizer(c)
	lc := l.Locale()
	st, err := s.orgState(ctx, m.Org.ID) // times in the org's zone (docs/i18n.md, "The briefing page, members and account pages")
	if err != nil {
		return err
	}
	loc := st.loc()
	p.Page = s.page(c, l.T("nav.members"))
	p.Section = "members"
	p.Base = "/orgs/" + m.Org.Slug
	u, _ := currentUser(c)
	p.SelfID = u.ID
	for _, x := range people {
		row := views.MemberRow{UserID: x.UserID, Name: x.Name, Email: x.Email, Role: string(x.Role), Version: x.Version}
		if x.UserID == userID {
			row.Chosen = chosen
		}
		if x.LastSignInAt != nil {
			row.LastSignIn, row.LastSignInText = *x.LastSignInAt, readerStamp(lc, *x.LastSignInAt, loc)
		}
		p.Members = append(p.Members, row)
	}
	now := s.now()
	for _, i := range invites {
		p.Invites = append(p.Invites, views.InviteRow{ID: i.ID, Email: i.Email, Role: string(i.Role), InvitedBy: i.InvitedBy,
			SentAt: i.LastSentAt, ExpiresAt: i.ExpiresAt, Expired: i.Expired(now),
			SentText: readerStamp(lc, i.LastSentAt, loc), ExpiresText: readerStamp(lc, i.ExpiresAt, loc)})
	}
	return s.render(c, status, views.Members(p))
}

// memberInvite invites an address with a role; its email goes out as a
// River job inserted with the invite.
func (s *Server) memberInvite(c echo.Context) error {
	f := views.InviteForm{Email: strings.TrimSpace(c.FormValue("email")), Role: c.FormValue("role")}
	m, l := currentMembership(c), localizer(c)
	_, err := s.accounts.CreateInvite(c.Request().Context(), actor(c), m.Org.ID, f.Email, tenants.Role(f.Role), s.now())
	switch {
	case fieldOf(err) == "role":
		f.RoleError = l.T("members.role_choose")
		return s.showMembers(c, http.StatusUnprocessableEntity, views.MembersPage{Invite: f})
	case fieldOf(err) != "":
		f.EmailError = l.Message(err)
		return s.showMembers(c, http.StatusUnprocessableEntity, views.MembersPage{Invite: f})
	case apperr.Code(err) == apperr.TooMany, apperr.Code(err) == apperr.Unavailable: // Unavailable: accounts.ErrAccountMailOff
		return s.showMembers(c, httpkit.StatusOf(err), views.MembersPage{Invite: f, Error: l.Message(err)})
	case err != nil:
		return err
	}
	return redirect(c, membersURL(m.Org.Slug)+"?notice=invited")
}

// pathID reads a numeric id from the path; anything else is NotFound,
// like an id of another org.
func pathID(c echo.Context, name, what string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "There is no such %s in this org.", what)
	}
	return id, nil
}

// refused re-renders the members page with a change's refusal (the last
// admin, a resend too soon), or passes any other error on.
func (s *Server) refused(c echo.Context, err error) error {
	switch apperr.Code(err) {
	case apperr.Conflict, apperr.TooMany, apperr.Invalid, apperr.Unavailable:
		return s.showMembers(c, httpkit.StatusOf(err), views.MembersPage{Error: localizer(c).Message(err)})
	}
	return err
}

func (s *Server) memberSetRole(c echo.Context) error {
	id, err := pathID(c, "user", "member")
	if err != nil {
		return err
	}
	role, err := tenants.ParseRole(c.FormValue("role"))
	if err != nil {
		return s.showMembers(c, http.StatusUnprocessableEntity, views.MembersPage{Error: localizer(c).T("members.new_role_choose")})
	}
	version, err := formVersion(c, 0)
	if err != nil {
		return err
	}
	m := currentMembership(c)
	_, err = s.tenants.SetMemberRole(c.Request().Context(), actor(c), m.Org.ID, id, role, version)
	if isStale(err) {
		return s.memberRoleStale(c, id, role)
	}
	if err != nil {
		return s.refused(c, err)
	}
	return redirect(c, membersURL(m.Org.Slug)+"?notice=role-changed")
}

// memberRoleStale answers a role change made on a page older than the
// membership (someone else changed the role since): 409, the page with the
// latest roles, the chosen role kept in the member's select (its version
// now the stored one, so choosing again is a knowing change), and the role
// stored now against the one chosen (docs/versions.md). Nothing saved.
func (s *Server) memberRoleStale(c echo.Context, userID int64, chosen tenants.Role) error {
	ctx, m, l := c.Request().Context(), currentMembership(c), localizer(c)
	people, err := s.tenants.Members(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	p := views.MembersPage{Stale: &views.StaleNotice{Reload: membersURL(m.Org.Slug)}}
	for _, x := range people {
		if x.UserID == userID && x.Role != chosen {
			p.Stale.Changes = append(p.Stale.Changes, views.StaleChange{Field: "role",
				Label:  l.Tf("members.role_of", map[string]any{"Email": x.Email}),
				Theirs: l.T(views.RoleMessage(string(x.Role))), Yours: l.T(views.RoleMessage(string(chosen)))})
		}
	}
	return s.showMembersKeeping(c, http.StatusConflict, p, userID, string(chosen))
}

// memberRemove takes someone out of the org; their sessions end at once
// (accounts.Store.RemoveMember). An admin who removes themself is signed out.
func (s *Server) memberRemove(c echo.Context) error {
	id, err := pathID(c, "user", "member")
	if err != nil {
		return err
	}
	m := currentMembership(c)
	if _, err := s.accounts.RemoveMember(c.Request().Context(), actor(c), m.Org.ID, id); err != nil {
		return s.refused(c, err)
	}
	if u, _ := currentUser(c); u.ID == id {
		return redirect(c, "/login")
	}
	return redirect(c, membersURL(m.Org.Slug)+"?notice=removed")
}

func (s *Server) inviteResend(c echo.Context) error {
	id, err := pathID(c, "invite", "invite")
	if err != nil {
		return err
	}
	m := currentMembership(c)
	if _, err := s.accounts.ResendInvite(c.Request().Context(), actor(c), m.Org.ID, id, s.now()); err != nil {
		return s.refused(c, err)
	}
	return redirect(c, membersURL(m.Org.Slug)+"?notice=resent")
}

func (s *Server) inviteRevoke(c echo.Context) error {
	id, err := pathID(c, "invite", "invite")
	if err != nil {
		return err
	}
	m := currentMembership(c)
	if _, err := s.accounts.RevokeInvite(c.Request().Context(), actor(c), m.Org.ID, id, s.now()); err != nil {
		return s.refused(c, err)
	}
	return redirect(c, membersURL(m.Org.Slug)+"?notice=revoked")
}

// readerStamp is an instant in the org's zone loc in the reader's formats,
// with the zone's abbreviation in the reader's letters: "Wed, Mar 4, 2026,
// 10:00 AM EST", "Mi., 4. März 2026, 16:00 MEZ"; "" for the zero time.
// Account pages are org pages, so the org's zone is the reader's (no
// person has a zone of their own yet).
func readerStamp(lc locale.Locale, t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(loc)
	return lc.DateYear(t) + ", " + lc.Time(t) + " " + lc.ZoneAbbr(t)
}
