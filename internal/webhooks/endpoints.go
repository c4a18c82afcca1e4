// Package webhooks sends an org's job and technician events to its webhook
// endpoints (docs/api.md, "Events"; docs/delivery.md, "Webhook
// endpoints"): the endpoints themselves (at most MaxEndpoints per org, each
// with its URL, secret and event types), the events a trigger captures in
// the transaction of every change (migration 00048), their hand-off to the
// endpoints (Dispatch) and their delivery on River, in order per endpoint
// and record (DeliverArgs). It owns webhook_endpoints, webhook_events and
// webhook_deliveries; every statement carries the org key.
//
// The org's briefing webhook (delivery.webhook.url and its secret,
// internal/tenants and internal/delivery) is apart and unchanged.
//
// Actions audited:
//
//	webhook.endpoint.create  new: {url, description, events}
//	webhook.endpoint.update  old → new: {url, description, events}
//	webhook.endpoint.delete  old: {url, description, events}
//	webhook.endpoint.rotate  new: {"secret": "rotated"} (never the value)
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/text"
	"fieldbrief/internal/transport"
)

// Event types an endpoint can subscribe to. The briefing's own events
// (briefing.ready, briefing.updated) go to the org's briefing webhook.
const (
	JobCreated            = "job.created"
	JobUpdated            = "job.updated"
	JobDeleted            = "job.deleted"
	TechnicianCreated     = "technician.created"
	TechnicianUpdated     = "technician.updated"
	TechnicianDeactivated = "technician.deactivated"
	TechnicianDeleted     = "technician.deleted"
)

// EventTypes lists every type an endpoint may want, in the order the
// settings page shows them (migration 00048 checks the same list).
var EventTypes = []string{JobCreated, JobUpdated, JobDeleted, TechnicianCreated, TechnicianUpdated,
	TechnicianDeactivated, TechnicianDeleted}

// MaxEndpoints bounds an org's endpoints (the table's slot check says 10 too).
const MaxEndpoints = 10

// MaxDescription bounds an endpoint's description, in characters.
const MaxDescription = 200

// Endpoint is one URL an org's events go to.
type Endpoint struct {
	ID          int64
	URL         string
	Description string
	Events      []string
	Version     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Wants reports whether the endpoint subscribed to typ.
func (e Endpoint) Wants(typ string) bool { return slices.Contains(e.Events, typ) }

// EndpointInput is an endpoint as submitted, before validation.
type EndpointInput struct {
	URL         string
	Description string
	Events      []string
	// Version is the version the change was read at; 0 = whatever it is
	// now. A stale one saves nothing (apperr.Stale).
	Version int64
}

// Store is the endpoints' repository over one pool.
type Store struct {
	DB *pgxpool.Pool
	// AllowPrivate lets endpoints name http:// and private addresses
	// (WEBHOOK_ALLOW_PRIVATE_NETWORKS); off, saving one is refused.
	AllowPrivate bool
}

// validate checks an input and returns it cleaned (trimmed, events in the
// order of EventTypes, without repeats). Every problem is reported.
func (s *Store) validate(in EndpointInput) (EndpointInput, error) {
	in.URL = strings.TrimSpace(in.URL)
	in.Description = strings.TrimSpace(in.Description)
	e := &apperr.Error{Code: apperr.Invalid}
	add := func(name, reason string, args apperr.Args) {
		e.Fields = append(e.Fields, apperr.Field{Name: name, Code: reason, Args: args})
	}
	if in.URL == "" {
		add("url", "webhook_url_required", nil)
	} else if err := transport.CheckWebhookURL(in.URL, s.AllowPrivate); err != nil {
		// transport's own English rule (which one the URL breaks): not in
		// the catalog's table yet (docs/i18n.md, "Refusals: one table").
		e.Fields = append(e.Fields, apperr.Field{Name: "url", Message: apperr.Message(err)})
	}
	switch {
	case utf8.RuneCountInString(in.Description) > MaxDescription:
		add("description", "webhook_description_too_long", apperr.Args{"Max": MaxDescription})
	case !utf8.ValidString(in.Description) || strings.IndexFunc(in.Description, text.IsControl) >= 0 || strings.ContainsAny(in.Description, "\r\n\t"):
		add("description", "webhook_description_line", nil)
	}
	var events []string
	for _, t := range EventTypes {
		if slices.Contains(in.Events, t) {
			events = append(events, t)
		}
	}
	for _, t := range in.Events {
		if !slices.Contains(EventTypes, t) {
			add("events", "webhook_event_unknown", apperr.Args{"Event": t, "Events": strings.Join(EventTypes, ", ")})
			break
		}
	}
	if len(in.Events) == 0 {
		add("events", "webhook_events_required", nil)
	}
	in.Events = events
	if len(e.Fields) > 0 {
		return in, e
	}
	return in, nil
}

const endpointCols = `id, url, description, events, version, created_at, updated_at`

func scanEndpoint(row pgx.CollectableRow) (Endpoint, error) {
	var e Endpoint
	err := row.Scan(&e.ID, &e.URL, &e.Description, &e.Events, &e.Version, &e.CreatedAt, &e.UpdatedAt)
	return e, err
}

// List returns the org's endpoints, oldest first.
func (s *Store) List(ctx context.Context, orgID int64) ([]Endpoint, error) {
	return listEndpoints(ctx, s.DB, orgID)
}

func listEndpoints(ctx context.Context, q database.Querier, orgID int64) ([]Endpoint, error) {
	rows, err := q.Query(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints WHERE org_id = $1 ORDER BY id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints of org %d: %w", orgID, err)
	}
	list, err := pgx.CollectRows(rows, scanEndpoint)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints of org %d: %w", orgID, err)
	}
	return list, nil
}

// Get returns one of the org's endpoints; another org's id is NotFound.
func (s *Store) Get(ctx context.Context, orgID, id int64) (Endpoint, error) {
	return getEndpoint(ctx, s.DB, orgID, id, false)
}

func getEndpoint(ctx context.Context, q database.Querier, orgID, id int64, lock bool) (Endpoint, error) {
	sql := `SELECT ` + endpointCols + ` FROM webhook_endpoints WHERE org_id = $1 AND id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, sql, orgID, id)
	if err != nil {
		return Endpoint{}, fmt.Errorf("webhook endpoint %d of org %d: %w", id, orgID, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, scanEndpoint)
	if errors.Is(err, pgx.ErrNoRows) {
		return Endpoint{}, apperr.Refuse(apperr.NotFound, "webhook_not_found", nil)
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("webhook endpoint %d of org %d: %w", id, orgID, err)
	}
	return e, nil
}

// auditView is what the audit log keeps of an endpoint: never its secret.
func auditView(e Endpoint) map[string]any {
	return map[string]any{"url": e.URL, "description": e.Description, "events": e.Events}
}

func target(id int64) string { return "webhook_endpoint:" + strconv.FormatInt(id, 10) }

// Create adds an endpoint with a new secret. The org's eleventh is a 422:
// the slot (1–10, unique per org) is the bound, so two adds at once cannot
// pass it.
func (s *Store) Create(ctx context.Context, actor audit.Actor, orgID int64, in EndpointInput) (Endpoint, error) {
	in, err := s.validate(in)
	if err != nil {
		return Endpoint{}, err
	}
	var e Endpoint
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			INSERT INTO webhook_endpoints (org_id, slot, url, description, secret, events)
			SELECT $1, s, $2, $3, $4, $5
			  FROM generate_series(1, $6::int) s
			 WHERE s NOT IN (SELECT slot FROM webhook_endpoints WHERE org_id = $1)
			 ORDER BY s LIMIT 1
			RETURNING `+endpointCols,
			orgID, in.URL, in.Description, transport.NewWebhookSecret(), in.Events, MaxEndpoints)
		if err != nil {
			return fmt.Errorf("add webhook endpoint to org %d: %w", orgID, err)
		}
		e, err = pgx.CollectExactlyOneRow(rows, scanEndpoint)
		var pgErr *pgconn.PgError
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return apperr.FieldRefusal("url", "webhook_limit", apperr.Args{"Max": MaxEndpoints})
		case errors.As(err, &pgErr) && pgErr.ConstraintName == "webhook_endpoints_slot_key":
			return apperr.Refuse(apperr.Conflict, "webhook_added_meanwhile", nil)
		case err != nil:
			return fmt.Errorf("add webhook endpoint to org %d: %w", orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "webhook.endpoint.create",
			Target: target(e.ID), New: auditView(e)})
	})
	return e, err
}

// Update changes an endpoint's URL, description and events; its secret
// stays. Events already handed to it are still sent to its new URL.
func (s *Store) Update(ctx context.Context, actor audit.Actor, orgID, id int64, in EndpointInput) (Endpoint, error) {
	in, err := s.validate(in)
	if err != nil {
		return Endpoint{}, err
	}
	var e Endpoint
	err = database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		old, err := getEndpoint(ctx, tx, orgID, id, true)
		if err != nil {
			return err
		}
		if in.Version != 0 && in.Version != old.Version {
			return apperr.Refuse(apperr.Stale, "webhook_stale", nil)
		}
		rows, err := tx.Query(ctx, `
			UPDATE webhook_endpoints SET url = $3, description = $4, events = $5, version = version + 1, updated_at = now()
			 WHERE org_id = $1 AND id = $2
			RETURNING `+endpointCols, orgID, id, in.URL, in.Description, in.Events)
		if err != nil {
			return fmt.Errorf("update webhook endpoint %d of org %d: %w", id, orgID, err)
		}
		if e, err = pgx.CollectExactlyOneRow(rows, scanEndpoint); err != nil {
			return fmt.Errorf("update webhook endpoint %d of org %d: %w", id, orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "webhook.endpoint.update",
			Target: target(id), Old: auditView(old), New: auditView(e)})
	})
	return e, err
}

// Delete removes an endpoint with its deliveries, sent or not.
func (s *Store) Delete(ctx context.Context, actor audit.Actor, orgID, id int64) (Endpoint, error) {
	var old Endpoint
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		var err error
		if old, err = getEndpoint(ctx, tx, orgID, id, true); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM webhook_endpoints WHERE org_id = $1 AND id = $2`, orgID, id); err != nil {
			return fmt.Errorf("delete webhook endpoint %d of org %d: %w", id, orgID, err)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "webhook.endpoint.delete",
			Target: target(id), Old: auditView(old)})
	})
	return old, err
}

// Secret returns an endpoint's signing secret, for its admin to copy.
func (s *Store) Secret(ctx context.Context, orgID, id int64) (string, error) {
	var secret string
	err := s.DB.QueryRow(ctx, `SELECT secret FROM webhook_endpoints WHERE org_id = $1 AND id = $2`, orgID, id).Scan(&secret)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", apperr.Refuse(apperr.NotFound, "webhook_not_found", nil)
	}
	if err != nil {
		return "", fmt.Errorf("secret of webhook endpoint %d of org %d: %w", id, orgID, err)
	}
	return secret, nil
}

// RotateSecret gives an endpoint a new secret and returns it. Attempts
// from then on are signed with it, retries of earlier events included.
func (s *Store) RotateSecret(ctx context.Context, actor audit.Actor, orgID, id int64) (string, error) {
	secret := transport.NewWebhookSecret()
	err := database.BeginFunc(ctx, s.DB, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET secret = $3, updated_at = now() WHERE org_id = $1 AND id = $2`,
			orgID, id, secret)
		if err != nil {
			return fmt.Errorf("rotate secret of webhook endpoint %d of org %d: %w", id, orgID, err)
		}
		if tag.RowsAffected() == 0 {
			return apperr.Refuse(apperr.NotFound, "webhook_not_found", nil)
		}
		return audit.Record(ctx, tx, audit.Entry{Actor: actor, OrgID: orgID, Action: "webhook.endpoint.rotate",
			Target: target(id), New: map[string]any{"secret": "rotated"}})
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}
