package worker

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery/deliverytest"
)

// TestLifelineStalledWorkerSendsOnce: a worker alive but silent (its
// heartbeats stopped while its emails wait on the SMTP server) is taken for
// dead; its tasks are given back and a second worker runs them while the
// first still sends. The second waits on the delivery rows' locks and finds
// them sent: one email per recipient, one revision per briefing
// (docs/architecture.md, "Crashes and shutdown").
func TestLifelineStalledWorkerSendsOnce(t *testing.T) {
	f := setup(t)
	sink := deliverytest.NewSMTPServer(t)
	sink.Hold()
	const orgs = 2
	for i := range orgs {
		f.Org("org-"+strconv.Itoa(i), deliveryConfig("Etc/UTC", "07:00", []string{"dispatch-" + strconv.Itoa(i) + "@acme.test"}, false, ""))
	}
	now := utc("2026-03-10T07:00:00Z")

	stalled := f.deliveringWorker(sink.URL, nil)
	stalled.Concurrency = orgs
	stalledDone := make(chan error, 1)
	go func() { _, err := stalled.RunOnce(f.Ctx, now, time.Minute); stalledDone <- err }()
	require.Eventually(t, func() bool { return sink.Attempts() >= orgs }, time.Minute, 10*time.Millisecond)

	// Its heartbeats stop and lapse; the process and its sends go on.
	stalled.stopLifeline()
	<-stalled.lifelineDone
	tag, err := f.DB.Exec(f.Ctx, `UPDATE ff_worker_heartbeats SET seen_at = now() - interval '1 hour' WHERE client_id = $1`, stalled.clientID)
	require.NoError(t, err)
	require.Equal(t, int64(1), tag.RowsAffected())

	second := f.deliveringWorker(sink.URL, nil)
	second.clientID = "second"
	conn, err := pgx.ConnectConfig(f.Ctx, f.DB.Config().ConnConfig.Copy())
	require.NoError(t, err)
	defer conn.Close(f.Ctx)
	require.NoError(t, second.reapDead(f.Ctx, conn))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'send_briefing_email' AND state = 'available'
	                                   AND errors[cardinality(errors)]->>'error' = $1`, lifelineError+stalled.clientID))
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_worker_heartbeats WHERE client_id = $1`, stalled.clientID))

	// The second run takes them while the first still holds the rows.
	secondDone := make(chan error, 1)
	go func() { _, err := second.RunOnce(f.Ctx, now, time.Minute); secondDone <- err }()
	require.Eventually(t, func() bool {
		return f.Count(`SELECT count(*) FROM river_job WHERE kind = 'send_briefing_email' AND state = 'running'
		                  AND attempted_by[cardinality(attempted_by)] = 'second'`) == orgs
	}, time.Minute, 10*time.Millisecond)
	sink.Release()
	require.NoError(t, <-stalledDone)
	require.NoError(t, <-secondDone)

	received := map[string]int{}
	for _, m := range sink.Messages() {
		received[strings.Join(m.To, ",")]++
	}
	require.Len(t, received, orgs)
	for to, n := range received {
		require.Equal(t, 1, n, to)
	}
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_briefing_revisions`))
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job WHERE state NOT IN ('completed')`))
}
