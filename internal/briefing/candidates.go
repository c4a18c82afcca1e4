package briefing

import (
	"context"
	"fmt"
	"time"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// Candidate is an org whose briefing might be due: its module is configured
// and its flag is on. Whether it is due is decided in Go (tick.go).
type Candidate struct {
	OrgID  int64
	Config []byte          // config_json as stored; validated by the decision
	Dates  []schedule.Date // its dates within the scan window whose scheduled firing happened
}

// candidatesSQL applies only cheap, zone-free filters (docs/architecture.md,
// "The tick"). The dates are aggregated per org (a plain LEFT JOIN would
// return an org once per briefing in the window) and the window comes from
// Go, so a tick at any instant sees what it would have seen then. Only dates
// whose scheduled firing happened count: a "generate now" look does not
// consume the day's run.
const candidatesSQL = `
SELECT om.org_id,
       om.config_json,
       ARRAY(SELECT b.briefing_date
               FROM ff_briefings b
              WHERE b.org_id = om.org_id
                AND b.briefing_date BETWEEN $3 AND $4
                AND b.scheduled_at IS NOT NULL) AS dates
  FROM org_module_configs om
  JOIN admin_feature_flags af ON af.key = $2 AND af.is_enabled
  LEFT JOIN org_feature_flags oo ON oo.org_id = om.org_id AND oo.key = $2
 WHERE om.module = $1
   AND (oo.is_enabled IS NULL OR oo.is_enabled)
 ORDER BY om.org_id`

// scanWindow is the ±1 day around now's UTC date: every UTC offset (-12h to
// +14h) puts an org's local date at now inside it.
func scanWindow(now time.Time) (from, to schedule.Date) {
	d := schedule.DateOf(now.UTC())
	return d.AddDays(-1), d.AddDays(1)
}

// Candidates returns one row per org that could be due at now, by org id.
func Candidates(ctx context.Context, q database.Querier, now time.Time) ([]Candidate, error) {
	from, to := scanWindow(now)
	rows, err := q.Query(ctx, candidatesSQL, schedule.Module, schedule.FlagKey, from.Time(), to.Time())
	if err != nil {
		return nil, fmt.Errorf("scan briefing candidates: %w", err)
	}
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		var c Candidate
		var dates []time.Time
		if err := rows.Scan(&c.OrgID, &c.Config, &dates); err != nil {
			return nil, fmt.Errorf("scan briefing candidate: %w", err)
		}
		c.Dates = make([]schedule.Date, len(dates))
		for i, d := range dates {
			c.Dates[i] = schedule.DateOf(d)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("scan briefing candidates: %w", err)
	}
	return out, nil
}
