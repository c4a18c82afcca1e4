package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/schedule"
)

func TestGenerateNow(t *testing.T) {
	f := setup(t)
	store := f.store
	org := f.Org("acme", config("Asia/Tokyo", "09:00"))
	other := f.Org("other", "")
	now := utc("2026-03-10T16:00:00Z") // 2026-03-11 01:00 in Tokyo, before the schedule time

	b, err := store.GenerateNow(f.Ctx, org, now, admin)
	require.NoError(t, err)
	require.Equal(t, date("2026-03-11"), b.Date)
	require.Equal(t, "Asia/Tokyo", b.Timezone)
	require.Equal(t, briefing.TriggerManual, b.Trigger)
	require.Equal(t, briefing.StatusPending, b.Status)
	require.True(t, b.FiredAt.Equal(now))
	require.True(t, b.ScheduledAt.IsZero(), "a look is not the scheduled firing")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'
		AND (args->>'briefing_id')::bigint = $1 AND (args->>'org_id')::bigint = $2 AND NOT (args->>'deliver')::bool`, b.ID, org))

	// Pending, ready or failed alike: pressing again asks for a new revision.
	_, err = store.GenerateNow(f.Ctx, org, now.Add(time.Minute), admin)
	require.NoError(t, err)
	f.runOnce(now.Add(time.Minute)) // both jobs: revision 2 first or last, the newest wins
	b, err = store.Get(f.Ctx, org, date("2026-03-11"))
	require.NoError(t, err)
	require.Equal(t, briefing.StatusReady, b.Status)
	require.Equal(t, 2, b.Revision)

	// Failed: it keeps its date and zone when the config has changed since.
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_briefings SET status = 'failed', last_error = 'boom' WHERE id = $1`, b.ID)
	require.NoError(t, err)
	f.SetConfig(org, config("America/Los_Angeles", "09:00"))
	later := utc("2026-03-11T14:00:00Z") // 2026-03-11 07:00 in Los Angeles
	retried, err := store.GenerateNow(f.Ctx, org, later, admin)
	require.NoError(t, err)
	require.Equal(t, b.ID, retried.ID)
	require.Equal(t, briefing.StatusPending, retried.Status)
	require.Equal(t, "Asia/Tokyo", retried.Timezone)
	require.Empty(t, retried.LastError)
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.generate'`, org))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.generate' AND old_value->>'status' = 'failed'`, org))

	// Another org can't read it, its revisions or its runs.
	_, err = store.Get(f.Ctx, other, date("2026-03-11"))
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	runs, err := store.Runs(f.Ctx, other, b.ID)
	require.NoError(t, err)
	require.Empty(t, runs)
	revs, err := store.Revisions(f.Ctx, other, b.ID)
	require.NoError(t, err)
	require.Empty(t, revs)
	list, err := store.List(f.Ctx, other, schedule.Date{}, schedule.Date{})
	require.NoError(t, err)
	require.Empty(t, list)
	list, err = store.List(f.Ctx, org, date("2026-03-01"), date("2026-03-31"))
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Nil(t, list[0].Content, "lists carry status only; Get reads the snapshot")
}
