package briefing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/orgs"
	"fieldbrief/internal/schedule"
)

func TestGenerateNow(t *testing.T) {
	f := setup(t)
	store := &Store{DB: f.db}
	org := f.org("acme", config("Asia/Tokyo", "09:00"))
	other := f.org("other", config("Etc/UTC", "09:00"))
	admin := orgs.Actor{UserID: 0, Email: "admin@example.com"}
	now := utc("2026-03-10T16:00:00Z") // 2026-03-11 01:00 in Tokyo, before the schedule time

	b, err := store.GenerateNow(f.ctx, org, now, admin)
	require.NoError(t, err)
	require.Equal(t, date("2026-03-11"), b.Date)
	require.Equal(t, "Asia/Tokyo", b.Timezone)
	require.Equal(t, TriggerManual, b.Trigger)
	require.Equal(t, StatusPending, b.Status)
	require.True(t, b.FiredAt.Equal(now))

	// Pending, then ready: no second briefing for the date.
	_, err = store.GenerateNow(f.ctx, org, now.Add(time.Minute), admin)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	require.Contains(t, apperr.Message(err), "already generated for 2026-03-11")
	// Nor does the tick add one later that day.
	require.Zero(t, f.tick(utc("2026-03-11T00:00:00Z")).Enqueued)

	c := &clock{now: now}
	require.NoError(t, f.runner(c, "w").Wait(f.ctx, f.openJobs()))
	_, err = store.GenerateNow(f.ctx, org, now.Add(time.Minute), admin)
	require.Equal(t, apperr.Conflict, apperr.Code(err))

	// Failed: "generate now" retries it, keeping its date and zone.
	_, err = f.db.Exec(f.ctx, `UPDATE ff_briefings SET status = 'failed', last_error = 'boom' WHERE id = $1`, b.ID)
	require.NoError(t, err)
	f.setConfig(org, config("America/Los_Angeles", "09:00"))
	later := utc("2026-03-11T14:00:00Z") // 2026-03-11 07:00 in Los Angeles
	retried, err := store.GenerateNow(f.ctx, org, later, admin)
	require.NoError(t, err)
	require.Equal(t, b.ID, retried.ID)
	require.Equal(t, StatusPending, retried.Status)
	require.Equal(t, "Asia/Tokyo", retried.Timezone)
	require.Empty(t, retried.LastError)
	runs, err := store.Runs(f.ctx, org, b.ID)
	require.NoError(t, err)
	require.Len(t, runs, 2)
	require.Equal(t, JobCompleted, runs[0].State)
	require.Equal(t, JobAvailable, runs[1].State)

	require.Equal(t, 2, f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action IN ('briefing.generate', 'briefing.retry')`, org))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.retry' AND old_value->>'status' = 'failed'`, org))

	// Another org can't read or retry it.
	_, err = store.Get(f.ctx, other, date("2026-03-11"))
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = store.Runs(f.ctx, other, b.ID)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	list, err := store.List(f.ctx, other, schedule.Date{}, schedule.Date{})
	require.NoError(t, err)
	require.Empty(t, list)
	list, err = store.List(f.ctx, org, date("2026-03-01"), date("2026-03-31"))
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Nil(t, list[0].Content, "lists carry status only; Get reads the snapshot")
}

func TestGenerateNowRefused(t *testing.T) {
	f := setup(t)
	store := &Store{DB: f.db}
	now := utc("2026-03-10T16:00:00Z")
	actor := orgs.Actor{Email: "admin@example.com"}

	switchedOff := f.org("off", config("Etc/UTC", "09:00"))
	f.orgFlag(switchedOff, false)
	_, err := store.GenerateNow(f.ctx, switchedOff, now, actor)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	require.Contains(t, apperr.Message(err), "switched off")

	invalid := f.org("invalid", config("Mars/Olympus_Mons", "09:00"))
	_, err = store.GenerateNow(f.ctx, invalid, now, actor)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	require.Contains(t, apperr.Message(err), "Mars/Olympus_Mons")

	unconfigured := f.org("unconfigured", "")
	_, err = store.GenerateNow(f.ctx, unconfigured, now, actor)
	require.Equal(t, apperr.Invalid, apperr.Code(err))

	require.Zero(t, f.count(`SELECT count(*) FROM ff_briefings`))
	require.Zero(t, f.count(`SELECT count(*) FROM audit_log WHERE action LIKE 'briefing.%'`))
}

func (f *fixture) openJobs() []int64 {
	f.t.Helper()
	rows, err := f.db.Query(f.ctx, `SELECT id FROM ff_briefing_jobs WHERE state IN ('available', 'running')`)
	require.NoError(f.t, err)
	var ids []int64
	for rows.Next() {
		var id int64
		require.NoError(f.t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(f.t, rows.Err())
	return ids
}
