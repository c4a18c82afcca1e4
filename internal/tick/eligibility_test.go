package tick

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/flags"
	"fieldbrief/internal/testutil"
)

// The candidate SQL keeps the cheap part of the eligibility rule (config
// saved, flag on) and the tick checks the rest (the config validates): over
// every combination of global flag, org override, config and pause, an org
// is a candidate with a valid config exactly when flags.BriefingEligibility,
// which the web and "generate now" ask, says it is eligible. Paused orgs
// are eligible: pausing is the schedule's decision, at each instant.
func TestCandidateSQLAgreesWithEligibility(t *testing.T) {
	f := setup(t)
	store := testutil.NewStores(f.DB)
	now := utc("2026-03-10T16:00:00Z")
	configs := map[string]string{
		"missing": "",
		"valid":   config("Europe/Paris", "09:00"),
		"paused":  `{"briefing": {"timezone": "Europe/Paris", "schedule_local_time": "09:00", "enabled": false}}`,
		"invalid": config("Mars/Olympus_Mons", "09:00"),
		"garbage": `{"briefing": {"timezone": "UTC", "schedule_local_time": "25:00"}}`,
	}
	type combo struct{ override, cfg string }
	var ids []int64
	var combos []combo
	for _, override := range []string{"inherit", "on", "off"} {
		for name, cfg := range configs {
			id := f.Org(fmt.Sprintf("%s-%s", override, name), cfg)
			if override != "inherit" {
				f.OrgFlag(id, override == "on")
			}
			ids = append(ids, id)
			combos = append(combos, combo{override, name})
		}
	}
	for _, global := range []bool{true, false} {
		f.GlobalFlag(global)
		cands, err := candidates(f.Ctx, f.DB, now)
		require.NoError(t, err)
		for i, id := range ids {
			name := fmt.Sprintf("global=%v override=%s config=%s", global, combos[i].override, combos[i].cfg)
			st, err := store.Flags.BriefingState(f.Ctx, id)
			require.NoError(t, err)
			k := slices.IndexFunc(cands, func(c Candidate) bool { return c.OrgID == id })
			bySQL := k >= 0 && parseConfig(cands[k].Config).err == nil
			require.Equal(t, st.Eligibility() == flags.Eligible, bySQL, name)

			want := flags.Eligible
			switch {
			case combos[i].cfg == "missing":
				want = flags.NotConfigured
			case combos[i].cfg == "invalid" || combos[i].cfg == "garbage":
				want = flags.InvalidConfig
			case !global || combos[i].override == "off":
				want = flags.FlagOff
			}
			require.Equal(t, want, st.Eligibility(), name)
		}
	}
}
