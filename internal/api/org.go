package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldbrief/internal/field"
)

// apiOrgJSON is GET /api/v1/org: what an integration reads before it
// writes (docs/api.md, "The org"): whose data the token reaches, the zone
// local times are read in, and the limits it will meet.
type apiOrgJSON struct {
	Slug     string       `json:"slug"`
	Name     string       `json:"name"`
	Timezone string       `json:"timezone"`
	Locale   string       `json:"locale"`
	Token    apiTokenJSON `json:"token"`
	Limits   apiLimits    `json:"limits"`
}

type apiTokenJSON struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
}

type apiLimits struct {
	RequestsPerSecond float64 `json:"requests_per_second"`
	Burst             int     `json:"burst"`
	BodyBytes         int     `json:"body_bytes"`
	JobsPerPage       int     `json:"jobs_per_page"`
	Technicians       int     `json:"technicians"`
}

func (a *API) apiOrg(c echo.Context) error {
	ctx, t := c.Request().Context(), Token(c)
	o, err := a.tenants.OrgByID(ctx, t.OrgID)
	if err != nil {
		return err
	}
	z, err := a.zone(ctx, t.OrgID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiOrgJSON{Slug: o.Slug, Name: o.Name, Timezone: z.Name, Locale: o.Locale,
		Token: apiTokenJSON{Name: t.Name, Scope: string(t.Scope)},
		Limits: apiLimits{RequestsPerSecond: a.limits.Rate(), Burst: a.limits.Burst(), BodyBytes: maxAPIBody,
			JobsPerPage: apiMaxJobPage, Technicians: field.MaxTechnicians}})
}
