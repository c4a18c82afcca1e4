package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"fieldbrief/internal/database"
	"fieldbrief/internal/tick"
)

// OnceResult is what RunOnce did.
type OnceResult struct {
	Tick tick.Result
	// Pending counts, by "kind/state", the tasks of our kinds still
	// unfinished when RunOnce returned: its briefings' that wait for a retry
	// later than its wait, and any left behind that it did not finish, such
	// as a task still "running" on a worker that was killed.
	Pending map[string]int
	// Waiting names the first of those tasks (at most maxWaitingShown) and
	// what each waits for.
	Waiting []WaitingTask
	// Stalled: RunOnce stopped waiting because none of our tasks changed for
	// onceStallLimit while some were still due within its wait (River's
	// leader, which schedules retries and rescues tasks, did not act).
	Stalled bool
}

// Done reports whether RunOnce left nothing of our kinds unfinished.
func (r OnceResult) Done() bool { return len(r.Pending) == 0 }

// WaitingTask is one unfinished task and what it waits for.
type WaitingTask struct {
	ID         int64     `json:"id"`
	Kind       string    `json:"kind"`
	State      string    `json:"state"`
	BriefingID int64     `json:"briefing_id,omitempty"`
	Attempt    int       `json:"attempt"`
	WaitsFor   string    `json:"waits_for"` // "retry", "rescue" (running: its worker, or River's rescuer), "fetch" (available)
	Until      time.Time `json:"until"`     // when it is due, at the latest
}

// maxWaitingShown bounds the last log line of -once.
const maxWaitingShown = 20

// RunOnce is `worker -once`: exactly one tick at now (which decides only
// which briefings are due: the tasks run on the real clock; a zero now is
// the database's clock, as a long-running worker's ticks), then it works
// every available task, its own and any left behind, until every task of our
// kinds — those of the briefings its tick fired, their deliveries, and any
// left behind — is completed, discarded or cancelled, or waits for a retry
// later than wait from then, or runs on another worker where it neither
// ends nor is rescued within wait (a task left running by a killed worker
// is rescued by River rescueWithin after its attempt began; openTasksSQL). What is unfinished then is in
// Pending and Waiting. A task that failed is a result, not an error: it errs
// only when the infrastructure does; a lost connection is retried first
// (database.RetryTransient), and every wait is bounded (onceStallLimit, ctx).
func (w *Worker) RunOnce(ctx context.Context, now time.Time, wait time.Duration) (res OnceResult, err error) {
	if err := w.startRiver(ctx, false); err != nil {
		return res, err
	}
	defer func() {
		// Tasks still running here are left-behind ones: they get to finish.
		if err == nil {
			// Our own tasks' outcomes are in: RunOnce waited for them.
			err = database.RetryTransient(ctx, w.Log, "list pending tasks", func(ctx context.Context) (err error) {
				res.Pending, res.Waiting, err = w.pendingTasks(ctx)
				return err
			})
		}
		if serr := w.stopRiver(context.WithoutCancel(ctx)); serr != nil {
			err = errors.Join(err, serr)
		}
	}()
	w.ticker.WaitLock = true // -once must run its tick, after another replica's
	w.ticker.NoHintWrites = true
	if now.IsZero() {
		if now, err = w.tickNow(ctx); err != nil {
			return res, err
		}
	}
	res.Tick, err = w.ticker.Tick(ctx, now)
	if err != nil {
		return res, err
	}
	// Job and technician events waiting for their endpoints go out too.
	w.dispatchEventsOnce(ctx)
	stallLimit := max(wait, rescueWithin) + onceStallSlack
	var seen string
	lastChange, lastRestart := time.Now(), time.Now()
	for {
		var st openState
		err := database.RetryTransient(ctx, w.Log, "count open tasks", func(ctx context.Context) (err error) {
			st, err = w.openTasks(ctx, wait)
			return err
		})
		if err != nil {
			return res, err
		}
		if st.open == 0 {
			return res, nil
		}
		if st.progress != seen {
			seen, lastChange = st.progress, time.Now()
		} else if time.Since(lastChange) > stallLimit {
			w.Log.Warn("worker -once: no task progressed; not waiting any longer", "open", st.open, "stall_limit", stallLimit.String())
			res.Stalled = true
			return res, nil
		}
		if st.unstarted > 0 && w.working.empty() && time.Since(lastChange) > riverStallAfter && time.Since(lastRestart) > riverStallAfter {
			// Tasks wait that River should have fetched or scheduled long
			// ago, and this process works none: a connection lost while
			// River started can leave its client running without its
			// producer or its elector (they take a "conn closed" error from
			// LISTEN for a shutdown and quietly stop; River v0.51.1,
			// producer.StartWorkContext, Elector.Start). A new client
			// starts them again.
			w.Log.Warn("worker -once: River is not working the tasks due; restarting its client", "unstarted", st.unstarted, "open", st.open)
			if err := w.restartRiver(ctx, false); err != nil {
				return res, err
			}
			lastRestart = time.Now()
		}
		if err := sleep(ctx, oncePoll); err != nil {
			return res, err
		}
	}
}

// watchEvery is how often the long-running worker checks that its River
// client works the tasks due (watchRiver).
const watchEvery = 30 * time.Second

// unstartedSQL counts the tasks of our kinds ($1) River should have taken long
// ago: available for 30 s (every replica fetches every second), or due for
// a retry a minute ago (the leader schedules every 5 s; a new leader takes
// over within 15 s).
const unstartedSQL = `
SELECT count(*) FROM river_job
 WHERE kind = ANY($1)
   AND ((state = 'available' AND scheduled_at < now() - interval '30 seconds')
        OR (state IN ('retryable', 'scheduled') AND scheduled_at < now() - interval '1 minute'))`

// watchRiver restarts the long-running worker's River client when it
// started no task for watchEvery while tasks wait past their time: a connection lost
// while River started can leave its producer or its elector stopped while
// the client runs on (see RunOnce). A healthy client with tasks waiting past their time
// starts some within a second; other replicas may be busy, this one is not.
// A new client starts on startCtx, like the first one: the watch's own
// context ends with Stop, which must not cut the client's tasks short.
func (w *Worker) watchRiver(ctx, startCtx context.Context) {
	defer close(w.watchDone)
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	started := w.working.startedCount()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		before := started
		if started = w.working.startedCount(); started != before || !w.working.empty() {
			continue
		}
		var unstarted int
		if err := w.DB.QueryRow(ctx, unstartedSQL, w.kinds).Scan(&unstarted); err != nil || unstarted == 0 {
			continue // a lost connection: River and the next check retry
		}
		w.Log.Warn("River started no task while tasks wait past their time; restarting its client", "unstarted", unstarted)
		if err := w.restartRiver(startCtx, true); err != nil {
			w.Log.Error("restart river", "error", err) // the next check tries again
		}
	}
}

// riverStallAfter is how long tasks may wait past their time (available, or due for
// a retry, see openTasksSQL) with nothing of ours changing before RunOnce
// restarts its River client. River fetches every second at the latest, and
// its leader schedules retries every 5 s; a new leader takes over a dead
// one's within 15 s.
const riverStallAfter = 20 * time.Second

// restartRiver stops the River client (this process works no task then) and
// starts a new one.
func (w *Worker) restartRiver(ctx context.Context, periodic bool) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopAndCancelTimeout)
	defer cancel()
	if err := w.stopRiver(sctx); err != nil {
		w.Log.Warn("stop river for restart", "error", err)
	}
	return w.startRiver(ctx, periodic)
}

// onceStallSlack is how much longer than anything it may legitimately wait
// for RunOnce waits without any task of ours changing.
const onceStallSlack = time.Minute

// openTasksSQL counts what RunOnce still waits for, among the unfinished
// tasks of our kinds ($1) — the tick's, their deliveries (which generation
// inserts in the transaction that completes it, so none is missed between
// two queries), and any left behind:
//   - available;
//   - waiting for a retry due within -wait ($2 seconds);
//   - running in this process ($3), until River has stored its outcome, or
//     fetched by this process's River client ($5) in the last 10 s (Work
//     has not begun yet: a fetch whose answer was lost with its connection
//     leaves a task running in our name that nothing works, which River
//     rescues like a dead worker's);
//   - running elsewhere, if it ends or is rescued within -wait: a live
//     worker's ends within its timeout, a dead worker's is rescued within
//     rescueWithin ($4 seconds) of its attempt, and which of the two it is
//     cannot be told from the database, so the later bound counts.
//
// The second column changes whenever any of those tasks does (a state, an
// attempt, a new task): RunOnce's stall guard. The third counts the tasks
// River should have taken by now: available for 10 s (it fetches every
// second), or due for a retry 30 s ago (its leader schedules every 5 s).
const openTasksSQL = `
SELECT count(*) FILTER (WHERE
         state = 'available'
         OR (state IN ('retryable', 'scheduled') AND scheduled_at <= now() + $2 * interval '1 second')
         OR (state = 'running' AND (id = ANY($3)
                                    OR (attempted_by[cardinality(attempted_by)] = $5 AND attempted_at > now() - interval '10 seconds')
                                    OR attempted_at + $4 * interval '1 second' <= now() + $2 * interval '1 second'))),
       count(*) || '/' || coalesce(sum(attempt), 0) || '/' || count(*) FILTER (WHERE state = 'running')
         || '/' || count(*) FILTER (WHERE state = 'available') || '/' || coalesce(max(id), 0),
       count(*) FILTER (WHERE (state = 'available' AND scheduled_at < now() - interval '10 seconds')
                           OR (state IN ('retryable', 'scheduled') AND scheduled_at < now() - interval '30 seconds'))
  FROM river_job
 WHERE kind = ANY($1) AND state NOT IN ('completed', 'discarded', 'cancelled')`

// openState is what openTasksSQL found.
type openState struct {
	open      int    // tasks RunOnce waits for
	progress  string // changes whenever any unfinished task of ours does
	unstarted int    // tasks River should have fetched or scheduled by now
}

func (w *Worker) openTasks(ctx context.Context, wait time.Duration) (st openState, err error) {
	err = w.DB.QueryRow(ctx, openTasksSQL, w.kinds, wait.Seconds(), w.working.ids(), rescueWithin.Seconds(), w.client.ID()).
		Scan(&st.open, &st.progress, &st.unstarted)
	if err != nil {
		return st, fmt.Errorf("count open tasks: %w", err)
	}
	return st, nil
}

// pendingTasksSQL lists every unfinished task of our kinds with what it waits
// for: a retry (scheduled_at), a worker's fetch (available), or, running,
// its worker or River's rescuer (rescueWithin, $2, after its attempt).
const pendingTasksSQL = `
SELECT id, kind, state::text, coalesce((args->>'briefing_id')::bigint, 0), attempt,
       CASE state WHEN 'running' THEN 'rescue' WHEN 'available' THEN 'fetch' ELSE 'retry' END,
       CASE state WHEN 'running' THEN attempted_at + $2 * interval '1 second' ELSE scheduled_at END
  FROM river_job
 WHERE kind = ANY($1) AND state NOT IN ('completed', 'discarded', 'cancelled')
 ORDER BY id`

func (w *Worker) pendingTasks(ctx context.Context) (map[string]int, []WaitingTask, error) {
	rows, err := w.DB.Query(ctx, pendingTasksSQL, w.kinds, rescueWithin.Seconds())
	if err != nil {
		return nil, nil, fmt.Errorf("list pending tasks: %w", err)
	}
	pending := map[string]int{}
	var waiting []WaitingTask
	var j WaitingTask
	_, err = pgx.ForEachRow(rows, []any{&j.ID, &j.Kind, &j.State, &j.BriefingID, &j.Attempt, &j.WaitsFor, &j.Until}, func() error {
		pending[j.Kind+"/"+j.State]++
		if len(waiting) < maxWaitingShown {
			waiting = append(waiting, j)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list pending tasks: %w", err)
	}
	return pending, waiting, nil
}

// inFlight is River worker middleware that records the tasks this process
// works, from the start of Work until River reports their outcome (the
// event, sent once the outcome is stored).
type inFlight struct {
	river.MiddlewareDefaults
	mu      sync.Mutex
	tasks   map[int64]bool
	started int64 // tasks begun, ever
}

func (f *inFlight) startedCount() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

func (f *inFlight) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	f.mu.Lock()
	if f.tasks == nil {
		f.tasks = map[int64]bool{}
	}
	f.tasks[job.ID] = true
	f.started++
	f.mu.Unlock()
	return doInner(ctx)
}

func (f *inFlight) done(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.tasks, id)
}

func (f *inFlight) empty() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.tasks) == 0
}

func (f *inFlight) ids() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]int64, 0, len(f.tasks))
	for id := range f.tasks {
		ids = append(ids, id)
	}
	return ids
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cronLogger sends cron's messages to slog; its routine ones are debug noise.
type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) { l.log.Debug("cron: "+msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("cron: "+msg, append(kv, "error", err)...)
}
