package worker

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

// An org over its daily email cap gets exactly its cap, the rest recorded
// as skipped (daily cap), however many workers send at once
// (docs/delivery.md, "Daily cap"). The cap here is one email per address:
// ten (nine technicians and a dispatcher), six of them already sent
// earlier that local day, so four of the ten deliveries go out.
func TestDailyEmailCapHoldsAcrossWorkers(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("capped", deliveryConfig("Europe/Berlin", "07:00", []string{"dispatch@capped.test"}, true, ""))
	for i := range 9 {
		n := strconv.Itoa(i)
		tech := f.techWithEmail(org, "Tech "+n, "tech-"+n+"@capped.test")
		f.Job(org, tech, "Customer "+n, utc("2026-03-10T09:00:00Z"), utc("2026-03-10T10:00:00Z"), "scheduled")
	}
	other := f.Org("other", deliveryConfig("Europe/Berlin", "07:00", []string{"dispatch@other.test"}, false, ""))
	const cap, earlier = 10, 6
	_, err := f.DB.Exec(f.Ctx, `INSERT INTO org_daily_emails (org_id, local_date, emails) VALUES ($1, '2026-03-10', $2)`, org, earlier)
	require.NoError(t, err)

	now := utc("2026-03-10T06:30:00Z") // 07:30 in Berlin
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			cfg := f.DB.Config()
			cfg.MaxConns = 8
			pool, err := pgxpool.NewWithConfig(f.Ctx, cfg)
			require.NoError(t, err)
			defer pool.Close()
			w := f.deliveringWorker(sink.URL, func() time.Time { return now })
			w.DB, w.Sender.DB = pool, pool
			w.Sender.Cap = transport.DailyCap{PerAddress: 1, Min: 1}
			_, err = w.RunOnce(f.Ctx, now, time.Minute)
			require.NoError(t, err)
		})
	}
	wg.Wait()

	toCapped := 0
	for _, m := range sink.Messages() {
		if strings.HasSuffix(strings.Join(m.To, ","), "@capped.test") {
			toCapped++
		}
	}
	require.Equal(t, cap-earlier, toCapped, "exactly the cap's rest is sent")
	require.Equal(t, cap, f.Count(`SELECT emails FROM org_daily_emails WHERE org_id = $1 AND local_date = '2026-03-10'`, org))
	require.Equal(t, cap-earlier, f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1 AND state = 'sent'`, org))
	require.Equal(t, 10-(cap-earlier), f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1 AND state = 'skipped' AND last_code = $2 AND attempts = 0`,
		org, delivery.SkippedDailyCap))
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_delivery_attempts WHERE org_id = $1 AND outcome <> 'sent'`, org), "a skipped delivery is never attempted")
	require.Equal(t, "sent/1", f.deliveryStates(other)["dispatch@other.test"], "another org's count is its own")
}

// Update emails count against the same cap: an org whose day's cap is
// reached gets its updates recorded as skipped (daily cap), and its
// webhook (not counted) still hears of the change.
func TestDailyEmailCapSkipsUpdates(t *testing.T) {
	f := setup(t)
	d := f.sentDay("capupd", nil)
	require.Equal(t, 2, f.Count(`SELECT emails FROM org_daily_emails WHERE org_id = $1`, d.org), "the morning's two emails")
	_, err := f.DB.Exec(f.Ctx, `UPDATE org_daily_emails SET emails = $2 WHERE org_id = $1`, d.org, transport.DefaultDailyCap.Min)
	require.NoError(t, err)

	_, err = d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
	require.NoError(t, err)
	d.run()

	require.Len(t, d.sink.Messages(), 2, "no update email over the cap")
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM ff_deliveries WHERE org_id = $1 AND update_id IS NOT NULL AND channel = 'email'
		AND state = 'skipped' AND last_code = $2`, d.org, delivery.SkippedDailyCap))
	require.Equal(t, []string{"briefing.ready", "briefing.updated"}, d.hook.types())
	require.Equal(t, transport.DefaultDailyCap.Min, f.Count(`SELECT emails FROM org_daily_emails WHERE org_id = $1`, d.org))
}

// A cap set far above anything an org sends is no cap: the emails go out
// (a setting past the counter's range once failed every email task).
func TestDailyEmailCapSetHugeSendsEverything(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("big", deliveryConfig("Europe/Berlin", "07:00", []string{"dispatch@big.test"}, true, ""))
	tech := f.techWithEmail(org, "Tech", "tech@big.test")
	f.Job(org, tech, "Customer", utc("2026-03-10T09:00:00Z"), utc("2026-03-10T10:00:00Z"), "scheduled")
	now := utc("2026-03-10T06:30:00Z")
	w := f.deliveringWorker(sink.URL, func() time.Time { return now })
	w.Sender.Cap = transport.DailyCap{PerAddress: 1 << 30, Min: 50}
	_, err := w.RunOnce(f.Ctx, now, time.Minute)
	require.NoError(t, err)
	require.Len(t, sink.Messages(), 2, "the dispatcher's briefing and the technician's day")
}
