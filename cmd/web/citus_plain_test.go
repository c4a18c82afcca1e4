package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

// TestCitusDistributeRefusesPlainPostgreSQL: without Citus the command
// fails with the reason and changes nothing (the Citus runs are in
// citus_test.go, make test-citus).
func TestCitusDistributeRefusesPlainPostgreSQL(t *testing.T) {
	t.Parallel()
	c := newCLI(t, testdb.URL(t))
	pool := connect(t, c.env["DATABASE_URL"])
	before := tableCounts(t, pool)
	r := c.run(context.Background(), "citus-distribute")
	require.Error(t, r.err)
	require.False(t, isUsage(r.err))
	require.Contains(t, r.err.Error(), "no Citus here")
	require.Contains(t, r.err.Error(), "citus extension")
	require.Empty(t, r.stdout)
	require.Equal(t, before, tableCounts(t, pool))
}
