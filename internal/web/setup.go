package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/tenants"
	"fieldbrief/views"
)

// The first setup (docs/web.md, "First setup"): an org's admin lands on
// a checklist until its steps are done. Each step is read from the data
// (a saved zone and time, recipients, technicians, jobs, a test that
// arrived), never a tick someone stored, so it is done exactly when the
// thing is.

// setupSteps reads the org's checklist.
func (s *Server) setupSteps(c echo.Context, m tenants.Membership) ([]views.SetupStep, error) {
	ctx := c.Request().Context()
	cfg, err := s.tenants.Fieldforce(ctx, m.Org.ID)
	if err != nil {
		return nil, err
	}
	counts, err := s.field.Setup(ctx, m.Org.ID)
	if err != nil {
		return nil, err
	}
	tested, err := s.deliver.TestSent(ctx, m.Org.ID)
	if err != nil {
		return nil, err
	}
	base, settings := orgBase(m.Org.Slug), settingsURL(m.Org.Slug)
	d := cfg.Config.Delivery
	recipients := cfg.Found && cfg.Err == nil && d != nil &&
		((d.Email != nil && (len(d.Email.To) > 0 || d.Email.Technicians)) || (d.Webhook != nil && d.Webhook.URL != ""))
	return []views.SetupStep{
		{Key: "schedule", Href: settings + "#schedule-title", Done: cfg.Found && cfg.Err == nil},
		{Key: "recipients", Href: settings + "#delivery", Done: recipients},
		{Key: "technicians", Href: base + "/technicians", Done: counts.Technicians > 0},
		{Key: "jobs", Href: base + "/jobs", AltHref: base + "/import", Done: counts.HasJobs},
		{Key: "test", Href: settings + "#test-title", Done: tested},
	}, nil
}

// setupDone says every step is done.
func setupDone(steps []views.SetupStep) bool {
	for _, st := range steps {
		if !st.Done {
			return false
		}
	}
	return true
}

// setupPage is GET /orgs/{slug}/setup, for the org's admins: the
// checklist, each step linked, done ones ticked.
func (s *Server) setupPage(c echo.Context) error {
	m := currentMembership(c)
	steps, err := s.setupSteps(c, m)
	if err != nil {
		return err
	}
	l := localizer(c)
	p := views.SetupPage{Page: s.page(c, l.T("setup.title")), Steps: steps, Briefings: briefingsURL(m.Org.Slug)}
	p.Section = "setup"
	return s.render(c, http.StatusOK, views.Setup(p))
}
