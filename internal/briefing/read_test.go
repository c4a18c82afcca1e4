package briefing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/schedule"
)

func TestGenerateNow(t *testing.T) {
	f := setup(t)
	store := f.store
	org := f.org("acme", config("Asia/Tokyo", "09:00"))
	other := f.org("other", "")
	now := utc("2026-03-10T16:00:00Z") // 2026-03-11 01:00 in Tokyo, before the schedule time

	b, err := store.GenerateNow(f.ctx, org, now, admin)
	require.NoError(t, err)
	require.Equal(t, date("2026-03-11"), b.Date)
	require.Equal(t, "Asia/Tokyo", b.Timezone)
	require.Equal(t, TriggerManual, b.Trigger)
	require.Equal(t, StatusPending, b.Status)
	require.True(t, b.FiredAt.Equal(now))
	require.True(t, b.ScheduledAt.IsZero(), "a look is not the scheduled firing")
	require.Equal(t, 1, f.count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'
		AND (args->>'briefing_id')::bigint = $1 AND (args->>'org_id')::bigint = $2 AND NOT (args->>'deliver')::bool`, b.ID, org))

	// Pending, ready or failed alike: pressing again asks for a new revision.
	_, err = store.GenerateNow(f.ctx, org, now.Add(time.Minute), admin)
	require.NoError(t, err)
	f.runOnce(now.Add(time.Minute)) // both jobs: revision 2 first or last, the newest wins
	b, err = store.Get(f.ctx, org, date("2026-03-11"))
	require.NoError(t, err)
	require.Equal(t, StatusReady, b.Status)
	require.Equal(t, 2, b.Revision)

	// Failed: it keeps its date and zone when the config has changed since.
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
	require.Equal(t, 3, f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.generate'`, org))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.generate' AND old_value->>'status' = 'failed'`, org))

	// Another org can't read it, its revisions or its runs.
	_, err = store.Get(f.ctx, other, date("2026-03-11"))
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	runs, err := store.Runs(f.ctx, other, b.ID)
	require.NoError(t, err)
	require.Empty(t, runs)
	revs, err := store.Revisions(f.ctx, other, b.ID)
	require.NoError(t, err)
	require.Empty(t, revs)
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
	store := f.store
	now := utc("2026-03-10T16:00:00Z")
	actor := audit.Actor{Email: "admin@example.com"}

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
