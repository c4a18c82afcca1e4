package tenants

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
)

// FieldforceConfig is the org's briefing configuration as stored, parsed.
type FieldforceConfig struct {
	Raw       []byte            // the stored document, as is
	Config    schedule.Config   // canonical; valid only when Err is nil
	Schedule  schedule.Schedule // what Config describes; valid only when Err is nil
	Err       error             // why the stored document is invalid (the worker skips the org)
	Found     bool              // false: never saved; Schedule is schedule.DefaultSchedule()
	UpdatedAt time.Time
	// Version goes up with every change of the document (never with the
	// tick's hint writes; migration 00026, docs/versions.md); 0 when never
	// saved. A settings form carries it and saves with CheckFieldforceVersion.
	Version int64
}

// AnyVersion, as the version of SaveFieldforce or CheckFieldforceVersion,
// checks nothing: whatever is stored, last write wins (0 is a version:
// never saved).
const AnyVersion int64 = -1

// Fieldforce loads and parses the org's fieldforce config.
func (s *Store) Fieldforce(ctx context.Context, orgID int64) (FieldforceConfig, error) {
	return ReadFieldforce(ctx, database.Reader(ctx, s.DB), orgID)
}

// ReadFieldforce is Fieldforce on any Querier, for a caller that reads it
// with other things (flags.Store.BriefingState).
func ReadFieldforce(ctx context.Context, q database.Querier, orgID int64) (FieldforceConfig, error) {
	var c FieldforceConfig
	err := q.QueryRow(ctx, `SELECT config_json, updated_at, version FROM org_module_configs WHERE org_id = $1 AND module = $2`,
		orgID, schedule.Module).Scan(&c.Raw, &c.UpdatedAt, &c.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		c.Schedule = schedule.DefaultSchedule()
		c.Config = c.Schedule.Config()
		c.Raw = c.Config.JSON()
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("fieldforce config of org %d: %w", orgID, err)
	}
	c.Found = true
	c.Config, c.Schedule, c.Err = schedule.ParseConfig(c.Raw)
	return c, nil
}

// Errors of FieldforceConfig.Zone: why an org has no time zone of its own.
var (
	ErrZoneNotSaved = errors.New("no briefing settings are saved yet")
	ErrZoneInvalid  = errors.New("the saved briefing settings are invalid")
)

// Zone is the org's time zone, the one function every screen, import and
// API answer asks: the briefing's zone, so they and the briefing agree on
// what a day is. Without a usable saved zone it returns UTC, to show times
// in meanwhile, and ErrZoneNotSaved or ErrZoneInvalid, which callers show.
func (c FieldforceConfig) Zone() (schedule.Zone, error) {
	utc := schedule.Zone{Name: "UTC", Loc: time.UTC}
	switch {
	case !c.Found:
		return utc, ErrZoneNotSaved
	case c.Err != nil:
		return utc, ErrZoneInvalid
	}
	return c.Schedule.Zone, nil
}

// SaveFieldforce validates a config document strictly, webhook network
// policy included, and stores its canonical form (aliases resolved, days
// ordered, bare addresses) with one audit entry. Invalid input returns the
// *schedule.ValidationError and changes nothing.
//
// version is the document's as the caller read it
// (FieldforceConfig.Version; 0 = never saved): another stored version is
// apperr.Stale, nothing saved and nothing audited (CheckFieldforceVersion,
// in the save's transaction). AnyVersion (below 0) means no check:
// whatever is stored, last write wins. An invalid document is refused
// first, whatever its version.
func (s *Store) SaveFieldforce(ctx context.Context, actor audit.Actor, orgID int64, raw []byte, version int64) (schedule.Config, error) {
	cfg, _, err := schedule.ParseConfig(raw)
	if err != nil {
		return schedule.Config{}, err
	}
	if err := s.checkDeliveryPolicy(cfg); err != nil {
		return schedule.Config{}, err
	}
	canonical := cfg.JSON()
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		if err := CheckFieldforceVersion(ctx, tx, orgID, version); err != nil {
			return err
		}
		old, err := LockFieldforce(ctx, tx, orgID)
		if err != nil {
			return err
		}
		if old != nil && jsonEqual(old, canonical) {
			return nil
		}
		if err := WriteFieldforce(ctx, tx, orgID, actor.UserID, canonical); err != nil {
			return err
		}
		var oldValue any
		if old != nil {
			oldValue = json.RawMessage(old)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "fieldforce.config.update",
			Target: schedule.Module, Old: oldValue, New: json.RawMessage(canonical)})
	})
	if err != nil {
		return schedule.Config{}, err
	}
	return cfg, nil
}

// LockFieldforce reads the org's stored config document and locks it until
// the transaction ends, so that concurrent changes apply one after the
// other; nil when the org never saved one.
func LockFieldforce(ctx context.Context, tx pgx.Tx, orgID int64) ([]byte, error) {
	var doc []byte
	err := tx.QueryRow(ctx, `SELECT config_json FROM org_module_configs WHERE org_id = $1 AND module = $2 FOR UPDATE`,
		orgID, schedule.Module).Scan(&doc)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read config of org %d: %w", orgID, err)
	}
	return doc, nil
}

// CheckFieldforceVersion locks the org's config row in tx and refuses, as
// apperr.Stale, a change read at version (FieldforceConfig.Version; 0 =
// never saved) when the stored one is another. AnyVersion (any version
// below 0) checks nothing (last write wins).
func CheckFieldforceVersion(ctx context.Context, tx pgx.Tx, orgID, version int64) error {
	if version < 0 {
		return nil
	}
	var have int64
	err := tx.QueryRow(ctx, `SELECT version FROM org_module_configs WHERE org_id = $1 AND module = $2 FOR UPDATE`,
		orgID, schedule.Module).Scan(&have)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("version of config of org %d: %w", orgID, err)
	}
	if have != version {
		return apperr.Refuse(apperr.Stale, "settings_stale", nil)
	}
	return nil
}

// WriteFieldforce stores a canonical config document. userID 0 is a change
// no signed-in user made (the system, or a recipient unsubscribing). The
// time is the inserted row's (EXCLUDED.updated_at): Citus refuses now() in
// the DO UPDATE SET of a distributed table (docs/scaling.md, "What the real
// cluster refused").
func WriteFieldforce(ctx context.Context, q database.Querier, orgID, userID int64, canonical []byte) error {
	_, err := q.Exec(ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json, updated_by, updated_at) VALUES ($1, $2, $3, nullif($4::bigint, 0), now())
		ON CONFLICT (org_id, module) DO UPDATE
		   SET config_json = EXCLUDED.config_json, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
		orgID, schedule.Module, canonical, userID)
	if err != nil {
		return fmt.Errorf("save config of org %d: %w", orgID, err)
	}
	return nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
