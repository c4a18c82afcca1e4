package worker

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport/transporttest"
)

// countingHook is a webhook receiver that accepts every call and counts them.
func countingHook(t *testing.T) (url string, calls *atomic.Int32) {
	calls = new(atomic.Int32)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	return hook.URL + "/fieldbrief", calls
}

// lateOrg is a plumbing firm in Chicago, 06:30 every day, mailing its
// dispatcher and its technician and calling a webhook; sendWithin "" is
// the default (3h). Its technician has a job on Wed 25 and Thu 26 Nov.
func (f *fixture) lateOrg(slug, hook, sendWithin string) int64 {
	f.T.Helper()
	cfg := deliveryConfig("America/Chicago", "06:30", []string{"dispatch@" + slug + ".test"}, true, hook)
	if sendWithin != "" {
		cfg = strings.Replace(cfg, `"delivery":{`, `"delivery":{"send_within":"`+sendWithin+`",`, 1)
	}
	org := f.Org(slug, cfg)
	ana := f.techWithEmail(org, "Ana", "ana@"+slug+".test")
	f.Job(org, ana, "Wednesday's customer", utc("2026-11-25T15:00:00Z"), utc("2026-11-25T16:00:00Z"), "scheduled")
	f.Job(org, ana, "Thursday's customer", utc("2026-11-26T15:00:00Z"), utc("2026-11-26T16:00:00Z"), "scheduled")
	return org
}

// deliveryRows lists an org's deliveries as "recipient state code detail".
func (f *fixture) deliveryRows(orgID int64) []string {
	f.T.Helper()
	return f.Strings(`
		SELECT d.recipient || ' ' || d.state || ' ' || d.last_code || ' ' || d.last_detail || ' ' || d.attempts
		  FROM ff_deliveries d WHERE d.org_id = $1 ORDER BY d.recipient`, orgID)
}

// A schedule first saved at 21:35 with 06:30 fires at once for today (the
// catch-up rule) but 15 h late: the briefing is made and kept, every
// delivery is recorded as skipped for being late, and nothing is sent —
// no email, no webhook call, no delivery task. The next morning's run
// sends as usual (docs/guarantees.md, "Late briefings").
func TestBriefingFiredLateIsKeptNotSent(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	hook, calls := countingHook(t)
	org := f.lateOrg("austin", hook, "")

	evening := utc("2026-11-26T03:35:00Z") // Wed 25 Nov 21:35 CST
	res := f.runOnceWith(f.deliveringWorker(sink.URL, nil), evening)
	require.Equal(t, 1, res.Tick.Enqueued)
	require.Empty(t, res.Pending)

	b, err := f.store.Get(f.Ctx, org, date("2026-11-25"))
	require.NoError(t, err)
	require.Equal(t, "ready", b.Status, "made and kept for the history")
	require.NotNil(t, b.Content)
	var scheduledFor time.Time
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT scheduled_for FROM ff_briefings WHERE id = $1`, b.ID).Scan(&scheduledFor))
	require.Equal(t, utc("2026-11-25T12:30:00Z"), scheduledFor.UTC(), "the scheduled minute it fired for")

	const why = "late made 21:35, 15 h after 06:30 — not sent 0"
	require.Equal(t, []string{
		"ana@austin.test skipped " + why,
		"dispatch@austin.test skipped " + why,
		hook + " skipped " + why,
	}, f.deliveryRows(org))
	require.Empty(t, sink.Messages(), "no email")
	require.Zero(t, calls.Load(), "no webhook call")
	var tasks int
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT count(*) FROM river_job WHERE kind IN ('send_briefing_email', 'call_webhook')`).Scan(&tasks))
	require.Zero(t, tasks, "a skipped delivery gets no task")

	// The page's reads say so too: the delivery is skipped, the list's row late.
	ds, err := f.deliveries.Deliveries(f.Ctx, org, b.ID)
	require.NoError(t, err)
	require.Len(t, ds, 3)
	require.Equal(t, delivery.DeliverySkipped, ds[0].State)
	list, err := f.store.List(f.Ctx, org, date("2026-11-25"), date("2026-11-25"))
	require.NoError(t, err)
	require.Equal(t, "made 21:35, 15 h after 06:30 — not sent", list[0].Late)
	require.False(t, list[0].Delivered)

	// Thursday 06:30: on time, sent.
	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-11-26T12:30:00Z"))
	require.Len(t, sink.Messages(), 2, "the dispatcher and Ana")
	require.Equal(t, int32(1), calls.Load())
}

// Two hours after its minute, within send_within (3h), a briefing is sent;
// with send_within 1h the same firing is kept, not sent.
func TestBriefingFiredWithinSendWithinIsSent(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	hook, calls := countingHook(t)
	org := f.lateOrg("austin", hook, "")
	strict := f.lateOrg("strict", "", "1h")

	res := f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-11-25T14:30:00Z")) // 08:30 CST, 2 h late
	require.Equal(t, 2, res.Tick.Enqueued)
	require.Empty(t, res.Pending)

	require.Equal(t, []string{"ana@austin.test sent   1", "dispatch@austin.test sent   1"},
		withoutHook(f.deliveryRows(org), hook))
	require.Equal(t, int32(1), calls.Load())
	var to []string
	for _, m := range sink.Messages() {
		to = append(to, m.To...)
	}
	require.ElementsMatch(t, []string{"ana@austin.test", "dispatch@austin.test"}, to, "nothing to the strict org")

	// Delivery latency counts from the scheduled minute, 06:30 CST, not
	// from the firing two hours later.
	require.Equal(t, f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1`, org),
		f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1 AND due_at = '2026-11-25T12:30:00Z'`, org))

	const why = "late made 08:30, 2 h after 06:30 — not sent 0"
	require.Equal(t, []string{"ana@strict.test skipped " + why, "dispatch@strict.test skipped " + why}, f.deliveryRows(strict))
}

// withoutHook drops the webhook's row, whose last reply is the receiver's.
func withoutHook(rows []string, hook string) []string {
	var out []string
	for _, r := range rows {
		if !strings.HasPrefix(r, hook) {
			out = append(out, r)
		}
	}
	return out
}
