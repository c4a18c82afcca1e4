package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Delivery is one event's delivery to one endpoint, as its log shows it.
type Delivery struct {
	ID            int64
	EventID       string // evt_…, the webhook-id
	Type          string
	RecordKind    string
	RecordID      int64
	State         string // pending, delivered, failed
	Attempts      int
	LastAttemptAt *time.Time
	LastCode      string
	LastDetail    string
	CreatedAt     time.Time
}

// LogSize is how many deliveries an endpoint's log shows, newest first.
const LogSize = 50

// Deliveries returns an endpoint's newest deliveries (at most LogSize)
// and how many of its deliveries failed for good in all.
func (s *Store) Deliveries(ctx context.Context, orgID, endpointID int64) ([]Delivery, int, error) {
	rows, err := s.DB.Query(ctx, `
		SELECT d.id, e.uid, e.type, d.record_kind, d.record_id, d.state, d.attempts, d.last_attempt_at,
		       d.last_code, d.last_detail, d.created_at
		  FROM webhook_deliveries d
		  JOIN webhook_events e ON e.org_id = d.org_id AND e.id = d.event_id
		 WHERE d.org_id = $1 AND d.endpoint_id = $2
		 ORDER BY d.id DESC
		 LIMIT $3`, orgID, endpointID, LogSize)
	if err != nil {
		return nil, 0, fmt.Errorf("deliveries of webhook endpoint %d of org %d: %w", endpointID, orgID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := r.Scan(&d.ID, &d.EventID, &d.Type, &d.RecordKind, &d.RecordID, &d.State, &d.Attempts, &d.LastAttemptAt,
			&d.LastCode, &d.LastDetail, &d.CreatedAt)
		return d, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("deliveries of webhook endpoint %d of org %d: %w", endpointID, orgID, err)
	}
	var failed int
	if err := s.DB.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE org_id = $1 AND endpoint_id = $2 AND state = 'failed'`,
		orgID, endpointID).Scan(&failed); err != nil {
		return nil, 0, fmt.Errorf("failed deliveries of webhook endpoint %d of org %d: %w", endpointID, orgID, err)
	}
	return list, failed, nil
}
