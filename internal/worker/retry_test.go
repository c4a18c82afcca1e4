package worker

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

// TestRunOnceSurvivesTerminatedConnections: the worker's connections are
// terminated again and again while -once runs, through the tick, the
// generations and the emails — once while every email is in the hands of
// the SMTP server (held), so its record dies with the connection after the
// message left; -once still succeeds, every due briefing is generated
// exactly once, and every email arrives exactly once.
func TestRunOnceSurvivesTerminatedConnections(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	sink.Hold()
	const orgs, concurrency = 12, 4
	for i := range orgs {
		slug := fmt.Sprintf("org%d", i)
		f.Org(slug, deliveryConfig("Etc/UTC", "08:00", []string{"dispatch@" + slug + ".test"}, false, ""))
	}
	db := f.VictimPool(10)
	mailer, err := transport.NewMailer(sink.URL, db)
	require.NoError(t, err)
	var logs syncBuffer
	w := &Worker{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil)), Concurrency: concurrency,
		Sender: &delivery.Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: "https://app.fieldbrief.test"}}

	// Bounded whatever happens: a job a lost connection leaves running is
	// rescued within rescueWithin, and the wait below outlasts it.
	ctx := f.Ctx
	done := make(chan struct{})
	var wg sync.WaitGroup
	var kills, heldKills int
	wg.Go(func() {
		defer sink.Release()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(5+i%4*10) * time.Millisecond):
			}
			if sink.Attempts() >= concurrency && heldKills == 0 {
				// Every job slot holds an email the server has not answered,
				// inside the transaction that will record it.
				heldKills = f.Terminate(ctx)
				sink.Release()
			}
			if i < 40 {
				kills += f.Terminate(ctx)
			}
		}
	})
	res, err := w.RunOnce(ctx, utc("2026-03-10T09:00:00Z"), rescueWithin+settle)
	close(done)
	wg.Wait()
	require.NoError(t, err, logs.String())
	require.NotZero(t, kills)
	require.NotZero(t, heldKills, "terminated while the emails were held")
	t.Logf("%d connections terminated, %d of them while the emails were held", kills+heldKills, heldKills)
	require.Equal(t, orgs, res.Tick.Enqueued)
	require.Empty(t, res.Pending, "%+v", res.Waiting)
	require.True(t, res.Done())
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_briefings WHERE status = 'ready'`))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_briefing_revisions`))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`))
	sink.RequireOneEach(t, orgs)
}

// TestRunOnceWaitsForRescue: a job a killed worker left running long ago
// (its client gone, its attempt older than rescueWithin) is waited for:
// River's rescuer takes it back, -once works it, and nothing is pending.
func TestRunOnceWaitsForRescue(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "08:00"))
	now := utc("2026-03-10T09:00:00Z")
	b := f.Briefing(org, "2026-03-10", "Etc/UTC", true, now) // fired by the killed worker's tick
	f.insertTask(briefing.GenerateBriefingArgs{OrgID: org, BriefingID: b, Revision: 1, Trigger: briefing.TriggerSchedule})
	_, err := f.DB.Exec(f.Ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 hour', attempted_by = '{killed-host}'`)
	require.NoError(t, err)

	// The wait bounds a slow machine: the rescue is due now, and RunOnce
	// returns when the job is done.
	res, err := f.worker(nil).RunOnce(f.Ctx, now, settle)
	require.NoError(t, err)
	require.Zero(t, res.Tick.Enqueued, "the killed worker fired it already")
	require.Empty(t, res.Pending, "%+v", res.Waiting)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE id = $1 AND status = 'ready'`, b))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE state = 'completed' AND attempt = 2`))
}

// TestRunOnceReportsJobLeftRunning: a job a worker killed just now left
// running is rescued only later than -wait: -once does not wait for it,
// and does not call its run clean either: the job is pending, named with
// what it waits for.
func TestRunOnceReportsJobLeftRunning(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "08:00"))
	now := utc("2026-03-10T09:00:00Z")
	b := f.Briefing(org, "2026-03-10", "Etc/UTC", true, now)
	job := f.insertTask(briefing.GenerateBriefingArgs{OrgID: org, BriefingID: b, Revision: 1, Trigger: briefing.TriggerSchedule})
	_, err := f.DB.Exec(f.Ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = '{killed-host}'`)
	require.NoError(t, err)

	res, err := f.worker(nil).RunOnce(f.Ctx, now, 5*time.Second)
	require.NoError(t, err)
	require.False(t, res.Done())
	require.False(t, res.Stalled)
	require.Equal(t, map[string]int{"generate_briefing/running": 1}, res.Pending)
	require.Len(t, res.Waiting, 1)
	require.Equal(t, job.Job.ID, res.Waiting[0].ID)
	require.Equal(t, b, res.Waiting[0].BriefingID)
	require.Equal(t, "rescue", res.Waiting[0].WaitsFor)
	require.True(t, res.Waiting[0].Until.After(time.Now().Add(5*time.Second)), "its rescue is beyond -wait")
}

// TestWorkerSurvivesTerminatedConnections: the long-running worker's
// connections are terminated again and again; it keeps running (River
// retries its own loops), works what is asked of it afterwards, and stops
// cleanly.
func TestWorkerSurvivesTerminatedConnections(t *testing.T) {
	f := setup(t)
	// Not scheduled today: the worker's real-clock ticks add nothing.
	org := f.Org("acme", config("Etc/UTC", "08:00", strings.ToLower(time.Now().UTC().AddDate(0, 0, 3).Weekday().String()[:3])))
	db := f.VictimPool(10)
	var logs syncBuffer
	w := &Worker{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx := f.Ctx
	require.NoError(t, w.Start(ctx))

	kills := 0
	for i := range 30 {
		require.NoError(t, sleep(ctx, time.Duration(5+i%4*10)*time.Millisecond))
		kills += f.Terminate(ctx)
	}
	require.NotZero(t, kills)
	b, err := f.store.GenerateNow(ctx, org, time.Now(), admin)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := f.store.Get(ctx, org, b.Date)
		return err == nil && got.Status == briefing.StatusReady
	}, settle, 50*time.Millisecond, "logs: %s", &logs)

	require.NoError(t, w.Stop(ctx))
}
