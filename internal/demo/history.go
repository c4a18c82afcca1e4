package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
)

// seedActor is who the audit log shows for the demo's history.
var seedActor = audit.Actor{Email: "demo seed"}

// seedHistory gives a demo org created by this run a short past, so the
// briefings page opens on a briefing rather than an empty calendar: the org
// dates from the start of its local yesterday, and yesterday's briefing is
// requested as of yesterday's schedule minute through the real pipeline
// (GenerateNow). The worker that `make run` starts generates it from
// yesterday's jobs within a second. A day off yesterday stays a day off,
// and so does every day while briefings are switched off.
func seedHistory(ctx context.Context, pool *pgxpool.Pool, orgID int64, s schedule.Schedule, now time.Time) error {
	yesterday := schedule.DateOf(now.In(s.Zone.Loc)).AddDays(-1)
	dayStart, _ := schedule.FireTime(s.Zone.Loc, yesterday, schedule.LocalTime{})
	if _, err := pool.Exec(ctx, `UPDATE orgs SET created_at = $2 WHERE id = $1`, orgID, dayStart); err != nil {
		return fmt.Errorf("demo history: date org %d: %w", orgID, err)
	}
	if !s.Days.Has(yesterday.Weekday()) {
		return nil
	}
	// With briefings switched off (staff's kill switch) there is no
	// briefing to request: the org just starts without history.
	on, err := (&flags.Store{DB: pool}).Enabled(ctx, orgID, schedule.FlagKey)
	if err != nil {
		return fmt.Errorf("demo history: %w", err)
	}
	if !on {
		return nil
	}
	fireAt, _ := schedule.FireTime(s.Zone.Loc, yesterday, s.At)
	store, err := briefing.NewStore(pool)
	if err != nil {
		return fmt.Errorf("demo history: %w", err)
	}
	if _, err := store.GenerateNow(ctx, orgID, fireAt, seedActor); err != nil {
		return fmt.Errorf("demo history: briefing for %s: %w", yesterday, err)
	}
	return nil
}
