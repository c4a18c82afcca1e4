package briefing

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
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
func (f *fixture) terminate() int {
	f.t.Helper()
	// In the select list, so it runs only on the rows the WHERE kept.
	return f.count(`SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'victim'`)
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
	require.Equal(t, 2, f.terminate())

	tk := &Ticker{DB: db, Jobs: f.store.Jobs, Log: slog.New(slog.DiscardHandler), WaitLock: true}
	res, err := tk.Tick(f.ctx, utc("2026-03-10T09:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, 3, res.Enqueued)
	require.Len(t, res.BriefingIDs, 3)
	require.Equal(t, 3, f.count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
}

// TestRunOnceSurvivesTerminatedConnections: the worker's connections are
// terminated again and again while -once runs; it still succeeds, and every
// due briefing is ready, exactly once.
func TestRunOnceSurvivesTerminatedConnections(t *testing.T) {
	f := setup(t)
	const orgs = 20
	for i := range orgs {
		f.org(string(rune('a'+i)), config("Etc/UTC", "08:00"))
	}
	db := f.victimPool(10)
	w := &Worker{DB: db, Log: slog.New(slog.DiscardHandler)}

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 15 {
			select {
			case <-done:
				return
			case <-time.After(30 * time.Millisecond):
			}
			f.terminate()
		}
	})
	res, err := w.RunOnce(f.ctx, utc("2026-03-10T09:00:00Z"), 2*time.Minute)
	close(done)
	wg.Wait()
	require.NoError(t, err)
	require.Equal(t, orgs, res.Tick.Enqueued)
	require.Empty(t, res.Pending)
	require.Equal(t, orgs, f.count(`SELECT count(*) FROM ff_briefings WHERE status = 'ready'`))
	require.Equal(t, orgs, f.count(`SELECT count(DISTINCT org_id) FROM ff_briefings`))
	require.Equal(t, orgs, f.count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
}
