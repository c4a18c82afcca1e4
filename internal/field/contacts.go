package field

import (
	"context"
	"errors"
	"fmt"

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
}

// ContactOf is the org's technician id's contact on q; found is false when
// the org has no such technician (deleted since).
func ContactOf(ctx context.Context, q database.Querier, orgID, id int64) (c Contact, found bool, err error) {
	err = q.QueryRow(ctx, `SELECT email, coalesce(language, ''), active FROM technicians WHERE org_id = $1 AND id = $2`,
		orgID, id).Scan(&c.Email, &c.Language, &c.Active)
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
