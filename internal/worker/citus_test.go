//go:build citus

package worker

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport/transporttest"
)

// TestCitusBriefingPipeline runs the tick, generation and delivery on a
// real Citus cluster (docs/scaling.md, step 4): a scheduled briefing on
// New York's spring-forward day mailed to a dispatcher and two
// technicians and posted to a webhook, a briefing fired late (kept, not
// sent), and an update after sending. One distributed database; each
// step's org is switched off when its step is done, so the next step's
// ticks see only their own.
func TestCitusBriefingPipeline(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	pool, err := pgxpool.New(context.Background(), c.DistributedDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	on := func(t *testing.T) *fixture {
		f := &testutil.Fixture{T: t, Ctx: t.Context(), DB: pool}
		store, err := briefing.NewStore(pool)
		require.NoError(t, err)
		deliveries, err := delivery.NewStore(pool)
		require.NoError(t, err)
		return &fixture{Fixture: f, store: store, deliveries: deliveries}
	}
	off := func(f *fixture, org int64) {
		_, err := pool.Exec(f.Ctx, `INSERT INTO org_feature_flags (org_id, key, is_enabled) VALUES ($1, 'fieldforce.briefing', false)`, org)
		require.NoError(f.T, err)
	}

	t.Run("scheduled on a DST day, email and webhook", func(t *testing.T) {
		f := on(t)
		sink := transporttest.NewSMTPServer(t)
		hook, calls := countingHook(t)
		// 2026-03-08 is the spring-forward day in New York.
		org := f.Org("northwind", deliveryConfig("America/New_York", "06:45", []string{"dispatch@northwind.test"}, true, hook))
		defer off(f, org)
		ana := f.techWithEmail(org, "Ana", "ana@northwind.test")
		ben := f.techWithEmail(org, "Ben", "ben@northwind.test")
		f.Job(org, ana, "Ana's customer", utc("2026-03-08T13:00:00Z"), utc("2026-03-08T15:00:00Z"), "scheduled")
		f.Job(org, ben, "Ben's customer", utc("2026-03-08T06:30:00Z"), utc("2026-03-08T07:30:00Z"), "scheduled")

		// 06:40 EDT: not yet; 07:00 EDT: due, once.
		res := f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-08T10:40:00Z"))
		require.Zero(t, res.Tick.Enqueued)
		res = f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-08T11:00:00Z"))
		require.Equal(t, 1, res.Tick.Enqueued)
		require.Empty(t, res.Pending)
		msgs := sink.Messages()
		require.Len(t, msgs, 3)
		text, _, err := msgs[0].Bodies()
		require.NoError(t, err)
		require.Contains(t, text, "EDT")
		require.Equal(t, int32(1), calls.Load())
		for _, to := range []string{"dispatch@northwind.test", "ana@northwind.test", "ben@northwind.test", hook} {
			require.Equal(t, "sent/1", f.deliveryStates(org)[to], to)
		}
		b, err := f.store.Get(f.Ctx, org, date("2026-03-08"))
		require.NoError(t, err)
		require.Equal(t, "ready", b.Status)

		// The next minutes fire nothing more, and the generation run again
		// (River's rescuer may) sends nothing more.
		res = f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-08T11:01:00Z"))
		require.Zero(t, res.Tick.Enqueued)
		f.insertTask(briefing.GenerateBriefingArgs{OrgID: org, BriefingID: b.ID, Revision: 1, Trigger: briefing.TriggerSchedule, Deliver: true})
		f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-08T11:02:00Z"))
		require.Len(t, sink.Messages(), 3)
		require.Equal(t, int32(1), calls.Load())
		require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1`, org))
	})

	t.Run("fired late: kept, not sent", func(t *testing.T) {
		f := on(t)
		sink := transporttest.NewSMTPServer(t)
		hook, calls := countingHook(t)
		org := f.lateOrg("austin", hook, "")
		defer off(f, org)
		res := f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-11-26T03:35:00Z")) // Wed 21:35 CST
		require.Equal(t, 1, res.Tick.Enqueued)
		require.Empty(t, res.Pending)
		const why = "late made 21:35, 15 h after 06:30 — not sent 0"
		require.Equal(t, []string{
			"ana@austin.test skipped " + why,
			"dispatch@austin.test skipped " + why,
			hook + " skipped " + why,
		}, f.deliveryRows(org))
		require.Empty(t, sink.Messages())
		require.Zero(t, calls.Load())

		f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-11-26T12:30:00Z")) // Thu 06:30: on time
		require.Len(t, sink.Messages(), 2)
		require.Equal(t, int32(1), calls.Load())
	})

	t.Run("update after sending", func(t *testing.T) {
		f := on(t)
		d := f.sentDay("reassign", nil)
		defer off(f, d.org)
		_, err := d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
		require.NoError(t, err)
		require.Equal(t, 2, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1 AND update_id IS NULL`, d.org),
			"one change for each of the two technicians")
		d.run()
		for _, e := range f.Strings(`SELECT kind || ' ' || state || ' ' || coalesce(errors::text, '') FROM river_job WHERE state <> 'completed'`) {
			t.Log("task:", e)
		}
		subjects, texts := d.mail("ben@reassign.test")
		require.Len(t, subjects, 2)
		require.Equal(t, d.changesSubject(), subjects[1])
		require.Contains(t, texts[1], "ADDED TO YOUR DAY")
		subjects, _ = d.mail("ana@reassign.test")
		require.Len(t, subjects, 2)
		require.Equal(t, []string{"briefing.ready", "briefing.updated"}, d.hook.types())
		require.Equal(t, []string{"sent", "sent"}, f.updateOutcomes(d.org))
		d.run()
		require.Len(t, d.sink.Messages(), 4)
	})

	// Every org above had one briefing per local date and no delivery twice.
	var dup int
	require.NoError(t, pool.QueryRow(t.Context(), `
		SELECT count(*) FROM (SELECT org_id, key FROM ff_deliveries GROUP BY org_id, key HAVING count(*) > 1) d`).Scan(&dup))
	require.Zero(t, dup)
}
