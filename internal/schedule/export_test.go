package schedule

import "time"

// ZoneRulesData exposes a source's raw TZif data to tests, which build fake
// host directories from it.
func ZoneRulesData(r *ZoneRules, name string) ([]byte, error) { return r.read(name) }

// FreshZoneRules is r with an empty cache, for benchmarking loads.
func FreshZoneRules(r *ZoneRules) *ZoneRules {
	return &ZoneRules{Source: r.Source, Version: r.Version, read: r.read}
}

// NextFirings returns the next n firings at or after from, ignoring Enabled,
// from firingsFrom (which DSTWarnings reads): the table and property tests
// check FireTime's runs through it. Only tests call it.
func NextFirings(from time.Time, s Schedule, n int) []Firing {
	if n <= 0 {
		return nil
	}
	// Any nonempty day set runs at least once a week; a week more covers
	// local dates that do not exist.
	var runs []Firing
	for r := range firingsFrom(from, s, 7*(n+1)) {
		runs = append(runs, r)
		if len(runs) == n {
			break
		}
	}
	return runs
}
