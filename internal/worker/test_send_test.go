package worker

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport/transporttest"
)

// TestSendTestIsAFreshLook: "send a test to me" sends today's briefing as
// the data is now — not the newest stored revision — through SMTP, and
// neither changes nor consumes the day's scheduled run, which fires and
// delivers at its time.
func TestSendTestIsAFreshLook(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", []string{"dispatch@acme.test"}, false, ""))
	al := f.Tech(org, "Al", true)
	f.Job(org, al, "Early customer", utc("2026-03-10T09:00:00Z"), utc("2026-03-10T10:00:00Z"), "scheduled")
	_, err := f.store.GenerateNow(f.Ctx, org, utc("2026-03-10T05:00:00Z"), admin)
	require.NoError(t, err)
	f.runOnce(utc("2026-03-10T05:00:00Z"))
	f.Job(org, al, "Later customer", utc("2026-03-10T11:00:00Z"), utc("2026-03-10T12:00:00Z"), "scheduled")

	w := f.deliveringWorker(sink.URL, nil)
	w.Sender.DB = f.DB // the web's sender has its pool; the worker gives its own its pool when it starts
	d, err := f.sendTest(w.Sender, org, delivery.ChannelEmail, "admin@acme.test", utc("2026-03-10T06:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, delivery.DeliverySent, d.State)
	require.Equal(t, 2, d.Revision, "a new revision, made for the test")
	msgs := sink.Messages()
	require.Len(t, msgs, 1)
	text, _, err := msgs[0].Bodies()
	require.NoError(t, err)
	require.Contains(t, text, "Later customer", "the data as it is now")
	require.Equal(t, []string{`[2,"manual"]`, `[1,"manual"]`}, f.revisionList(org, d.BriefingID))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefing_runs WHERE org_id = $1 AND worker = 'web (test send)' AND revision = 2`, org))

	// The scheduled run is the day's still: it fires at 07:00 and delivers.
	res := f.runOnceWith(w, utc("2026-03-10T06:59:00Z"))
	require.Zero(t, res.Tick.Enqueued)
	res = f.runOnceWith(w, utc("2026-03-10T07:00:00Z"))
	require.Equal(t, 1, res.Tick.Enqueued)
	msgs = sink.Messages()
	require.Len(t, msgs, 2)
	require.Equal(t, "dispatch@acme.test", strings.Join(msgs[1].To, ","))
	require.Equal(t, []string{`[3,"schedule"]`, `[2,"manual"]`, `[1,"manual"]`}, f.revisionList(org, d.BriefingID))
}
