//go:build citus

package web

import (
	"testing"

	"fieldbrief/internal/pgtopo"
)

// TestCitusRouteMatrix walks every route (pages, the JSON API, every
// write) as every kind of client on a real Citus cluster: the fixture's
// orgs, people and field data written through the stores into a database
// distributed by `web citus-distribute` (docs/scaling.md, step 4).
func TestCitusRouteMatrix(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	f := setupFixtureDB(t, nil, orgsCreated, fixtureDB{url: func(t testing.TB) string { return c.DistributedDatabase(t) }})
	routeMatrix(t, f)
}
