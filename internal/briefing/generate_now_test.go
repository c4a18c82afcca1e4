package briefing

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/testutil"
)

func TestGenerateNowRefused(t *testing.T) {
	f := setup(t)
	store := f.store
	now := testutil.UTC("2026-03-10T16:00:00Z")
	actor := audit.Actor{Email: "admin@example.com"}

	switchedOff := f.Org("off", testutil.Config("Etc/UTC", "09:00"))
	f.OrgFlag(switchedOff, false)
	_, err := store.GenerateNow(f.Ctx, switchedOff, now, actor)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	require.Equal(t, "briefing_flag_off", apperr.ReasonOf(err))
	require.Contains(t, i18n.English.Message(err), "switched off")

	invalid := f.Org("invalid", testutil.Config("Mars/Olympus_Mons", "09:00"))
	_, err = store.GenerateNow(f.Ctx, invalid, now, actor)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	require.Equal(t, "briefing_settings_invalid", apperr.ReasonOf(err))
	require.Contains(t, err.Error(), "Mars/Olympus_Mons", "the problem is an argument, for logs")
	require.Contains(t, i18n.English.Message(err), "The briefing settings are invalid")

	unconfigured := f.Org("unconfigured", "")
	_, err = store.GenerateNow(f.Ctx, unconfigured, now, actor)
	require.Equal(t, apperr.Invalid, apperr.Code(err))

	require.Zero(t, f.Count(`SELECT count(*) FROM ff_briefings`))
	require.Zero(t, f.Count(`SELECT count(*) FROM audit_log WHERE action LIKE 'briefing.%'`))
}
