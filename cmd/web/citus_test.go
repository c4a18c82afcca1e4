//go:build citus

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/pgtopo"
)

// TestCitusDistributeCommand: on a real cluster, `web citus-distribute`
// migrates, distributes the seeded demo and says so; run again it changes
// nothing and says so.
func TestCitusDistributeCommand(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	cli := newCLI(t, c.Database(t))
	cli.ok("seed-demo")
	out := cli.ok("citus-distribute")
	require.Contains(t, out, "orgs: reference table")
	require.Contains(t, out, "jobs: distributed by org_id, co-located with")
	require.Contains(t, out, "tables made their Citus kind")
	before := tableCounts(t, connect(t, cli.env["DATABASE_URL"]))
	require.Equal(t, 3, before["orgs"])

	out = cli.ok("citus-distribute")
	require.Equal(t, "every table is already its Citus kind: nothing to change\n", out)
	require.Equal(t, before, tableCounts(t, connect(t, cli.env["DATABASE_URL"])))
	out = cli.ok("seed-demo")
	require.False(t, strings.Contains(out, "(new)"), "seed-demo on the distributed demo changes nothing: %s", out)
}
