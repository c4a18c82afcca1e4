package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/testutil"
)

// A reference is attached once (docs/api.md, "Records without a
// reference"), also when two writes race: a PUT by id without If-Match
// that read the record before another transaction gave it a reference,
// and reaches it after, is refused (ref_fixed) rather than writing its own
// reference over the one given meanwhile. The other transaction is held
// open here, so the PUT has read the record and waits on its row.
func TestAPIPutByIDKeepsAReferenceAttachedMeanwhile(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	token := f.newToken(f.orgA, "sync")
	var tech, job int64
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO technicians (org_id, name) VALUES ($1, 'Screen Sam') RETURNING id`, f.orgA.ID).Scan(&tech))
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO jobs (org_id, customer, arrival_start, arrival_end)
		VALUES ($1, 'Walk-in', '2026-03-09T16:00Z', '2026-03-09T17:00Z') RETURNING id`, f.orgA.ID).Scan(&job))

	for _, c := range []struct {
		table, path, body string
	}{
		{"technicians", fmt.Sprintf("/api/v1/technicians/by-id/%d", tech), `{"name": "Screen Sam", "external_ref": "SECOND"}`},
		{"jobs", fmt.Sprintf("/api/v1/jobs/by-id/%d", job),
			`{"customer": "Walk-in", "arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00", "external_ref": "SECOND"}`},
	} {
		id := tech
		if c.table == "jobs" {
			id = job
		}
		holder, err := f.db.Begin(ctx)
		require.NoError(t, err)
		_, err = holder.Exec(ctx, `UPDATE `+c.table+` SET external_ref = 'FIRST' WHERE org_id = $1 AND id = $2`, f.orgA.ID, id)
		require.NoError(t, err)

		done := make(chan apitest.RawAnswer, 1)
		go func() { done <- apitest.Raw(f.ts.URL, token, http.MethodPut, c.path, "application/json", c.body) }()
		require.Eventually(t, func() bool { return f.waitersOnRowLocks() == 1 }, testutil.Settle, 10*time.Millisecond,
			"the PUT read the record without a reference and waits on its row")
		require.NoError(t, holder.Commit(ctx))

		a := <-done
		require.NoError(t, a.Err)
		require.Equal(t, http.StatusUnprocessableEntity, a.Code, "%s: %s", c.table, a.Body)
		require.Contains(t, a.Body, `"external_ref":"ref_fixed"`, c.table)
		require.Equal(t, "FIRST", f.text(`SELECT external_ref FROM `+c.table+` WHERE id = $1`, id), "%s: the reference given first stays", c.table)
	}
}
