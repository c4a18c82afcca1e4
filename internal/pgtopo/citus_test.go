//go:build citus

package pgtopo_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/pgtopo"
)

// TestCitusCluster: the harness starts a coordinator and two workers, and a
// database on it shards a table across both workers.
func TestCitusCluster(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	url := c.Database(t)
	nodes := c.Query(t, url, `SELECT nodeport, noderole::text, shouldhaveshards FROM pg_dist_node ORDER BY nodeid`)
	require.Len(t, nodes, 3, "%v", nodes)
	c.Query(t, url, `CREATE TABLE probe (org_id bigint NOT NULL, n int)`)
	c.Query(t, url, `SELECT create_distributed_table('probe', 'org_id')`)
	placed := c.Query(t, url, `SELECT DISTINCT nodeport FROM citus_shards WHERE table_name = 'probe'::regclass ORDER BY 1`)
	require.Len(t, placed, 2, "the shards sit on both workers: %v", placed)
}
