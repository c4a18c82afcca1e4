// Package audit is the append-only log of who changed what: the actor of
// a change, writing an entry in the change's own transaction, and the
// reads of the org's and the staff console's log (docs/audit.md).
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/database"
)

// Actor is who did something: a signed-in user, or the system (ID 0) for
// the worker and command-line tools.
type Actor struct {
	UserID int64
	Email  string
}

// System is the actor for changes made by operators' commands.
var System = Actor{Email: "system"}

// Entry is one line of the append-only audit log.
type Entry struct {
	ID      int64
	At      time.Time
	Actor   Actor
	OrgID   int64  // 0 for platform-wide changes
	OrgSlug string // filled on reads
	Action  string // e.g. "fieldforce.config.update", "flag.global.set"
	Target  string
	Old     any // marshalled to JSON; json.RawMessage on reads
	New     any
	Reason  string
}

// Record appends an entry. Call it inside the transaction of the change it
// records, so the change and its entry commit or roll back together.
func Record(ctx context.Context, q database.Querier, e Entry) error {
	oldJSON, err := auditJSON(e.Old)
	if err != nil {
		return err
	}
	newJSON, err := auditJSON(e.New)
	if err != nil {
		return err
	}
	var actorID, orgID *int64
	if e.Actor.UserID != 0 {
		actorID = &e.Actor.UserID
	}
	if e.OrgID != 0 {
		orgID = &e.OrgID
	}
	_, err = q.Exec(ctx, `
		INSERT INTO audit_log (actor_id, actor_email, org_id, action, target, old_value, new_value, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		actorID, e.Actor.Email, orgID, e.Action, e.Target, oldJSON, newJSON, e.Reason)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

func auditJSON(v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		if json.Valid(v) {
			return v, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("audit value: %w", err)
	}
	return b, nil
}

// Store reads the log.
type Store struct {
	DB *pgxpool.Pool
}

// auditSelect reads entries with their org's slug; each query adds its
// WHERE, order and limit.
const auditSelect = `
	SELECT a.id, a.at, coalesce(a.actor_id, 0), a.actor_email, coalesce(a.org_id, 0), coalesce(o.slug, ''),
	       a.action, a.target, a.old_value, a.new_value, a.reason
	FROM audit_log a LEFT JOIN orgs o ON o.id = a.org_id`

// ForOrg returns an org's own recent changes, newest first, for its
// admins: its settings, its webhook secret's rotations, the recipients who
// unsubscribed, its briefings, its API tokens and its locale. Staff changes to the org's flags
// are left out, as they carry staff emails and internal reasons (the
// briefings page already says when the feature is off).
func (s *Store) ForOrg(ctx context.Context, orgID int64, limit int) ([]Entry, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), fmt.Sprintf("audit of org %d", orgID), scanAudit, auditSelect+`
		WHERE a.org_id = $1
		  AND (a.action LIKE 'fieldforce.%' OR a.action LIKE 'webhook.%' OR a.action LIKE 'delivery.%' OR a.action LIKE 'briefing.%' OR a.action LIKE 'api_token.%' OR a.action = 'org.locale.set')
		ORDER BY a.at DESC, a.id DESC
		LIMIT $2`, orgID, limit)
}

func scanAudit(r pgx.CollectableRow) (Entry, error) {
	var e Entry
	var oldV, newV []byte
	err := r.Scan(&e.ID, &e.At, &e.Actor.UserID, &e.Actor.Email, &e.OrgID, &e.OrgSlug,
		&e.Action, &e.Target, &oldV, &newV, &e.Reason)
	if oldV != nil {
		e.Old = json.RawMessage(oldV)
	}
	if newV != nil {
		e.New = json.RawMessage(newV)
	}
	return e, err
}
