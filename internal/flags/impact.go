package flags

import (
	"context"
	"fmt"

	"fieldbrief/internal/database"
)

// Impact is what flipping a global switch would do, counted over every
// org: how many orgs there are and how many override the flag either way
// (docs/architecture.md, feature flags).
type Impact struct {
	Orgs        int // every org
	OverrideOn  int // orgs whose override is on (the kill switch wins over it)
	OverrideOff int // orgs whose override is off (off whatever the switch says)
}

// Affected is how many orgs change state when the switch flips: every org
// but those whose own override keeps them off either way.
func (i Impact) Affected() int { return i.Orgs - i.OverrideOff }

// Impacts counts, for every global flag at once, the orgs its switch
// reaches, in one query.
func (s *Store) Impacts(ctx context.Context) (map[string]Impact, error) {
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `
		SELECT f.key, (SELECT count(*) FROM orgs),
		       count(off.org_id) FILTER (WHERE off.is_enabled),
		       count(off.org_id) FILTER (WHERE NOT off.is_enabled)
		FROM admin_feature_flags f
		LEFT JOIN org_feature_flags off ON off.key = f.key
		GROUP BY f.key`)
	if err != nil {
		return nil, fmt.Errorf("impact of flags: %w", err)
	}
	defer rows.Close()
	out := map[string]Impact{}
	for rows.Next() {
		var key string
		var i Impact
		if err := rows.Scan(&key, &i.Orgs, &i.OverrideOn, &i.OverrideOff); err != nil {
			return nil, fmt.Errorf("impact of flags: %w", err)
		}
		out[key] = i
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("impact of flags: %w", err)
	}
	return out, nil
}
