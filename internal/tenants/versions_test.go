package tenants_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
)

// A member's role and the org's settings carry a version (docs/versions.md):
// a change read at an older one is refused as stale, nothing saved.
func TestMemberRoleAndSettingsVersions(t *testing.T) {
	b := setup(t)
	db := b.Store.Tenants.DB
	var ann, bob int64
	for _, u := range []struct {
		email string
		id    *int64
	}{{"ann@acme.test", &ann}, {"bob@acme.test", &bob}} {
		require.NoError(t, db.QueryRow(b.Ctx, `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`, u.email).Scan(u.id))
		require.NoError(t, b.Store.Tenants.AddMember(b.Ctx, b.Acme.ID, *u.id, tenants.RoleAdmin))
	}
	members, err := b.Store.Tenants.Members(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Len(t, members, 2)
	require.EqualValues(t, 1, members[0].Version)

	m, err := b.Store.Tenants.SetMemberRole(b.Ctx, audit.System, b.Acme.ID, bob, tenants.RoleMember, 1)
	require.NoError(t, err)
	require.EqualValues(t, 2, m.Version)
	// A page read before that change makes Bob an admin again: refused.
	_, err = b.Store.Tenants.SetMemberRole(b.Ctx, audit.System, b.Acme.ID, bob, tenants.RoleAdmin, 1)
	require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
	var role string
	require.NoError(t, db.QueryRow(b.Ctx, `SELECT role FROM memberships WHERE user_id = $1`, bob).Scan(&role))
	require.Equal(t, "member", role)
	// Another org's member is not found, not stale.
	_, err = b.Store.Tenants.SetMemberRole(b.Ctx, audit.System, b.Other.ID, bob, tenants.RoleAdmin, 2)
	require.Equal(t, apperr.NotFound, apperr.Code(err), "%v", err)

	// Settings: never saved is version 0; each save of another document
	// moves it; a save read at an older one is stale.
	cfg, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Zero(t, cfg.Version)
	check := func(version int64) error {
		return pgx.BeginFunc(b.Ctx, db, func(tx pgx.Tx) error { return tenants.CheckFieldforceVersion(b.Ctx, tx, b.Acme.ID, version) })
	}
	require.NoError(t, check(0))
	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"08:15"}}`), tenants.AnyVersion)
	require.NoError(t, err)
	require.Equal(t, apperr.Stale, apperr.Code(check(0)))
	cfg, err = b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.EqualValues(t, 1, cfg.Version)
	require.NoError(t, check(1))
	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:30"}}`), tenants.AnyVersion)
	require.NoError(t, err)
	require.Equal(t, apperr.Stale, apperr.Code(check(1)))
	require.NoError(t, check(tenants.AnyVersion), "AnyVersion checks nothing")
}

// SaveFieldforce with a version (the settings forms' save): a document read at an
// older version is refused, nothing stored and nothing audited; at the
// stored one it saves; an invalid document is refused as invalid first.
func TestSaveFieldforceRefusesAnOlderVersion(t *testing.T) {
	b := setup(t)
	doc := func(at string) []byte {
		return []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"` + at + `"}}`)
	}
	_, err := b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, doc("08:15"), 0)
	require.NoError(t, err, "never saved: version 0")
	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, doc("07:30"), 0)
	require.Equal(t, apperr.Stale, apperr.Code(err), "%v", err)
	cfg, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Equal(t, "08:15", cfg.Config.Briefing.ScheduleLocalTime)
	require.Equal(t, 1, b.AuditCount(t))

	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, doc("25:00"), 0)
	require.Equal(t, apperr.Invalid, apperr.Code(err), "validation comes first: %v", err)

	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, doc("07:30"), cfg.Version)
	require.NoError(t, err)
	now, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.Equal(t, "07:30", now.Config.Briefing.ScheduleLocalTime)
	require.Equal(t, cfg.Version+1, now.Version)
	require.Equal(t, 2, b.AuditCount(t))
}
