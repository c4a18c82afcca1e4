package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/tokens"
	"fieldbrief/views"
)

func apiTokensURL(slug string) string { return "/orgs/" + slug + "/settings/api-tokens" }

// apiTokensPage lists the org's tokens with the create form.
func (s *Server) apiTokensPage(c echo.Context) error {
	return s.showAPITokens(c, http.StatusOK, views.APITokensBlock{})
}

// apiTokenCreate creates a token and shows it, this once. No redirect
// after the POST: the token must not be in a URL or a page reloaded later.
func (s *Server) apiTokenCreate(c echo.Context) error {
	name := c.FormValue("name")
	scope, err := tokens.ParseScope(c.FormValue("scope"))
	if err == nil {
		var token string
		if _, token, err = s.tokens.Create(c.Request().Context(), actor(c), currentMembership(c).Org.ID, name, scope, s.now()); err == nil {
			return s.showAPITokens(c, http.StatusOK, views.APITokensBlock{Created: token})
		}
	}
	if apperr.Code(err) == apperr.Invalid {
		return s.showAPITokens(c, http.StatusUnprocessableEntity, views.APITokensBlock{Name: name, Scope: c.FormValue("scope"),
			Error: localizer(c).Message(err)})
	}
	return err
}

// apiTokenRevoke revokes one of the org's tokens; another org's id, or one
// already revoked, is 404.
func (s *Server) apiTokenRevoke(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.Errorf(apperr.NotFound, "There is no such API token.")
	}
	t, err := s.tokens.Revoke(c.Request().Context(), actor(c), currentMembership(c).Org.ID, id, s.now())
	if err != nil {
		return err
	}
	return s.showAPITokens(c, http.StatusOK, views.APITokensBlock{Notice: localizer(c).Tf("tokens.revoked_notice", map[string]any{"Name": t.Name})})
}

// showAPITokens answers htmx with the block alone, anything else with the
// page around it.
func (s *Server) showAPITokens(c echo.Context, status int, b views.APITokensBlock) error {
	m := currentMembership(c)
	tokens, err := s.tokens.List(c.Request().Context(), m.Org.ID)
	if err != nil {
		return err
	}
	st, err := s.orgState(c.Request().Context(), m.Org.ID) // times in the org's zone (docs/i18n.md)
	if err != nil {
		return err
	}
	l := localizer(c)
	b.I18n = l
	b.Base = apiTokensURL(m.Org.Slug)
	b.CSRF, _ = c.Get(ctxCSRF).(string)
	b.NameLen = pageLimits.TokenNameLen
	for _, t := range tokens {
		r := apiTokenRow(t, l.Locale(), st.loc())
		if id := revokedWhyIDs[t.RevokedFor]; id != "" {
			r.RevokedWhy = l.T(id)
		}
		b.Tokens = append(b.Tokens, r)
	}
	if isHTMX(c) {
		return s.render(c, status, views.APITokensBlockView(b))
	}
	p := s.page(c, l.T("tokens.title"))
	p.Section = "settings"
	return s.render(c, status, views.APITokens(views.APITokensPage{Page: p, Block: b}))
}

// revokedWhyIDs are the catalog's words for why a token was revoked
// (docs/security.md, "Access ends with its reason").
var revokedWhyIDs = map[tokens.RevokeReason]string{
	tokens.RevokedByAdmin:         "tokens.revoked_admin",
	tokens.RevokedCreatorRemoved:  "tokens.revoked_creator_removed",
	tokens.RevokedCreatorNotAdmin: "tokens.revoked_creator_not_admin",
}

func apiTokenRow(t tokens.Token, lc locale.Locale, loc *time.Location) views.APITokenRow {
	return views.APITokenRow{ID: t.ID, Name: t.Name, Hint: t.Hint, CreatedBy: t.CreatedBy, OrgOwned: t.OrgOwned, ReadOnly: t.Scope == tokens.ScopeRead,
		CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt,
		CreatedText: readerStamp(lc, t.CreatedAt, loc), LastUsedText: readerStamp(lc, t.LastUsedAt, loc), RevokedText: readerStamp(lc, t.RevokedAt, loc)}
}
