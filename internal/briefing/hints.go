package briefing

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/schedule"
)

// hint is a next-fire hint the tick computed for an org (docs/architecture.md,
// "The next-fire hint"), to store where the org's hint version is still the
// one the scan read.
type hint struct {
	orgID   int64
	version int64
	at      pgtype.Timestamptz // infinity: never, until something changes
}

// appendHint adds the hint computed at now unless the stored one already
// says the same from an instant no later than now. at is truncated to
// PostgreSQL's microseconds, downwards: a hint may be early, never late.
func appendHint(hints []hint, c Candidate, now, at time.Time, fires bool) []hint {
	h := hint{orgID: c.OrgID, version: c.Hint.Version, at: pgtype.Timestamptz{Valid: true, InfinityModifier: pgtype.Infinity}}
	if fires {
		h.at = pgtype.Timestamptz{Valid: true, Time: at.Truncate(time.Microsecond)}
	}
	stored := c.Hint
	if stored.NextFireAt.Valid && stored.From.Valid && !stored.From.Time.After(now) &&
		stored.NextFireAt.InfinityModifier == h.at.InfinityModifier && stored.NextFireAt.Time.Equal(h.at.Time) {
		return hints
	}
	return append(hints, h)
}

// writeHintsSQL stores the hints in one statement. A row whose version
// changed since the scan (a config edit, a flag or briefing change: the
// triggers of migration 00013) keeps its NULL. Rows are locked in org id
// order and a row locked elsewhere is skipped, so two writers never
// deadlock and the tick never waits for an admin's transaction; a skipped
// org keeps a hint that makes it a candidate, and the next tick retries.
const writeHintsSQL = `
WITH h AS (SELECT * FROM unnest($3::bigint[], $4::bigint[], $5::timestamptz[]) AS h(org_id, version, next_fire_at)),
     locked AS (SELECT om.org_id, h.next_fire_at
                  FROM org_module_configs om
                  JOIN h ON h.org_id = om.org_id AND h.version = om.hint_version
                 WHERE om.module = $1 AND om.org_id = ANY ($3) -- the primary key's index, however many rows unnest is guessed to give
                 ORDER BY om.org_id
                   FOR UPDATE OF om SKIP LOCKED)
UPDATE org_module_configs om
   SET next_fire_at = locked.next_fire_at, hint_from = $2
  FROM locked
 WHERE om.module = $1 AND om.org_id = locked.org_id`

// writeHints stores the hints computed at now and returns how many it wrote.
func writeHints(ctx context.Context, db *pgxpool.Pool, now time.Time, hints []hint) (int, error) {
	if len(hints) == 0 {
		return 0, nil
	}
	orgIDs := make([]int64, len(hints))
	versions := make([]int64, len(hints))
	ats := make([]pgtype.Timestamptz, len(hints))
	for i, h := range hints {
		orgIDs[i], versions[i], ats[i] = h.orgID, h.version, h.at
	}
	tag, err := db.Exec(ctx, writeHintsSQL, schedule.Module, now, orgIDs, versions, ats)
	if err != nil {
		return 0, fmt.Errorf("store next-fire hints: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
