package schedule

// ZoneRulesData exposes a source's raw TZif data to tests, which build fake
// host directories from it.
func ZoneRulesData(r *ZoneRules, name string) ([]byte, error) { return r.read(name) }

// FreshZoneRules is r with an empty cache, for benchmarking loads.
func FreshZoneRules(r *ZoneRules) *ZoneRules {
	return &ZoneRules{Source: r.Source, Version: r.Version, read: r.read}
}
