package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/webhooks"
	"fieldbrief/views"
)

// The org's webhook endpoints for job and technician events (admins;
// docs/delivery.md, "Webhook endpoints"). Every store call carries the
// org of the URL, so another org's endpoint id is a 404.

func webhooksURL(slug string) string { return "/orgs/" + slug + "/settings/webhooks" }

func webhookURL(slug string, id int64) string {
	return webhooksURL(slug) + "/" + strconv.FormatInt(id, 10)
}

// webhookEndpointsPage lists the endpoints with the add form.
func (s *Server) webhookEndpointsPage(c echo.Context) error {
	return s.showWebhookEndpoints(c, http.StatusOK, views.WebhookEndpointsPage{Form: views.WebhookEndpointForm{Events: webhooks.EventTypes}})
}

// webhookEndpointCreate adds an endpoint and shows its secret.
func (s *Server) webhookEndpointCreate(c echo.Context) error {
	in := endpointInput(c)
	e, err := s.webhooks.Create(c.Request().Context(), actor(c), currentMembership(c).Org.ID, in)
	if err != nil {
		if apperr.Code(err) != apperr.Invalid {
			return err
		}
		return s.showWebhookEndpoints(c, http.StatusUnprocessableEntity, views.WebhookEndpointsPage{Form: endpointForm(localizer(c), in, 0, err)})
	}
	secret, err := s.webhooks.Secret(c.Request().Context(), currentMembership(c).Org.ID, e.ID)
	if err != nil {
		return err
	}
	return s.showWebhookEndpoints(c, http.StatusOK, views.WebhookEndpointsPage{Created: secret,
		Notice: localizer(c).T("hooks.added_notice"), Form: views.WebhookEndpointForm{Events: webhooks.EventTypes}})
}

// webhookEndpointDelete removes an endpoint and shows the list.
func (s *Server) webhookEndpointDelete(c echo.Context) error {
	id, err := endpointID(c)
	if err != nil {
		return err
	}
	if _, err := s.webhooks.Delete(c.Request().Context(), actor(c), currentMembership(c).Org.ID, id); err != nil {
		return err
	}
	return s.showWebhookEndpoints(c, http.StatusOK, views.WebhookEndpointsPage{Notice: localizer(c).T("hooks.removed_notice"),
		Form: views.WebhookEndpointForm{Events: webhooks.EventTypes}})
}

func (s *Server) showWebhookEndpoints(c echo.Context, status int, p views.WebhookEndpointsPage) error {
	ctx := c.Request().Context()
	m := currentMembership(c)
	list, err := s.webhooks.List(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	for _, e := range list {
		_, failed, err := s.webhooks.Deliveries(ctx, m.Org.ID, e.ID)
		if err != nil {
			return err
		}
		p.Endpoints = append(p.Endpoints, views.WebhookEndpointRow{ID: e.ID, URL: e.URL, Description: e.Description,
			Events: e.Events, Failed: failed})
	}
	p.Page = s.page(c, localizer(c).T("hooks.title"))
	p.Section = "settings"
	p.Base = webhooksURL(m.Org.Slug)
	p.Max = webhooks.MaxEndpoints
	p.Form.Types, p.Form.DescriptionLen = webhooks.EventTypes, webhooks.MaxDescription
	return s.render(c, status, views.WebhookEndpoints(p))
}

// webhookEndpointPage shows one endpoint: its form, secret and log.
func (s *Server) webhookEndpointPage(c echo.Context) error {
	return s.showWebhookEndpoint(c, http.StatusOK, views.WebhookEndpointPage{}, nil)
}

// webhookEndpointUpdate saves an endpoint's URL, description and events;
// a stale version is a 409 (docs/versions.md), nothing saved.
func (s *Server) webhookEndpointUpdate(c echo.Context) error {
	id, err := endpointID(c)
	if err != nil {
		return err
	}
	in := endpointInput(c)
	if in.Version, err = strconv.ParseInt(c.FormValue("version"), 10, 64); err != nil || in.Version < 1 {
		return apperr.Errorf(apperr.Invalid, "The form has no valid version: reload the page.")
	}
	e, err := s.webhooks.Update(c.Request().Context(), actor(c), currentMembership(c).Org.ID, id, in)
	if err != nil {
		if apperr.Code(err) != apperr.Invalid {
			return err
		}
		form := endpointForm(localizer(c), in, in.Version, err)
		return s.showWebhookEndpoint(c, http.StatusUnprocessableEntity, views.WebhookEndpointPage{}, &form)
	}
	form := endpointForm(nil, webhooks.EndpointInput{URL: e.URL, Description: e.Description, Events: e.Events}, e.Version, nil)
	return s.showWebhookEndpoint(c, http.StatusOK, views.WebhookEndpointPage{Notice: localizer(c).T("hooks.saved_notice")}, &form)
}

// webhookEndpointSecret shows the endpoint's secret. A POST, so only the
// page's own forms (CSRF) can ask, like the briefing webhook's.
func (s *Server) webhookEndpointSecret(c echo.Context) error {
	id, err := endpointID(c)
	if err != nil {
		return err
	}
	secret, err := s.webhooks.Secret(c.Request().Context(), currentMembership(c).Org.ID, id)
	if err != nil {
		return err
	}
	return s.showWebhookEndpoint(c, http.StatusOK, views.WebhookEndpointPage{Secret: secret}, nil)
}

// webhookEndpointRotate replaces the secret once the admin ticked the
// confirmation, and shows the new one.
func (s *Server) webhookEndpointRotate(c echo.Context) error {
	id, err := endpointID(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "rotate" {
		return s.showWebhookEndpoint(c, http.StatusUnprocessableEntity,
			views.WebhookEndpointPage{SecretError: localizer(c).T("hooks.rotate_confirm_missing")}, nil)
	}
	secret, err := s.webhooks.RotateSecret(c.Request().Context(), actor(c), currentMembership(c).Org.ID, id)
	if err != nil {
		return err
	}
	return s.showWebhookEndpoint(c, http.StatusOK, views.WebhookEndpointPage{Secret: secret, Notice: localizer(c).T("hooks.rotated_notice")}, nil)
}

// showWebhookEndpoint renders the endpoint's page; form, when given, is
// the form as submitted (else the stored endpoint).
func (s *Server) showWebhookEndpoint(c echo.Context, status int, p views.WebhookEndpointPage, form *views.WebhookEndpointForm) error {
	// Every page is no-store already (securityHeaders); said again since
	// this one may carry a secret.
	c.Response().Header().Set("Cache-Control", "no-store")
	id, err := endpointID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	m := currentMembership(c)
	e, err := s.webhooks.Get(ctx, m.Org.ID, id)
	if err != nil {
		return err
	}
	if form != nil {
		p.Form = *form
	} else {
		p.Form = endpointForm(nil, webhooks.EndpointInput{URL: e.URL, Description: e.Description, Events: e.Events}, e.Version, nil)
	}
	log, failed, err := s.webhooks.Deliveries(ctx, m.Org.ID, id)
	if err != nil {
		return err
	}
	lc := localizer(c).Locale()
	st, err := s.orgState(ctx, m.Org.ID)
	if err != nil {
		return err
	}
	for _, d := range log {
		row := views.WebhookDeliveryRow{EventID: d.EventID, Type: d.Type, Record: d.RecordKind + " " + strconv.FormatInt(d.RecordID, 10),
			State: d.State, Attempts: d.Attempts, Code: d.LastCode, Detail: d.LastDetail}
		if d.LastAttemptAt != nil {
			row.When = readerStamp(lc, *d.LastAttemptAt, st.loc())
		}
		p.Deliveries = append(p.Deliveries, row)
	}
	p.Failed = failed
	p.Page = s.page(c, localizer(c).T("hooks.endpoint"))
	p.Section = "settings"
	p.Base = webhookURL(m.Org.Slug, id)
	p.ListURL = webhooksURL(m.Org.Slug)
	p.Form.Types, p.Form.DescriptionLen = webhooks.EventTypes, webhooks.MaxDescription
	return s.render(c, status, views.WebhookEndpoint(p))
}

// endpointID is the :id of the path; anything but a number is a 404, like
// an id nobody has.
func endpointID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return 0, apperr.Errorf(apperr.NotFound, "There is no such webhook endpoint.")
	}
	return id, nil
}

// endpointInput is the submitted form.
func endpointInput(c echo.Context) webhooks.EndpointInput {
	var events []string
	if form, err := c.FormParams(); err == nil {
		events = form["events"]
	}
	return webhooks.EndpointInput{URL: c.FormValue("url"), Description: c.FormValue("description"), Events: events}
}

// endpointForm fills a form from an input and the store's field errors.
func endpointForm(l *i18n.Localizer, in webhooks.EndpointInput, version int64, err error) views.WebhookEndpointForm {
	f := views.WebhookEndpointForm{URL: in.URL, Description: in.Description, Events: in.Events, Version: version}
	if e, ok := apperr.As(err); ok {
		for _, fe := range e.Fields {
			switch fe.Name {
			case "url":
				f.URLError = fieldText(l, fe)
			case "description":
				f.DescriptionError = fieldText(l, fe)
			case "events":
				f.EventsError = fieldText(l, fe)
			}
		}
	}
	return f
}

// fieldText is one field problem in l's words.
func fieldText(l *i18n.Localizer, f apperr.Field) string {
	w, _ := l.FieldWords(f)
	return w
}
