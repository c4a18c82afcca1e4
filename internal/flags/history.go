package flags

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// historyLimit bounds the audit entries read for one span: a calendar page
// covers about two weeks, and a config or flag changes by hand. Past the
// limit the earliest entries are kept, so the newest days of the span may
// be told from a later state (docs/web.md, "The briefings calendar").
const historyLimit = 1000

// BriefingHistory is what decided an org's briefings over a span of time:
// the changes to its config and to the briefing flag (global switch and
// the org's override) recorded in the audit log, and the state now. It
// answers "what was in force at that instant?" for any instant in the span.
type BriefingHistory struct {
	configs  []change[[]byte] // raw documents; nil: none saved
	global   []change[bool]
	override []change[Override]
	config   []byte // now; nil: none saved
	globalOn bool
	orgState Override
}

// change is one audited change, oldest first in each list.
type change[T any] struct {
	at       time.Time
	old, new T
}

// BriefingHistory reads the changes audited from from to to, each kind's
// first change after to (what was in force at to is its old value), and
// the flag's current state; current is the org's config as stored now
// (the caller has read it already). Changes after now are left out: now is the app's
// clock, and a change it has not reached yet is part of the current state.
// Every statement is scoped to the org, or to the platform-wide switch of
// the briefing flag.
func (s *Store) BriefingHistory(ctx context.Context, orgID int64, current tenants.FieldforceConfig, from, to, now time.Time) (BriefingHistory, error) {
	var h BriefingHistory
	if current.Found {
		h.config = current.Raw
	}
	var err error
	if h.globalOn, h.orgState, err = s.ForOrg(ctx, orgID, schedule.FlagKey); err != nil {
		return h, err
	}
	const kinds = `((a.org_id = $1 AND a.action = 'fieldforce.config.update')
	             OR (a.org_id = $1 AND a.action = 'flag.org.set' AND a.target = $4)
	             OR (a.org_id IS NULL AND a.action = 'flag.global.set' AND a.target = $4))`
	rows, err := database.Reader(ctx, s.DB).Query(ctx, `
		(SELECT a.id, a.at, a.action, a.old_value, a.new_value FROM audit_log a
		  WHERE `+kinds+` AND a.at >= $2 AND a.at <= $3 AND a.at <= $6 ORDER BY a.at, a.id LIMIT $5)
		UNION ALL
		(SELECT a.id, a.at, a.action, a.old_value, a.new_value FROM audit_log a
		  WHERE a.org_id = $1 AND a.action = 'fieldforce.config.update' AND a.at > $3 AND a.at <= $6 ORDER BY a.at, a.id LIMIT 1)
		UNION ALL
		(SELECT a.id, a.at, a.action, a.old_value, a.new_value FROM audit_log a
		  WHERE a.org_id = $1 AND a.action = 'flag.org.set' AND a.target = $4 AND a.at > $3 AND a.at <= $6 ORDER BY a.at, a.id LIMIT 1)
		UNION ALL
		(SELECT a.id, a.at, a.action, a.old_value, a.new_value FROM audit_log a
		  WHERE a.org_id IS NULL AND a.action = 'flag.global.set' AND a.target = $4 AND a.at > $3 AND a.at <= $6 ORDER BY a.at, a.id LIMIT 1)
		ORDER BY 2, 1`, orgID, from, to, schedule.FlagKey, historyLimit, now)
	if err != nil {
		return h, fmt.Errorf("briefing history of org %d: %w", orgID, err)
	}
	type entry struct {
		id       int64
		at       time.Time
		action   string
		old, new []byte
	}
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (entry, error) {
		var e entry
		return e, r.Scan(&e.id, &e.at, &e.action, &e.old, &e.new)
	})
	if err != nil {
		return h, fmt.Errorf("briefing history of org %d: %w", orgID, err)
	}
	for _, e := range entries {
		switch e.action {
		case "fieldforce.config.update":
			h.configs = append(h.configs, change[[]byte]{e.at, e.old, e.new})
		case "flag.org.set":
			var o, n struct{ State Override }
			_ = json.Unmarshal(e.old, &o) // written by SetOrg: {"state": "inherit"|"on"|"off"}
			_ = json.Unmarshal(e.new, &n)
			h.override = append(h.override, change[Override]{e.at, o.State, n.State})
		case "flag.global.set":
			var o, n struct{ Enabled bool }
			_ = json.Unmarshal(e.old, &o) // written by SetGlobal: {"enabled": bool}
			_ = json.Unmarshal(e.new, &n)
			h.global = append(h.global, change[bool]{e.at, o.Enabled, n.Enabled})
		}
	}
	return h, nil
}

// At is the org's briefing state in force at t: each part is the old value
// of its first change after t, or what holds now when it has not changed
// since.
func (h BriefingHistory) At(t time.Time) BriefingState {
	raw := valueAt(h.configs, t, h.config)
	st := BriefingState{FlagOn: Effective(valueAt(h.global, t, h.globalOn), valueAt(h.override, t, h.orgState))}
	if raw == nil || string(raw) == "null" {
		st.Schedule = schedule.DefaultSchedule()
		return st
	}
	st.Found, st.Raw = true, raw
	st.Config, st.Schedule, st.Err = schedule.ParseConfig(raw)
	return st
}

func valueAt[T any](changes []change[T], t time.Time, now T) T {
	for _, c := range changes {
		if c.at.After(t) {
			return c.old
		}
	}
	return now
}
