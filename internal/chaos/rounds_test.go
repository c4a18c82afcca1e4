package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport/transporttest"
)

// envInt reads a positive integer knob, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// seed is the run's random seed (CHAOS_SEED to replay one), logged.
func seed(t testing.TB) uint64 {
	s := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("CHAOS_SEED"), 10, 64); err == nil {
		s = v
	}
	t.Logf("CHAOS_SEED=%d", s)
	return s
}

// round is one fault injected into a worker's -once run over its own
// database of due orgs (on the chaos tests' own cluster), and what came of it.
type round struct {
	t    *testing.T
	ctx  context.Context
	url  string
	db   *pgxpool.Pool
	sink *transporttest.SMTPServer
	want []string
	app  string // application_name of this round's workers
}

func newRound(t *testing.T, server string, orgs int, app string) *round {
	r := &round{t: t, ctx: context.Background(), url: testdb.URLOn(t, server),
		sink: transporttest.NewSMTPServer(t), app: app}
	db, err := pgxpool.New(r.ctx, r.url)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	r.db = db
	r.want = seedOrgs(t, db, orgs)
	return r
}

func (r *round) worker(args ...string) *proc {
	return startWorker(r.t, r.url, r.sink.URL, r.app, args...)
}

// shortLimit is a short run's bound from a fault to everything done: a
// guard against a round that never recovers, not a measure of recovery
// (the figures are), so a loaded machine does not fail it. CHAOS=full
// keeps the guarantees' bounds (docs/guarantees.md, "When things break").
const shortLimit = testutil.Settle

// measure reads the outcome, trying again for a while (testutil.Settle)
// when the database is away (the restart scenario restarts it under our
// pool too).
func (r *round) measure() outcome {
	var err error
	for deadline := time.Now().Add(testutil.Settle); ; {
		var o outcome
		if o, err = measure(r.ctx, r.db, r.sink, r.want); err == nil {
			return o
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	require.NoError(r.t, err, "the outcome, read for %s", testutil.Settle)
	return outcome{}
}

// untilDone polls until everything is generated and delivered, limit
// passes, or stop says to give up; it returns when it saw it done.
func (r *round) untilDone(limit time.Duration, stop func() bool) (outcome, time.Time, bool) {
	deadline := time.Now().Add(limit)
	for {
		o := r.measure()
		if o.done() {
			return o, time.Now(), true
		}
		if time.Now().After(deadline) || (stop != nil && stop()) {
			return o, time.Now(), false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// takeOver is what follows a worker's death: a fresh worker (serve mode,
// as a restarted replica runs: its lifeline takes back the dead worker's
// running jobs, River's rescuer being the backstop) and that worker's first tick, at the fake instant
// (`-once -now`, which also works the available jobs). It returns once
// everything is done or limit passes.
//
// In the short version only, it first stands in for the wait before the
// lifeline takes a dead worker's running jobs back (docs/worker.md,
// "Crashes and shutdown"): the dead worker's heartbeats are made old, and
// the fresh worker's run of heartbeats long.
// Called only once the round's workers are all dead, so every heartbeat
// row is a dead worker's.
func (r *round) takeOver(faultAt time.Time, limit time.Duration) (outcome, time.Duration, bool) {
	if !full() {
		_, err := r.db.Exec(r.ctx, `UPDATE ff_worker_heartbeats SET seen_at = seen_at - interval '1 hour'`)
		require.NoError(r.t, err)
	}
	serve := r.worker("-shutdown-timeout", "5s")
	if !full() {
		// ... and for the fresh worker's own unbroken run of heartbeats
		// before it may take others for dead, once its row is there.
		require.Eventually(r.t, func() bool {
			tag, err := r.db.Exec(r.ctx, `UPDATE ff_worker_heartbeats SET streak_since = now() - interval '1 hour'
			                               WHERE seen_at > now() - interval '1 minute'`)
			return err == nil && tag.RowsAffected() > 0
		}, testutil.Settle, 50*time.Millisecond)
	}
	defer func() {
		_ = serve.cmd.Process.Signal(syscall.SIGTERM)
		if code := serve.wait(30 * time.Second); code != 0 {
			r.t.Errorf("the fresh serving worker exited %d on SIGTERM:\n%s", code, serve.tail())
		}
	}()
	once := r.worker(onceArgs...)
	o, doneAt, ok := r.untilDone(limit, serve.exited)
	if code := once.wait(5 * time.Minute); code != 0 {
		r.t.Errorf("the fresh worker's -once tick exited %d:\n%s", code, once.tail())
	}
	if serve.exited() {
		r.t.Errorf("the fresh serving worker died:\n%s", serve.tail())
	}
	return o, doneAt.Sub(faultAt), ok
}

// scenario is a fault, injected once per round at a random moment of a
// worker's -once run (see calibration.draw).
type scenario struct {
	name                string // "kill", "terminate", "restart": its cluster (clusterName) and its workers' application_name
	rounds, orgs, lanes int
	// inject makes the fault happen to the round's running worker.
	inject func(r *round, p *proc) error
	// survives: the worker is to keep running and finish everything alone
	// (a lost connection); otherwise it dies and a fresh one takes over.
	survives bool
	limit    time.Duration // from the fault to everything done
	// ownCluster puts the rounds' databases on a cluster of the chaos
	// tests' own in any case (the restart scenario restarts it).
	ownCluster bool
}

func (s scenario) server(t *testing.T) string {
	if s.ownCluster {
		return theCluster(t, clusterName(s.name)).URL
	}
	return serverURL(t, s.name)
}

// tally adds up the rounds.
type tally struct {
	mu                       sync.Mutex
	recovery                 stats
	total                    outcome
	missed, inTick, notExact int
	workerFailed, takenOver  int
	phases                   map[string]int // where the faults landed: start, tick, jobs
	// After a kill, the killed worker's own running jobs (orphans): from the
	// kill to the last of their briefings ready (rounds killed while it
	// generated) and to the last of their emails accepted, and who gave
	// them back.
	orphanReady, orphanSent       stats
	byLifeline, byRescuer, orphan int
}

func (ta *tally) add(o outcome, atFault outcome, phase string, recovery time.Duration) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	if ta.phases == nil {
		ta.phases = map[string]int{}
	}
	ta.phases[phase]++
	ta.recovery = append(ta.recovery, recovery)
	if atFault.Briefings < atFault.Orgs {
		ta.inTick++
	}
	ta.total.Orgs += o.Orgs
	ta.total.Briefings += o.Briefings
	ta.total.Ready += o.Ready
	ta.total.Revisions += o.Revisions
	ta.total.Emails += o.Emails
	ta.total.Received += o.Received
	ta.total.Duplicates += o.Duplicates
	ta.total.MixedIDs += o.MixedIDs
	ta.total.Lost += o.Lost
	ta.total.Strays += o.Strays
	ta.total.GenerateFails += o.GenerateFails
	if !o.exact() {
		ta.notExact++
	}
}

func (ta *tally) String() string {
	o := ta.total
	line := fmt.Sprintf("briefings=%d/%d ready=%d failed=%d revisions=%d emails=%d received=%d duplicates=%d (recipients shown two Message-IDs: %d) lost=%d strays=%d; "+
		"rounds not exactly once=%d; workers that did not survive=%d; faults by phase %v, with orgs not yet fired=%d, after the worker finished=%d; recovery %v",
		o.Briefings, o.Orgs, o.Ready, o.GenerateFails, o.Revisions, o.Emails, o.Received, o.Duplicates, o.MixedIDs, o.Lost, o.Strays,
		ta.notExact, ta.workerFailed, ta.phases, ta.inTick, ta.missed, ta.recovery)
	if ta.orphan > 0 {
		line += fmt.Sprintf("; killed worker's running jobs=%d (given back by the lifeline %d, by River's rescuer %d): "+
			"kill → their briefings ready %v, kill → their emails accepted %v",
			ta.orphan, ta.byLifeline, ta.byRescuer, ta.orphanReady, ta.orphanSent)
	}
	return line
}

// run calibrates on a clean run (which must be exact), then runs the
// rounds, lanes at a time, and prints the figures.
//
// The lanes are goroutines, each running its rounds one after the other
// (t.Run may be called from several goroutines at once). Parallel
// subtests would be capped by go test's -parallel, GOMAXPROCS by default:
// on a 2-core machine that made CHAOS_LANES=10 two lanes, and a kill -9
// round spends most of its time waiting for the rescue, not on a core.
func (s scenario) run(t *testing.T) *tally {
	start := time.Now()
	rng := rand.New(rand.NewPCG(seed(t), 8))
	cal := calibrate(t, s.server(t), s.orgs)

	moments := make([]moment, s.rounds) // drawn in round order: CHAOS_SEED replays them
	for i := range moments {
		moments[i] = cal.draw(rng, s.orgs)
	}
	ta := &tally{}
	t.Run("rounds", func(t *testing.T) {
		next := make(chan int)
		var lanes sync.WaitGroup
		for range min(s.lanes, s.rounds) {
			lanes.Go(func() {
				for i := range next {
					t.Run(fmt.Sprintf("%03d", i), func(t *testing.T) {
						s.round(t, ta, fmt.Sprintf("chaos-%s-%d", s.name, i), moments[i])
					})
				}
			})
		}
		for i := range s.rounds {
			next <- i
		}
		close(next)
		lanes.Wait()
	})
	figures(t, "%d rounds over %d orgs each, %d at a time, in %v: %v", s.rounds, s.orgs, s.lanes,
		time.Since(start).Round(time.Second), ta)
	return ta
}

// sideBySide lets the scenarios run at the same time under CHAOS=full
// with CHAOS_SIDE_BY_SIDE=1, each on its own cluster (clusterName), for
// `make chaos`'s -parallel 4 to run all four at once. By default they run
// one after the other: with the lifeline a kill -9 round no longer waits
// minutes for its rescue, so every scenario keeps the 2 cores busy on its
// own, and side by side took as long (measured: docs/guarantees.md, "When
// things break") while the rounds' recovery came near their limits.
func sideBySide(t *testing.T) {
	if full() && os.Getenv("CHAOS_SIDE_BY_SIDE") == "1" {
		t.Parallel()
	}
}

// calibration is a clean -once run's timing.
type calibration struct {
	tick time.Duration // from the tick's start to its end
}

// moment is when a round's fault strikes: during the tick (after tick
// from its start), or once progress steps of the jobs are done (generated
// briefings plus sent deliveries, 1..2×orgs).
type moment struct {
	tick     time.Duration
	progress int
}

func (m moment) String() string {
	if m.progress == 0 {
		return fmt.Sprintf("tick+%v", m.tick.Round(time.Millisecond))
	}
	return fmt.Sprintf("progress %d", m.progress)
}

// draw picks a moment uniformly over the run's 3×orgs steps: a third
// during the tick (firing the orgs), a third during the generations, a
// third during the sends — whatever the machine's speed, the faults land
// in every phase, the SMTP boundary included.
func (c calibration) draw(rng *rand.Rand, orgs int) moment {
	k := rng.IntN(3 * orgs)
	if k < orgs {
		return moment{tick: time.Duration(rng.Int64N(int64(c.tick) + 1))}
	}
	return moment{progress: k - orgs + 1}
}

// calibrated holds the clean runs' timings, by number of orgs.
var calibrated struct {
	sync.Mutex
	runs map[int]calibration
}

// calibrate times a clean -once run over orgs orgs (once per process), which
// must be exact.
func calibrate(t *testing.T, server string, orgs int) calibration {
	calibrated.Lock()
	defer calibrated.Unlock()
	if c, ok := calibrated.runs[orgs]; ok {
		return c
	}
	var c calibration
	t.Run("clean", func(t *testing.T) {
		r := newRound(t, server, orgs, "chaos-clean")
		p := r.worker(onceArgs...)
		ticking, ok := p.running(5 * time.Minute)
		require.True(t, ok, p.tail())
		for p.phase() != "jobs" && !p.exited() {
			time.Sleep(5 * time.Millisecond)
		}
		c.tick = time.Since(ticking)
		code := p.wait(5 * time.Minute)
		require.Equal(t, 0, code, p.tail())
		o := r.measure()
		require.True(t, o.exact(), "clean run: %v", o)
		figures(t, "clean -once run over %d orgs: tick %v, %v from the start to the exit: %v",
			orgs, c.tick.Round(time.Millisecond), time.Since(p.started).Round(time.Millisecond), o)
	})
	require.NotZero(t, c.tick)
	if calibrated.runs == nil {
		calibrated.runs = map[int]calibration{}
	}
	calibrated.runs[orgs] = c
	return c
}

// progress counts the jobs' steps done: briefings generated, deliveries sent.
func (r *round) progress() int {
	var n int
	if err := r.db.QueryRow(r.ctx, `SELECT (SELECT count(*) FROM ff_briefings WHERE status = 'ready') +
	                                       (SELECT count(*) FROM ff_deliveries WHERE state = 'sent')`).Scan(&n); err != nil {
		return 0
	}
	return n
}

func (s scenario) round(t *testing.T, ta *tally, app string, delay moment) {
	r := newRound(t, s.server(t), s.orgs, app)
	p := r.worker(onceArgs...)
	_, _ = p.running(5 * time.Minute)
	if delay.progress == 0 {
		time.Sleep(delay.tick)
	} else {
		for !p.exited() && r.progress() < delay.progress {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if p.exited() {
		ta.mu.Lock()
		ta.missed++
		ta.mu.Unlock()
		require.Equal(t, 0, p.wait(time.Minute), p.tail())
		o := r.measure()
		require.True(t, o.exact(), "%v", o)
		t.Logf("the worker had finished before the fault at %v", delay)
		return
	}
	phase := p.phase()
	faultAt := time.Now()
	err := s.inject(r, p)
	// The worker may have ended between the look above and the fault.
	if !s.survives && p.wait(time.Minute) == 0 || s.survives && err != nil && p.exited() {
		ta.mu.Lock()
		ta.missed++
		ta.mu.Unlock()
		o := r.measure()
		require.True(t, o.exact(), "%v", o)
		t.Logf("the worker had finished before the fault at %v", delay)
		return
	}
	require.NoError(t, err)
	atFault := r.measure()

	var o outcome
	var recovery time.Duration
	var ok bool
	if s.survives {
		var doneAt time.Time
		o, doneAt, ok = r.untilDone(s.limit, p.exited)
		recovery = doneAt.Sub(faultAt)
		code := p.wait(s.limit)
		if code != 0 {
			ta.mu.Lock()
			ta.workerFailed++
			ta.mu.Unlock()
			t.Errorf("FINDING: the worker did not survive the fault at %v in its %s phase: exit %d (-1: still running after %v); %v\n%s",
				delay, phase, code, s.limit, r.measure(), p.tail())
		}
		if !ok {
			o, doneAt, ok = r.untilDone(5*time.Second, nil) // it may have finished as it exited
			recovery = doneAt.Sub(faultAt)
		}
		if !ok {
			t.Errorf("FINDING: the worker left work undone after the fault at %v in its %s phase: %v", delay, phase, o)
			ta.mu.Lock()
			ta.takenOver++
			ta.mu.Unlock()
			// Count what a fresh worker makes of it: lost or duplicated?
			o, recovery, ok = r.takeOver(faultAt, s.limit)
		}
	} else {
		atFault = r.measure() // what it had committed when it died
		orphans := r.watchOrphans(faultAt)
		o, recovery, ok = r.takeOver(faultAt, s.limit)
		orphans.report(t, ta)
	}
	if !ok {
		t.Errorf("not recovered %v after the fault at %v: %v", s.limit, delay, o)
	}
	final := r.measure()
	t.Logf("fault at %v (%s) with %d/%d fired, %d generated, %d sent; done %v later: %v",
		delay, phase, atFault.Briefings, s.orgs, atFault.Ready, atFault.Sent, recovery.Round(time.Millisecond), final)
	if !final.exact() {
		t.Errorf("not exactly once: %v", final)
	}
	ta.add(final, atFault, phase, recovery)
}

// orphans are a killed worker's running jobs at its death, and when they
// were done with.
type orphans struct {
	r              *round
	ids, briefings []int64
	generating     bool // some were generations
	ready, sent    time.Duration
	stop           chan struct{}
	done           chan struct{}
}

// watchOrphans notes the jobs the killed worker left running, then polls
// until their briefings are ready and those briefings' emails are all
// accepted (their deliveries recorded sent), timed from the kill.
func (r *round) watchOrphans(killedAt time.Time) *orphans {
	w := &orphans{r: r, stop: make(chan struct{}), done: make(chan struct{})}
	var generations int
	require.NoError(r.t, r.db.QueryRow(r.ctx, `
		SELECT coalesce(array_agg(id ORDER BY id), '{}'),
		       coalesce(array_agg(DISTINCT (args->>'briefing_id')::bigint) FILTER (WHERE args ? 'briefing_id'), '{}'),
		       count(*) FILTER (WHERE kind = 'generate_briefing')
		  FROM river_job WHERE state = 'running'`).Scan(&w.ids, &w.briefings, &generations))
	w.generating = generations > 0
	go func() {
		defer close(w.done)
		for w.ready == 0 || w.sent == 0 {
			var notReady, unsent int
			err := r.db.QueryRow(r.ctx, `
				SELECT (SELECT count(*) FROM ff_briefings WHERE id = ANY($1) AND status <> 'ready'),
				       (SELECT count(*) FROM river_job WHERE id = ANY($2) AND state = 'running') +
				       (SELECT count(*) FROM ff_briefings b WHERE b.id = ANY($1)
				           AND NOT EXISTS (SELECT FROM ff_deliveries d WHERE d.briefing_id = b.id)) +
				       (SELECT count(*) FROM ff_deliveries WHERE briefing_id = ANY($1) AND state <> 'sent')`,
				w.briefings, w.ids).Scan(&notReady, &unsent)
			if err == nil {
				at := time.Since(killedAt)
				if notReady == 0 && w.ready == 0 {
					w.ready = at
				}
				if notReady == 0 && unsent == 0 && w.sent == 0 {
					w.sent = at
				}
			}
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

// report adds the orphans' figures to the tally: who gave them back, and
// when their briefings and emails were done.
func (w *orphans) report(t *testing.T, ta *tally) {
	// The round is done: the watcher's next look sees it so, unless the
	// round was not recovered.
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
	}
	close(w.stop)
	<-w.done
	var lifeline, rescuer int
	require.NoError(t, w.r.db.QueryRow(w.r.ctx, `
		SELECT count(*) FILTER (WHERE e->>'error' LIKE 'task rescued by the lifeline%'),
		       count(*) FILTER (WHERE e->>'error' LIKE 'Stuck job rescued by JobRescuer%')
		  FROM river_job, unnest(errors) e WHERE id = ANY($1)`, w.ids).Scan(&lifeline, &rescuer))
	t.Logf("killed worker's running jobs: %d (%d briefings; generating: %v), given back by the lifeline %d, by River's rescuer %d; "+
		"kill → briefings ready %v, → emails accepted %v", len(w.ids), len(w.briefings), w.generating, lifeline, rescuer,
		w.ready.Round(time.Millisecond), w.sent.Round(time.Millisecond))
	if len(w.ids) == 0 || w.sent == 0 {
		return
	}
	ta.mu.Lock()
	defer ta.mu.Unlock()
	ta.orphan += len(w.ids)
	ta.byLifeline += lifeline
	ta.byRescuer += rescuer
	if w.generating {
		ta.orphanReady = append(ta.orphanReady, w.ready)
	}
	ta.orphanSent = append(ta.orphanSent, w.sent)
}

// TestKill9 kills a worker with SIGKILL at a random moment of its -once run
// (its tick, the generations, the sends); a fresh worker takes over.
// Every briefing must be generated exactly once and its email accepted by
// the SMTP server exactly once.
//
// Short: 2 rounds of 40 orgs, the lifeline's wait fast-forwarded. Its figures
// include the killed worker's own running jobs: who gave them back, and from
// the kill to the last of their briefings ready and of their emails accepted.
// CHAOS=full: 100 rounds of 1,000 orgs, CHAOS_LANES (10) at a time, real waits.
func TestKill9(t *testing.T) {
	sideBySide(t)
	scenario{
		name:   "kill",
		rounds: envInt("CHAOS_KILL_ROUNDS", pick(2, 100)),
		orgs:   envInt("CHAOS_ORGS", pick(40, 1000)),
		lanes:  envInt("CHAOS_LANES", pick(2, 10)),
		inject: func(r *round, p *proc) error { return p.cmd.Process.Signal(syscall.SIGKILL) },
		limit:  pick(shortLimit, 10*time.Minute),
	}.run(t)
}

// TestTerminateBackends cuts every connection of a running worker with
// pg_terminate_backend at a random moment of its -once run. The worker must
// keep running and finish alone (exit 0), everything exactly once.
//
// Short: 2 rounds of 40 orgs. CHAOS=full: 100 rounds of 1,000 orgs.
func TestTerminateBackends(t *testing.T) {
	sideBySide(t)
	var terminated stats
	var mu sync.Mutex
	scenario{
		name:   "terminate",
		rounds: envInt("CHAOS_TERMINATE_ROUNDS", pick(2, 100)),
		orgs:   envInt("CHAOS_ORGS", pick(40, 1000)),
		lanes:  envInt("CHAOS_LANES", pick(2, 10)),
		inject: func(r *round, p *proc) error {
			var n int
			err := r.db.QueryRow(r.ctx, `
				SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				                       WHERE application_name = $1 AND datname = current_database()) t`, r.app).Scan(&n)
			mu.Lock()
			terminated = append(terminated, time.Duration(n))
			mu.Unlock()
			return err
		},
		survives: true,
		limit:    pick(shortLimit, 5*time.Minute),
	}.run(t)
	var sum int
	for _, n := range terminated {
		sum += int(n)
	}
	figures(t, "connections terminated: %d over %d faults", sum, len(terminated))
}

// TestRestartPostgres restarts the PostgreSQL cluster (pg_ctl restart -m
// fast, the chaos tests' own cluster) at a random moment of a worker's -once
// run. The worker must keep running and finish alone (exit 0), everything
// exactly once. Rounds run one at a time: a restart hits every database.
//
// Short: 1 round of 40 orgs. CHAOS=full: 10 rounds of 1,000 orgs.
func TestRestartPostgres(t *testing.T) {
	sideBySide(t)
	var down stats
	var mu sync.Mutex
	scenario{
		name:   "restart",
		rounds: envInt("CHAOS_RESTART_ROUNDS", pick(1, 10)),
		orgs:   envInt("CHAOS_ORGS", pick(40, 1000)),
		lanes:  1,
		inject: func(r *round, p *proc) error {
			d, err := theCluster(r.t, clusterName("restart")).restart()
			mu.Lock()
			down = append(down, d)
			mu.Unlock()
			return err
		},
		survives:   true,
		limit:      pick(shortLimit, 5*time.Minute),
		ownCluster: true,
	}.run(t)
	figures(t, "pg_ctl restart took %v", down)
}
