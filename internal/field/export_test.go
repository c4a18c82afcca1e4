package field

// SearchSQL lets the tests EXPLAIN the search's statement.
var SearchSQL = searchSQL
