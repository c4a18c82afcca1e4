package field_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testutil"
)

// sentToday makes the org's briefing of today (in Chicago) sent to tech,
// as the morning's generation would: a briefing row and a sent
// technician delivery. It returns today's 22:00 there.
func (b bundle) sentToday(t *testing.T, orgID int64, techs ...int64) time.Time {
	t.Helper()
	loc := testutil.MustZone("America/Chicago")
	_, err := b.store.DB.Exec(b.ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)
		ON CONFLICT (org_id, module) DO UPDATE SET config_json = excluded.config_json`, orgID,
		`{"briefing": {"timezone": "America/Chicago", "schedule_local_time": "00:00"}, "delivery": {"email": {"technicians": true}}}`)
	require.NoError(t, err)
	today := schedule.DateOf(b.now.In(loc))
	var briefingID int64
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, revision, delivered_revision)
		VALUES ($1, $2, 'America/Chicago', 'ready', 1, 1) RETURNING id`, orgID, today.Time()).Scan(&briefingID))
	for _, tech := range techs {
		_, err := b.store.DB.Exec(b.ctx, `
			INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, technician_id, key, state, due_at)
			VALUES ($1, $2, 1, 'email', 'technician', $3::bigint || '@acme.example', $3::bigint, 'k' || $3::bigint, 'sent', now())`,
			orgID, briefingID, tech)
		require.NoError(t, err)
	}
	return time.Date(today.Year, today.Month, today.Day, 22, 0, 0, 0, loc)
}

// changes lists the org's unfolded outbox rows as "technician job was→is".
func (b bundle) changes(t *testing.T, orgID int64) []string {
	t.Helper()
	rows, err := b.store.DB.Query(b.ctx, `
		SELECT t.name || ' ' || coalesce(j.external_ref, j.customer) || ' ' || c.was_on || '→' || c.is_on
		  FROM ff_job_changes c JOIN technicians t ON t.id = c.technician_id JOIN jobs j ON j.id = c.job_id
		 WHERE c.org_id = $1 ORDER BY c.id`, orgID)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

func (b bundle) updateTasks(t *testing.T) int {
	return b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'briefing_update'`)
}

// TestEveryJobWriteRecordsChanges: the screens' writes, the API's upsert
// and the CSV's batch each record a change to a sent day, in their own
// transaction, with its task.
func TestEveryJobWriteRecordsChanges(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "T-ANA")
	ben := b.tech(t, b.acme.ID, "Ben", "T-BEN")
	b.tech(t, b.acme.ID, "Cy", "T-CY") // no email was sent to Cy
	at := b.sentToday(t, b.acme.ID, ana.ID, ben.ID)
	in := field.JobInput{Customer: "Jane", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: ana.ID, ExternalRef: "J1"}

	j, err := b.store.CreateJob(b.ctx, b.actor, b.now, b.acme.ID, in)
	require.NoError(t, err)
	require.Equal(t, []string{"Ana J1 false→true"}, b.changes(t, b.acme.ID))

	in.Address = "700 Congress Ave"
	_, err = b.store.UpdateJob(b.ctx, b.actor, b.now, b.acme.ID, j.ID, in)
	require.NoError(t, err)
	_, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, ben.ID, 0)
	require.NoError(t, err)
	_, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, field.StatusInProgress, 0)
	require.NoError(t, err)
	require.Len(t, b.changes(t, b.acme.ID), 4, "in progress is the technician's own news: not told")
	_, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, field.StatusCancelled, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Ana J1 false→true", "Ana J1 true→true", "Ana J1 true→false", "Ben J1 false→true", "Ben J1 true→true"},
		b.changes(t, b.acme.ID))

	// The API's upsert: moved to tomorrow, a day not sent yet; and back.
	api := in
	api.TechnicianID, api.TechnicianRef = 0, "T-BEN"
	api.ArrivalStart, api.ArrivalEnd = at.AddDate(0, 0, 1), at.AddDate(0, 0, 1).Add(time.Hour)
	require.NoError(t, pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, _, err := field.UpsertJobByRef(b.ctx, tx, b.actor, b.now, b.acme.ID, api)
		return err
	}))
	require.Equal(t, "Ben J1 true→false", b.changes(t, b.acme.ID)[5])

	// The CSV's batch: J1 from tomorrow (not sent) to Cy today (never
	// sent): nobody to tell; J2 new on Ana's day; J3 on Cy's (nothing);
	// J4 unassigned and unchanged.
	_, err = b.store.CreateJob(b.ctx, b.actor, b.now, b.acme.ID, field.JobInput{Customer: "Same", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), ExternalRef: "J4"})
	require.NoError(t, err)
	batch := []field.JobInput{
		{ExternalRef: "J1", Customer: "Jane", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianRef: "T-CY"},
		{ExternalRef: "J2", Customer: "New", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianRef: "T-ANA"},
		{ExternalRef: "J3", Customer: "Cy's", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianRef: "T-CY"},
		{ExternalRef: "J4", Customer: "Same", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour)},
	}
	require.NoError(t, pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, err := field.UpsertJobsByRef(b.ctx, tx, b.actor, b.now, b.acme.ID, batch)
		return err
	}))
	got := b.changes(t, b.acme.ID)
	require.Equal(t, []string{"Ana J2 false→true"}, got[6:])

	// The batch again changes nothing, and records nothing.
	require.NoError(t, pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, err := field.UpsertJobsByRef(b.ctx, tx, b.actor, b.now, b.acme.ID, batch)
		return err
	}))
	require.Len(t, b.changes(t, b.acme.ID), 7)
	require.Equal(t, 2, b.updateTasks(t), "one pending task per technician and date: Ana's and Ben's")
}

// TestChangesOnlyForSentDaysOfTheOrg: a day before today, a day whose
// email failed, and another org's sent day are not watched.
func TestChangesOnlyForSentDaysOfTheOrg(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "")
	at := b.sentToday(t, b.acme.ID, ana.ID)
	_, err := b.store.DB.Exec(b.ctx, `UPDATE ff_deliveries SET state = 'failed' WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)
	b.job(t, b.acme.ID, field.JobInput{Customer: "Failed day", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: ana.ID})
	_, err = b.store.DB.Exec(b.ctx, `UPDATE ff_deliveries SET state = 'sent' WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)
	yesterday := at.AddDate(0, 0, -1)
	_, err = b.store.DB.Exec(b.ctx, `UPDATE ff_briefings SET briefing_date = briefing_date - 1 WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)
	b.job(t, b.acme.ID, field.JobInput{Customer: "Yesterday", ArrivalStart: yesterday, ArrivalEnd: yesterday.Add(time.Hour), TechnicianID: ana.ID})
	_, err = b.store.DB.Exec(b.ctx, `UPDATE ff_briefings SET briefing_date = briefing_date + 1 WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)

	// Globex's technician of the same name and day: globex sent nothing.
	gana := b.tech(t, b.other.ID, "Ana", "")
	b.job(t, b.other.ID, field.JobInput{Customer: "Globex", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: gana.ID})
	require.Empty(t, b.changes(t, b.acme.ID))
	require.Empty(t, b.changes(t, b.other.ID))
	require.Zero(t, b.updateTasks(t))

	// Today, sent: recorded, in acme only.
	b.job(t, b.acme.ID, field.JobInput{Customer: "Today", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: ana.ID})
	require.Equal(t, []string{"Ana Today false→true"}, b.changes(t, b.acme.ID))
	require.Empty(t, b.changes(t, b.other.ID))
}

// firingToday makes the org's briefing of today (in Chicago) fired and
// not delivered yet, as the tick leaves it for the generation: every
// technician's day is then watched. techs is delivery.email.technicians.
// It returns the briefing's id and today's 22:00 there.
func (b bundle) firingToday(t *testing.T, orgID int64, techs bool) (int64, time.Time) {
	t.Helper()
	loc := testutil.MustZone("America/Chicago")
	_, err := b.store.DB.Exec(b.ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)
		ON CONFLICT (org_id, module) DO UPDATE SET config_json = excluded.config_json`, orgID,
		`{"briefing": {"timezone": "America/Chicago", "schedule_local_time": "00:00"}, "delivery": {"email": {"to": ["d@acme.example"], "technicians": `+
			map[bool]string{true: "true", false: "false"}[techs]+`}}}`)
	require.NoError(t, err)
	today := schedule.DateOf(b.now.In(loc))
	var briefingID int64
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status, trigger, scheduled_at, requested_revision)
		VALUES ($1, $2, 'America/Chicago', 'pending', 'schedule', now(), 1) RETURNING id`, orgID, today.Time()).Scan(&briefingID))
	return briefingID, time.Date(today.Year, today.Month, today.Day, 22, 0, 0, 0, loc)
}

// TestChangesWhileTheBriefingIsMade: between the tick recording today's
// scheduled firing and the generation making its deliveries, a change to
// any technician's job of today is recorded (the generation's snapshot
// may not have it); not with technicians' emails off, not once the
// generation failed for good, not for another day or another org.
func TestChangesWhileTheBriefingIsMade(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "T-ANA")
	cy := b.tech(t, b.acme.ID, "Cy", "T-CY") // whether Cy gets an email is not known yet
	briefingID, at := b.firingToday(t, b.acme.ID, true)
	j := b.job(t, b.acme.ID, field.JobInput{Customer: "Jane", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: ana.ID, ExternalRef: "J1"})
	_, err := b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, cy.ID, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Ana J1 false→true", "Ana J1 true→false", "Cy J1 false→true"}, b.changes(t, b.acme.ID))
	require.Equal(t, 2, b.updateTasks(t), "Ana's and Cy's: they wait for the emails")

	// The CSV's batch onto today: the old state is read for any technician.
	batch := []field.JobInput{{ExternalRef: "J1", Customer: "Jane", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianRef: "T-ANA"}}
	require.NoError(t, pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, err := field.UpsertJobsByRef(b.ctx, tx, b.actor, b.now, b.acme.ID, batch)
		return err
	}))
	require.Equal(t, []string{"Cy J1 true→false", "Ana J1 false→true"}, b.changes(t, b.acme.ID)[3:])

	// Tomorrow is not being made; another org has nothing under way.
	tomorrow := at.AddDate(0, 0, 1)
	b.job(t, b.acme.ID, field.JobInput{Customer: "Tomorrow", ArrivalStart: tomorrow, ArrivalEnd: tomorrow.Add(time.Hour), TechnicianID: ana.ID})
	gana := b.tech(t, b.other.ID, "Ana", "")
	b.job(t, b.other.ID, field.JobInput{Customer: "Globex", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: gana.ID})
	require.Len(t, b.changes(t, b.acme.ID), 5)
	require.Empty(t, b.changes(t, b.other.ID))

	// The generation failed for good: no email is coming.
	_, err = b.store.DB.Exec(b.ctx, `
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, attempt, trigger, started_at, finished_at, outcome)
		VALUES ($1, $2, 1, 5, 'schedule', now(), now(), 'failed')`, b.acme.ID, briefingID)
	require.NoError(t, err)
	b.job(t, b.acme.ID, field.JobInput{Customer: "After the failure", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: ana.ID})
	require.Len(t, b.changes(t, b.acme.ID), 5)

	// Globex under way, but without technicians' emails: nobody to update.
	b.firingToday(t, b.other.ID, false)
	b.job(t, b.other.ID, field.JobInput{Customer: "Globex 2", ArrivalStart: at, ArrivalEnd: at.Add(time.Hour), TechnicianID: gana.ID})
	require.Empty(t, b.changes(t, b.other.ID))
}
