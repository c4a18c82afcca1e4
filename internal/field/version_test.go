package field_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/field"
)

// Versions (migration 00026, docs/versions.md): every change a person sees
// moves a record's version on by one, whoever writes it; a change read at
// an older version is refused as stale and saves nothing; another org's
// record is not found, never stale.
func TestVersionsRefuseStaleChanges(t *testing.T) {
	b := setup(t)
	tech := b.tech(t, b.acme.ID, "Ana", "T-1")
	require.EqualValues(t, 1, tech.Version)

	// A change read at the current version is saved and moves it on.
	in := tech.Input()
	in.Phone = "+1 555 0100"
	tech2, err := b.store.UpdateTechnician(b.ctx, b.actor, b.acme.ID, tech.ID, in)
	require.NoError(t, err)
	require.EqualValues(t, 2, tech2.Version)

	// The same change again, read at version 1: stale, nothing saved.
	in.Phone = "+1 555 0199"
	_, err = b.store.UpdateTechnician(b.ctx, b.actor, b.acme.ID, tech.ID, in)
	require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
	got, err := b.store.Technician(b.ctx, b.acme.ID, tech.ID)
	require.NoError(t, err)
	require.Equal(t, "+1 555 0100", got.Phone)
	require.EqualValues(t, 2, got.Version)

	// Another org's id is not found, whatever the version.
	_, err = b.store.UpdateTechnician(b.ctx, b.actor, b.other.ID, tech.ID, tech2.Input())
	require.Equal(t, apperr.NotFound, apperr.Code(err), "%v", err)

	// Version 0 is last write wins; writing the same values moves nothing.
	in = tech2.Input()
	in.Version = 0
	same, err := b.store.UpdateTechnician(b.ctx, b.actor, b.acme.ID, tech.ID, in)
	require.NoError(t, err)
	require.EqualValues(t, 2, same.Version, "a write that changes nothing a person sees keeps the version")

	require.Equal(t, apperr.Stale, apperr.Code(b.store.DeleteTechnician(b.ctx, b.actor, b.acme.ID, tech.ID, 1)))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM technicians WHERE id = $1`, tech.ID))

	// Jobs: the board's quick change moves the version; a form read before
	// it is stale and leaves the board's change in place.
	j := b.job(t, b.acme.ID, jobInput("Mrs Jones"))
	require.EqualValues(t, 1, j.Version)
	done, err := b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, field.StatusDone, j.Version)
	require.NoError(t, err)
	require.EqualValues(t, 2, done.Version)
	form := j.Input() // read at version 1
	form.Notes = "ring twice"
	_, err = b.store.UpdateJob(b.ctx, b.actor, b.now, b.acme.ID, j.ID, form)
	require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
	_, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, tech.ID, 1)
	require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
	got2, err := b.store.Job(b.ctx, b.acme.ID, j.ID)
	require.NoError(t, err)
	require.Equal(t, field.StatusDone, got2.Status)
	require.Empty(t, got2.Notes)
	require.Zero(t, got2.TechnicianID)
	_, err = b.store.UpdateJob(b.ctx, b.actor, b.now, b.other.ID, j.ID, got2.Input())
	require.Equal(t, apperr.NotFound, apperr.Code(err), "%v", err)

	// Upsert by reference at a version: the current one saves, an old one
	// or a reference that is not there is stale.
	err = pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		in := tech2.Input()
		in.Version = 1
		_, _, err := field.UpsertTechnicianByRef(b.ctx, tx, b.actor, b.acme.ID, in)
		require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
		in.Version, in.ExternalRef = 1, "T-NEW"
		_, _, err = field.UpsertTechnicianByRef(b.ctx, tx, b.actor, b.acme.ID, in)
		require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
		return nil
	})
	require.NoError(t, err)

	// Any writer counts, a statement of its own included (the trigger, not
	// the store, keeps the version).
	_, err = b.store.DB.Exec(b.ctx, `UPDATE jobs SET notes = 'by hand' WHERE id = $1`, j.ID)
	require.NoError(t, err)
	_, err = b.store.DB.Exec(b.ctx, `UPDATE jobs SET updated_at = now(), version = 40 WHERE id = $1`, j.ID)
	require.NoError(t, err)
	got3, err := b.store.Job(b.ctx, b.acme.ID, j.ID)
	require.NoError(t, err)
	require.EqualValues(t, 3, got3.Version, "a change by hand moves the version; setting it by hand does not")
}

// The tick's bookkeeping writes to an org's config row (the next-fire
// hint) never move the version a settings form carries; a change of the
// document does.
func TestConfigVersionIgnoresHintWrites(t *testing.T) {
	b := setup(t)
	_, err := b.store.DB.Exec(b.ctx, `INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', '{"briefing": {"enabled": true}}')`, b.acme.ID)
	require.NoError(t, err)
	version := func() (v int64) {
		require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT version FROM org_module_configs WHERE org_id = $1`, b.acme.ID).Scan(&v))
		return v
	}
	require.EqualValues(t, 1, version())
	_, err = b.store.DB.Exec(b.ctx, `UPDATE org_module_configs SET next_fire_at = now(), hint_from = now() WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)
	_, err = b.store.DB.Exec(b.ctx, `SELECT ff_hint_reset(ARRAY[$1::bigint])`, b.acme.ID)
	require.NoError(t, err)
	_, err = b.store.DB.Exec(b.ctx, `UPDATE org_module_configs SET updated_at = now() WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)
	require.EqualValues(t, 1, version(), "hint and bookkeeping writes keep the version")
	_, err = b.store.DB.Exec(b.ctx, `UPDATE org_module_configs SET config_json = '{"briefing": {"enabled": false}}' WHERE org_id = $1`, b.acme.ID)
	require.NoError(t, err)
	require.EqualValues(t, 2, version())

	cfg, err := b.orgs.Tenants.Fieldforce(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.EqualValues(t, 2, cfg.Version)
}
