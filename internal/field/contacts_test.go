package field_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/field"
)

// TestContacts: what the deliveries and the unsubscribe page read of
// technicians, each within the org asked about.
func TestContacts(t *testing.T) {
	b := setup(t)
	add := func(orgID int64, in field.TechnicianInput) field.Technician {
		tech, err := b.store.CreateTechnician(b.ctx, b.actor, orgID, in)
		require.NoError(t, err)
		return tech
	}
	ana := add(b.acme.ID, field.TechnicianInput{Name: "Ana", Email: "ana@acme.example", Language: "es", Active: true})
	add(b.acme.ID, field.TechnicianInput{Name: "Ana (old)", Email: "ANA@acme.example", Language: "de", Active: false})
	add(b.acme.ID, field.TechnicianInput{Name: "Bo", Active: true})
	add(b.acme.ID, field.TechnicianInput{Name: "Cy", Email: "cy@acme.example", Active: false})
	add(b.other.ID, field.TechnicianInput{Name: "Dee", Email: "dee@globex.example", Language: "fr", Active: true})

	c, found, err := field.ContactOf(b.ctx, b.store.DB, b.acme.ID, ana.ID)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, field.Contact{Email: "ana@acme.example", Language: "es", Active: true}, c)
	_, found, err = field.ContactOf(b.ctx, b.store.DB, b.other.ID, ana.ID)
	require.NoError(t, err)
	require.False(t, found, "another org's technician")

	n, err := field.Reachable(b.ctx, b.store.DB, b.acme.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n, "active and with an address: Ana only")

	lang, err := field.LanguageByEmail(b.ctx, b.store.DB, b.acme.ID, "Ana@Acme.Example")
	require.NoError(t, err)
	require.Equal(t, "es", lang, "the active technician's language first")
	lang, err = field.LanguageByEmail(b.ctx, b.store.DB, b.acme.ID, "dee@globex.example")
	require.NoError(t, err)
	require.Empty(t, lang, "another org's technician")
}

// TestPutByRefConditions: a create-or-update by reference checks its
// caller's conditions against the stored record inside its transaction,
// and an error of theirs saves nothing.
func TestPutByRefConditions(t *testing.T) {
	b := setup(t)
	tech := b.tech(t, b.acme.ID, "Ana", "T-1")
	stop := apperr.Errorf(apperr.Precondition, "stop")
	var seen []int64
	check := func(exists bool, id, version int64) (int64, error) {
		seen = append(seen, id, version)
		return 0, stop
	}
	_, _, err := b.store.PutTechnicianByRef(b.ctx, b.actor, b.acme.ID,
		field.TechnicianInput{Name: "Renamed", ExternalRef: "T-1", Active: true}, field.RefConditions{Check: check})
	require.ErrorIs(t, err, stop)
	require.Equal(t, []int64{tech.ID, tech.Version}, seen)

	_, _, err = b.store.PutTechnicianByRef(b.ctx, b.actor, b.acme.ID, field.TechnicianInput{Name: "New", ExternalRef: "T-2", Active: true},
		field.RefConditions{Created: func(created bool) error {
			require.True(t, created)
			return stop
		}})
	require.ErrorIs(t, err, stop)
	list, err := b.store.ListTechnicians(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "Ana", list[0].Name, "nothing saved")

	j, created, err := b.store.EditJobByRef(b.ctx, b.actor, b.now, b.acme.ID, "J-1", func(cur *field.Job) (field.JobInput, error) {
		require.Nil(t, cur)
		in := jobInput("Acme HQ")
		in.ExternalRef = "J-1"
		return in, nil
	})
	require.NoError(t, err)
	require.True(t, created)
	j2, created, err := b.store.EditJobByRef(b.ctx, b.actor, b.now, b.acme.ID, "J-1", func(cur *field.Job) (field.JobInput, error) {
		require.NotNil(t, cur)
		require.Equal(t, j.ID, cur.ID)
		in := cur.Input()
		in.Notes = "Gate code 1234"
		return in, nil
	})
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, j.ID, j2.ID)
	require.Equal(t, "Gate code 1234", j2.Notes)
}
