package briefing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/delivery/deliverytest"
)

// victimPool is a second pool on the test database whose connections carry
// an application_name, so the test can terminate them and only them.
func (f *fixture) victimPool(maxConns int32) *pgxpool.Pool {
	f.t.Helper()
	cfg, err := pgxpool.ParseConfig(f.db.Config().ConnString())
	require.NoError(f.t, err)
	cfg.ConnConfig.RuntimeParams["application_name"] = "victim"
	cfg.MaxConns = maxConns
	db, err := pgxpool.NewWithConfig(f.ctx, cfg)
	require.NoError(f.t, err)
	f.t.Cleanup(db.Close)
	return db
}

// terminate ends every backend of the victim pool, as an operator's
// pg_terminate_backend would, and returns how many it ended.
func (f *fixture) terminate(ctx context.Context) int {
	f.t.Helper()
	var n int
	// In the select list, so it runs only on the rows the WHERE kept.
	err := f.db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'victim'`).Scan(&n)
	if ctx.Err() == nil {
		require.NoError(f.t, err)
	}
	return n
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true}, // admin_shutdown: pg_terminate_backend
		{&pgconn.PgError{Code: "57P02"}, true},
		{&pgconn.PgError{Code: "57P03"}, true}, // cannot_connect_now: starting up
		{&pgconn.PgError{Code: "08006"}, true},
		{fmt.Errorf("tick: %w", &pgconn.PgError{Code: "08000"}), true},
		{io.EOF, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{&pgconn.ConnectError{}, true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique_violation: the statement, not the connection
		{&pgconn.PgError{Code: "40001"}, false},
		{&pgconn.PgError{Code: "57014"}, false}, // query_canceled
		{context.Canceled, false},
		{errors.New("boom"), false},
	} {
		require.Equal(t, tc.want, transient(tc.err), "%v", tc.err)
	}
}

// TestTickRetriesTerminatedConnection: every connection the tick is about to
// use was terminated (SQLSTATE 57P01); the tick retries with a fresh one and
// fires every due briefing once.
func TestTickRetriesTerminatedConnection(t *testing.T) {
	f := setup(t)
	for _, slug := range []string{"a", "b", "c"} {
		f.org(slug, config("Etc/UTC", "08:00"))
	}
	db := f.victimPool(2)
	// Two connections used just now: the pool hands them out without a ping.
	c1, err := db.Acquire(f.ctx)
	require.NoError(t, err)
	c2, err := db.Acquire(f.ctx)
	require.NoError(t, err)
	c1.Release()
	c2.Release()
	require.Equal(t, 2, f.terminate(f.ctx))

	tk := &Ticker{DB: db, Jobs: f.store.Jobs, Log: slog.New(slog.DiscardHandler), WaitLock: true}
	res, err := tk.Tick(f.ctx, utc("2026-03-10T09:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, 3, res.Enqueued)
	require.Len(t, res.BriefingIDs, 3)
	require.Equal(t, 3, f.count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
}

// TestTickGivesUpOnDatabaseAway: a database that stays away is an
// infrastructure failure, after the retries, within the caller's time.
func TestTickGivesUpOnDatabaseAway(t *testing.T) {
	t.Parallel()
	// Nothing listens there: every connection attempt is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	db, err := pgxpool.New(t.Context(), "postgres://postgres@"+addr+"/none?sslmode=disable&connect_timeout=2")
	require.NoError(t, err)
	t.Cleanup(db.Close)
	var logs syncBuffer
	tk := &Ticker{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second) // the caller's bound, shorter than retryBudget
	defer cancel()
	_, err = tk.Tick(ctx, utc("2026-03-10T09:00:00Z"))
	require.Error(t, err)
	require.True(t, transient(err), "%v", err)
	require.Contains(t, logs.String(), "database connection lost, retrying")
}

// TestRunOnceSurvivesTerminatedConnections: the worker's connections are
// terminated again and again while -once runs, through the tick, the
// generations and the emails — once while every email is in the hands of
// the SMTP server (held), so its record dies with the connection after the
// message left; -once still succeeds, every due briefing is generated
// exactly once, and every email arrives exactly once.
func TestRunOnceSurvivesTerminatedConnections(t *testing.T) {
	f := setup(t)
	sink := deliverytest.NewSMTPServer(t)
	sink.Hold()
	const orgs, concurrency = 12, 4
	for i := range orgs {
		slug := fmt.Sprintf("org%d", i)
		f.org(slug, deliveryConfig("Etc/UTC", "08:00", []string{"dispatch@" + slug + ".test"}, false, ""))
	}
	db := f.victimPool(10)
	mailer, err := delivery.NewMailer(sink.URL, db)
	require.NoError(t, err)
	var logs syncBuffer
	w := &Worker{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil)), Concurrency: concurrency,
		Sender: &Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: "https://app.fieldbrief.test"}}

	// Bounded whatever happens: a job a lost connection leaves running is
	// rescued within rescueWithin, so even that path ends well before.
	ctx, cancel := context.WithTimeout(f.ctx, rescueWithin+2*time.Minute)
	defer cancel()
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
				heldKills = f.terminate(ctx)
				sink.Release()
			}
			if i < 40 {
				kills += f.terminate(ctx)
			}
		}
	})
	res, err := w.RunOnce(ctx, utc("2026-03-10T09:00:00Z"), 2*time.Minute)
	close(done)
	wg.Wait()
	require.NoError(t, err, logs.String())
	require.NotZero(t, kills)
	require.NotZero(t, heldKills, "terminated while the emails were held")
	t.Logf("%d connections terminated, %d of them while the emails were held", kills+heldKills, heldKills)
	require.Equal(t, orgs, res.Tick.Enqueued)
	require.Empty(t, res.Pending, "%+v", res.Waiting)
	require.True(t, res.Done())
	require.Equal(t, orgs, f.count(`SELECT count(*) FROM ff_briefings WHERE status = 'ready'`))
	require.Equal(t, orgs, f.count(`SELECT count(*) FROM ff_briefing_revisions`))
	require.Equal(t, orgs, f.count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
	require.Equal(t, orgs, f.count(`SELECT count(*) FROM ff_deliveries WHERE state = 'sent'`))
	received := map[string]int{}
	for _, m := range sink.Messages() {
		received[strings.Join(m.To, ",")]++
	}
	require.Len(t, received, orgs)
	for to, n := range received {
		require.Equal(t, 1, n, to)
	}
}

// TestRunOnceWaitsForRescue: a job a killed worker left running long ago
// (its client gone, its attempt older than rescueWithin) is waited for:
// River's rescuer takes it back, -once works it, and nothing is pending.
func TestRunOnceWaitsForRescue(t *testing.T) {
	f := setup(t)
	org := f.org("acme", config("Etc/UTC", "08:00"))
	now := utc("2026-03-10T09:00:00Z")
	b := f.briefing(org, "2026-03-10", "Etc/UTC", true, now) // fired by the killed worker's tick
	_, err := f.store.Jobs.Insert(f.ctx, GenerateBriefingArgs{OrgID: org, BriefingID: b, Revision: 1, Trigger: TriggerSchedule}, nil)
	require.NoError(t, err)
	_, err = f.db.Exec(f.ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 hour', attempted_by = '{killed-host}'`)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
	defer cancel()
	res, err := f.worker(nil).RunOnce(ctx, now, 5*time.Second)
	require.NoError(t, err)
	require.Zero(t, res.Tick.Enqueued, "the killed worker fired it already")
	require.Empty(t, res.Pending, "%+v", res.Waiting)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM ff_briefings WHERE id = $1 AND status = 'ready'`, b))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM river_job WHERE state = 'completed' AND attempt = 2`))
}

// TestRunOnceReportsJobLeftRunning: a job a worker killed just now left
// running is rescued only later than -wait: -once does not wait for it,
// and does not call its run clean either: the job is pending, named with
// what it waits for.
func TestRunOnceReportsJobLeftRunning(t *testing.T) {
	f := setup(t)
	org := f.org("acme", config("Etc/UTC", "08:00"))
	now := utc("2026-03-10T09:00:00Z")
	b := f.briefing(org, "2026-03-10", "Etc/UTC", true, now)
	job, err := f.store.Jobs.Insert(f.ctx, GenerateBriefingArgs{OrgID: org, BriefingID: b, Revision: 1, Trigger: TriggerSchedule}, nil)
	require.NoError(t, err)
	_, err = f.db.Exec(f.ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = '{killed-host}'`)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(f.ctx, time.Minute)
	defer cancel()
	res, err := f.worker(nil).RunOnce(ctx, now, 5*time.Second)
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
	org := f.org("acme", config("Etc/UTC", "08:00", lower3(time.Now().UTC().AddDate(0, 0, 3).Weekday())))
	db := f.victimPool(10)
	var logs syncBuffer
	w := &Worker{DB: db, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
	defer cancel()
	require.NoError(t, w.Start(ctx))

	kills := 0
	for i := range 30 {
		require.NoError(t, sleep(ctx, time.Duration(5+i%4*10)*time.Millisecond))
		kills += f.terminate(ctx)
	}
	require.NotZero(t, kills)
	b, err := f.store.GenerateNow(ctx, org, time.Now(), admin)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := f.store.Get(ctx, org, b.Date)
		return err == nil && got.Status == StatusReady
	}, time.Minute, 50*time.Millisecond, "logs: %s", &logs)

	stopCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	require.NoError(t, w.Stop(stopCtx))
}
