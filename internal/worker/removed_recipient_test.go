package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/transport/transporttest"
)

// docs/security.md, "Deliveries to dropped addresses; webhook ports": a delivery waiting for a retry (or sent again) to an
// address the org has removed from its recipients is voided, as a webhook
// delivery is when its URL changes; an address still listed (in any case)
// is sent. A technician's delivery likewise, when their address changed.
func TestRemovedRecipientIsNotRetried(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	sink.SetFallback(550)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", []string{"stays@acme.test", "leaving@acme.test"}, true, ""))
	ana := f.techWithEmail(org, "Ana", "ana@acme.test")
	f.Job(org, ana, "Ana's customer", utc("2026-03-10T13:00:00Z"), utc("2026-03-10T15:00:00Z"), "scheduled")
	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:00:00Z"))
	require.Equal(t, map[string]string{"stays@acme.test": "failed/1", "leaving@acme.test": "failed/1", "ana@acme.test": "failed/1"},
		f.deliveryStates(org))
	require.Equal(t, 3, sink.Attempts())

	// The admin drops leaving@ and fixes Ana's address; stays@ is kept,
	// spelled otherwise.
	f.SetConfig(org, deliveryConfig("Etc/UTC", "07:00", []string{"Stays@acme.test"}, true, ""))
	_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET email = 'ana.ruiz@acme.test' WHERE id = $1`, ana)
	require.NoError(t, err)
	sink.SetFallback(250)
	for _, to := range []string{"stays@acme.test", "leaving@acme.test", "ana@acme.test"} {
		var id int64
		require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT id FROM ff_deliveries WHERE org_id = $1 AND recipient = $2`, org, to).Scan(&id))
		require.NoError(t, f.deliveries.Resend(f.Ctx, org, id, admin, time.Now()))
	}
	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:05:00Z"))
	require.Equal(t, map[string]string{"stays@acme.test": "sent/2", "leaving@acme.test": "failed/2", "ana@acme.test": "failed/2"},
		f.deliveryStates(org))
	require.Equal(t, 4, sink.Attempts(), "nothing more to the dropped addresses")
	var detail string
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT last_detail FROM ff_deliveries WHERE org_id = $1 AND recipient = 'leaving@acme.test'`, org).Scan(&detail))
	require.Contains(t, detail, "no longer one of the recipients")
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT last_detail FROM ff_deliveries WHERE org_id = $1 AND recipient = 'ana@acme.test'`, org).Scan(&detail))
	require.Contains(t, detail, "address has changed")
}
