//go:build citus

package webhooks_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/webhooks"
)

// TestCitusWebhookEvents runs the events on a real Citus cluster
// (docs/scaling.md): the trigger on the jobs' and technicians' shards
// captures every change, the worker hands them over and delivers them in
// order per record, each org's to its own endpoint.
func TestCitusWebhookEvents(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	pool, err := pgxpool.New(context.Background(), c.DistributedDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	f := &fixture{t: t, ctx: t.Context(), db: pool, hooks: &webhooks.Store{DB: pool, AllowPrivate: true}, field: &field.Store{DB: pool}}
	for _, o := range []struct {
		slug string
		id   *int64
	}{{"citus-acme", &f.orgA}, {"citus-globex", &f.orgB}} {
		require.NoError(t, pool.QueryRow(f.ctx, `INSERT INTO orgs (slug, name) VALUES ($1, $1) RETURNING id`, o.slug).Scan(o.id))
	}
	flaky := newReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	other := newReceiver(t, nil)
	f.endpoint(f.orgA, flaky.URL, all...)
	f.endpoint(f.orgB, other.URL, all...)

	ana := f.tech(f.orgA, "Ana", "T-1")
	j := f.job(f.orgA, "Mrs Jones", "J-1", ana.ID)
	for _, notes := range []string{"one", "two"} {
		in := j.Input()
		in.Notes = notes
		j, err = f.field.UpdateJob(f.ctx, admin, time.Now(), f.orgA, j.ID, in)
		require.NoError(t, err)
	}
	_, err = f.field.SetTechnicianActive(f.ctx, admin, f.orgA, ana.ID, false)
	require.NoError(t, err)
	gone := f.tech(f.orgB, "Gus", "")
	require.NoError(t, f.field.DeleteTechnician(f.ctx, admin, f.orgB, gone.ID, 0))

	f.work()
	var jobNotes []string
	var types []string
	for _, r := range flaky.requests()[1:] {
		types = append(types, r.Event.Type)
		if r.Event.Type == "job.created" || r.Event.Type == "job.updated" {
			jobNotes = append(jobNotes, r.Raw["data"].(map[string]any)["object"].(map[string]any)["notes"].(string))
		}
	}
	require.ElementsMatch(t, []string{"technician.created", "job.created", "job.updated", "job.updated", "technician.deactivated"}, types)
	require.Equal(t, []string{"", "one", "two"}, jobNotes)
	var otherTypes []string
	for _, r := range other.requests() {
		otherTypes = append(otherTypes, r.Event.Type)
		require.Equal(t, "citus-globex", r.Event.Data.Org.Slug)
	}
	require.Equal(t, []string{"technician.created", "technician.deleted"}, otherTypes)
}
