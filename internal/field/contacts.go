package field

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
)

// What the briefing's deliveries and the unsubscribe page read of
// technicians (docs/delivery.md): who can be mailed, at which address, in
// which language.

// Contact is how a technician is reached: their address, their language
// ("" = the org's) and whether they are active.
type Contact struct {
	Email    string
	Language string
	Active   bool
	// DaySheetsStoppedAt: when they asked not to receive their day sheets;
	// nil when they receive them.
	DaySheetsStoppedAt *time.Time
}

// ContactOf is the org's technician id's contact on q; found is false when
// the org has no such technician (deleted since).
func ContactOf(ctx context.Context, q database.Querier, orgID, id int64) (c Contact, found bool, err error) {
	err = q.QueryRow(ctx, `SELECT email, coalesce(language, ''), active, day_sheets_stopped_at FROM technicians WHERE org_id = $1 AND id = $2`,
		orgID, id).Scan(&c.Email, &c.Language, &c.Active, &c.DaySheetsStoppedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Contact{}, false, nil
	}
	if err != nil {
		return Contact{}, false, fmt.Errorf("contact of technician %d of org %d: %w", id, orgID, err)
	}
	return c, true, nil
}

// Reachable counts the org's active technicians with an address: those a
// briefing can be mailed to.
func Reachable(ctx context.Context, q database.Querier, orgID int64) (int, error) {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM technicians WHERE org_id = $1 AND active AND email <> ''`, orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("technicians with an address of org %d: %w", orgID, err)
	}
	return n, nil
}

// LanguageByEmail is the language of the org's technician with the address
// email (any case) who has one, an active one first, else the oldest; ""
// when none has.
func LanguageByEmail(ctx context.Context, q database.Querier, orgID int64, email string) (string, error) {
	var lang string
	err := q.QueryRow(ctx, `
		SELECT language FROM technicians
		 WHERE org_id = $1 AND lower(email) = lower($2) AND language IS NOT NULL
		 ORDER BY active DESC, created_at, id LIMIT 1`, orgID, email).Scan(&lang)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("language of technician %q of org %d: %w", email, orgID, err)
	}
	return lang, nil
}

// LinkHolder is what a technician's day links depend on (docs/delivery.md,
// "Day links"): their name, whether they are active, and their link
// generation. A link opens only while its generation is theirs and they
// are active; a change of address, a deactivation or an admin's revoke
// moves the generation on (migration 00036).
type LinkHolder struct {
	Name       string
	Active     bool
	Generation int64
}

// LinkHolders are the org's technicians ids as their day links depend on
// them; a deleted one (or another org's) is absent.
func LinkHolders(ctx context.Context, q database.Querier, orgID int64, ids []int64) (map[int64]LinkHolder, error) {
	rows, err := q.Query(ctx, `SELECT id, name, active, link_generation FROM technicians WHERE org_id = $1 AND id = ANY($2)`, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("link holders of org %d: %w", orgID, err)
	}
	defer rows.Close()
	out := make(map[int64]LinkHolder, len(ids))
	for rows.Next() {
		var id int64
		var h LinkHolder
		if err := rows.Scan(&id, &h.Name, &h.Active, &h.Generation); err != nil {
			return nil, fmt.Errorf("link holders of org %d: %w", orgID, err)
		}
		out[id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("link holders of org %d: %w", orgID, err)
	}
	return out, nil
}

// LinkGeneration is the link generation of the org's technician id, for a
// link issued now; found is false when the org has no such technician and,
// with to set (the address the link goes to), when they are inactive or to
// (in any case) is not their address.
func LinkGeneration(ctx context.Context, q database.Querier, orgID, id int64, to string) (generation int64, found bool, err error) {
	err = q.QueryRow(ctx, `
		SELECT link_generation FROM technicians
		 WHERE org_id = $1 AND id = $2 AND ($3 = '' OR (active AND lower(email) = lower($3)))`, orgID, id, to).Scan(&generation)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("link generation of technician %d of org %d: %w", id, orgID, err)
	}
	return generation, true, nil
}
