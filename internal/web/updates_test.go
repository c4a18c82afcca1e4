package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
)

// TestBriefingPageShowsUpdates: a technician's update after the briefing
// is listed with the briefing's deliveries, after its revision's, and
// says how many jobs it told of.
func TestBriefingPageShowsUpdates(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	briefingID := readyBriefing(t, f, f.orgA.ID)
	insertFailedDelivery(t, f, f.orgA.ID, briefingID, "ops@acme.test")
	var tech, update int64
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO technicians (org_id, name, email) VALUES ($1, 'Ana', 'ana@acme.test') RETURNING id`,
		f.orgA.ID).Scan(&tech))
	require.NoError(t, f.db.QueryRow(ctx, `
		INSERT INTO ff_briefing_updates (org_id, briefing_id, technician_id, briefing_date, outcome, jobs, created_at)
		VALUES ($1, $2, $3, '2026-03-03', 'sent', 2, '2026-03-03 15:00Z') RETURNING id`, f.orgA.ID, briefingID, tech).Scan(&update))
	_, err := f.db.Exec(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, state, due_at, update_id)
		VALUES ($1, $2, 1, 'email', 'technician', 'ana@acme.test', $3, 'upd_1', 'sent', '2026-03-03 15:00Z', $4)`,
		f.orgA.ID, briefingID, tech, update)
	require.NoError(t, err)

	for _, who := range []*accounts.User{&f.adminA, &f.memberA} {
		r := f.as(who).get(briefingsPath + "/2026-03-03")
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		items := parseDoc(t, r.Body).findAll(hasClass("delivery"))
		require.Len(t, items, 2)
		require.Contains(t, items[0].text(), "ops@acme.test", "the briefing's own deliveries first")
		require.Contains(t, items[1].text(), "ana@acme.test")
		require.Contains(t, items[1].text(), "update: 2 jobs changed")
		require.NotContains(t, items[1].text(), "revision")
	}
}
