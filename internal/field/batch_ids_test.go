package field_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
)

// A batch may name technicians by id (the CSV import resolves names and
// emails to ids): an id of another org's technician is the row's problem,
// nothing is saved, and an id with a reference is refused.
func TestBatchTechniciansByID(t *testing.T) {
	b := setup(t)
	ctx := b.ctx
	ours, err := field.UpsertTechniciansByRef(ctx, b.store.DB, b.actor, b.acme.ID, []field.TechnicianInput{{Name: "Ana", ExternalRef: "T1", Active: true}})
	require.NoError(t, err)
	require.Equal(t, 1, ours.Created)
	_, err = field.UpsertTechniciansByRef(ctx, b.store.DB, b.actor, b.other.ID, []field.TechnicianInput{{Name: "Zed", ExternalRef: "Z1", Active: true}})
	require.NoError(t, err)
	var ana, zed int64
	require.NoError(t, b.store.DB.QueryRow(ctx, `SELECT id FROM technicians WHERE org_id = $1 AND external_ref = 'T1'`, b.acme.ID).Scan(&ana))
	require.NoError(t, b.store.DB.QueryRow(ctx, `SELECT id FROM technicians WHERE org_id = $1 AND external_ref = 'Z1'`, b.other.ID).Scan(&zed))

	in := func(ref string, tech int64) field.JobInput {
		j := jobInput("Customer " + ref)
		j.ExternalRef, j.TechnicianID = ref, tech
		return j
	}
	both := in("J3", ana)
	both.TechnicianRef = "T1"
	_, err = field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, []field.JobInput{in("J1", ana), in("J2", zed), both})
	var be *field.BatchError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Rows, 2)
	require.Equal(t, 1, be.Rows[0].Row)
	require.Equal(t, field.CodeTechnicianInvalid, be.Rows[0].Code)
	require.Equal(t, 2, be.Rows[1].Row)
	require.Equal(t, field.CodeTechnicianBoth, be.Rows[1].Code)
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobs`))

	res, err := field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, []field.JobInput{in("J1", ana)})
	require.NoError(t, err)
	require.Equal(t, 1, res.Created)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobs WHERE technician_id = $1`, ana))
}
