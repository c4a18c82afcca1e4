package orgs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/orgs"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
)

type bundle struct {
	ctx   context.Context
	store *orgs.Store
	acme  orgs.Org
	other orgs.Org
}

func setup(t *testing.T) bundle {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	store := &orgs.Store{DB: testdb.New(t)}
	acme, err := store.CreateOrg(ctx, "acme", "Acme Plumbing")
	require.NoError(t, err)
	other, err := store.CreateOrg(ctx, "globex", "Globex")
	require.NoError(t, err)
	return bundle{ctx: ctx, store: store, acme: acme, other: other}
}

func (b bundle) auditCount(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT count(*) FROM audit_log`).Scan(&n))
	return n
}

func TestCreateOrgValidatesAndRejectsDuplicates(t *testing.T) {
	b := setup(t)
	_, err := b.store.CreateOrg(b.ctx, "acme", "Again")
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	for _, slug := range []string{"", "Acme", "has space", "-lead", "a/b"} {
		_, err := b.store.CreateOrg(b.ctx, slug, "Name")
		require.Equal(t, apperr.Invalid, apperr.Code(err), slug)
	}
	_, err = b.store.CreateOrg(b.ctx, "blank-name", "  ")
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	// Control characters (a terminal escape, a newline, a bidi override)
	// and text that is not UTF-8 would be shown as they are: refused.
	for _, name := range []string{"Acme\x1b[31m", "Acme\nInc", "Acme\x00", "Acme\u202eInc", "Acme\xff"} {
		_, err := b.store.CreateOrg(b.ctx, "ctl", name)
		require.Equal(t, apperr.Invalid, apperr.Code(err), "%q", name)
	}
	_, err = b.store.CreateOrg(b.ctx, "long-name", strings.Repeat("é", 200))
	require.NoError(t, err, "200 characters, 400 bytes")
}

// An org's set-up time comes from the caller's clock when it passes one,
// so a test on a fake clock needs no rewrite of created_at.
func TestCreateOrgAtTakesTheCallersInstant(t *testing.T) {
	b := setup(t)
	at := time.Date(2025, 1, 1, 9, 30, 0, 0, time.FixedZone("EST", -5*3600))
	o, err := b.store.CreateOrgAt(b.ctx, "initech", "Initech", at)
	require.NoError(t, err)
	require.True(t, o.CreatedAt.Equal(at), "returned %v", o.CreatedAt)
	read, err := b.store.OrgBySlug(b.ctx, "initech")
	require.NoError(t, err)
	require.True(t, read.CreatedAt.Equal(at), "stored %v", read.CreatedAt)

	_, err = b.store.CreateOrgAt(b.ctx, "initech", "Again", at)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	_, err = b.store.CreateOrgAt(b.ctx, "Bad Slug", "Name", at)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
}

func TestAuthenticateAndMembershipAreScopedToTheUser(t *testing.T) {
	b := setup(t)
	u, err := b.store.UpsertUser(b.ctx, "Ada@Example.com", "s3cret-pass", false)
	require.NoError(t, err)
	require.NoError(t, b.store.AddMember(b.ctx, b.acme.ID, u.ID, orgs.RoleAdmin))

	got, err := b.store.Authenticate(b.ctx, "ada@example.COM", "s3cret-pass")
	require.NoError(t, err)
	require.Equal(t, u.ID, got.ID)
	_, err = b.store.Authenticate(b.ctx, "ada@example.com", "wrong")
	require.Equal(t, apperr.Unauthorized, apperr.Code(err))
	_, err = b.store.Authenticate(b.ctx, "nobody@example.com", "s3cret-pass")
	require.Equal(t, apperr.Unauthorized, apperr.Code(err))

	m, err := b.store.MembershipBySlug(b.ctx, u.ID, "acme")
	require.NoError(t, err)
	require.True(t, m.IsAdmin())
	// Another tenant's slug looks exactly like a missing org.
	_, errOther := b.store.MembershipBySlug(b.ctx, u.ID, "globex")
	_, errMissing := b.store.MembershipBySlug(b.ctx, u.ID, "nope")
	require.Equal(t, apperr.NotFound, apperr.Code(errOther))
	require.Equal(t, apperr.Code(errMissing), apperr.Code(errOther))
	require.Equal(t, apperr.Message(errMissing), strings.Replace(apperr.Message(errOther), "globex", "nope", 1))

	// Upsert keeps one account per email, updates the password, never drops staff.
	again, err := b.store.UpsertUser(b.ctx, "ada@example.com", "new-password", true)
	require.NoError(t, err)
	require.Equal(t, u.ID, again.ID)
	require.True(t, again.IsStaff)
	again, err = b.store.UpsertUser(b.ctx, "ada@example.com", "new-password", false)
	require.NoError(t, err)
	require.True(t, again.IsStaff)
	_, err = b.store.Authenticate(b.ctx, "ada@example.com", "new-password")
	require.NoError(t, err)
}

func TestSaveFieldforceStoresCanonicalAndAuditsOnce(t *testing.T) {
	b := setup(t)
	actor := orgs.Actor{Email: "ada@example.com"}
	cfg, err := b.store.SaveFieldforce(b.ctx, actor, b.acme.ID,
		[]byte(`{"briefing":{"timezone":"US/Eastern","schedule_local_time":"08:00","days":["fri","mon"]}}`))
	require.NoError(t, err)
	require.Equal(t, "America/New_York", cfg.Briefing.Timezone)

	got, err := b.store.Fieldforce(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.True(t, got.Found)
	require.NoError(t, got.Err)
	require.Equal(t, "America/New_York", got.Config.Briefing.Timezone)
	require.Equal(t, []string{"mon", "fri"}, got.Config.Briefing.Days)
	require.Equal(t, "America/New_York", got.Schedule.Zone.Name)
	require.Equal(t, 1, b.auditCount(t))

	// Saving the same document again is not a change: no second entry.
	_, err = b.store.SaveFieldforce(b.ctx, actor, b.acme.ID, got.Raw)
	require.NoError(t, err)
	require.Equal(t, 1, b.auditCount(t))

	// The other org is untouched and still on defaults.
	other, err := b.store.Fieldforce(b.ctx, b.other.ID)
	require.NoError(t, err)
	require.False(t, other.Found)
	require.Equal(t, schedule.DefaultSchedule(), other.Schedule)
}

func TestSaveFieldforceRejectsBadInputAndChangesNothing(t *testing.T) {
	b := setup(t)
	good := []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00"}}`)
	_, err := b.store.SaveFieldforce(b.ctx, orgs.System, b.acme.ID, good)
	require.NoError(t, err)
	before, err := b.store.Fieldforce(b.ctx, b.acme.ID)
	require.NoError(t, err)

	for name, doc := range map[string]string{
		"invalid json":  `{"briefing":`,
		"unknown field": `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00","colour":"red"}}`,
		"unknown zone":  `{"briefing":{"timezone":"Mars/Base","schedule_local_time":"07:00"}}`,
		"25:00":         `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"25:00"}}`,
		"local zone":    `{"briefing":{"timezone":"Local","schedule_local_time":"07:00"}}`,
	} {
		_, err := b.store.SaveFieldforce(b.ctx, orgs.System, b.acme.ID, []byte(doc))
		var ve *schedule.ValidationError
		require.True(t, errors.As(err, &ve), "%s: %v", name, err)
	}
	after, err := b.store.Fieldforce(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.JSONEq(t, string(before.Raw), string(after.Raw))
	require.Equal(t, 1, b.auditCount(t))
}

func TestFlagsEffectiveStateAndAudit(t *testing.T) {
	b := setup(t)
	staff := orgs.Actor{Email: "staff@example.com"}
	key := schedule.FlagKey

	on, err := b.store.EffectiveFlag(b.ctx, b.acme.ID, key)
	require.NoError(t, err)
	require.True(t, on, "the briefing flag ships globally on")

	require.NoError(t, b.store.SetOrgFlag(b.ctx, staff, b.acme.ID, key, orgs.Off, "pilot paused"))
	on, _ = b.store.EffectiveFlag(b.ctx, b.acme.ID, key)
	require.False(t, on)
	on, _ = b.store.EffectiveFlag(b.ctx, b.other.ID, key)
	require.True(t, on, "an override is per org")

	// Global off wins over an org's "on".
	require.NoError(t, b.store.SetOrgFlag(b.ctx, staff, b.other.ID, key, orgs.On, ""))
	require.Equal(t, apperr.Invalid, apperr.Code(b.store.SetGlobalFlag(b.ctx, staff, key, false, " ")))
	require.NoError(t, b.store.SetGlobalFlag(b.ctx, staff, key, false, "incident 42"))
	on, _ = b.store.EffectiveFlag(b.ctx, b.other.ID, key)
	require.False(t, on)

	flags, err := b.store.OrgFlags(b.ctx, key, "glob")
	require.NoError(t, err)
	require.Len(t, flags, 1)
	require.Equal(t, orgs.On, flags[0].Override)
	require.False(t, flags[0].Effective)

	// Setting what is already set is not a change.
	require.NoError(t, b.store.SetGlobalFlag(b.ctx, staff, key, false, "again"))
	require.NoError(t, b.store.SetOrgFlag(b.ctx, staff, b.acme.ID, key, orgs.Off, ""))
	require.Equal(t, 3, b.auditCount(t))

	require.Equal(t, apperr.NotFound, apperr.Code(b.store.SetOrgFlag(b.ctx, staff, b.acme.ID, "no.such.flag", orgs.On, "")))
	require.Equal(t, apperr.Invalid, apperr.Code(b.store.SetOrgFlag(b.ctx, staff, b.acme.ID, key, "maybe", "")))

	entries, err := b.store.ListAudit(b.ctx, orgs.AuditFilter{OrgSlug: "acme"})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "flag.org.set", entries[0].Action)
	require.JSONEq(t, `{"state":"inherit"}`, string(entries[0].Old.(json.RawMessage)))
}

func TestAuditLogIsAppendOnly(t *testing.T) {
	b := setup(t)
	require.NoError(t, orgs.Audit(b.ctx, b.store.DB, orgs.AuditEntry{Actor: orgs.System, Action: "test"}))
	_, err := b.store.DB.Exec(b.ctx, `UPDATE audit_log SET action = 'rewritten'`)
	require.ErrorContains(t, err, "append-only")
	_, err = b.store.DB.Exec(b.ctx, `DELETE FROM audit_log`)
	require.ErrorContains(t, err, "append-only")
}

// OrgAudit is what an org's admins see: their org's settings and briefing
// changes, never another org's, never staff flag changes (staff emails,
// internal reasons) nor platform-wide ones.
func TestOrgAuditIsTheOrgsOwnSettingsAndBriefings(t *testing.T) {
	b := setup(t)
	staff := orgs.Actor{UserID: 0, Email: "staff@fieldbrief.test"}
	_, err := b.store.SaveFieldforce(b.ctx, orgs.System, b.acme.ID,
		[]byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00"}}`))
	require.NoError(t, err)
	require.NoError(t, orgs.Audit(b.ctx, b.store.DB, orgs.AuditEntry{Actor: orgs.System, OrgID: b.acme.ID,
		Action: "briefing.generate", Target: "2026-03-04"}))
	_, err = b.store.SaveFieldforce(b.ctx, orgs.System, b.other.ID,
		[]byte(`{"briefing":{"timezone":"Asia/Tokyo","schedule_local_time":"06:00"}}`))
	require.NoError(t, err)
	require.NoError(t, orgs.Audit(b.ctx, b.store.DB, orgs.AuditEntry{Actor: orgs.System, OrgID: b.other.ID,
		Action: "briefing.generate", Target: "2026-03-05"}))
	require.NoError(t, b.store.SetOrgFlag(b.ctx, staff, b.acme.ID, schedule.FlagKey, orgs.Off, "churn risk, see ticket 7"))
	require.NoError(t, b.store.SetGlobalFlag(b.ctx, staff, schedule.FlagKey, false, "incident 42"))

	entries, err := b.store.OrgAudit(b.ctx, b.acme.ID, 10)
	require.NoError(t, err)
	var actions []string
	for _, e := range entries {
		require.Equal(t, b.acme.ID, e.OrgID)
		require.Equal(t, "acme", e.OrgSlug)
		require.NotEqual(t, staff.Email, e.Actor.Email)
		actions = append(actions, e.Action+" "+e.Target)
	}
	require.Equal(t, []string{"briefing.generate 2026-03-04", "fieldforce.config.update fieldforce"}, actions, "newest first")
	require.Contains(t, string(entries[1].New.(json.RawMessage)), "Europe/Berlin")

	entries, err = b.store.OrgAudit(b.ctx, b.acme.ID, 1)
	require.NoError(t, err)
	require.Len(t, entries, 1)

	// The staff log still has everything.
	all, err := b.store.ListAudit(b.ctx, orgs.AuditFilter{})
	require.NoError(t, err)
	require.Len(t, all, 6)
}
