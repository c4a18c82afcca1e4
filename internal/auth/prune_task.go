package auth

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// PruneArgs asks for Prune: dead sign-in sessions and old failed sign-ins
// deleted. The worker runs it as a River periodic task (PruneSchedule):
// River's leader enqueues it, so one replica prunes, not all of them.
type PruneArgs struct{}

// Kind names the task in River; it is stored with every task, so it never
// changes.
func (PruneArgs) Kind() string { return "prune_auth" }

// PruneSchedule is hourly, on the hour (a robfig/cron spec).
const PruneSchedule = "@hourly"

// pruneTimeout: two deletes over indexed rows.
const pruneTimeout = time.Minute

// PruneHandler runs PruneArgs tasks.
type PruneHandler struct {
	river.WorkerDefaults[PruneArgs]
	DB  *pgxpool.Pool
	Log *slog.Logger
	Now func() time.Time
}

func (h *PruneHandler) Timeout(*river.Job[PruneArgs]) time.Duration { return pruneTimeout }

// Work prunes and logs one line with the counts; River retries a failure.
func (h *PruneHandler) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	sessions, failures, err := Prune(ctx, h.DB, h.Now())
	if err != nil {
		return fmt.Errorf("prune sign-in rows: %w", err)
	}
	h.Log.Info("auth prune", "sessions_deleted", sessions, "login_failures_deleted", failures)
	return nil
}
