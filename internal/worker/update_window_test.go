package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
)

// A change committed while the date's briefing is being made is told once:
// in the email when the generation's snapshot has it, as an update when not
// (docs/guarantees.md, "Updates after sending"). These tests order the
// change and the generation with row and advisory locks, not with time.

// runBriefly is worker -once that waits a few seconds only: an update task
// that ran while the briefing was being made snoozes a minute for its
// email, and is left pending (wakeUpdates).
func (d *sentDay) runBriefly() OnceResult {
	d.f.T.Helper()
	res, err := d.worker().RunOnce(d.f.Ctx, d.now(), 5*time.Second)
	require.NoError(d.f.T, err)
	return res
}

// runBrieflyAsync is runBriefly in a goroutine of its own; its error comes
// on the channel.
func (d *sentDay) runBrieflyAsync() <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := d.worker().RunOnce(d.f.Ctx, d.now(), 5*time.Second)
		done <- err
	}()
	return done
}

// wakeUpdates makes the snoozed update tasks due now, as River would once
// their minute is over.
func (f *fixture) wakeUpdates() {
	f.T.Helper()
	_, err := f.DB.Exec(f.Ctx, `UPDATE river_job SET state = 'available', scheduled_at = now() WHERE kind = 'briefing_update' AND state = 'scheduled'`)
	require.NoError(f.T, err)
}

// hold begins a transaction on a connection of its own and returns it
// with its backend's pid.
func (f *fixture) hold() (pgx.Tx, int32) {
	f.T.Helper()
	tx, err := f.DB.Begin(f.Ctx)
	require.NoError(f.T, err)
	f.T.Cleanup(func() { _ = tx.Rollback(f.Ctx) })
	var pid int32
	require.NoError(f.T, tx.QueryRow(f.Ctx, `SELECT pg_backend_pid()`).Scan(&pid))
	return tx, pid
}

// blockedBy reports whether a session waits for a lock the backend pid holds.
func (f *fixture) blockedBy(pid int32) bool {
	f.T.Helper()
	return f.Count(`SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, pid) > 0
}

// mentions counts the messages to addr that name s.
func (d *sentDay) mentions(addr, s string) int {
	_, texts := d.mail(addr)
	n := 0
	for _, text := range texts {
		if strings.Contains(text, s) {
			n++
		}
	}
	return n
}

// TestChangeWhileTheBriefingIsMadeIsAnUpdate: the generation has read the
// day (its snapshot is taken) and waits for its briefing's row, held by
// another transaction; meanwhile Ana's job goes to Ben and commits. The
// emails are made from the snapshot, without the change, so both
// technicians get an update with it.
func TestChangeWhileTheBriefingIsMadeIsAnUpdate(t *testing.T) {
	f := setup(t)
	d := f.newDay("window", nil)
	require.Equal(t, 1, f.tick(d.now()).Enqueued, "the firing; its generation waits for a worker")

	hold, pid := f.hold()
	_, err := hold.Exec(f.Ctx, `SELECT FROM ff_briefings WHERE org_id = $1 FOR SHARE`, d.org)
	require.NoError(t, err)
	done := d.runBrieflyAsync()
	require.Eventually(t, func() bool { return f.blockedBy(pid) }, settle, 10*time.Millisecond,
		"the generation reads the day, then waits for its briefing's row")

	_, err = d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
	require.NoError(t, err)
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1 AND update_id IS NULL`, d.org),
		"recorded for both technicians while the briefing is made")
	require.NoError(t, hold.Rollback(f.Ctx))
	require.NoError(t, <-done)
	f.wakeUpdates()
	d.run()

	subjects, texts := d.mail("ana@window.test")
	require.Len(t, subjects, 2, "her briefing, then the update")
	require.Contains(t, texts[0], "Ana's customer", "the briefing was read before the change")
	require.Equal(t, d.changesSubject(), subjects[1])
	require.Contains(t, texts[1], "NO LONGER ON YOUR DAY")
	require.Contains(t, texts[1], "Reassigned to Ben")
	subjects, texts = d.mail("ben@window.test")
	require.Len(t, subjects, 2)
	require.NotContains(t, texts[0], "Ana's customer")
	require.Contains(t, texts[1], "ADDED TO YOUR DAY")
	require.Contains(t, texts[1], "Ana's customer")
	require.Equal(t, []string{"briefing.ready", "briefing.updated"}, d.hook.types())
	require.Equal(t, []string{"sent", "sent"}, f.updateOutcomes(d.org))
	require.Equal(t, 2, f.Count(`
		SELECT count(*) FROM ff_job_changes c JOIN ff_briefing_revisions r ON r.org_id = c.org_id
		 WHERE c.org_id = $1 AND c.update_id IS NOT NULL AND NOT pg_visible_in_snapshot(c.xact, r.read_snapshot)`, d.org),
		"the folded changes are the ones the briefing's snapshot did not see")

	d.run()
	require.Len(t, d.sink.Messages(), 4, "nothing more")
}

// TestChangeBeforeTheBriefingIsMadeIsInTheEmail: Ana's job goes to Ben
// after the firing, before the generation reads the day. The change is
// recorded (the generation might not have seen it), then dropped: Ben's
// email has it, and Ana, with no job left, got no email to update.
func TestChangeBeforeTheBriefingIsMadeIsInTheEmail(t *testing.T) {
	f := setup(t)
	d := f.newDay("before", nil)
	require.Equal(t, 1, f.tick(d.now()).Enqueued)
	_, err := d.field.Assign(f.Ctx, admin, d.now(), d.org, d.anaJob, d.ben, 0)
	require.NoError(t, err)
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1`, d.org))

	d.runBriefly()
	f.wakeUpdates()
	d.run()

	subjects, _ := d.mail("ana@before.test")
	require.Empty(t, subjects, "no job today, no email")
	subjects, texts := d.mail("ben@before.test")
	require.Len(t, subjects, 1, "his briefing, no update")
	require.Contains(t, texts[0], "Ana's customer")
	require.Contains(t, texts[0], "Ben's customer")
	require.Equal(t, []string{"briefing.ready"}, d.hook.types())
	require.Empty(t, f.updateOutcomes(d.org))
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_job_changes WHERE org_id = $1`, d.org), "dropped, not kept pending")
	require.Zero(t, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'briefing_update' AND finalized_at IS NULL`))
}

// TestChangeInFlightWhenTheTickFires: a job write reads the watched days
// before the org's firing is recorded, and commits after. The tick waits
// for it (the firing lock), so the generation's snapshot has the new job:
// Ana hears of it once, in her briefing.
func TestChangeInFlightWhenTheTickFires(t *testing.T) {
	f := setup(t)
	d := f.newDay("inflight", nil)
	write, pid := f.hold()
	_, _, err := field.UpsertJobByRef(f.Ctx, write, admin, d.now(), d.org, field.JobInput{ExternalRef: "J-9", Customer: "Carla's customer",
		ArrivalStart: d.at(21, 0), ArrivalEnd: d.at(21, 30), TechnicianID: d.ana})
	require.NoError(t, err)

	done := d.runBrieflyAsync()
	var tickWaited bool
	require.Eventually(t, func() bool {
		tickWaited = f.blockedBy(pid)
		return tickWaited || f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1 AND delivered_revision IS NOT NULL`, d.org) > 0
	}, settle, 10*time.Millisecond)
	require.NoError(t, write.Commit(f.Ctx))
	require.NoError(t, <-done)
	f.wakeUpdates()
	d.run()

	require.Equal(t, 1, d.mentions("ana@inflight.test", "Carla's customer"), "told once")
	_, texts := d.mail("ana@inflight.test")
	require.Len(t, texts, 1)
	require.Contains(t, texts[0], "Carla's customer", "in her briefing")
	require.True(t, tickWaited, "the tick waited for the write")
	require.Empty(t, f.updateOutcomes(d.org))
}
