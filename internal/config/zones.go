package config

import (
	"fmt"

	"fieldbrief/internal/schedule"
)

// TZSource names the setting that chooses the zone rules, for both processes.
const TZSource = "TZ_SOURCE"

// ZoneRules returns the rules TZ_SOURCE asks for: "embedded" (or unset) or
// "host", whose directory is $ZONEINFO when set, else the first of the
// usual Unix places that exists. Anything else is an error: a process must
// not start deciding with rules nobody chose.
func ZoneRules(getenv func(string) string) (*schedule.ZoneRules, error) {
	switch v := getenv(TZSource); v {
	case "", schedule.SourceEmbedded:
		return schedule.EmbeddedZoneRules(), nil
	case schedule.SourceHost:
		if dir := getenv("ZONEINFO"); dir != "" {
			return schedule.HostZoneRules(dir)
		}
		r, err := schedule.FindHostZoneRules()
		if err != nil {
			return nil, fmt.Errorf("%s=host, but %w; set ZONEINFO", TZSource, err)
		}
		return r, nil
	default:
		return nil, fmt.Errorf("%s=%q: want %q (the default) or %q", TZSource, v, schedule.SourceEmbedded, schedule.SourceHost)
	}
}
