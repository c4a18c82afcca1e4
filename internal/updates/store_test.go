package updates_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/updates"
)

// pruneDay is one org's date in TestPrune: its briefing, fired and not
// yet delivered, and a job its changes are about.
type pruneDay struct {
	f        *testutil.Fixture
	org      int64
	briefing int64
	date     schedule.Date
	job      int64
}

func newPruneDay(f *testutil.Fixture, org int64, date schedule.Date) *pruneDay {
	f.T.Helper()
	d := &pruneDay{f: f, org: org, date: date}
	require.NoError(f.T, f.DB.QueryRow(f.Ctx, `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, trigger, scheduled_at, requested_revision)
		VALUES ($1, $2, 'America/Chicago', 'pending', 'schedule', now(), 1) RETURNING id`, org, date.Time()).Scan(&d.briefing))
	at := date.Time().Add(20 * time.Hour)
	d.job = f.Job(org, 0, "Jane", at, at.Add(time.Hour), "scheduled")
	return d
}

// change records a change of tech's day in a transaction of its own.
func (d *pruneDay) change(tech int64) int64 {
	d.f.T.Helper()
	var id int64
	require.NoError(d.f.T, d.f.DB.QueryRow(d.f.Ctx, `
		INSERT INTO ff_job_changes (org_id, technician_id, briefing_date, job_id, was_on, is_on, after, created_at)
		VALUES ($1, $2, $3, $4, true, true, '{}', now()) RETURNING id`, d.org, tech, d.date.Time(), d.job).Scan(&id))
	return id
}

// deliver stores revision 1 read with snapshot (nil: none kept) and the
// technicians' emails of it, in the given states, as the generation does.
func (d *pruneDay) deliver(snapshot *string, emails map[int64]string) {
	d.f.T.Helper()
	_, err := d.f.DB.Exec(d.f.Ctx, `
		INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at, read_snapshot)
		VALUES ($1, $2, 1, 'schedule', '{}', now(), $3::pg_snapshot)`, d.org, d.briefing, snapshot)
	require.NoError(d.f.T, err)
	_, err = d.f.DB.Exec(d.f.Ctx, `UPDATE ff_briefings SET revision = 1, delivered_revision = 1, status = 'ready' WHERE id = $1`, d.briefing)
	require.NoError(d.f.T, err)
	for tech, state := range emails {
		_, err := d.f.DB.Exec(d.f.Ctx, `
			INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, state, due_at)
			VALUES ($1, $2, 1, 'email', 'technician', $3::bigint || '@t.example', $3::bigint, 'k' || $2::bigint || '-' || $3::bigint, $4, now())`,
			d.org, d.briefing, tech, state)
		require.NoError(d.f.T, err)
	}
}

func (d *pruneDay) prune() int64 {
	d.f.T.Helper()
	var n int64
	require.NoError(d.f.T, pgx.BeginFunc(d.f.Ctx, d.f.DB, func(tx pgx.Tx) (err error) {
		n, err = updates.Prune(d.f.Ctx, tx, d.org, d.date)
		return err
	}))
	return n
}

func (d *pruneDay) left() []int64 {
	d.f.T.Helper()
	rows, err := d.f.DB.Query(d.f.Ctx, `SELECT id FROM ff_job_changes WHERE org_id = $1 AND briefing_date = $2 ORDER BY id`, d.org, d.date.Time())
	require.NoError(d.f.T, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(d.f.T, err)
	return ids
}

// TestPrune: once the date's scheduled briefing delivered, the changes its
// technicians' emails already have (their transactions are visible in the
// snapshot the revision was read with) and the changes of technicians who
// got no email go; the rest stay for the fold. Nothing goes while the
// briefing is being made; everything goes when it failed for good.
func TestPrune(t *testing.T) {
	f := testutil.Setup(t)
	acme := f.Org("acme", "")
	ana, ben, cy, dee := f.Tech(acme, "Ana", true), f.Tech(acme, "Ben", true), f.Tech(acme, "Cy", true), f.Tech(acme, "Dee", true)
	today := schedule.DateOf(time.Now().UTC())
	d := newPruneDay(f, acme, today)

	a1, b1, c1, d1 := d.change(ana), d.change(ben), d.change(cy), d.change(dee)
	var snap string // what the generation read the day with: the four changes so far
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT pg_current_snapshot()::text`).Scan(&snap))
	a2, b2, d2 := d.change(ana), d.change(ben), d.change(dee)

	require.Zero(t, d.prune(), "the briefing is being made: nobody knows yet what its emails have")
	require.Len(t, d.left(), 7)

	// Ana's email went, Ben's is on its way, Cy's was skipped (late), Dee got none.
	d.deliver(&snap, map[int64]string{ana: "sent", ben: "pending", cy: "skipped"})
	require.EqualValues(t, 5, d.prune())
	require.Equal(t, []int64{a2, b2}, d.left(), "what came after the snapshot, to technicians with an email")
	require.NotContains(t, d.left(), a1)
	require.NotContains(t, d.left(), b1)
	require.NotContains(t, d.left(), c1)
	require.NotContains(t, d.left(), d1)
	require.NotContains(t, d.left(), d2)
	require.Zero(t, d.prune(), "nothing more")

	// Another org's revision without a snapshot (made before it was kept):
	// its changes all stay, as before; acme's prune never touches them.
	globex := f.Org("globex", "")
	gana := f.Tech(globex, "Ana", true)
	g := newPruneDay(f, globex, today)
	g1 := g.change(gana)
	g.deliver(nil, map[int64]string{gana: "sent"})
	_, err := f.DB.Exec(f.Ctx, `UPDATE ff_briefing_revisions SET read_snapshot = NULL WHERE org_id = $1`, globex)
	require.NoError(t, err)
	require.Zero(t, d.prune())
	require.Zero(t, g.prune())
	require.Equal(t, []int64{g1}, g.left())

	// Tomorrow's scheduled generation failed for good: no email is coming.
	tomorrow := newPruneDay(f, acme, today.AddDays(1))
	tomorrow.change(ana)
	require.Zero(t, tomorrow.prune())
	_, err = f.DB.Exec(f.Ctx, `
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, attempt, trigger, started_at, finished_at, outcome)
		VALUES ($1, $2, 1, 5, 'schedule', now(), now(), 'failed')`, acme, tomorrow.briefing)
	require.NoError(t, err)
	require.EqualValues(t, 1, tomorrow.prune())
	require.Empty(t, tomorrow.left())
	require.Equal(t, []int64{a2, b2}, d.left(), "another date's prune leaves today alone")
}
