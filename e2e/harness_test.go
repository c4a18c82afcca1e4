package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/config"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/web"
	"fieldbrief/internal/worker"
)

const (
	// pollEvery is how often waits look at the page again.
	pollEvery = 50 * time.Millisecond
	// screenshotDir receives the full-page PNGs (gitignored).
	screenshotDir = "testdata/screenshots"
)

// screenshots says whether the tours' screenshots are taken: only when
// E2E_SCREENSHOTS=1 (make screenshots). They are for people to look at
// and no test reads them, yet a full-page PNG of each of 76 views was a
// fifth of the browser tests' CPU in every make test (docs/benchmarks.md,
// "Screenshots on demand"). A failing session's page is saved whatever
// this says.
var screenshots = os.Getenv("E2E_SCREENSHOTS") == "1"

// browser is the one Chromium the package shares; each session gets its own
// browser context (own cookies) and tab.
var browser struct {
	ctx  context.Context // a chromedp context whose browser is running
	err  error           // why there is no browser
	skip bool            // FIELDBRIEF_SKIP_BROWSER=1
}

// maxParallel tests drive the browser at once, whatever -parallel says. A
// test mostly waits on the server and the browser, so a 2-core machine runs
// 3 at once faster than 2; E2E_PARALLEL overrides it.
var maxParallel = func() int {
	if n, err := strconv.Atoi(os.Getenv("E2E_PARALLEL")); err == nil && n > 0 {
		return n
	}
	return 3
}()

var slots = make(chan struct{}, maxParallel)

// stepTimeout bounds one browser step: an action, or a wait for what the
// page should come to show. A step takes well under a second on an idle
// 2-core machine; the bound is there to end a step that will never
// succeed, saying what it waited for, not to time the machine: a test as a
// whole has no deadline but go test's -timeout, so a slow or busy machine
// makes a test slower, never failed (docs/testing.md, "Browser tests").
// E2E_STEP_TIMEOUT (a Go duration) overrides it.
var stepTimeout = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("E2E_STEP_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 90 * time.Second
}()

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	if os.Getenv("FIELDBRIEF_SKIP_BROWSER") == "1" {
		if os.Getenv("CI") != "" {
			// CI is where a missing browser must show (docs/testing.md).
			browser.err = errors.New("FIELDBRIEF_SKIP_BROWSER=1 is ignored under CI: the browser tests run there")
			return m.Run()
		}
		browser.skip = true
		return m.Run()
	}
	ctx, stop, err := startBrowser()
	if err != nil {
		browser.err = err
		fmt.Fprintln(os.Stderr, "e2e:", err)
	} else {
		browser.ctx = ctx
		defer stop()
	}
	return m.Run()
}

// chromiumPath is the browser binary: CHROMIUM_PATH, else Debian's
// chromium-headless-shell. The headless shell is Chromium's own engine
// (Blink, V8, the same renderer and DevTools protocol) without the desktop
// browser around it: no renderers for a browser UI, a lighter browser
// process; the browser tests alone use less than half the machine's CPU
// they used in `chromium --headless` (docs/benchmarks.md, "The browser:
// the headless shell").
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	return "/usr/bin/chromium-headless-shell"
}

// startBrowser starts headless Chromium with a fresh profile. The flags keep
// it from reaching out to the network (the sandbox has none) and from
// needing a GPU, a sandbox or a big /dev/shm.
func startBrowser() (context.Context, func(), error) {
	path := chromiumPath()
	if _, err := exec.LookPath(path); err != nil {
		return nil, nil, fmt.Errorf("browser tests need Chromium, not found at %s (%v); "+
			"install it (apt-get install -y --no-install-recommends chromium), "+
			"point CHROMIUM_PATH at it, or set FIELDBRIEF_SKIP_BROWSER=1 to skip these tests", path, err)
	}
	profile, err := os.MkdirTemp("", "fieldbrief-e2e-chromium-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	stop := func() {
		cancelBrowser()
		cancelAlloc()
		os.RemoveAll(profile)
	}
	// The first Do starts the browser and ties its life to the context it
	// gets, so it gets ctx itself; a timer guards against a hung start.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err = <-started:
	case <-time.After(testutil.Settle):
		err = fmt.Errorf("timed out after %v", testutil.Settle)
	}
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("start Chromium at %s: %w", path, err)
	}
	return ctx, stop, nil
}

// Accounts the fixture creates. Every one has the same password.
const password = "e2e-correct-horse-1"

type account struct{ Email, Password string }

var (
	adminA  = account{"admin@acme.test", password}
	memberA = account{"member@acme.test", password}
	staff   = account{"staff@fieldbrief.test", password}
	adminB  = account{"admin@globex.test", password}
)

// The fixture's stored schedules.
const (
	configA = `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00","days":["mon","tue","wed","thu","fri"],"enabled":true}}`
	configB = `{"briefing":{"timezone":"America/Chicago","schedule_local_time":"06:30","enabled":true}}`
)

// env is one test's world: its own database, the real server on it over
// real HTTP. It has no deadline of its own: each browser step has one
// (stepTimeout).
type env struct {
	t     *testing.T
	ctx   context.Context // for database calls; ends with the test
	url   string          // http://127.0.0.1:port
	db    *pgxpool.Pool
	store *testutil.Stores
	logs  *serverLog
	srv   *web.Server

	orgA, orgB tenants.Org // set by seed
	start      time.Time
	release    func() // gives the test's browser slot back, at the latest when it ends
}

// takeSlot waits until t may drive the browser, and returns the function
// that gives the slot back (it runs at t's end too; once is enough).
func takeSlot(t *testing.T) func() {
	slots <- struct{}{}
	release := sync.OnceFunc(func() { <-slots })
	t.Cleanup(release)
	return release
}

// inParallel runs part once per name (with its index), each as a parallel subtest with an
// env of its own on e's database and server: its own browser slot and
// sessions. e's test gives its slot
// up first, since it drives the browser no more: the subtests start when
// it returns, and its database and server live until they end.
func (e *env) inParallel(names []string, part func(p *env, i int)) {
	e.t.Helper()
	e.release()
	for i, name := range names {
		e.t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := *e
			p.t, p.release = t, takeSlot(t)
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			p.ctx, p.start = ctx, time.Now()
			part(&p, i)
		})
	}
}

// trace logs a step with the time since the test started, when E2E_TRACE is
// set (to see where a slow test spends its time).
func (e *env) trace(format string, args ...any) {
	if os.Getenv("E2E_TRACE") != "" {
		e.t.Helper()
		e.t.Logf("%6.3fs "+format, append([]any{time.Since(e.start).Seconds()}, args...)...)
	}
}

// newEnv starts a parallel browser test: a fresh database, the server on it
// and an empty set of sessions. Without a browser it fails (or skips, with
// FIELDBRIEF_SKIP_BROWSER=1).
func newEnv(t *testing.T) *env {
	t.Helper()
	needBrowser(t)
	t.Parallel()
	return startEnv(t)
}

func needBrowser(t *testing.T) {
	t.Helper()
	if browser.skip {
		t.Skip("FIELDBRIEF_SKIP_BROWSER=1: browser tests skipped")
	}
	if browser.err != nil {
		t.Fatal(browser.err)
	}
}

// startEnv is newEnv without t.Parallel: for a test that splits its work
// over parallel subtests (inParallel). Such a test runs before the parallel
// tests start, so its subtests are the first to get browser slots and the
// biggest piece of work does not come last.
func startEnv(t *testing.T) *env {
	t.Helper()
	needBrowser(t)
	release := takeSlot(t)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, start: time.Now(), release: release}
	e.db = testdb.New(t)
	e.store = testutil.NewStores(e.db)

	e.logs = &serverLog{t: t}
	logger := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv, err := web.New(webConfig(), e.db, logger)
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	e.srv = srv
	ts := httptest.NewServer(srv)
	e.url = ts.URL
	t.Cleanup(func() {
		ts.Close()
		e.logs.finish()
	})
	e.trace("server up")
	return e
}

// webConfig is the server's configuration in the browser tests.
func webConfig() config.Web {
	return config.Web{
		SessionKeys:                [][]byte{[]byte("fieldbrief-e2e-session-key-0123456789abcdef")},
		SecureCookies:              false, // plain http on 127.0.0.1
		IdleTimeout:                time.Hour,
		AbsoluteTimeout:            12 * time.Hour,
		MaxLoginFailuresPerAccount: 100,
		MaxLoginFailuresPerClient:  1000,
		// Guards, not measures of speed, as in internal/web's tests: with
		// production's bounds (a slot within 50 ms, a pooled connection within 2 s, locks within 4 s, a
		// request's database work within 12 s) a page of a loaded machine
		// could answer 503, and the browser step waiting for its text would
		// fail on the machine's luck. The bounds are tested in internal/web.
		QueueWait:        time.Minute,
		PoolWait:         time.Minute,
		LockTimeout:      time.Minute,
		StatementTimeout: time.Minute,
		RequestTimeout:   2 * time.Minute,
	}
}

// seed creates the standard fixture: org A "acme" (Europe/Berlin 07:00,
// weekdays) with an admin and a member, org B "globex" with its admin, and a
// staff member of no org.
func (e *env) seed() {
	e.t.Helper()
	var err error
	e.orgA, err = e.store.Tenants.CreateOrg(e.ctx, "acme", "Acme Field Services", time.Time{})
	e.must("create org A", err)
	e.orgB, err = e.store.Tenants.CreateOrg(e.ctx, "globex", "Globex Plumbing", time.Time{})
	e.must("create org B", err)
	e.addUser(adminA, false, e.orgA, tenants.RoleAdmin)
	e.addUser(memberA, false, e.orgA, tenants.RoleMember)
	e.addUser(adminB, false, e.orgB, tenants.RoleAdmin)
	e.addUser(staff, true, tenants.Org{}, "")
	_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, e.orgA.ID, []byte(configA), tenants.AnyVersion)
	e.must("save config of org A", err)
	_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, e.orgB.ID, []byte(configB), tenants.AnyVersion)
	e.must("save config of org B", err)
	e.trace("seeded")
}

func (e *env) addUser(a account, isStaff bool, org tenants.Org, role tenants.Role) {
	e.t.Helper()
	u, err := e.store.Accounts.UpsertUser(e.ctx, a.Email, a.Password, isStaff)
	e.must("create user "+a.Email, err)
	if org.ID != 0 {
		e.must("add "+a.Email+" to "+org.Slug, e.store.Tenants.AddMember(e.ctx, org.ID, u.ID, role))
	}
}

// setClock runs the server's clock from at onwards (it ticks with the real
// one) and returns at: for a page about "today" whose content depends on
// the hour. Call it before the first request.
func (e *env) setClock(at time.Time) time.Time {
	e.t.Helper()
	began := time.Now()
	e.srv.UseClock(func() time.Time { return at.Add(time.Since(began)) })
	return at
}

func (e *env) must(what string, err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
}

// generateBriefing makes today's briefing of an org the way an admin's
// "generate now" does, and runs a real worker until it is generated.
func (e *env) generateBriefing(org tenants.Org) briefing.Briefing {
	e.t.Helper()
	store, err := briefing.NewStore(e.db)
	e.must("briefing store", err)
	b, err := store.GenerateNow(e.ctx, org.ID, time.Now(), audit.System)
	e.must("generate briefing for "+org.Slug, err)
	w := &worker.Worker{DB: e.db, Log: slog.New(slog.NewTextHandler(e.logs, nil))}
	e.must("start the worker", w.Start(e.ctx))
	until := time.Now().Add(stepTimeout)
	for b.Status == briefing.StatusPending && time.Now().Before(until) {
		time.Sleep(20 * time.Millisecond)
		b, err = store.Get(e.ctx, org.ID, b.Date)
		e.must("read the generated briefing", err)
	}
	e.must("stop the worker", w.Stop(e.ctx))
	if b.Status != briefing.StatusReady {
		e.t.Fatalf("briefing %s of %s is %s after its job ran: %s", b.Date, org.Slug, b.Status, b.LastError)
	}
	return b
}

// serverLog collects the server's log lines: errors go to the test log at
// once, everything is printed when the test fails.
type serverLog struct {
	t    *testing.T
	mu   sync.Mutex
	buf  bytes.Buffer
	done bool
}

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.done && bytes.Contains(p, []byte("level=ERROR")) {
		l.t.Logf("server: %s", bytes.TrimSpace(p))
	}
	return len(p), nil
}

func (l *serverLog) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	if l.t.Failed() {
		lines := strings.Split(strings.TrimSpace(l.buf.String()), "\n")
		if len(lines) > 80 {
			lines = lines[len(lines)-80:]
		}
		l.t.Logf("server log (last %d lines):\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// session is one person's browser: its own browser context (cookies) and tab.
type session struct {
	e    *env
	t    *testing.T
	name string
	tab  context.Context // the tab: every step runs on a context of its own from it (step)

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// newSession opens a tab in a fresh browser context, so sessions of one test
// do not share cookies.
func (e *env) newSession(name string) *session {
	e.t.Helper()
	parent, cancelParent := context.WithCancel(browser.ctx)
	tab, cancelTab := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	s := &session{e: e, t: e.t, name: name, tab: tab}
	// The first run on a tab opens it and binds it to the context it is
	// given, so it runs on tab itself, not on a step's context (whose end
	// would close the tab).
	if err := chromedp.Do(tab); err != nil {
		cancelTab()
		cancelParent()
		e.t.Fatalf("%s: open a browser tab: %v", name, err)
	}
	e.trace("%s: tab open", name)
	consoleDone := make(chan struct{})
	messages := chromedp.Console(tab)
	go func() {
		defer close(consoleDone)
		for m, err := range messages {
			if err != nil {
				return
			}
			s.mu.Lock()
			s.console = append(s.console, m)
			s.mu.Unlock()
		}
	}()
	e.t.Cleanup(func() {
		if e.t.Failed() {
			s.captureFailure()
		}
		cancelTab()
		cancelParent()
		select {
		case <-consoleDone:
		case <-time.After(5 * time.Second):
		}
		s.checkConsole()
	})
	return s
}

// checkConsole fails the test on an uncaught script error or a resource the
// Content-Security-Policy blocked: either means a page is broken for users.
// Failed requests (a 403 page, a 422 form) are expected and ignored.
func (s *session) checkConsole() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.console {
		switch {
		case m.Type == chromedp.ConsoleException,
			strings.Contains(m.Text, "Content Security Policy"),
			strings.Contains(m.Text, "Refused to"):
			s.t.Errorf("%s: browser console %s at %s:%d: %s", s.name, m.Type, m.URL, m.Line+1, m.Text)
		case m.Type == chromedp.ConsoleError && m.Source != "network":
			s.t.Logf("%s: browser console error at %s:%d: %s", s.name, m.URL, m.Line+1, m.Text)
		}
	}
}

// captureFailure saves the page a failed test left each session on.
func (s *session) captureFailure() {
	ctx, cancel := context.WithTimeout(s.tab, 5*time.Second)
	defer cancel()
	url, _ := chromedp.Run(ctx, chromedp.Location())
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if len(text) > 3000 {
		text = text[:3000] + "…"
	}
	s.t.Logf("%s: page at failure: %s\n%s", s.name, url, text)
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		s.save("FAIL-"+strings.ReplaceAll(s.t.Name(), "/", "_")+"-"+s.name, png)
	}
}

// step is the context of one browser step: the tab's, ending stepTimeout
// from now.
func (s *session) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.tab, stepTimeout)
}

// do runs actions; any error ends the test.
func (s *session) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := s.step()
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		s.t.Fatalf("%s: %s: %v", s.name, what, err)
	}
	s.e.trace("%s: %s", s.name, what)
}

// open navigates to a path of the server and returns the HTTP status of the
// document (after redirects).
func (s *session) open(path string) int {
	s.t.Helper()
	ctx, cancel := s.step()
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(s.e.url+path))
	if err != nil {
		s.t.Fatalf("%s: open %s: %v", s.name, path, err)
	}
	s.e.trace("%s: opened %s: %d", s.name, path, resp.Status)
	return int(resp.Status)
}

// submit clicks a button that submits a form and waits for the next page;
// it returns that page's HTTP status.
func (s *session) submit(button string) int {
	s.t.Helper()
	return s.clickThrough("submit with "+button, button)
}

// follow clicks a link and waits for the page it opens; it returns that
// page's HTTP status. Waiting for its location is not enough: the location
// changes when the document starts to arrive, and a big page is parsed in
// pieces, so an element read then may be half built.
func (s *session) follow(link string) int {
	s.t.Helper()
	return s.clickThrough("follow "+link, link)
}

// clickThrough clicks sel and waits until the page it leads to has loaded
// (its load event), and returns that page's HTTP status.
func (s *session) clickThrough(what, sel string) int {
	s.t.Helper()
	ctx, cancel := s.step()
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		s.t.Fatalf("%s: %s: %v", s.name, what, err)
	}
	s.e.trace("%s: %s: %d", s.name, what, resp.Status)
	return int(resp.Status)
}

// login signs in through the login form and waits until the app lets the
// person in.
func (s *session) login(a account) {
	s.t.Helper()
	s.open("/login")
	s.do("fill in the login form", enterText(`input[name="email"]`, a.Email), enterText(`input[name="password"]`, a.Password))
	s.submit(`form:has(input[name="password"]) [type="submit"]`)
	if p := s.path(); p == "/login" {
		s.t.Fatalf("%s: still on /login after signing in as %s: %q", s.name, a.Email, s.text("main"))
	}
}

// enterText focuses the field and enters text the way an input method or a
// password manager does (Input.insertText: real input events, one round
// trip). Sign-ins use it: chromedp.SendKeys costs three round trips a
// character, seconds per sign-in on a busy machine; typeInto keeps
// key-by-key typing where the keys themselves are under test.
func enterText(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sel))); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](s *session, expr string) (T, error) {
	ctx, cancel := s.step()
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// path is the page's location.pathname.
func (s *session) path() string {
	s.t.Helper()
	p, err := eval[string](s, `location.pathname`)
	if err != nil {
		s.t.Fatalf("%s: read location: %v", s.name, err)
	}
	return p
}

// waitJS waits until a JavaScript expression is truthy. It survives
// navigations and htmx swaps, which the page-side Poll does not.
func (s *session) waitJS(what, expr string) {
	s.t.Helper()
	var lastErr error
	until := time.Now().Add(stepTimeout)
	for {
		ok, err := eval[bool](s, `!!(`+expr+`)`)
		if err == nil && ok {
			s.e.trace("%s: %s", s.name, what)
			return
		}
		if err != nil {
			lastErr = err
		}
		if time.Now().After(until) {
			s.t.Fatalf("%s: waited %s for %s (last error: %v)", s.name, stepTimeout, what, lastErr)
		}
		time.Sleep(pollEvery)
	}
}

// innerText is a JS expression for the visible text of the first element
// matching a CSS selector, or null.
func innerText(sel string) string {
	return `(() => { const el = document.querySelector(` + jsString(sel) + `); return el ? el.innerText : null })()`
}

// waitText waits until the first element matching sel exists and its text
// holds every one of want, and returns the text.
func (s *session) waitText(sel string, want ...string) string {
	s.t.Helper()
	txt := s.waitTextWhere(sel, func(txt string) bool { return containsAll(txt, want...) }, fmt.Sprintf("say %q", want))
	s.e.trace("%s: %s says %q", s.name, sel, want)
	return txt
}

// waitTextChange waits until the text of sel differs from before and holds
// every one of want.
func (s *session) waitTextChange(sel, before string, want ...string) string {
	s.t.Helper()
	return s.waitTextWhere(sel, func(txt string) bool { return txt != before && containsAll(txt, want...) },
		fmt.Sprintf("change and say %q", want))
}

// waitTextWhere waits until the first element matching sel exists and ok
// holds for its text, and returns the text. what completes "timed out
// waiting for sel to …".
func (s *session) waitTextWhere(sel string, ok func(string) bool, what string) string {
	s.t.Helper()
	var last string
	until := time.Now().Add(stepTimeout)
	for {
		txt, err := eval[*string](s, innerText(sel))
		if err == nil && txt != nil {
			last = *txt
			if ok(last) {
				return last
			}
		}
		if time.Now().After(until) {
			if txt == nil && err == nil {
				s.t.Fatalf("%s: waited %s for %s on %s: no such element", s.name, stepTimeout, sel, s.pathOr())
			}
			s.t.Fatalf("%s: waited %s for %s to %s; it says:\n%s", s.name, stepTimeout, sel, what, last)
		}
		time.Sleep(pollEvery)
	}
}

func (s *session) pathOr() string {
	ctx, cancel := context.WithTimeout(s.tab, 2*time.Second)
	defer cancel()
	u, _ := chromedp.Run(ctx, chromedp.Location())
	return u
}

// text is the visible text of the first element matching sel, once it exists.
func (s *session) text(sel string) string { s.t.Helper(); return s.waitText(sel) }

// exists reports whether an element matches sel right now.
func (s *session) exists(sel string) bool {
	s.t.Helper()
	ok, err := eval[bool](s, `document.querySelector(`+jsString(sel)+`) !== null`)
	if err != nil {
		s.t.Fatalf("%s: query %s: %v", s.name, sel, err)
	}
	return ok
}

// typeInto replaces the text of an input the way a person does: select what
// is there and type over it, key by key, so keyup/input handlers run.
func (s *session) typeInto(sel, text string) {
	s.t.Helper()
	s.do("select the text of "+sel,
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](`(() => { const el = document.querySelector(`+jsString(sel)+`); el.focus(); el.select(); })()`),
	)
	if text == "" {
		s.do("clear "+sel, chromedp.SendKeys(chromedp.CSS(sel), "\b"))
		return
	}
	s.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// setValue sets a control's value and fires input and change, as a person
// picking a value in a native widget (time, select) does.
func (s *session) setValue(sel, value string) {
	s.t.Helper()
	s.do("set "+sel+" to "+value,
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](`(() => {
			const el = document.querySelector(`+jsString(sel)+`);
			el.focus();
			el.value = `+jsString(value)+`;
			el.dispatchEvent(new Event("input", {bubbles: true}));
			el.dispatchEvent(new Event("change", {bubbles: true}));
		})()`),
	)
}

// click clicks the first visible element matching sel.
func (s *session) click(sel string) {
	s.t.Helper()
	s.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// screenshot saves a full-page PNG as testdata/screenshots/<name>.png,
// when screenshots are asked for.
func (s *session) screenshot(name string) {
	s.t.Helper()
	if !screenshots {
		return
	}
	ctx, cancel := s.step()
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Fatalf("%s: screenshot %s: %v", s.name, name, err)
	}
	s.save(name, png)
}

func (s *session) save(name string, png []byte) {
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		s.t.Errorf("screenshot dir: %v", err)
		return
	}
	path := filepath.Join(screenshotDir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Errorf("save screenshot: %v", err)
		return
	}
	s.t.Logf("%s: screenshot %s", s.name, path)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func containsAll(s string, want ...string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
