package tenants_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testutil"
)

type bundle struct{ testutil.Orgs }

func setup(t *testing.T) bundle { return bundle{testutil.NewOrgs(t)} }

func TestCreateOrgValidatesAndRejectsDuplicates(t *testing.T) {
	b := setup(t)
	_, err := b.Store.Tenants.CreateOrg(b.Ctx, "acme", "Again", time.Time{})
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	for _, slug := range []string{"", "Acme", "has space", "-lead", "a/b"} {
		_, err := b.Store.Tenants.CreateOrg(b.Ctx, slug, "Name", time.Time{})
		require.Equal(t, apperr.Invalid, apperr.Code(err), slug)
	}
	_, err = b.Store.Tenants.CreateOrg(b.Ctx, "blank-name", "  ", time.Time{})
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	// Control characters (a terminal escape, a newline, a bidi override)
	// and text that is not UTF-8 would be shown as they are: refused.
	for _, name := range []string{"Acme\x1b[31m", "Acme\nInc", "Acme\x00", "Acme\u202eInc", "Acme\xff"} {
		_, err := b.Store.Tenants.CreateOrg(b.Ctx, "ctl", name, time.Time{})
		require.Equal(t, apperr.Invalid, apperr.Code(err), "%q", name)
	}
	_, err = b.Store.Tenants.CreateOrg(b.Ctx, "long-name", strings.Repeat("é", 200), time.Time{})
	require.NoError(t, err, "200 characters, 400 bytes")
}

// An org's set-up time comes from the caller's clock when it passes one,
// so a test on a fake clock needs no rewrite of created_at.
func TestCreateOrgTakesTheCallersInstant(t *testing.T) {
	b := setup(t)
	at := time.Date(2025, 1, 1, 9, 30, 0, 0, time.FixedZone("EST", -5*3600))
	o, err := b.Store.Tenants.CreateOrg(b.Ctx, "initech", "Initech", at)
	require.NoError(t, err)
	require.True(t, o.CreatedAt.Equal(at), "returned %v", o.CreatedAt)
	read, err := b.Store.Tenants.OrgBySlug(b.Ctx, "initech")
	require.NoError(t, err)
	require.True(t, read.CreatedAt.Equal(at), "stored %v", read.CreatedAt)

	_, err = b.Store.Tenants.CreateOrg(b.Ctx, "initech", "Again", at)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	_, err = b.Store.Tenants.CreateOrg(b.Ctx, "Bad Slug", "Name", at)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
}

func TestSaveFieldforceStoresCanonicalAndAuditsOnce(t *testing.T) {
	b := setup(t)
	actor := audit.Actor{Email: "ada@example.com"}
	cfg, err := b.Store.Tenants.SaveFieldforce(b.Ctx, actor, b.Acme.ID, []byte(`{"briefing":{"timezone":"US/Eastern","schedule_local_time":"08:00","days":["fri","mon"]}}`), tenants.AnyVersion)

	require.NoError(t, err)
	require.Equal(t, "America/New_York", cfg.Briefing.Timezone)

	got, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.True(t, got.Found)
	require.NoError(t, got.Err)
	require.Equal(t, "America/New_York", got.Config.Briefing.Timezone)
	require.Equal(t, []string{"mon", "fri"}, got.Config.Briefing.Days)
	require.Equal(t, "America/New_York", got.Schedule.Zone.Name)
	require.Equal(t, 1, b.AuditCount(t))

	// Saving the same document again is not a change: no second entry.
	_, err = b.Store.Tenants.SaveFieldforce(b.Ctx, actor, b.Acme.ID, got.Raw, tenants.AnyVersion)
	require.NoError(t, err)
	require.Equal(t, 1, b.AuditCount(t))

	// The other org is untouched and still on defaults.
	other, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Other.ID)
	require.NoError(t, err)
	require.False(t, other.Found)
	require.Equal(t, schedule.DefaultSchedule(), other.Schedule)
}

func TestSaveFieldforceRejectsBadInputAndChangesNothing(t *testing.T) {
	b := setup(t)
	good := []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00"}}`)
	_, err := b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, good, tenants.AnyVersion)
	require.NoError(t, err)
	before, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)

	for name, doc := range map[string]string{
		"invalid json":  `{"briefing":`,
		"unknown field": `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00","colour":"red"}}`,
		"unknown zone":  `{"briefing":{"timezone":"Mars/Base","schedule_local_time":"07:00"}}`,
		"25:00":         `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"25:00"}}`,
		"local zone":    `{"briefing":{"timezone":"Local","schedule_local_time":"07:00"}}`,
	} {
		_, err := b.Store.Tenants.SaveFieldforce(b.Ctx, audit.System, b.Acme.ID, []byte(doc), tenants.AnyVersion)
		var ve *schedule.ValidationError
		require.True(t, errors.As(err, &ve), "%s: %v", name, err)
	}
	after, err := b.Store.Tenants.Fieldforce(b.Ctx, b.Acme.ID)
	require.NoError(t, err)
	require.JSONEq(t, string(before.Raw), string(after.Raw))
	require.Equal(t, 1, b.AuditCount(t))
}
