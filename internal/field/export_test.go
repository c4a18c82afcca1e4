package field

// SearchSQL lets the tests EXPLAIN the search's statement.
var SearchSQL = searchSQL

// UnassignedSQL and RouteSQL let the tests run the unassigned rule's SQL
// beside Job.Unassigned and Job.Route.
const (
	UnassignedSQL = unassignedSQL
	RouteSQL      = routeSQL
)
