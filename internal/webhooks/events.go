package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/tenants"
)

// Event is what an endpoint receives: the body of the POST.
type Event struct {
	ID        string    `json:"id"` // evt_…, also the webhook-id header
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"` // when the change was made (its transaction's start)
	Data      EventData `json:"data"`
}

// EventData is an event's record and what changed in it.
type EventData struct {
	Org OrgRef `json:"org"`
	// Object is the job or technician as the API shows it (docs/api.md):
	// as it was after the change; for a deletion, as it was before it.
	Object any `json:"object"`
	// Changed names the API members that differ (updates and
	// deactivations only), Previous their values before the change.
	Changed  []string                   `json:"changed,omitempty"`
	Previous map[string]json.RawMessage `json:"previous,omitempty"`
}

// OrgRef names the org an event is about.
type OrgRef struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// jobMembers and technicianMembers are the API members an update can
// change, in the order of the API's representation.
var (
	jobMembers = []string{"external_ref", "customer", "customer_phone", "address", "arrival_start", "arrival_end",
		"job_type", "notes", "emergency", "status", "technician_id", "technician_ref", "technician_name", "completed_at"}
	technicianMembers = []string{"external_ref", "name", "email", "phone", "active", "language"}
)

// jobRow and technicianRow are the rows as the trigger kept them (to_jsonb).
type jobRow struct {
	ID            int64      `json:"id"`
	TechnicianID  *int64     `json:"technician_id"`
	Customer      string     `json:"customer"`
	CustomerPhone string     `json:"customer_phone"`
	Address       string     `json:"address"`
	ArrivalStart  time.Time  `json:"arrival_start"`
	ArrivalEnd    time.Time  `json:"arrival_end"`
	JobType       string     `json:"job_type"`
	Notes         string     `json:"notes"`
	Emergency     bool       `json:"emergency"`
	Status        string     `json:"status"`
	ExternalRef   *string    `json:"external_ref"`
	CompletedAt   *time.Time `json:"completed_at"`
	Version       int64      `json:"version"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

type technicianRow struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Email       string    `json:"email"`
	Phone       string    `json:"phone"`
	Active      bool      `json:"active"`
	ExternalRef *string   `json:"external_ref"`
	Language    *string   `json:"language"`
	Version     int64     `json:"version"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// recordView turns a kept row into the API's representation: a job's
// window in the org's zone, its technician's reference and name as they
// are when the event is handed to the endpoints, instants otherwise in UTC.
func (b *builder) recordView(kind string, raw []byte) (any, error) {
	if kind == "technician" {
		var r technicianRow
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("read technician row: %w", err)
		}
		return field.Technician{ID: r.ID, Name: r.Name, Email: r.Email, Phone: r.Phone, Active: r.Active,
			ExternalRef: deref(r.ExternalRef), Language: deref(r.Language), Version: r.Version,
			CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}, nil
	}
	var r jobRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("read job row: %w", err)
	}
	j := field.Job{ID: r.ID, ExternalRef: deref(r.ExternalRef), Customer: r.Customer, CustomerPhone: r.CustomerPhone,
		Address: r.Address, ArrivalStart: r.ArrivalStart.In(b.loc), ArrivalEnd: r.ArrivalEnd.In(b.loc),
		JobType: r.JobType, Notes: r.Notes, Emergency: r.Emergency, Status: r.Status, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.CompletedAt != nil {
		t := r.CompletedAt.UTC()
		j.CompletedAt = &t
	}
	if r.TechnicianID != nil {
		j.TechnicianID = *r.TechnicianID
		t := b.technicians[j.TechnicianID]
		j.TechnicianRef, j.TechnicianName = t.ExternalRef, t.Name
	}
	return j, nil
}

// builder makes one org's event bodies.
type builder struct {
	org         OrgRef
	loc         *time.Location
	technicians map[int64]field.Technician
}

// capturedEvent is an event as the trigger left it.
type capturedEvent struct {
	ID, RecordID, Seq int64
	UID, Type, Kind   string
	Old, New          []byte
	OccurredAt        time.Time
}

// body returns an event's JSON, or nil for an update that changed no API
// member (a change only another record shows, say).
func (b *builder) body(e capturedEvent) ([]byte, error) {
	ev := Event{ID: e.UID, Type: e.Type, Timestamp: e.OccurredAt.UTC(), Data: EventData{Org: b.org}}
	raw := e.New
	if raw == nil {
		raw = e.Old
	}
	obj, err := b.recordView(e.Kind, raw)
	if err != nil {
		return nil, err
	}
	ev.Data.Object = obj
	if e.Old != nil && e.New != nil {
		old, err := b.recordView(e.Kind, e.Old)
		if err != nil {
			return nil, err
		}
		members := jobMembers
		if e.Kind == "technician" {
			members = technicianMembers
		}
		ev.Data.Changed, ev.Data.Previous, err = changed(members, old, obj)
		if err != nil {
			return nil, err
		}
		if len(ev.Data.Changed) == 0 {
			return nil, nil
		}
	}
	out, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.UID, err)
	}
	return out, nil
}

// changed compares two representations member by member, as JSON, so
// "changed" means what an API client would see differ.
func changed(members []string, old, new any) ([]string, map[string]json.RawMessage, error) {
	o, err := asMembers(old)
	if err != nil {
		return nil, nil, err
	}
	n, err := asMembers(new)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	previous := map[string]json.RawMessage{}
	for _, m := range members {
		if !bytes.Equal(o[m], n[m]) {
			names = append(names, m)
			previous[m] = o[m]
			if previous[m] == nil {
				previous[m] = json.RawMessage("null")
			}
		}
	}
	return names, previous, nil
}

func asMembers(v any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal record: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read record: %w", err)
	}
	return m, nil
}

// dispatchBatch bounds the events one transaction hands over.
const dispatchBatch = 500

// maxOrgsPerPass bounds the orgs one Dispatch pass looks at; the next pass
// takes the rest.
const maxOrgsPerPass = 200

// Dispatch hands every captured event to the endpoints of its org that
// want it: the event's body is made and kept (every retry sends the same
// bytes), a delivery is recorded per endpoint, and a River task per
// endpoint and record sends them, all in one transaction per org and batch.
// Several workers may run it at once: an event is claimed by one UPDATE
// whose own WHERE says "not claimed yet" (a worker that waited for another's
// claim re-reads the row and skips it), so it is handed over once. It returns how many events it handed over.
func Dispatch(ctx context.Context, db *pgxpool.Pool, log *slog.Logger, now time.Time) (int, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT org_id FROM webhook_events WHERE dispatched_at IS NULL LIMIT $1`, maxOrgsPerPass)
	if err != nil {
		return 0, fmt.Errorf("orgs with events to dispatch: %w", err)
	}
	orgIDs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("orgs with events to dispatch: %w", err)
	}
	total := 0
	for _, orgID := range orgIDs {
		for {
			n, err := dispatchOrg(ctx, db, orgID, now)
			total += n
			if err != nil {
				return total, err
			}
			if n < dispatchBatch {
				break
			}
		}
	}
	if total > 0 {
		log.Info("webhook events dispatched", "events", total, "orgs", len(orgIDs))
	}
	return total, nil
}

// dispatchOrg hands over one batch of an org's events and says how many
// it claimed.
func dispatchOrg(ctx context.Context, db *pgxpool.Pool, orgID int64, now time.Time) (int, error) {
	org, err := (&tenants.Store{DB: db}).OrgByID(ctx, orgID)
	if err != nil {
		return 0, err
	}
	cfg, err := tenants.ReadFieldforce(ctx, db, orgID)
	if err != nil {
		return 0, err
	}
	zone, _ := cfg.Zone() // without a usable zone, UTC: the API shows the same
	b := &builder{org: OrgRef{Slug: org.Slug, Name: org.Name}, loc: zone.Loc}
	inserter, err := database.InsertClient()
	if err != nil {
		return 0, err
	}
	claimed := 0
	err = database.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			UPDATE webhook_events SET dispatched_at = $2
			 WHERE org_id = $1 AND dispatched_at IS NULL
			   AND id IN (SELECT id FROM webhook_events WHERE org_id = $1 AND dispatched_at IS NULL ORDER BY id LIMIT $3)
			RETURNING id, record_id, seq, uid, type, record_kind, old_row, new_row, occurred_at`, orgID, now, dispatchBatch)
		if err != nil {
			return fmt.Errorf("claim events of org %d: %w", orgID, err)
		}
		events, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (capturedEvent, error) {
			var e capturedEvent
			err := r.Scan(&e.ID, &e.RecordID, &e.Seq, &e.UID, &e.Type, &e.Kind, &e.Old, &e.New, &e.OccurredAt)
			return e, err
		})
		if err != nil {
			return fmt.Errorf("claim events of org %d: %w", orgID, err)
		}
		claimed = len(events)
		if claimed == 0 {
			return nil
		}
		// Read after the claim: a technician made in the same batch as
		// a job assigned to them is there.
		techs, err := field.ListTechnicians(ctx, tx, orgID)
		if err != nil {
			return err
		}
		b.technicians = make(map[int64]field.Technician, len(techs))
		for _, t := range techs {
			b.technicians[t.ID] = t
		}
		endpoints, err := listEndpoints(ctx, tx, orgID)
		if err != nil {
			return err
		}
		type stream struct {
			endpoint, record int64
			kind             string
		}
		seen := map[stream]bool{}
		var tasks []river.InsertManyParams
		batch := &pgx.Batch{}
		for _, e := range events {
			body, err := b.body(e)
			if err != nil {
				return err
			}
			if body == nil {
				batch.Queue(`DELETE FROM webhook_events WHERE org_id = $1 AND id = $2`, orgID, e.ID)
				continue
			}
			batch.Queue(`UPDATE webhook_events SET payload = $3 WHERE org_id = $1 AND id = $2`, orgID, e.ID, body)
			for _, ep := range endpoints {
				if !ep.Wants(e.Type) {
					continue
				}
				batch.Queue(`
					INSERT INTO webhook_deliveries (org_id, endpoint_id, event_id, record_kind, record_id, seq, created_at)
					VALUES ($1, $2, $3, $4, $5, $6, $7)`, orgID, ep.ID, e.ID, e.Kind, e.RecordID, e.Seq, now)
				s := stream{ep.ID, e.RecordID, e.Kind}
				if !seen[s] {
					seen[s] = true
					tasks = append(tasks, river.InsertManyParams{Args: DeliverArgs{OrgID: orgID, EndpointID: ep.ID,
						RecordKind: e.Kind, RecordID: e.RecordID}})
				}
			}
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return fmt.Errorf("record deliveries of org %d: %w", orgID, err)
		}
		if len(tasks) > 0 {
			if _, err := inserter.InsertManyTx(ctx, tx, tasks); err != nil {
				return fmt.Errorf("enqueue event deliveries of org %d: %w", orgID, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return claimed, nil
}

// Retention is how long events and their deliveries are kept once every
// delivery of them is over (docs/delivery.md, "Webhook endpoints").
const Retention = 30 * 24 * time.Hour

// Prune deletes the events that occurred before before and have no
// delivery still pending, with their deliveries; it returns how many.
func Prune(ctx context.Context, db database.Querier, before time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `
		DELETE FROM webhook_events e
		 WHERE e.occurred_at < $1 AND e.dispatched_at IS NOT NULL
		   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
		                    WHERE d.org_id = e.org_id AND d.event_id = e.id AND d.state = 'pending')`, before)
	if err != nil {
		return 0, fmt.Errorf("prune webhook events: %w", err)
	}
	return tag.RowsAffected(), nil
}
