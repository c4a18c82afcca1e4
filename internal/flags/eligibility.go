package flags

import (
	"context"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// Ineligibility is why an org's briefings cannot run at all, paused or not;
// "" (Eligible) when they can. Pausing is not here: it is part of the
// schedule, decided per instant by schedule.Decide.
type Ineligibility string

// The reasons, most fundamental first: BriefingEligibility reports the
// first that applies.
const (
	Eligible      Ineligibility = ""
	NotConfigured Ineligibility = "not_configured" // no config saved
	InvalidConfig Ineligibility = "invalid_config" // the saved config does not validate
	FlagOff       Ineligibility = "flag_off"       // global flag off, or the org's override off
)

// BriefingEligibility is the one rule for whether an org's briefings run:
// a saved config that validates and the flag on. The web's briefings page
// and "generate now" ask it; the tick's candidate SQL applies its cheap
// part (config saved, flag on) and the tick the rest (the config
// validates), and a test pins the SQL and this function to the same
// answer (docs/scheduling.md, "One eligibility rule").
func BriefingEligibility(flagOn bool, cfg tenants.FieldforceConfig) Ineligibility {
	switch {
	case !cfg.Found:
		return NotConfigured
	case cfg.Err != nil:
		return InvalidConfig
	case !flagOn:
		return FlagOff
	}
	return Eligible
}

// BriefingState is what decides whether an org's briefings run: its saved
// config and its effective flag.
type BriefingState struct {
	tenants.FieldforceConfig
	FlagOn bool
}

// Eligibility is BriefingEligibility of the state.
func (st BriefingState) Eligibility() Ineligibility {
	return BriefingEligibility(st.FlagOn, st.FieldforceConfig)
}

// BriefingState loads the org's fieldforce config and effective briefing
// flag.
func (s *Store) BriefingState(ctx context.Context, orgID int64) (BriefingState, error) {
	var st BriefingState
	var err error
	if st.FieldforceConfig, err = tenants.ReadFieldforce(ctx, database.Reader(ctx, s.DB), orgID); err != nil {
		return st, err
	}
	if st.FlagOn, err = s.Enabled(ctx, orgID, schedule.FlagKey); err != nil {
		return st, err
	}
	return st, nil
}
