package worker

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

// BenchmarkDeliveryBurst fires BENCH_DELIVERY_ORGS orgs (default 10,000; 0
// skips it) in the same minute, each with one dispatcher's email to the
// in-process SMTP sink and one webhook to a local receiver answering 204,
// and times real River workers from the tick until every delivery is sent.
// In the same run it times the tick until every briefing is ready, the
// baseline: generation jobs come first in River's queue (older), so that is
// about what generation alone takes. Each iteration gets a fresh database.
//
//	BENCH_DELIVERY_ORGS=10000 go test -run '^$' -bench BenchmarkDeliveryBurst -benchtime 1x ./internal/worker/
func BenchmarkDeliveryBurst(b *testing.B) {
	orgs := 10_000
	if v := os.Getenv("BENCH_DELIVERY_ORGS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err, "BENCH_DELIVERY_ORGS")
		orgs = n
	}
	if orgs <= 0 {
		b.Skip("BENCH_DELIVERY_ORGS=0")
	}
	for _, concurrency := range []int{8, 16} {
		b.Run(fmt.Sprintf("orgs=%d/concurrency=%d", orgs, concurrency), func(b *testing.B) {
			var tick, ready, sent time.Duration
			for range b.N {
				b.StopTimer()
				burst := newDeliveryBurst(b, orgs, concurrency)
				b.StartTimer()
				t, r, s := burst.run(b)
				tick, ready, sent = tick+t, ready+r, sent+s
			}
			n := float64(b.N)
			b.ReportMetric(tick.Seconds()/n, "tick-s")
			b.ReportMetric(ready.Seconds()/n, "ready-s")
			b.ReportMetric(sent.Seconds()/n, "delivered-s")
			b.ReportMetric(float64(2*orgs)*n/sent.Seconds(), "deliveries/s")
			b.ReportMetric(float64(orgs)*n/ready.Seconds(), "briefings/s")
			b.ReportMetric(float64(sent)/float64(ready), "delivered/ready")
		})
	}
}

// deliveryBurst is one iteration's database, sinks and worker.
type deliveryBurst struct {
	orgs  int
	now   time.Time
	poll  *pgx.Conn // apart from the worker's pool, so polling takes none of its connections
	sink  *transporttest.SMTPServer
	hooks *atomic.Int64
	w     *Worker
}

func newDeliveryBurst(b *testing.B, orgs, concurrency int) *deliveryBurst {
	ctx := b.Context()
	url := testdb.URL(b)
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(b, err)
	cfg.MaxConns = int32(concurrency) + 5 // as cmd/worker sizes its pool
	db, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(b, err)
	b.Cleanup(db.Close)
	poll, err := pgx.Connect(ctx, url)
	require.NoError(b, err)
	b.Cleanup(func() { _ = poll.Close(ctx) })

	sink := transporttest.NewSMTPServer(b)
	var hooks atomic.Int64
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hooks.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(hook.Close)

	start := time.Now()
	_, err = db.Exec(ctx, `INSERT INTO orgs (id, slug, name) SELECT g, 'org-' || g, 'Org ' || g FROM generate_series(1, $1::int) g`, orgs)
	require.NoError(b, err)
	_, err = db.Exec(ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json)
		SELECT g, 'fieldforce', jsonb_build_object(
		         'briefing', jsonb_build_object('timezone', 'Etc/UTC', 'schedule_local_time', '07:00'),
		         'delivery', jsonb_build_object(
		             'email', jsonb_build_object('to', jsonb_build_array('dispatch-' || g || '@bench.test')),
		             'webhook', jsonb_build_object('url', $2::text || '/hook/' || g)))
		  FROM generate_series(1, $1::int) g`, orgs, hook.URL)
	require.NoError(b, err)
	_, err = db.Exec(ctx, `ANALYZE`)
	require.NoError(b, err)
	b.Logf("seeded %d orgs in %v", orgs, time.Since(start))

	mailer, err := transport.NewMailer(sink.URL, db)
	require.NoError(b, err)
	now := time.Date(2026, 3, 10, 7, 0, 0, 0, time.UTC)
	w := &Worker{DB: db, Log: slog.New(slog.DiscardHandler), Concurrency: concurrency,
		// The worker's own minute ticks run at the same instant: nothing more is due.
		Now: func() time.Time { return now },
		Sender: &delivery.Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: "https://app.fieldbrief.test",
			Webhooks: &transport.WebhookClient{AllowPrivate: true}}}
	return &deliveryBurst{orgs: orgs, now: now, poll: poll, sink: sink, hooks: &hooks, w: w}
}

// run starts the worker, ticks, and waits until every briefing is ready and
// every delivery sent, measured from the tick's start.
func (d *deliveryBurst) run(b *testing.B) (tick, ready, sent time.Duration) {
	ctx := b.Context()
	require.NoError(b, d.w.Start(ctx))
	defer func() { require.NoError(b, d.w.Stop(ctx)) }()

	start := time.Now()
	res, err := d.w.ticker.Tick(ctx, d.now)
	require.NoError(b, err)
	tick = time.Since(start)
	require.Equal(b, d.orgs, res.Enqueued)

	deadline := start.Add(30 * time.Minute)
	for ready == 0 || sent == 0 {
		var nReady, nSent, nFailed int
		err := d.poll.QueryRow(ctx, `
			SELECT (SELECT count(*) FROM ff_briefings WHERE status = 'ready'),
			       count(*) FILTER (WHERE state = 'sent'), count(*) FILTER (WHERE state = 'failed')
			  FROM ff_deliveries`).Scan(&nReady, &nSent, &nFailed)
		require.NoError(b, err)
		require.Zero(b, nFailed, "failed deliveries")
		if ready == 0 && nReady == d.orgs {
			ready = time.Since(start)
		}
		if sent == 0 && nSent == 2*d.orgs {
			sent = time.Since(start)
		}
		require.True(b, time.Now().Before(deadline), "after %v: %d briefings ready, %d deliveries sent", time.Since(start), nReady, nSent)
		time.Sleep(50 * time.Millisecond)
	}
	require.Len(b, d.sink.Messages(), d.orgs)
	require.EqualValues(b, d.orgs, d.hooks.Load())
	return tick, ready, sent
}
