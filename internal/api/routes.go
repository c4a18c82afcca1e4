// Package api is the JSON API for integrations (docs/api.md): its
// handlers, its error envelope, its bearer-token, rate-limit and
// deprecation middleware, and its OpenAPI document. The web server mounts
// it beside the pages, on one port (Routes); the infrastructure both share
// is internal/httpkit.
package api

import (
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/field"
	"fieldbrief/internal/httpkit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/tokens"
)

// API holds what the API's handlers use.
type API struct {
	db         *pgxpool.Pool
	tenants    *tenants.Store
	tokens     *tokens.Store
	field      *field.Store
	briefings  *briefing.Store
	limits     *httpkit.Limiters[int64] // per API token
	feedSettle time.Duration            // config.Web.FeedSettle
	now        func() time.Time
	deprecated deprecations // the deprecated operations, from the OpenAPI document (deprecation.go)
}

// Deps are the API's stores and settings, from the web server that mounts it.
type Deps struct {
	DB         *pgxpool.Pool
	Tenants    *tenants.Store
	Tokens     *tokens.Store
	Field      *field.Store
	Briefings  *briefing.Store
	Rate       float64 // requests a second per token (config.Web.APIRate)
	Burst      int     // config.Web.APIBurst
	FeedSettle time.Duration
	Now        func() time.Time // the server's clock
}

// documentDeprecations reads the embedded document's deprecations once a
// process: every server has the same, and reading the 127 KB document
// for each (a test builds a server per test) cost more than the rest of
// New. Nobody writes the map after.
var documentDeprecations = sync.OnceValues(func() (deprecations, error) { return deprecationsOf(openAPIDoc) })

// New builds the API from its dependencies.
func New(d Deps) (*API, error) {
	deprecated, err := documentDeprecations()
	if err != nil {
		return nil, err
	}
	return &API{db: d.DB, tenants: d.Tenants, tokens: d.Tokens, field: d.Field, briefings: d.Briefings,
		limits:     httpkit.NewLimiters[int64](d.Rate, d.Burst, maxAPILimiters),
		feedSettle: d.FeedSettle, now: d.Now, deprecated: deprecated}, nil
}

// Routes registers every route of the API on g, the group at /api/v1,
// readable top to bottom. Bearer token and per-token rate limit are on
// each route, not on the group, so an unknown path or method is the
// router's plain 404 or 405 (as JSON: WriteError), not a catch-all's. A
// write also needs a read-write token (apiWrites). A path below a record
// is no route's, a 404 (apiWholeSegments). An operation the OpenAPI
// document marks deprecated announces it on every answer
// (announceDeprecation; docs/api.md, "Compatibility").
func (a *API) Routes(g *echo.Group) {
	bearer := []echo.MiddlewareFunc{apiWholeSegments, a.announceDeprecation, a.apiAuth, a.apiRateLimit}
	writes := append(slices.Clone(bearer), apiWrites)
	g.GET("/org", a.apiOrg, bearer...)
	g.GET("/technicians", a.apiListTechnicians, bearer...)
	g.GET("/technicians/:ref", a.apiGetTechnician, bearer...)
	g.PUT("/technicians/:ref", a.apiPutTechnician, writes...)
	g.PATCH("/technicians/:ref", a.apiPatchTechnician, writes...)
	g.DELETE("/technicians/:ref", a.apiDeleteTechnician, writes...)
	g.GET("/technicians/by-id/:id", a.apiGetTechnicianByID, bearer...)
	g.PUT("/technicians/by-id/:id", a.apiPutTechnicianByID, writes...)
	g.PATCH("/technicians/by-id/:id", a.apiPatchTechnicianByID, writes...)
	g.DELETE("/technicians/by-id/:id", a.apiDeleteTechnicianByID, writes...)
	g.GET("/jobs", a.apiListJobs, bearer...)
	g.GET("/jobs/:ref", a.apiGetJob, bearer...)
	g.PUT("/jobs/:ref", a.apiPutJob, writes...)
	g.PATCH("/jobs/:ref", a.apiPatchJob, writes...)
	g.DELETE("/jobs/:ref", a.apiDeleteJob, writes...)
	g.GET("/jobs/by-id/:id", a.apiGetJobByID, bearer...)
	g.PUT("/jobs/by-id/:id", a.apiPutJobByID, writes...)
	g.PATCH("/jobs/by-id/:id", a.apiPatchJobByID, writes...)
	g.DELETE("/jobs/by-id/:id", a.apiDeleteJobByID, writes...)
	g.GET("/briefings/:date", a.apiBriefing, bearer...)
	g.GET("/openapi.json", a.apiOpenAPI, a.announceDeprecation) // no token: it describes the API, it opens nothing
}
