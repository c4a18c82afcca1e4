package flags_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testutil"
)

type bundle struct{ testutil.Orgs }

func setup(t *testing.T) bundle { return bundle{testutil.NewOrgs(t)} }

func TestFlagsEffectiveStateAndAudit(t *testing.T) {
	b := setup(t)
	staff := audit.Actor{Email: "staff@example.com"}
	key := schedule.FlagKey

	on, err := b.Store.Flags.Enabled(b.Ctx, b.Acme.ID, key)
	require.NoError(t, err)
	require.True(t, on, "the briefing flag ships globally on")

	require.NoError(t, b.Store.Flags.SetOrg(b.Ctx, staff, b.Acme.ID, key, flags.Off, "pilot paused"))
	on, _ = b.Store.Flags.Enabled(b.Ctx, b.Acme.ID, key)
	require.False(t, on)
	on, _ = b.Store.Flags.Enabled(b.Ctx, b.Other.ID, key)
	require.True(t, on, "an override is per org")

	// Global off wins over an org's "on".
	require.NoError(t, b.Store.Flags.SetOrg(b.Ctx, staff, b.Other.ID, key, flags.On, ""))
	require.Equal(t, apperr.Invalid, apperr.Code(b.Store.Flags.SetGlobal(b.Ctx, staff, key, false, " ")))
	require.NoError(t, b.Store.Flags.SetGlobal(b.Ctx, staff, key, false, "incident 42"))
	on, _ = b.Store.Flags.Enabled(b.Ctx, b.Other.ID, key)
	require.False(t, on)

	orgFlags, err := b.Store.Flags.Orgs(b.Ctx, key, "glob")
	require.NoError(t, err)
	require.Len(t, orgFlags, 1)
	require.Equal(t, flags.On, orgFlags[0].Override)
	require.False(t, orgFlags[0].Effective)

	// Setting what is already set is not a change.
	require.NoError(t, b.Store.Flags.SetGlobal(b.Ctx, staff, key, false, "again"))
	require.NoError(t, b.Store.Flags.SetOrg(b.Ctx, staff, b.Acme.ID, key, flags.Off, ""))
	require.Equal(t, 3, b.AuditCount(t))

	require.Equal(t, apperr.NotFound, apperr.Code(b.Store.Flags.SetOrg(b.Ctx, staff, b.Acme.ID, "no.such.flag", flags.On, "")))
	require.Equal(t, apperr.Invalid, apperr.Code(b.Store.Flags.SetOrg(b.Ctx, staff, b.Acme.ID, key, "maybe", "")))

	entries, err := b.Store.Audit.List(b.Ctx, audit.Filter{OrgSlug: "acme"})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "flag.org.set", entries[0].Action)
	require.JSONEq(t, `{"state":"inherit"}`, string(entries[0].Old.(json.RawMessage)))
}
