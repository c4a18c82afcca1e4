package history

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// RetainArgs asks for the daily history upkeep: the months ahead made,
// the expired months dropped. The worker runs it as a River periodic task
// (RetainSchedule): River's leader enqueues it, so one replica does it.
type RetainArgs struct{}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (RetainArgs) Kind() string { return "history_retention" }

// RetainSchedule is daily at 03:17 UTC (a robfig/cron spec), off the hour
// the hourly tasks start at.
const RetainSchedule = "17 3 * * *"

// retainTimeout: DETACH … CONCURRENTLY waits for the queries that use the
// table to end, then the drops are quick (docs/benchmarks.md, "History
// retention").
const retainTimeout = 30 * time.Minute

// RetainHandler runs RetainArgs tasks.
type RetainHandler struct {
	river.WorkerDefaults[RetainArgs]
	DB  Pool
	Log *slog.Logger
	// Now is a test's clock; nil (production) is the database's, not the
	// host's (DatabaseNow).
	Now       func() time.Time
	Retention time.Duration // zero: DefaultRetention
	// Dropped, when set, is called once per partition dropped (a metric).
	Dropped func(table string)
}

func (h *RetainHandler) Timeout(*river.Job[RetainArgs]) time.Duration { return retainTimeout }

// Work makes the months ahead, then drops the expired ones; River retries
// a failure, and a retry finishes what the failed run left.
func (h *RetainHandler) Work(ctx context.Context, _ *river.Job[RetainArgs]) (err error) {
	var now time.Time
	if h.Now != nil {
		now = h.Now()
	} else if now, err = DatabaseNow(ctx, h.DB); err != nil {
		return err
	}
	created, err := EnsurePartitions(ctx, h.DB, now)
	if err != nil {
		return err
	}
	retention := h.Retention
	if retention == 0 {
		retention = DefaultRetention
	}
	dropped, err := DropExpired(ctx, h.DB, h.Log, now, retention)
	if h.Dropped != nil {
		for _, d := range dropped {
			h.Dropped(d.Table)
		}
	}
	if err != nil {
		return fmt.Errorf("history retention: %w", err)
	}
	h.Log.Info("history retention", "partitions_created", len(created), "partitions_dropped", len(dropped),
		"retention", retention.String())
	return nil
}
