package chaos

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport/transporttest"
)

// full reports whether CHAOS=full asks for the full counts (`make chaos`);
// otherwise each scenario runs a short version that fits in `make test`.
func full() bool { return os.Getenv("CHAOS") == "full" }

// pick returns short or, under CHAOS=full, long.
func pick[T any](short, long T) T {
	if full() {
		return long
	}
	return short
}

// tickAt is the instant every worker's -once tick runs at: noon UTC three
// days from now. The orgs' zone is UTC, their time 08:00 and their only day
// tickAt's weekday, so all are due at tickAt, and none on the real clock of
// a worker that runs its own ticks meanwhile (its ±1-day window never
// reaches a day three days away).
var tickAt = func() time.Time {
	d := time.Now().UTC().AddDate(0, 0, 3)
	return time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.UTC)
}()

// seedOrgs creates n orgs due at tickAt, each with its own dispatcher
// address (dispatch-<org id>@chaos.test), and returns those addresses.
// Their 08:00 fires at tickAt's noon, 4 h late: send_within 24h still
// sends it (docs/guarantees.md, "Late briefings").
func seedOrgs(t testing.TB, db *pgxpool.Pool, n int) []string {
	t.Helper()
	ctx := context.Background()
	_, err := db.Exec(ctx, `INSERT INTO orgs (slug, name) SELECT 'chaos-' || i, 'Chaos ' || i FROM generate_series(1, $1) AS i`, n)
	require.NoError(t, err)
	_, err = db.Exec(ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json)
		SELECT id, 'fieldforce', jsonb_build_object(
		         'briefing', jsonb_build_object('timezone', 'Etc/UTC', 'schedule_local_time', '08:00',
		                                        'days', jsonb_build_array($1::text)),
		         'delivery', jsonb_build_object('email', jsonb_build_object('to', jsonb_build_array('dispatch-' || id || '@chaos.test')),
		                                        'send_within', '24h'))
		  FROM orgs`, strings.ToLower(tickAt.Weekday().String()[:3]))
	require.NoError(t, err)
	rows, err := db.Query(ctx, `SELECT 'dispatch-' || id || '@chaos.test' FROM orgs ORDER BY id`)
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		var a string
		require.NoError(t, rows.Scan(&a))
		out = append(out, a)
	}
	require.NoError(t, rows.Err())
	require.Len(t, out, n)
	return out
}

// outcome is what a round ended with, from the database and the SMTP sink.
type outcome struct {
	Orgs          int // orgs due
	Briefings     int // ff_briefings rows
	BriefingOrgs  int // distinct orgs among them
	Ready         int // of which ready
	Revisions     int // generated revisions (one per briefing when generated exactly once)
	Deliveries    int // ff_deliveries rows
	Sent          int // of which sent
	Emails        int // messages the SMTP sink accepted
	Received      int // distinct expected recipients among them
	Duplicates    int // accepted messages beyond the first per recipient
	MixedIDs      int // recipients whose copies carry different Message-IDs (a reader would see two emails)
	Lost          int // expected recipients with no message
	Strays        int // messages to an address nobody expected
	OpenJobs      int // River jobs not finished
	FailedJobs    int // River jobs discarded or cancelled
	GenerateFails int // ff_briefings failed
}

func (o outcome) done() bool {
	return o.Ready == o.Orgs && o.Revisions == o.Orgs && o.Sent == o.Orgs && o.Received == o.Orgs && o.OpenJobs == 0
}

// maxInFlight is the most sends a worker has under way at once (its
// -workers, 16 by default): the most a crash can catch between the SMTP
// server's acceptance and the commit that records it.
const maxInFlight = 16

// exact is the guarantee (docs/guarantees.md, "The promises"): every briefing
// generated exactly once, one delivery per recipient recorded sent, and
// every recipient shown exactly one email — copies, if any, carry one
// Message-ID, and there can be one only for a send a fault caught between
// the SMTP server's "250 accepted" and our commit (at most maxInFlight).
func (o outcome) exact() bool {
	return o.done() && o.Briefings == o.Orgs && o.BriefingOrgs == o.Orgs && o.Deliveries == o.Orgs &&
		o.Emails == o.Orgs+o.Duplicates && o.Duplicates <= maxInFlight && o.MixedIDs == 0 && o.Lost == 0 && o.Strays == 0
}

func (o outcome) String() string {
	return fmt.Sprintf("orgs=%d briefings=%d (orgs %d, ready %d, failed %d) revisions=%d deliveries=%d sent=%d "+
		"emails=%d received=%d duplicates=%d (mixed Message-IDs %d) lost=%d strays=%d open_jobs=%d failed_jobs=%d",
		o.Orgs, o.Briefings, o.BriefingOrgs, o.Ready, o.GenerateFails, o.Revisions, o.Deliveries, o.Sent,
		o.Emails, o.Received, o.Duplicates, o.MixedIDs, o.Lost, o.Strays, o.OpenJobs, o.FailedJobs)
}

// measure reads the outcome. want are the dispatcher addresses, one per org.
func measure(ctx context.Context, db *pgxpool.Pool, sink *transporttest.SMTPServer, want []string) (outcome, error) {
	o := outcome{Orgs: len(want)}
	err := db.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ff_briefings),
		       (SELECT count(DISTINCT org_id) FROM ff_briefings),
		       (SELECT count(*) FROM ff_briefings WHERE status = 'ready'),
		       (SELECT count(*) FROM ff_briefings WHERE status = 'failed'),
		       (SELECT count(*) FROM ff_briefing_revisions),
		       (SELECT count(*) FROM ff_deliveries),
		       (SELECT count(*) FROM ff_deliveries WHERE state = 'sent'),
		       (SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'discarded', 'cancelled')),
		       (SELECT count(*) FROM river_job WHERE state IN ('discarded', 'cancelled'))`).
		Scan(&o.Briefings, &o.BriefingOrgs, &o.Ready, &o.GenerateFails, &o.Revisions, &o.Deliveries, &o.Sent, &o.OpenJobs, &o.FailedJobs)
	if err != nil {
		return o, fmt.Errorf("measure: %w", err)
	}
	expected := make(map[string]int, len(want))
	ids := make(map[string]map[string]bool, len(want)) // recipient → Message-IDs
	for _, a := range want {
		expected[strings.ToLower(a)] = 0
	}
	for _, m := range sink.Messages() {
		o.Emails++
		id := ""
		if h, err := m.Parse(); err == nil {
			id = h.Header.Get("Message-ID")
		}
		for _, to := range m.To {
			to = strings.ToLower(to)
			if _, ok := expected[to]; !ok {
				o.Strays++
				continue
			}
			expected[to]++
			if ids[to] == nil {
				ids[to] = map[string]bool{}
			}
			ids[to][id] = true
		}
	}
	for to, n := range expected {
		switch {
		case n == 0:
			o.Lost++
		default:
			o.Received++
			o.Duplicates += n - 1
			if len(ids[to]) > 1 {
				o.MixedIDs++
			}
		}
	}
	return o, nil
}

// proc is a worker process.
type proc struct {
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{}
	err     error // after done
	log     *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tail is the end of the log, for failure messages.
func (p *proc) tail() string {
	s := p.log.String()
	if len(s) > 3000 {
		s = "…" + s[len(s)-3000:]
	}
	return s
}

// onceArgs make a worker run `-once` at tickAt.
var onceArgs = []string{"-once", "-now", tickAt.Format(time.RFC3339), "-wait", "30s"}

// startWorker starts the worker binary with args on dbURL, mailing to
// smtpURL. appName tags its connections (pg_stat_activity.application_name).
func startWorker(t testing.TB, dbURL, smtpURL, appName string, args ...string) *proc {
	t.Helper()
	bin := testutil.WorkerBinary(t)
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	q := u.Query()
	q.Set("application_name", appName)
	u.RawQuery = q.Encode()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+u.String(),
		"SMTP_URL="+smtpURL,
		"MAIL_FROM=briefings@chaos.test",
		"BASE_URL=http://fieldbrief.test",
	)
	p := &proc{cmd: cmd, done: make(chan struct{}), log: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	p.started = time.Now()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// phase says how far the worker had got, from its log: "start" (pool,
// migrations), "tick" (the tick running) or "jobs" (the tick done, jobs
// being worked).
func (p *proc) phase() string {
	s := p.log.String()
	switch {
	case strings.Contains(s, `"msg":"briefing tick`):
		return "jobs"
	case strings.Contains(s, `"msg":"delivery"`):
		return "tick"
	default:
		return "start"
	}
}

// running waits until the worker is past its start (connected, migrated,
// about to tick) and returns when it saw that; false if it exited first
// or timeout passed.
func (p *proc) running(timeout time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(timeout)
	for p.phase() == "start" {
		if p.exited() || time.Now().After(deadline) {
			return time.Time{}, false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Now(), true
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to timeout for the process to exit; it returns its exit
// code, or -1 when it did not exit in time (it is killed then).
func (p *proc) wait(timeout time.Duration) int {
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return -1
	}
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -2
}

// stats summarises durations.
type stats []time.Duration

func (s stats) worst() time.Duration {
	if len(s) == 0 {
		return 0
	}
	return slices.Max(s)
}

func (s stats) median() time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c[len(c)/2]
}

func (s stats) String() string {
	return fmt.Sprintf("n=%d median=%v worst=%v", len(s), s.median().Round(time.Millisecond), s.worst().Round(time.Millisecond))
}

// figures prints a scenario's figures: with -v, and always under CHAOS=full.
func figures(t testing.TB, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf("FIGURES %s: ", t.Name()) + fmt.Sprintf(format, args...)
	t.Log(line)
	if full() {
		fmt.Println(line)
	}
}
