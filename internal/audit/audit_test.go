package audit_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testutil"
)

type bundle struct{ testutil.Orgs }

func setup(t *testing.T) bundle { return bundle{testutil.NewOrgs(t)} }

func TestAuditLogIsAppendOnly(t *testing.T) {
	b := setup(t)
	require.NoError(t, audit.Record(b.Ctx, b.Store.DB, audit.Entry{Actor: audit.System, Action: "test"}))
	_, err := b.Store.DB.Exec(b.Ctx, `UPDATE audit_log SET action = 'rewritten'`)
	require.ErrorContains(t, err, "append-only")
	_, err = b.Store.DB.Exec(b.Ctx, `DELETE FROM audit_log`)
	require.ErrorContains(t, err, "append-only")
}

// ForOrg is what an org's admins see: their org's settings and briefing
// changes, never another org's, never staff flag changes (staff emails,
// internal reasons) nor platform-wide ones.
func TestOrgAuditIsTheOrgsOwnSettingsAndBriefings(t *testing.T) {
	b := setup(t)
	staff := audit.Actor{UserID: 0, Email: "staff@fieldbrief.test"}
	_, err := b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00"}}`), tenants.AnyVersion)

	require.NoError(t, err)
	require.NoError(t, audit.Record(b.Ctx, b.Store.DB, audit.Entry{Actor: audit.System, OrgID: b.Acme.ID,
		Action: "briefing.generate", Target: "2026-03-04"}))
	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Other.ID, []byte(`{"briefing":{"timezone":"Asia/Tokyo","schedule_local_time":"06:00"}}`), tenants.AnyVersion)

	require.NoError(t, err)
	require.NoError(t, audit.Record(b.Ctx, b.Store.DB, audit.Entry{Actor: audit.System, OrgID: b.Other.ID,
		Action: "briefing.generate", Target: "2026-03-05"}))
	require.NoError(t, b.Store.Flags.SetOrg(b.Ctx, staff, b.Acme.ID, schedule.FlagKey, flags.Off, "churn risk, see ticket 7"))
	require.NoError(t, b.Store.Flags.SetGlobal(b.Ctx, staff, schedule.FlagKey, false, "incident 42"))

	entries, err := b.Store.Audit.ForOrg(b.Ctx, b.Acme.ID, 10)
	require.NoError(t, err)
	var actions []string
	for _, e := range entries {
		require.Equal(t, b.Acme.ID, e.OrgID)
		require.Equal(t, "acme", e.OrgSlug)
		require.NotEqual(t, staff.Email, e.Actor.Email)
		actions = append(actions, e.Action+" "+e.Target)
	}
	require.Equal(t, []string{"briefing.generate 2026-03-04", "fieldforce.config.update fieldforce"}, actions, "newest first")
	require.Contains(t, string(entries[1].New.(json.RawMessage)), "Europe/Berlin")

	entries, err = b.Store.Audit.ForOrg(b.Ctx, b.Acme.ID, 1)
	require.NoError(t, err)
	require.Len(t, entries, 1)

	// The staff log still has everything.
	all, err := b.Store.Audit.List(b.Ctx, audit.Filter{})
	require.NoError(t, err)
	require.Len(t, all, 6)
}
