package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"fieldbrief/internal/database"
	"fieldbrief/internal/pglock"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The lifeline gives a killed worker's running tasks back within seconds
// (docs/worker.md, "Crashes and shutdown"). River v0.51.2 knows no
// liveness of its clients — a task only records the IDs of the clients that
// attempted it (river_job.attempted_by), and its rescuer goes by the age of
// the attempt alone, which must exceed every task's timeout — so each worker
// process heartbeats a row of ff_worker_heartbeats under its River client
// ID, and every live one looks, one at a time, for processes silent for
// lifelineSilence: their running tasks are made available at once and their
// row removed. River's rescuer stays as the backstop (a process that never
// registered, such as the previous release's). A process only stalled, not
// dead, may see its task run twice; generation and sending are idempotent
// (docs/worker.md, "Tasks", "Generation is idempotent"; "Delivery").
const (
	// heartbeatEvery is how often a process records that it is alive.
	heartbeatEvery = 2 * time.Second
	// lifelineSilence is how long a process may go without a heartbeat
	// before it counts as dead: five heartbeats missed, so a busy machine or
	// a reconnect does not declare a live process dead.
	lifelineSilence = 10 * time.Second
	// lifelineReapEvery is how often each process looks for dead ones.
	lifelineReapEvery = 2 * time.Second
	// streakGap is the longest time between two heartbeats of an unbroken
	// run: longer, and the run starts again at the later one.
	streakGap = 2*heartbeatEvery + time.Second
	// reapAfterStreak is how long a process must have heartbeated without a
	// break before it may take others for dead. After an outage of the
	// database (a restart, a failover, a partition of this process) every
	// process's heartbeats lapsed together; the first back must not give
	// back the tasks of the others, which are alive, whose transactions
	// (and the delivery row locks their sends hold) died with the outage,
	// and whose sends go on: a second run would send again. Once this
	// process has beaten for lifelineSilence, every live process that
	// reaches the database has beaten too.
	reapAfterStreak = lifelineSilence
	// heartbeatTimeout and reapTimeout bound one heartbeat and one look: a
	// half-open connection must not hold the lifeline (and the look's
	// advisory lock) until TCP gives up; the connection is dropped and made
	// again.
	heartbeatTimeout = 5 * time.Second
	reapTimeout      = 5 * time.Second
)

// newClientID names this process's River client: unique per process and
// readable in river_job.attempted_by (host, pid, random).
func newClientID() string {
	host, _ := os.Hostname()
	if len(host) > 60 {
		host = host[:60]
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// heartbeatSQL records that the process is alive, at the database's clock
// (every replica's heartbeats and the look for the dead ones compare on one
// clock: docs/scheduling.md, "One clock").
// A heartbeat more than $2 seconds after the previous one starts a new
// unbroken run (streak_since).
const heartbeatSQL = `
	INSERT INTO ff_worker_heartbeats AS h (client_id) VALUES ($1)
	ON CONFLICT (client_id) DO UPDATE
	   SET streak_since = CASE WHEN h.seen_at >= now() - make_interval(secs => $2) THEN h.streak_since ELSE now() END,
	       seen_at = now()`

// mayReapSQL: has the caller ($1) heartbeated without a break for $2
// seconds? A process without a row (never registered, or reaped itself)
// may not reap.
const mayReapSQL = `
	SELECT coalesce((SELECT streak_since <= now() - make_interval(secs => $2)
	                   FROM ff_worker_heartbeats WHERE client_id = $1), false)`

// reapDeadSQL removes the rows of processes silent for longer than $1
// seconds (never the caller's own, $2).
const reapDeadSQL = `
	DELETE FROM ff_worker_heartbeats
	 WHERE seen_at < now() - make_interval(secs => $1) AND client_id <> $2
	RETURNING client_id`

// rescueSQL gives back the running tasks whose last attempt belongs to a
// dead process, as River's rescuer would but at once: the attempt counts
// (a task that kills its worker every time ends), one on its last attempt
// is discarded, one whose cancellation was asked is cancelled, any other is
// available now, with the reason among its errors. Its scheduled_at is
// kept: River fetches the available by (priority, scheduled_at, id), so a
// task given back takes its old place at the head of the queue instead of
// waiting behind the whole burst queued since (at the back, a killed
// worker's briefings waited for the rest of the burst: over a minute with
// ten bursts at once on two cores). Rows locked by another
// transaction are skipped, not waited for (a lost machine's backend may
// hold them until TCP gives up): River's rescuer takes those later.
const rescueSQL = `
	UPDATE river_job
	   SET state = CASE WHEN metadata ? 'cancel_attempted_at' THEN 'cancelled'
	                    WHEN attempt >= max_attempts THEN 'discarded'
	                    ELSE 'available' END::river_job_state,
	       finalized_at = CASE WHEN metadata ? 'cancel_attempted_at' OR attempt >= max_attempts THEN now() END,
	       errors = array_append(errors, jsonb_build_object('at', now(), 'attempt', greatest(attempt, 0),
	                    'error', $2::text || attempted_by[cardinality(attempted_by)], 'trace', ''))
	 WHERE id IN (SELECT id FROM river_job
	               WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] = ANY($1::text[])
	               FOR UPDATE SKIP LOCKED)
	RETURNING id, kind, attempt, state::text, attempted_by[cardinality(attempted_by)]`

// lifelineError starts the error a rescued task records; the dead client's
// ID follows.
const lifelineError = "task rescued by the lifeline: no heartbeat from worker "

// lifeline heartbeats and looks for dead processes until ctx ends, on a
// connection of its own (a pool busy with tasks does not delay a
// heartbeat), reconnecting when it is lost. It closes done when it returns.
func (w *Worker) lifeline(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			_ = conn.Close(context.WithoutCancel(ctx))
		}
	}()
	beat := time.NewTicker(heartbeatEvery)
	defer beat.Stop()
	lastReap := time.Time{}
	for {
		if conn == nil || conn.IsClosed() {
			c, err := w.lifelineConnect(ctx)
			if err != nil {
				if ctx.Err() == nil {
					w.Log.Warn("lifeline: connect", "error", err) // the next beat tries again
				}
			} else {
				conn = c
			}
		}
		if conn != nil {
			if err := w.heartbeat(ctx, conn); err != nil && ctx.Err() == nil {
				w.Log.Warn("lifeline: heartbeat", "client_id", w.clientID, "error", err)
				_ = conn.Close(context.WithoutCancel(ctx))
				conn = nil
			}
		}
		if conn != nil && time.Since(lastReap) >= lifelineReapEvery-heartbeatEvery/2 {
			lastReap = time.Now()
			rctx, cancel := context.WithTimeout(ctx, reapTimeout)
			err := w.reapDead(rctx, conn)
			cancel()
			if err != nil && ctx.Err() == nil {
				w.Log.Warn("lifeline: rescue", "error", err)
				_ = conn.Close(context.WithoutCancel(ctx))
				conn = nil
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
		}
	}
}

// lifelineConnect opens the lifeline's own connection, with lock and
// statement timeouts so that no wait of the lifeline is open-ended.
func (w *Worker) lifelineConnect(ctx context.Context) (*pgx.Conn, error) {
	cfg := w.DB.Config().ConnConfig.Copy()
	cfg.RuntimeParams["lock_timeout"] = "2s"
	cfg.RuntimeParams["statement_timeout"] = "5s"
	cctx, cancel := context.WithTimeout(ctx, heartbeatTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("lifeline connection: %w", err)
	}
	return conn, nil
}

// heartbeat records that this process is alive, within heartbeatTimeout.
func (w *Worker) heartbeat(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}) error {
	hctx, cancel := context.WithTimeout(ctx, heartbeatTimeout)
	defer cancel()
	if _, err := q.Exec(hctx, heartbeatSQL, w.clientID, streakGap.Seconds()); err != nil {
		return fmt.Errorf("heartbeat of %s: %w", w.clientID, err)
	}
	return nil
}

// reapDead looks, if no other process does at the moment (a
// transaction-level advisory lock) and this process has heartbeated
// without a break for reapAfterStreak, for processes silent for
// lifelineSilence and gives their running tasks back, in one transaction.
func (w *Worker) reapDead(ctx context.Context, conn *pgx.Conn) error {
	return database.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		locked, err := pglock.TryXactLock(ctx, tx, pglock.LockLifeline, 0)
		if err != nil {
			return fmt.Errorf("lifeline lock: %w", err)
		}
		if !locked {
			return nil // another process is looking
		}
		var may bool
		if err := tx.QueryRow(ctx, mayReapSQL, w.clientID, reapAfterStreak.Seconds()).Scan(&may); err != nil {
			return fmt.Errorf("lifeline streak: %w", err)
		}
		if !may {
			return nil // back from a break of its own, or new: the others may be alive
		}
		rows, err := tx.Query(ctx, reapDeadSQL, lifelineSilence.Seconds(), w.clientID)
		if err != nil {
			return fmt.Errorf("find dead workers: %w", err)
		}
		dead, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("find dead workers: %w", err)
		}
		if len(dead) == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, rescueSQL, dead, lifelineError)
		if err != nil {
			return fmt.Errorf("rescue dead workers' tasks: %w", err)
		}
		type rescued struct {
			ID      int64
			Kind    string
			Attempt int
			State   string
			Client  string
		}
		tasks, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rescued])
		if err != nil {
			return fmt.Errorf("rescue dead workers' tasks: %w", err)
		}
		for _, c := range dead {
			w.Log.Warn("lifeline: worker silent, its running tasks given back", "dead_client_id", c,
				"silent_for_more_than", lifelineSilence.String(), "client_id", w.clientID)
		}
		for _, t := range tasks {
			w.Log.Info("lifeline: task rescued", "task_id", t.ID, "kind", t.Kind, "attempt", t.Attempt,
				"state", t.State, "dead_client_id", t.Client)
			w.Metrics.rescued(t.Kind, t.State)
		}
		return nil
	})
}

// unregister removes this process's heartbeat row on a clean stop: it is
// not dead, it is gone, and its tasks were finished or given back by River.
func (w *Worker) unregister(ctx context.Context) {
	if _, err := w.DB.Exec(ctx, `DELETE FROM ff_worker_heartbeats WHERE client_id = $1`, w.clientID); err != nil {
		w.Log.Warn("lifeline: unregister", "client_id", w.clientID, "error", err)
	}
}
