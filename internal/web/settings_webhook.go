package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/views"
)

// webhookSecretReveal shows the org's webhook signing secret, creating it
// on first use. It is a POST so that only the page's own forms (CSRF) can
// ask, and the answer is never cached.
func (s *Server) webhookSecretReveal(c echo.Context) error {
	secret, err := s.tenants.WebhookSecret(c.Request().Context(), currentMembership(c).Org.ID)
	if err != nil {
		return err
	}
	return s.showSecret(c, http.StatusOK, views.SecretBlock{Revealed: secret})
}

// webhookSecretRotate replaces the secret once the admin ticked the
// confirmation (hx-confirm asks as well, but only the server's check holds
// without JavaScript), and shows the new one.
func (s *Server) webhookSecretRotate(c echo.Context) error {
	if c.FormValue("confirm") != "rotate" {
		return s.showSecret(c, http.StatusUnprocessableEntity,
			views.SecretBlock{Error: localizer(c).T("bsettings.secret.confirm_missing")})
	}
	secret, err := s.tenants.RotateWebhookSecret(c.Request().Context(), actor(c), currentMembership(c).Org.ID)
	if err != nil {
		return err
	}
	return s.showSecret(c, http.StatusOK, views.SecretBlock{Revealed: secret, Rotated: true})
}

// showSecret answers htmx with the secret's block alone, and a plain form
// post with the settings page around it.
func (s *Server) showSecret(c echo.Context, status int, b views.SecretBlock) error {
	// Every page is no-store already (securityHeaders); said again here
	// because a secret must not outlive this response whatever that becomes.
	c.Response().Header().Set("Cache-Control", "no-store")
	if isHTMX(c) {
		return s.render(c, status, views.WebhookSecret(views.Page{I18n: localizer(c)}, s.secretBlock(c, b)))
	}
	stored, err := s.tenants.Fieldforce(c.Request().Context(), currentMembership(c).Org.ID)
	if err != nil {
		return err
	}
	return s.renderSettings(c, status, stored, rejected{}, settingsAnswer{secret: b})
}

// secretBlock fills in where the block's forms post and their CSRF token.
func (s *Server) secretBlock(c echo.Context, b views.SecretBlock) views.SecretBlock {
	b.Base = settingsURL(currentMembership(c).Org.Slug)
	b.CSRF, _ = c.Get(ctxCSRF).(string)
	return b
}
