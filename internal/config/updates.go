package config

import (
	"fmt"
	"time"

	"fieldbrief/internal/updates"
)

// UpdateDelay is BRIEFING_UPDATE_DELAY, the worker's quiet time after the
// newest change to a technician's day before their update is sent
// (docs/delivery.md, "Updates"): a Go duration such as "2m" or "90s",
// default updates.DefaultDelay, at most updates.MaxDelay.
func UpdateDelay(getenv func(string) string) (time.Duration, error) {
	const name = "BRIEFING_UPDATE_DELAY"
	v := getenv(name)
	if v == "" {
		return updates.DefaultDelay, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > updates.MaxDelay {
		return 0, fmt.Errorf("%s: want a duration above 0 and at most %s, such as 2m or 90s; got %q", name, updates.MaxDelay, v)
	}
	return d, nil
}
