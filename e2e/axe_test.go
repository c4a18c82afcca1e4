package e2e

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/unsubscribe"
	"fieldbrief/internal/web"
	"fieldbrief/internal/webhooks"
)

// axeSource is axe-core, vendored for this test only (testdata/axe/README.md).
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// axePage is one page the accessibility sweep visits: who looks at it, its
// path (placeholders in braces are filled from the fixture, see
// axeFixture.fill) and the HTTP status it answers with. Adding a page to
// the sweep is one line in axePages.
type axePage struct {
	role   string // anon, admin, member, dispatcher, staff
	path   string
	status int
}

// axePages is every page reachable today, as the person who uses it.
var axePages = []axePage{
	{"anon", "/login", 200},
	{"anon", "/no/such/page", 404},
	{"anon", "/password/forgot", 200},
	{"anon", "/password/reset/no-such-token", 410},
	{"anon", "/invites/no-such-token", 410},
	{"anon", "/t/{daylink}", 200}, // a technician's day, on their phone
	{"anon", "/t/no-such-link", 404},
	{"anon", "/unsubscribe?t={unsubscribe}", 200},
	{"anon", "/unsubscribe?t=forged", 422},
	{"admin", "/", 200},
	{"admin", "/orgs/{org}", 200},
	{"admin", "/orgs/{org}/setup", 200}, // the first setup's checklist
	{"admin", "/orgs/{org}/briefings", 200},
	{"admin", "/orgs/{org}/briefings/{today}", 200}, // with its deliveries
	{"admin", "/orgs/{org}/briefings/{failed}", 200},
	{"admin", "/orgs/{org}/settings/fieldforce", 200},
	{"admin", "/orgs/{org}/settings/api-tokens", 200},
	{"admin", "/orgs/{org}/settings/webhooks", 200},
	{"admin", "/orgs/{org}/settings/webhooks/{endpoint}", 200},     // with its delivery log
	{"admin", "/orgs/{org}/settings/fieldforce/tests/{test}", 200}, // a test email kept in the outbox
	{"admin", "/orgs/{org}/technicians", 200},
	{"admin", "/orgs/{org}/technicians/{technician}", 200},
	{"admin", "/orgs/{org}/jobs", 200},
	{"admin", "/orgs/{org}/jobs/{job}", 200},
	{"admin", "/orgs/{org}/jobs?q=ave", 200}, // the search across days, its results table (DSP)
	{"admin", "/orgs/{org}/board", 200},
	{"admin", "/orgs/{org}/import", 200},
	{"admin", "/orgs/{org}/import/jobs/{upload}", 200}, // a file's preview
	{"admin", "/orgs/{org}/members", 200},
	{"admin", "/profile", 200},
	{"admin", "/orgs/{org}/no-such-page", 404},
	{"member", "/orgs/{org}/briefings", 200},
	{"member", "/orgs/{org}/briefings/{today}", 200},
	{"member", "/orgs/{org}/board", 200},
	{"member", "/orgs/{org}/jobs", 200},
	{"member", "/orgs/{org}/members", 200},
	{"member", "/orgs/{org}/settings/fieldforce", 403},
	{"member", "/orgs/not-my-org/briefings", 404},
	{"dispatcher", "/orgs/{org}/board", 200},
	{"dispatcher", "/orgs/{org}/jobs?q=ave", 200},
	{"dispatcher", "/orgs/{org}/import", 200},
	{"dispatcher", "/orgs/{org}/members", 200},
	{"dispatcher", "/orgs/{org}/settings/fieldforce", 403},
	{"staff", "/staff", 200},
	{"staff", "/staff/flags", 200},
	{"staff", "/staff/orgs/new", 200},
	{"staff", "/staff/audit", 200},
	{"staff", "/staff/audit?q=no-entry-says-this", 200},
	{"staff", "/staff/outbox", 200},
	{"staff", "/staff/outbox/{outbox}", 200},
}

// notPages are the GET routes the sweep does not open, each with why: what
// they answer is not a page a person reads in the browser. Every other GET
// route must have a row in axePages (TestAccessibilitySweepCoversEveryPage).
var notPages = map[string]string{
	"/healthz":            "JSON for load balancers",
	"/readyz":             "JSON for load balancers",
	"/metrics":            "Prometheus text",
	"/static":             "files",
	"/static/favicon.svg": "an icon",
	"/static/favicon.png": "an icon",
	"/orgs/:slug/settings/fieldforce/tests/:id/html": "a test email's HTML, shown in the test page's sandboxed frame (checked with that page)",
	"/staff/outbox/:id/html":                         "an email's HTML, shown in the outbox page's sandboxed frame (checked with that page)",
	"/orgs/:slug/settings/fieldforce/preview":        "an htmx fragment of the settings page (checked with that page, after it loads)",
	"/orgs/:slug/settings/fieldforce/json/preview":   "an htmx fragment of the settings page",
	"/orgs/:slug/settings/fieldforce/zones":          "the zone picker's htmx options (checked in the picker's tests)",
	"/orgs/:slug/import/:kind/template.csv":          "a CSV file",
	"/staff/audit/export.csv":                        "a CSV file",
}

// pagePattern turns a route's path into a pattern its sweep rows match:
// each :param is one segment, filled from the fixture.
func pagePattern(route string) *regexp.Regexp {
	parts := strings.Split(route, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = `[^/?]+`
		} else {
			parts[i] = regexp.QuoteMeta(p)
		}
	}
	return regexp.MustCompile(`^` + strings.Join(parts, "/") + `(\?.*)?$`)
}

// The sweep's page list is checked against the routes, as the access
// matrix is: a GET route that serves a page and has no row in axePages
// fails here, so a new page is checked for accessibility from its first
// day; so does a row no route answers, or an excuse for a route that is
// gone.
func TestAccessibilitySweepCoversEveryPage(t *testing.T) {
	srv, err := web.New(webConfig(), testdb.New(t), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	gets := map[string]bool{}
	for _, r := range srv.Routes() {
		if r.Method == "GET" && !strings.HasPrefix(r.Path, "/api/") && !strings.HasSuffix(r.Path, "*") {
			gets[r.Path] = true
		}
	}
	var missing []string
	for route := range gets {
		if _, ok := notPages[route]; ok {
			continue
		}
		re := pagePattern(route)
		found := false
		for _, p := range axePages {
			// A 404 row is about a path no route has; a 410 (an expired
			// link's page) is the route's page all the same.
			if p.status != 404 && re.MatchString(p.path) {
				found = true
			}
		}
		if !found {
			missing = append(missing, route)
		}
	}
	for route := range notPages {
		if !gets[route] {
			t.Errorf("notPages names %s, which no GET route serves: drop its line", route)
		}
	}
	sort.Strings(missing)
	for _, route := range missing {
		t.Errorf("GET %s serves a page and the accessibility sweep never opens it: add a row to axePages (or, if it is no page, a line to notPages with why)", route)
	}
	if len(gets) < 30 {
		t.Fatalf("only %d GET routes: the server's route list is not what this test reads", len(gets))
	}
}

// axeWidths are the viewport widths at which no page may scroll sideways
// (wide tables scroll inside their own region instead).
var axeWidths = []int64{1280, 860, 641, 390}

// axeFixture is what the placeholders of axePages stand for.
type axeFixture map[string]string

func (f axeFixture) fill(path string) string {
	for k, v := range f {
		path = strings.ReplaceAll(path, "{"+k+"}", v)
	}
	return path
}

// Every page as admin, member, staff and signed out: axe-core finds no
// serious or critical violation, and at 1280, 860, 641 and 390 px the page
// itself never scrolls sideways. The pages are checked in parts, in
// parallel, on one demo database.
func TestAccessibilityAndWidthOfEveryPage(t *testing.T) {
	e := startEnv(t) // not parallel: its parts go first
	sum, org, today := e.seedDemo()
	admin, _, staffAcc, _ := demoAccounts(t, sum)
	member := account{"member-axe@demo.test", password}
	e.addUser(member, false, org, tenants.RoleMember)
	dispatcher := account{"dispatcher-axe@demo.test", password}
	e.addUser(dispatcher, false, org, tenants.RoleDispatcher)
	accounts := map[string]account{"admin": admin, "member": member, "dispatcher": dispatcher, "staff": staffAcc}

	fx := axeFixture{"org": org.Slug, "today": today.Date.String(), "failed": today.Date.AddDays(-1).String()}
	for key, q := range map[string]string{
		"technician": `SELECT id::text FROM technicians WHERE org_id = $1 ORDER BY id LIMIT 1`,
		"job":        `SELECT id::text FROM jobs WHERE org_id = $1 ORDER BY id LIMIT 1`,
	} {
		var v string
		e.must("find a "+key, e.db.QueryRow(e.ctx, q, org.ID).Scan(&v))
		fx[key] = v
	}
	var outbox int64
	e.must("keep a message in the outbox", e.db.QueryRow(e.ctx, `
		INSERT INTO mail_outbox (org_id, message_id, mail_from, rcpt, subject, text_body, html_body)
		VALUES ($1, 'axe-1@fieldbrief.test', 'brief@fieldbrief.test', 'ops@example.test', 'Your briefing', 'Hello', '<p>Hello</p>')
		RETURNING id`, org.ID).Scan(&outbox))
	fx["outbox"] = strconv.FormatInt(outbox, 10)
	var test int64
	e.must("record a test email", e.db.QueryRow(e.ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, due_at)
		SELECT org_id, id, revision, 'email', 'test', 'admin@example.test', 'msg_test_axe', 'sent', now()
		  FROM ff_briefings WHERE org_id = $1 ORDER BY briefing_date DESC LIMIT 1
		RETURNING id`, org.ID).Scan(&test))
	testMessageID, err := transport.MessageIDFor("msg_test_axe", transport.DefaultMailFrom)
	e.must("the test email's Message-ID", err)
	_, err = e.db.Exec(e.ctx, `
		INSERT INTO mail_outbox (org_id, message_id, mail_from, rcpt, subject, text_body, html_body)
		VALUES ($1, $2, 'brief@fieldbrief.test', 'admin@example.test', '[Test] Your briefing', 'Hello', '<p>Hello</p>')`,
		org.ID, testMessageID)
	e.must("keep the test email in the outbox", err)
	fx["test"] = strconv.FormatInt(test, 10)

	var adminID int64
	e.must("find the admin", e.db.QueryRow(e.ctx, `SELECT id FROM users WHERE lower(email) = lower($1)`, admin.Email).Scan(&adminID))
	up, err := (&fieldimport.Store{DB: e.db}).SaveUpload(e.ctx, org.ID, adminID, fieldimport.Jobs, "jobs.csv",
		// A column no field takes: the preview shows its "Import as" select.
		[]byte("customer,address,date,arrival_from,arrival_to,notes,Memo\nCity Library,1 Main St,"+today.Date.String()+",09:00,11:00,Boiler,x\n"), time.Now())
	e.must("upload a jobs file", err)
	fx["upload"] = up.ID
	var techID int64
	var techEmail, zone string
	e.must("find a technician with an email", e.db.QueryRow(e.ctx, `
		SELECT t.id, t.email, c.config_json->'briefing'->>'timezone' FROM technicians t
		  JOIN org_module_configs c ON c.org_id = t.org_id AND c.module = 'fieldforce'
		 WHERE t.org_id = $1 AND t.active AND t.email <> '' ORDER BY t.created_at LIMIT 1`, org.ID).Scan(&techID, &techEmail, &zone))
	loc, err := time.LoadLocation(zone)
	e.must("load the org's zone", err)
	link, err := daylinks.Issue(e.ctx, e.db, org.ID, techID, today.Date, loc, time.Now(), techEmail)
	e.must("issue a day link", err)
	fx["daylink"] = link
	unsub, err := (&unsubscribe.Store{DB: e.db}).URL(e.ctx, "http://fieldbrief.test", org.ID, "ops@example.test")
	e.must("sign an unsubscribe link", err)
	u, err := url.Parse(unsub)
	e.must("read the unsubscribe link", err)
	fx["unsubscribe"] = url.QueryEscape(u.Query().Get("t"))

	ep, err := (&webhooks.Store{DB: e.db}).Create(e.ctx, audit.System, org.ID, webhooks.EndpointInput{
		URL: "https://hooks.example.test/fieldbrief", Description: "CRM sync", Events: webhooks.EventTypes})
	e.must("add a webhook endpoint", err)
	fx["endpoint"] = strconv.FormatInt(ep.ID, 10)

	only := os.Getenv("AXE_ONLY") // a substring of the paths to check, while fixing a page
	var pages []axePage
	for _, p := range axePages {
		if strings.Contains(fx.fill(p.path), only) {
			pages = append(pages, p)
		}
	}
	if len(pages) == 0 {
		t.Fatalf("AXE_ONLY=%q matches no page", only)
	}
	// One part per browser slot, of consecutive pages (so most parts sign in
	// once): parts 1..n of the list, as even as they come.
	n := min(maxParallel, len(pages))
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("pages-%d-%d", i*len(pages)/n+1, (i+1)*len(pages)/n)
	}
	// A part's pages, each with axe and 4 widths, and its sign-ins.
	e.inParallel(names, func(e *env, i int) {
		sessions := map[string]*session{}
		for _, p := range pages[i*len(pages)/n : (i+1)*len(pages)/n] {
			s, ok := sessions[p.role]
			if !ok { // signed in on first use
				s = e.newSession(p.role)
				if a, ok := accounts[p.role]; ok {
					s.login(a)
				}
				sessions[p.role] = s
			}
			s.checkPage(p, fx.fill(p.path))
		}
	})
}

// checkPage opens a page of the sweep and checks it: its status, axe-core
// at desktop width, then no sideways scrolling at each of axeWidths.
func (s *session) checkPage(p axePage, path string) {
	s.t.Helper()
	s.do("desktop viewport", chromedp.EmulateViewport(1280, 900))
	if status := s.open(path); status != p.status {
		s.t.Errorf("%s %s: status %d, want %d", p.role, path, status, p.status)
		return
	}
	s.settle()
	if v := s.axe(); len(v) > 0 {
		s.t.Errorf("%s %s: axe-core found %d serious or critical violation(s):\n%s", p.role, path, len(v), strings.Join(v, "\n"))
	}
	for _, w := range axeWidths {
		if over := s.overflow(w); over != "" {
			s.t.Errorf("%s %s at %d px: the page scrolls sideways: %s", p.role, path, w, over)
		}
	}
}

// settle waits until the page has loaded and no htmx request is running
// (the settings page loads its preview after the page).
func (s *session) settle() {
	s.t.Helper()
	s.waitJS("the page to settle", `document.readyState === "complete" && !document.querySelector(".htmx-request")`)
}

// axe runs axe-core on the page and returns its serious and critical
// violations, one readable line each: rule, impact, what it means, where
// (up to three targets) and axe's summary of how to fix the first.
func (s *session) axe() []string {
	s.t.Helper()
	has, err := eval[bool](s, `typeof window.axe === "object"`)
	if err != nil {
		s.t.Fatalf("%s: look for axe: %v", s.name, err)
	}
	if !has {
		if _, err := eval[any](s, axeSource+"\n;true"); err != nil {
			s.t.Fatalf("%s: inject axe-core: %v", s.name, err)
		}
		s.e.trace("%s: axe injected", s.name)
	}
	ctx, cancel := s.step()
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {
		runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]},
		resultTypes: ["violations"]
	}).then(r => JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
		id: v.id, impact: v.impact, help: v.help,
		targets: v.nodes.map(n => n.target.join(" ")),
		summary: v.nodes.length ? v.nodes[0].failureSummary : ""
	}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		s.t.Fatalf("%s: run axe-core: %v", s.name, err)
	}
	var found []struct {
		ID, Impact, Help, Summary string
		Targets                   []string
	}
	if err := json.Unmarshal([]byte(raw), &found); err != nil {
		s.t.Fatalf("%s: read axe-core's answer: %v", s.name, err)
	}
	var out []string
	for _, v := range found {
		targets := v.Targets
		more := ""
		if len(targets) > 3 {
			more = fmt.Sprintf(" and %d more", len(targets)-3)
			targets = targets[:3]
		}
		out = append(out, fmt.Sprintf("  - %s (%s): %s\n    at %s%s\n    %s", v.ID, v.Impact, v.Help,
			strings.Join(targets, ", "), more, strings.ReplaceAll(strings.TrimSpace(v.Summary), "\n", "\n    ")))
	}
	return out
}

// overflow sets the viewport to width px and reports whether the page is
// wider than the viewport (document.documentElement.scrollWidth >
// innerWidth): "" when not, else the widths and the elements that stick
// out, outside any element that scrolls sideways on its own.
func (s *session) overflow(width int64) string {
	s.t.Helper()
	s.do(fmt.Sprintf("viewport %d px", width), chromedp.EmulateViewport(width, 900))
	out, err := eval[string](s, `(() => {
		const de = document.documentElement;
		if (de.scrollWidth <= innerWidth) return "";
		// Inside an element that scrolls (or clips) on its own, unless placed
		// absolutely: then its containing block may be outside that element.
		const scrolls = el => { if (/absolute|fixed/.test(getComputedStyle(el).position)) return false;
			for (let p = el.parentElement; p; p = p.parentElement) {
			const o = getComputedStyle(p).overflowX; if (o === "auto" || o === "scroll" || o === "hidden") return true; } return false; };
		const wide = [...document.querySelectorAll("body *")]
			.filter(el => el.getBoundingClientRect().right > innerWidth + 1 && !scrolls(el))
			.slice(0, 5)
			.map(el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "") +
				" (right edge " + Math.round(el.getBoundingClientRect().right) + ")");
		return "scrollWidth " + de.scrollWidth + " > innerWidth " + innerWidth + "; sticking out: " + (wide.join(", ") || "?");
	})()`)
	if err != nil {
		s.t.Fatalf("%s: measure the page at %d px: %v", s.name, width, err)
	}
	return out
}
