package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"fieldbrief/internal/auth"
)

// PruneAuthArgs deletes dead sign-in sessions and old failed sign-ins. It
// runs as a River periodic task every hour: River's leader enqueues it, so
// one replica prunes, not all of them.
type PruneAuthArgs struct{}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (PruneAuthArgs) Kind() string { return "prune_auth" }

// pruneSchedule is hourly, on the hour (robfig/cron's Schedule is River's
// PeriodicSchedule).
const pruneSchedule = "@hourly"

// pruneTimeout: two deletes over indexed rows.
const pruneTimeout = time.Minute

// pruneHandler runs PruneAuthArgs tasks.
type pruneHandler struct {
	river.WorkerDefaults[PruneAuthArgs]
	db  *pgxpool.Pool
	log *slog.Logger
	now func() time.Time
}

func (h *pruneHandler) Timeout(*river.Job[PruneAuthArgs]) time.Duration { return pruneTimeout }

// Work prunes and logs one line with the counts; River retries a failure.
func (h *pruneHandler) Work(ctx context.Context, _ *river.Job[PruneAuthArgs]) error {
	sessions, failures, err := auth.Prune(ctx, h.db, h.now())
	if err != nil {
		return fmt.Errorf("prune sign-in rows: %w", err)
	}
	h.log.Info("auth prune", "sessions_deleted", sessions, "login_failures_deleted", failures)
	return nil
}
