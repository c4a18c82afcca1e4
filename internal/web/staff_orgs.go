package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/i18n"
	"fieldbrief/views"
)

// Staff create orgs here, each with an invite to its first admin
// (docs/accounts.md); `web create-org` does the same without the invite.

func (s *Server) staffNewOrg(c echo.Context) error {
	var p views.NewOrgPage
	if slug := c.QueryParam("created"); slug != "" {
		// The notice names the org from the database, never from the URL.
		if o, err := s.tenants.OrgBySlug(c.Request().Context(), slug); err == nil {
			p.Notice = "Created " + o.Name + " (" + o.Slug + "). The invite to its first admin is on its way."
		}
	}
	p.Locale = i18n.MatchLocale(c.Request().Header.Get("Accept-Language"))
	return s.renderNewOrg(c, http.StatusOK, p)
}

func (s *Server) renderNewOrg(c echo.Context, status int, p views.NewOrgPage) error {
	p.Page = s.page(c, "New org")
	p.Locales = localeOptions()
	p.Section = "staff"
	return s.render(c, status, views.NewOrg(p))
}

// staffCreateOrg creates the org and its first admin's invite in one
// transaction: a taken slug or a bad address creates neither.
func (s *Server) staffCreateOrg(c echo.Context) error {
	p := views.NewOrgPage{Slug: strings.TrimSpace(c.FormValue("slug")), Name: c.FormValue("name"),
		AdminEmail: strings.TrimSpace(c.FormValue("admin_email")), Locale: c.FormValue("locale")}
	org, _, err := s.accounts.ProvisionOrgWithInvite(c.Request().Context(), actor(c), p.Slug, p.Name, p.Locale, p.AdminEmail, s.now())
	switch fieldOf(err) {
	case "":
	case "slug":
		p.SlugError = i18n.English.Message(err)
	case "name":
		p.NameError = i18n.English.Message(err)
	case "locale":
		p.LocaleError = i18n.English.Message(err)
	default: // the address, as the invite saw it
		p.EmailError = i18n.English.Message(err)
	}
	if fieldOf(err) != "" {
		return s.renderNewOrg(c, http.StatusUnprocessableEntity, p)
	}
	if err != nil {
		return err
	}
	return redirect(c, "/staff/orgs/new?created="+url.QueryEscape(org.Slug))
}

// localeOptions are the locales an org may choose, for a select.
func localeOptions() []views.Option {
	var out []views.Option
	for _, o := range i18n.Locales() {
		out = append(out, views.Option{Value: o.Tag, Label: o.Name})
	}
	return out
}
