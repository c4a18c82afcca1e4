package briefing

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
)

// generateNowSQL creates today's briefing as a look (no scheduled firing,
// so the scheduled run still happens) or asks an existing one, whatever its
// status, for a new revision: pressing twice refreshes. A new row records the
// zone rules that decided its date ($5, $6); a refresh keeps the date, and
// so the rules that decided it.
const generateNowSQL = `
INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, trigger, status, requested_revision, created_at, updated_at,
                          tzdata_version, tzdata_source)
VALUES ($1, $2, $3, $4, 'manual', 'pending', 1, $4, $4, $5, $6)
ON CONFLICT (org_id, briefing_date) DO UPDATE
   SET requested_revision = ff_briefings.requested_revision + 1, status = 'pending', last_error = '', updated_at = $4
RETURNING id, requested_revision`

// Generation is what a press of "generate now" did: Queued is false when
// a generation of today's briefing was on its way already, and the press
// only shows it.
type Generation struct {
	Briefing
	Queued bool
}

// GenerateNow is Generate without saying whether it queued.
func (s *Store) GenerateNow(ctx context.Context, orgID int64, now time.Time, actor audit.Actor) (Briefing, error) {
	g, err := s.Generate(ctx, orgID, now, actor)
	return g.Briefing, err
}

// Generate is the admin's "generate now": an early look at today's
// briefing (today in the org's configured zone at now), which sends nothing
// and never consumes the day's scheduled run. It creates the briefing when
// there is none, or asks for a new revision of it, and inserts its task in
// the same transaction; an existing briefing keeps its date and zone. It
// writes an audit entry. A look is a bounded one (docs/guarantees.md,
// "Bounds"): while a generation of the briefing is pending (queued less
// than pendingFor ago and not yet made) a press queues nothing and returns
// the briefing as it is, and an org gets at most MaxRequestsPerHour
// generations on request an hour (apperr TooMany, saying when it can
// generate again).
func (s *Store) Generate(ctx context.Context, orgID int64, now time.Time, actor audit.Actor) (Generation, error) {
	sch, err := s.schedule(ctx, orgID)
	if err != nil {
		return Generation{}, err
	}
	date := schedule.DateOf(now.In(sch.Zone.Loc))
	rules := schedule.CurrentZoneRules() // what loaded sch.Zone
	var queued bool
	err = s.requestTx(ctx, func(tx pgx.Tx) error {
		queued = false
		entry := audit.Entry{Actor: actor, OrgID: orgID, Action: "briefing.generate", Target: "briefing " + date.String()}
		var oldStatus string
		var oldRevision, requested int
		var updated time.Time
		err := tx.QueryRow(ctx, `SELECT status, revision, requested_revision, updated_at FROM ff_briefings
			 WHERE org_id = $1 AND briefing_date = $2 FOR UPDATE`,
			orgID, date.Time()).Scan(&oldStatus, &oldRevision, &requested, &updated)
		switch {
		case err == nil:
			if oldStatus == StatusPending && requested > oldRevision && updated.After(now.Add(-pendingFor)) {
				return nil // on its way: this press shows it
			}
			entry.Old = map[string]any{"status": oldStatus, "revision": oldRevision}
		case !errNotFound(err):
			return err
		}
		if err := checkRequests(ctx, tx, orgID, now, "generate_too_many"); err != nil {
			return err
		}
		var id int64
		var revision int
		if err := tx.QueryRow(ctx, generateNowSQL, orgID, date.Time(), sch.Zone.Name, now, rules.Version, rules.Source).Scan(&id, &revision); err != nil {
			return err
		}
		_, err = s.tasks.InsertTx(ctx, tx, GenerateBriefingArgs{OrgID: orgID, BriefingID: id, Revision: revision,
			Trigger: TriggerManual}, nil)
		if err != nil {
			return fmt.Errorf("insert generation task: %w", err)
		}
		if err := recordRequest(ctx, tx, orgID, id, RequestGenerate, now); err != nil {
			return err
		}
		entry.New = map[string]any{"status": StatusPending, "requested_revision": revision, "timezone": sch.Zone.Name}
		queued = true
		return audit.Record(ctx, tx, entry)
	})
	if err != nil {
		if apperr.Code(err) != apperr.Internal {
			return Generation{}, err
		}
		return Generation{}, fmt.Errorf("generate briefing %s for org %d now: %w", date, orgID, err)
	}
	b, err := s.Get(ctx, orgID, date)
	return Generation{Briefing: b, Queued: queued}, err
}

// schedule loads the org's briefing schedule for GenerateNow, which needs
// what the tick needs: flags.BriefingEligibility, the one rule.
func (s *Store) schedule(ctx context.Context, orgID int64) (schedule.Schedule, error) {
	st, err := (&flags.Store{DB: s.DB}).BriefingState(ctx, orgID)
	if err != nil {
		return schedule.Schedule{}, fmt.Errorf("generate briefing now for org %d: %w", orgID, err)
	}
	switch st.Eligibility() {
	case flags.NotConfigured:
		return schedule.Schedule{}, apperr.Refuse(apperr.Invalid, "briefing_not_configured", nil)
	case flags.InvalidConfig:
		return schedule.Schedule{}, apperr.Refuse(apperr.Invalid, "briefing_settings_invalid", apperr.Args{"Problem": fmt.Sprint(st.Err)})
	case flags.FlagOff:
		return schedule.Schedule{}, apperr.Refuse(apperr.Conflict, "briefing_flag_off", nil)
	}
	return st.Schedule, nil
}
