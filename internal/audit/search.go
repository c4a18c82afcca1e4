package audit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/database"
)

// Filter narrows the staff audit log (docs/audit.md). Zero values mean
// "any". The web layer bounds and validates what people type.
type Filter struct {
	From    time.Time // entries at or after this instant
	Until   time.Time // entries before this instant
	OrgSlug string    // one org's entries, by slug
	Actor   string    // substring of the actor's email, any case
	Action  string    // exact action, e.g. "flag.global.set"
	Query   string    // substring of the target, reason, old or new value, any case
	Before  int64     // keyset: entries older than this entry (its at, then id)
	Limit   int
}

// PageSize is the staff audit log's fixed page size.
const PageSize = 50

// auditText is the text the search looks in; the trigram index of
// migration 00018 is on exactly this expression.
const auditText = `(a.target || ' ' || a.reason || ' ' || coalesce(a.old_value::text, '') || ' ' || coalesce(a.new_value::text, ''))`

// where builds the filter's WHERE clause and its arguments. Only the
// filters that are set become conditions, so each combination gets a plan
// of its own that can use its index (a "$1 = ” OR …" in a generic plan
// could not).
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		args = append(args, arg)
		conds = append(conds, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if !f.From.IsZero() {
		add(`a.at >= $?`, f.From)
	}
	if !f.Until.IsZero() {
		add(`a.at < $?`, f.Until)
	}
	if f.OrgSlug != "" {
		add(`a.org_id = (SELECT id FROM orgs WHERE slug = $?)`, f.OrgSlug)
	}
	if f.Actor != "" {
		add(`a.actor_email ILIKE '%' || $? || '%'`, database.EscapeLike(f.Actor))
	}
	if f.Action != "" {
		add(`a.action = $?`, f.Action)
	}
	if f.Query != "" {
		add(auditText+` ILIKE '%' || $? || '%'`, database.EscapeLike(f.Query))
	}
	if f.Before != 0 {
		add(`(a.at, a.id) < (SELECT b.at, b.id FROM audit_log b WHERE b.id = $?)`, f.Before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// List returns entries newest first, across every org and platform-wide
// changes: the staff console's log, never shown to an org. At most
// f.Limit entries (PageSize when unset, 500 at most).
func (s *Store) List(ctx context.Context, f Filter) ([]Entry, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = PageSize
	}
	where, args := f.where()
	args = append(args, f.Limit)
	return database.List(ctx, database.Reader(ctx, s.DB), "list audit", scanAudit, auditSelect+where+`
		ORDER BY a.at DESC, a.id DESC
		LIMIT $`+strconv.Itoa(len(args)), args...)
}

// Each calls fn for each entry the filter selects, newest first, at
// most limit of them, reading them one at a time (the CSV export streams
// them to the client as they come).
func (s *Store) Each(ctx context.Context, f Filter, limit int, fn func(Entry) error) error {
	where, args := f.where()
	args = append(args, limit)
	rows, err := database.Reader(ctx, s.DB).Query(ctx, auditSelect+where+`
		ORDER BY a.at DESC, a.id DESC
		LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return fmt.Errorf("export audit: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return fmt.Errorf("export audit: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export audit: %w", err)
	}
	return nil
}

// Actions lists the distinct actions in the log, for the filter's
// choices: a skip scan over the action index (one index probe per action,
// not a scan of the log), at most 200.
func (s *Store) Actions(ctx context.Context) ([]string, error) {
	return database.List(ctx, database.Reader(ctx, s.DB), "audit actions", func(r pgx.CollectableRow) (string, error) {
		var a string
		return a, r.Scan(&a)
	}, `
		WITH RECURSIVE acts(action) AS (
			(SELECT action FROM audit_log ORDER BY action LIMIT 1)
			UNION ALL
			SELECT (SELECT l.action FROM audit_log l WHERE l.action > acts.action ORDER BY l.action LIMIT 1)
			FROM acts WHERE acts.action IS NOT NULL
		)
		SELECT action FROM acts WHERE action IS NOT NULL LIMIT 200`)
}
