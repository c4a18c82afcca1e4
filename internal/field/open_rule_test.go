package field

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
)

// The open-job rule is written twice, in Go (Open, for the board and the
// snapshot) and in SQL (openJobSQL, for the day's sections, the overdue
// rule and the partial index jobs_org_open_idx): both say the same of
// every status a job can have.
func TestOpenRuleAgrees(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	for _, status := range Statuses {
		var open bool
		require.NoError(t, db.QueryRow(t.Context(), `SELECT `+openJobSQL+` FROM (SELECT $1::text AS status) j`, status).Scan(&open))
		require.Equal(t, open, Open(status), status)
	}
	require.False(t, Open(StatusDone))
	require.True(t, Open(StatusOnHold))
	// The index of migration 00023 is built on the same predicate, so the
	// planner can use it for the rule.
	var def string
	require.NoError(t, db.QueryRow(t.Context(), `SELECT pg_get_indexdef('jobs_org_open_idx'::regclass)`).Scan(&def))
	require.Contains(t, def, `WHERE (status <> ALL (ARRAY['done'::text, 'cancelled'::text]))`)
}
