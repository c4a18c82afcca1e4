package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/i18n"
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

	// Pending: pressing again shows it, and queues nothing.
	g, err := store.Generate(f.Ctx, org, now.Add(time.Minute), admin)
	require.NoError(t, err)
	require.False(t, g.Queued)
	require.Equal(t, b.ID, g.ID)
	f.runOnce(now.Add(time.Minute))
	// Ready or failed alike: pressing again asks for a new revision.
	g, err = store.Generate(f.Ctx, org, now.Add(2*time.Minute), admin)
	require.NoError(t, err)
	require.True(t, g.Queued)
	f.runOnce(now.Add(2 * time.Minute))
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
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'briefing.generate'`, org),
		"the press that showed the pending one changed nothing")
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

// TestGenerateNowIsBounded: "generate now" is a look, and a bounded one.
// Ten presses while one is pending make one revision; presses across
// completed generations make one each, up to MaxRequestsPerHour an hour,
// then TooMany with the wait; a generation lost long ago does not hold the
// button back; another org is not affected.
func TestGenerateNowIsBounded(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Etc/UTC", "09:00"))
	other := f.Org("globex", config("Etc/UTC", "09:00"))
	now := utc("2026-03-10T06:00:00Z")
	for i := range 10 {
		_, err := f.store.GenerateNow(f.Ctx, org, now.Add(time.Duration(i)*time.Second), admin)
		require.NoError(t, err)
	}
	f.runOnce(now.Add(time.Minute))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefing_revisions WHERE org_id = $1`, org), "ten presses, one revision")

	for i := 2; i <= briefing.MaxRequestsPerHour; i++ {
		at := now.Add(time.Duration(i) * time.Minute)
		g, err := f.store.Generate(f.Ctx, org, at, admin)
		require.NoError(t, err)
		require.True(t, g.Queued, "generation %d", i)
		f.runOnce(at)
	}
	require.Equal(t, briefing.MaxRequestsPerHour, f.Count(`SELECT count(*) FROM ff_briefing_revisions WHERE org_id = $1`, org))
	_, err := f.store.GenerateNow(f.Ctx, org, now.Add(48*time.Minute), admin)
	require.Equal(t, apperr.TooMany, apperr.Code(err), "%v", err)
	require.Equal(t, 12*time.Minute, apperr.RetryAfter(err))
	require.Equal(t, "generate_too_many", apperr.ReasonOf(err))
	require.Contains(t, i18n.English.Message(err), "You can generate again in 12 minutes.")
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing' AND state <> 'completed'`))

	// Another org is not affected.
	g, err := f.store.Generate(f.Ctx, other, now.Add(48*time.Minute), admin)
	require.NoError(t, err)
	require.True(t, g.Queued)

	// A generation pending for longer than any retry takes was lost: the
	// next press queues another.
	_, err = f.DB.Exec(f.Ctx, `UPDATE ff_briefings SET status = 'pending', requested_revision = revision + 1 WHERE org_id = $1`, other)
	require.NoError(t, err)
	g, err = f.store.Generate(f.Ctx, other, now.Add(50*time.Minute), admin)
	require.NoError(t, err)
	require.False(t, g.Queued, "two minutes: on its way")
	g, err = f.store.Generate(f.Ctx, other, now.Add(70*time.Minute), admin)
	require.NoError(t, err)
	require.True(t, g.Queued, "twenty-two minutes: lost")
}
