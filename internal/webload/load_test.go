// Package webload measures the admin pages under constant-rate load: the
// real cmd/web binary, as its own process, on a seeded database, driven by
// vegeta's library at a fixed rate whatever the server's answers take (an
// open model: a slow server is not given a break, so queueing shows up as
// latency or as 503s, not as a lower rate). See docs/web.md, "Web
// under load", and docs/benchmarks.md, "Web under load".
//
//	make bench-web
//	go test -run '^$' -bench BenchmarkWebLoad -benchtime 1x -timeout 30m ./internal/webload/
//
// WEBLOAD_RATES (default 200,1000), WEBLOAD_DURATION (10s) and
// WEBLOAD_PAGES (briefings,settings,board) narrow a run; the server takes
// WEB_MAX_IN_FLIGHT and the rest from the environment.
package webload

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/demo"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil/freeport"
)

// page is one page under load, with text that proves a 200 is that page.
type page struct {
	name, path, want string
}

var pages = []page{
	{"briefings", "/orgs/northwind/briefings", `data-date=`},
	{"settings", "/orgs/northwind/settings/fieldforce", "America/New_York"},
	{"board", "/orgs/northwind/board", "Unassigned"},
}

// historyDays of ready briefings are seeded for the briefings page (its
// list shows 15 days).
const historyDays = 30

func BenchmarkWebLoad(b *testing.B) {
	rates := envInts(b, "WEBLOAD_RATES", []int{200, 1000})
	duration := envDuration(b, "WEBLOAD_DURATION", 10*time.Second)
	only := os.Getenv("WEBLOAD_PAGES")

	dbURL := testdb.URL(b)
	seed(b, dbURL)
	srv := startServer(b, dbURL)
	cookie := signIn(b, srv.base, "admin@northwind.test", demo.Password)

	b.Logf("server pid %d, GOMAXPROCS of this machine %d; the load generator shares its cores", srv.cmd.Process.Pid, runtime.NumCPU())
	var rows []string
	for _, p := range pages {
		if only != "" && !slices.Contains(strings.Split(only, ","), p.name) {
			continue
		}
		check(b, srv.base, cookie, p)
		for _, rate := range rates {
			name := fmt.Sprintf("%s/%d", p.name, rate)
			b.Run(name, func(b *testing.B) {
				// A second at a tenth of the rate warms the pool, the
				// statement caches and the page's data into memory.
				attack(srv, cookie, p, max(rate/10, 1), time.Second)
				time.Sleep(500 * time.Millisecond)
				r := attack(srv, cookie, p, rate, duration)
				b.ReportMetric(ms(r.ok.quantile(0.50)), "p50-ms")
				b.ReportMetric(ms(r.ok.quantile(0.99)), "p99-ms")
				b.ReportMetric(ms(r.ok.max()), "max-ms")
				b.ReportMetric(float64(r.ok.n())/float64(r.total), "ok-ratio")
				b.ReportMetric(float64(r.shed), "503s")
				b.ReportMetric(float64(r.peakRSS)/(1<<20), "peak-rss-MiB")
				rows = append(rows, fmt.Sprintf("| %s | %d | %d | %.1f | %.1f | %.1f | %.3f | %d | %d | %.1f | %.0f |",
					p.name, rate, r.total, ms(r.ok.quantile(0.50)), ms(r.ok.quantile(0.99)), ms(r.ok.max()),
					float64(r.ok.n())/float64(r.total), r.shed, r.other, ms(r.all.quantile(0.99)), float64(r.peakRSS)/(1<<20)))
				time.Sleep(time.Second) // let the previous run's connections settle
			})
		}
	}
	fmt.Printf("\nweb under load: %s per run, cmd/web on %d CPUs shared with the load generator and PostgreSQL\n", duration, runtime.NumCPU())
	fmt.Println("| page | req/s | requests | p50 ms (200s) | p99 ms (200s) | max ms (200s) | 200 ratio | 503 | other | p99 ms (all) | peak RSS MiB |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Printf("server peak RSS over the whole run (VmHWM): %.0f MiB\n", float64(srv.hwm())/(1<<20))
}

// run is one attack's outcome: latencies of the 200s and of every answer,
// 503s, anything else (errors, other statuses), and the server's largest
// resident set seen while it ran.
type run struct {
	ok, all       latencies
	total, shed   int
	other         int
	peakRSS       int64
	firstProblems []string
}

// attack fires GET p at rate per second for d and waits for every answer.
func attack(srv *server, cookie string, p page, rate int, d time.Duration) run {
	target := vegeta.Target{Method: http.MethodGet, URL: srv.base + p.path,
		Header: http.Header{"Cookie": {cookie}, "Accept-Encoding": {"gzip"}}}
	atk := vegeta.NewAttacker(
		vegeta.Timeout(30*time.Second),
		vegeta.Redirects(vegeta.NoFollow), // a lost session shows as 303, not as the login page's 200
		vegeta.MaxBody(0),                 // read and drop bodies: keep no page in memory here
		vegeta.KeepAlive(true),
	)
	stop := make(chan struct{})
	var peak int64
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, srv.rss())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	var r run
	for res := range atk.Attack(vegeta.NewStaticTargeter(target), vegeta.ConstantPacer{Freq: rate, Per: time.Second}, d, p.name) {
		r.total++
		r.all.add(res.Latency)
		switch {
		case res.Code == http.StatusOK && res.Error == "":
			r.ok.add(res.Latency)
		case res.Code == http.StatusServiceUnavailable:
			r.shed++
		default:
			r.other++
			if len(r.firstProblems) < 3 {
				r.firstProblems = append(r.firstProblems, fmt.Sprintf("%d %s", res.Code, res.Error))
			}
		}
	}
	close(stop)
	wg.Wait()
	r.peakRSS = peak
	if len(r.firstProblems) > 0 {
		fmt.Printf("%s at %d/s: %d answers neither 200 nor 503, e.g. %v\n", p.name, rate, r.other, r.firstProblems)
	}
	return r
}

type latencies struct{ d []time.Duration }

func (l *latencies) add(d time.Duration) { l.d = append(l.d, d) }
func (l *latencies) n() int              { return len(l.d) }

func (l *latencies) quantile(q float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	slices.Sort(l.d)
	return l.d[min(len(l.d)-1, int(q*float64(len(l.d))))]
}

func (l *latencies) max() time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	return slices.Max(l.d)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// seed fills the database as `make run` does (demo.Seed: three orgs, their
// people, technicians and jobs around today) and gives northwind a month
// of ready briefings, as a working org has.
func seed(b *testing.B, dbURL string) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := demo.Seed(ctx, &accounts.Store{DB: pool}, time.Now()); err != nil {
		b.Fatalf("seed demo: %v", err)
	}
	if _, err := pool.Exec(ctx, `
		WITH o AS (SELECT id FROM orgs WHERE slug = 'northwind'),
		d AS (SELECT (current_date - g)::date AS day FROM generate_series(1, $1) g),
		b AS (
			INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, status, content,
			                          generated_at, revision, requested_revision)
			SELECT o.id, d.day, 'America/New_York', d.day + time '12:30', d.day + time '12:30', 'schedule', 'ready',
			       jsonb_build_object('date', d.day), d.day + time '12:31', 1, 1
			  FROM o, d
			RETURNING id, org_id, trigger, content, generated_at)
		INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at)
		SELECT org_id, id, 1, trigger, content, generated_at FROM b`, historyDays); err != nil {
		b.Fatalf("seed briefings: %v", err)
	}
}

// server is the cmd/web process under load.
type server struct {
	cmd  *exec.Cmd
	base string
}

// startServer builds cmd/web and starts `web serve` on a free port,
// logging at info as in production (to a file: the request lines cost
// what they cost there).
func startServer(b *testing.B, dbURL string) *server {
	dir := b.TempDir()
	bin := filepath.Join(dir, "web")
	build := exec.Command("go", "build", "-o", bin, "fieldbrief/cmd/web")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatalf("build cmd/web: %v", err)
	}
	port, err := freeport.Take()
	if err != nil {
		b.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logFile, err := os.Create(filepath.Join(dir, "web.log"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "-addr", addr)
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+dbURL,
		"SESSION_KEYS="+hex.EncodeToString([]byte("webload-session-key-0123456789abcdef")),
		"FIELDBRIEF_ENV=development",
		"SESSION_KEY_FILE="+filepath.Join(dir, "session.key"),
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &server{cmd: cmd, base: "http://" + addr}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		logFile.Close()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(s.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile.Name())
			b.Fatalf("cmd/web did not become ready: %v\n%s", err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rss and hwm are the server's resident set now and its peak (VmRSS,
// VmHWM in /proc/PID/status), in bytes.
func (s *server) rss() int64 { return s.status("VmRSS:") }
func (s *server) hwm() int64 { return s.status("VmHWM:") }

func (s *server) status(field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// signIn signs in through the login form and returns the Cookie header a
// browser would then send.
func signIn(b *testing.B, base, email, password string) string {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Get(base + "/login")
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	u, _ := url.Parse(base)
	var csrf string
	for _, c := range jar.Cookies(u) {
		if c.Name == "_csrf" {
			csrf = c.Value
		}
	}
	res, err = hc.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}, "_csrf": {csrf}})
	if err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign in as %s: status %d", email, res.StatusCode)
	}
	var parts []string
	for _, c := range jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

// check requires that GET p answers 200 with the page we mean to measure.
func check(b *testing.B, base, cookie string, p page) {
	req, _ := http.NewRequest(http.MethodGet, base+p.path, nil)
	req.Header.Set("Cookie", cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), p.want) {
		b.Fatalf("GET %s: status %d, want 200 with %q:\n%.2000s", p.path, res.StatusCode, p.want, body)
	}
}

func envInts(b *testing.B, name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("%s: want positive integers separated by commas, got %q", name, v)
		}
		out = append(out, n)
	}
	return out
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s: want a positive duration such as 10s, got %q", name, v)
	}
	return d
}
