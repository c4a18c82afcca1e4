// Package schedule is the one place where fieldbrief reasons about time zones:
// it loads zones (with the rules TZ_SOURCE chose, docs/scheduling.md "Zone
// rules"), validates the fieldforce module config, decides whether an
// org's daily briefing is due (the tick's Go-side eligibility,
// docs/scheduling.md "The tick") and previews
// the next runs. It is pure: the current time is always a parameter, so every
// rule can be tested at any instant.
package schedule

// Module is the fieldforce module's name in org_module_configs.
const Module = "fieldforce"

// FlagKey is the feature flag that switches briefings on, globally and per org.
const FlagKey = "fieldforce.briefing"
