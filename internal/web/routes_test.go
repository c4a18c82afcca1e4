package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/config"
	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/transport"
)

// access is who may use a route: its access checks in routes.go.
type access string

const (
	public    access = "public"
	signedIn  access = "signed-in"
	member    access = "member"
	editor    access = "editor" // the org's admins and dispatchers: s.requireFieldEditor
	admin     access = "admin"  // the org's admins only: s.requireAdmin
	staffOnly access = "staff"
	apiBearer access = "api" // a bearer token only: no cookie ever gets in
)

// routeTable is every route routes.go registers and who may use it: the
// access matrix's rows (its columns are the visitors of TestRouteMatrix).
// A route registered and not listed here fails the matrix, and so does a
// row no route answers to: adding a route means deciding here who gets in.
// Under /orgs/:slug members read; admins and dispatchers change the field
// data (technicians, jobs, the board's assign and status, imports); only
// admins see and change settings, the schedule, delivery, API tokens and
// members (docs/accounts.md, "Roles").
var routeTable = []struct {
	method, path string
	access       access
}{
	{"GET", "/healthz", public},
	{"GET", "/readyz", public},
	{"GET", "/metrics", public},
	{"GET", "/static/favicon.svg", public},
	{"GET", "/static/favicon.png", public},
	{"GET", "/static", public},
	{"GET", "/login", public},
	{"POST", "/login", public},
	{"POST", "/logout", public},
	{"GET", "/password/forgot", public},
	{"POST", "/password/forgot", public},
	{"GET", "/password/reset/:token", public},
	{"POST", "/password/reset/:token", public},
	{"GET", "/invites/:token", public},
	{"POST", "/invites/:token", public},
	{"GET", "/unsubscribe", public},
	{"POST", "/unsubscribe", public},
	{"GET", "/t/:token", public},
	{"POST", "/t/:token/day-sheets", public},
	{"GET", "/", signedIn},
	{"GET", "/profile", signedIn},
	{"POST", "/profile", signedIn},
	{"POST", "/profile/password", signedIn},
	{"POST", "/profile/language", signedIn},
	{"GET", "/orgs/:slug", member},
	{"GET", "/orgs/:slug/setup", admin},
	{"GET", "/orgs/:slug/briefings", member},
	{"GET", "/orgs/:slug/members", member},
	{"POST", "/orgs/:slug/members/invite", admin},
	{"POST", "/orgs/:slug/members/:user/role", admin},
	{"POST", "/orgs/:slug/members/:user/remove", admin},
	{"POST", "/orgs/:slug/invites/:invite/resend", admin},
	{"POST", "/orgs/:slug/invites/:invite/revoke", admin},
	{"GET", "/orgs/:slug/briefings/:date", member},
	{"POST", "/orgs/:slug/briefings/generate", admin},
	{"POST", "/orgs/:slug/briefings/:date/deliveries/:id/resend", admin},
	{"GET", "/orgs/:slug/board", member},
	{"GET", "/orgs/:slug/technicians", member},
	{"POST", "/orgs/:slug/technicians", editor},
	{"GET", "/orgs/:slug/technicians/:id", member},
	{"POST", "/orgs/:slug/technicians/:id", editor},
	{"POST", "/orgs/:slug/technicians/:id/active", editor},
	{"POST", "/orgs/:slug/technicians/:id/revoke-links", admin},
	{"POST", "/orgs/:slug/technicians/:id/day-sheets", admin},
	{"GET", "/orgs/:slug/jobs", member},
	{"POST", "/orgs/:slug/jobs", editor},
	{"GET", "/orgs/:slug/jobs/:id", member},
	{"POST", "/orgs/:slug/jobs/:id", editor},
	{"POST", "/orgs/:slug/jobs/:id/assign", editor},
	{"POST", "/orgs/:slug/jobs/:id/status", editor},
	{"POST", "/orgs/:slug/jobs/:id/move", editor},
	{"POST", "/orgs/:slug/jobs/:id/delete", editor},
	{"GET", "/orgs/:slug/settings/fieldforce", admin},
	{"POST", "/orgs/:slug/settings/fieldforce", admin},
	{"POST", "/orgs/:slug/settings/fieldforce/json", admin},
	{"POST", "/orgs/:slug/settings/locale", admin},
	{"POST", "/orgs/:slug/settings/fieldforce/enabled", admin},
	{"POST", "/orgs/:slug/settings/fieldforce/webhook-secret/reveal", admin},
	{"POST", "/orgs/:slug/settings/fieldforce/webhook-secret/rotate", admin},
	{"POST", "/orgs/:slug/settings/fieldforce/test-email", admin},
	{"POST", "/orgs/:slug/settings/fieldforce/test-webhook", admin},
	{"GET", "/orgs/:slug/settings/fieldforce/tests/:id", admin},
	{"GET", "/orgs/:slug/settings/fieldforce/tests/:id/html", admin},
	{"GET", "/orgs/:slug/settings/fieldforce/preview", admin},
	{"GET", "/orgs/:slug/settings/fieldforce/json/preview", admin},
	{"GET", "/orgs/:slug/settings/fieldforce/zones", admin},
	{"GET", "/orgs/:slug/import", editor},
	{"GET", "/orgs/:slug/import/:kind/template.csv", editor},
	{"POST", "/orgs/:slug/import/:kind", editor},
	{"GET", "/orgs/:slug/import/:kind/:id", editor},
	{"POST", "/orgs/:slug/import/:kind/:id", editor},
	{"POST", "/orgs/:slug/import/:kind/:id/delimiter", editor},
	{"POST", "/orgs/:slug/import/:kind/:id/columns", editor},
	{"POST", "/orgs/:slug/import/:kind/:id/technicians", editor},
	{"GET", "/orgs/:slug/settings/api-tokens", admin},
	{"POST", "/orgs/:slug/settings/api-tokens", admin},
	{"POST", "/orgs/:slug/settings/api-tokens/:id/revoke", admin},
	{"GET", "/orgs/:slug/settings/webhooks", admin},
	{"POST", "/orgs/:slug/settings/webhooks", admin},
	{"GET", "/orgs/:slug/settings/webhooks/:id", admin},
	{"POST", "/orgs/:slug/settings/webhooks/:id", admin},
	{"POST", "/orgs/:slug/settings/webhooks/:id/delete", admin},
	{"POST", "/orgs/:slug/settings/webhooks/:id/secret", admin},
	{"POST", "/orgs/:slug/settings/webhooks/:id/rotate", admin},
	{"GET", "/api/v1/org", apiBearer},
	{"GET", "/api/v1/technicians/by-id/:id", apiBearer},
	{"PUT", "/api/v1/technicians/by-id/:id", apiBearer},
	{"PATCH", "/api/v1/technicians/by-id/:id", apiBearer},
	{"DELETE", "/api/v1/technicians/by-id/:id", apiBearer},
	{"GET", "/api/v1/jobs/by-id/:id", apiBearer},
	{"PUT", "/api/v1/jobs/by-id/:id", apiBearer},
	{"PATCH", "/api/v1/jobs/by-id/:id", apiBearer},
	{"DELETE", "/api/v1/jobs/by-id/:id", apiBearer},
	{"GET", "/api/v1/technicians", apiBearer},
	{"GET", "/api/v1/technicians/:ref", apiBearer},
	{"PUT", "/api/v1/technicians/:ref", apiBearer},
	{"PATCH", "/api/v1/technicians/:ref", apiBearer},
	{"DELETE", "/api/v1/technicians/:ref", apiBearer},
	{"GET", "/api/v1/jobs", apiBearer},
	{"GET", "/api/v1/jobs/:ref", apiBearer},
	{"PUT", "/api/v1/jobs/:ref", apiBearer},
	{"PATCH", "/api/v1/jobs/:ref", apiBearer},
	{"DELETE", "/api/v1/jobs/:ref", apiBearer},
	{"GET", "/api/v1/briefings/:date", apiBearer},
	{"GET", "/api/v1/openapi.json", public},
	{"GET", "/staff", staffOnly},
	{"GET", "/staff/flags", staffOnly},
	{"GET", "/staff/orgs/new", staffOnly},
	{"POST", "/staff/orgs", staffOnly},
	{"POST", "/staff/flags/:key", staffOnly},
	{"POST", "/staff/orgs/:slug/flags/:key", staffOnly},
	{"GET", "/staff/audit", staffOnly},
	{"GET", "/staff/audit/export.csv", staffOnly},
	{"GET", "/staff/outbox", staffOnly},
	{"GET", "/staff/outbox/:id", staffOnly},
	{"GET", "/staff/outbox/:id/html", staffOnly},
}

// routeAccess is the route's row in routeTable.
func routeAccess(method, path string) (access, bool) {
	for _, r := range routeTable {
		if r.method == method && r.path == path {
			return r.access, true
		}
	}
	return "", false
}

// TestRouteTableHasNoStaleRows: every row of routeTable is a registered
// route, so the table cannot claim a rule for a route that is gone.
func TestRouteTableHasNoStaleRows(t *testing.T) {
	t.Parallel()
	f := setup(t)
	registered := map[string]bool{}
	for _, r := range f.srv.echo.Routes() {
		registered[r.Method+" "+r.Path] = true
	}
	for _, r := range routeTable {
		require.True(t, registered[r.method+" "+r.path], "routeTable lists %s %s, which routes.go does not register", r.method, r.path)
	}
}

// signInTo is where a signed-out GET of path is sent: the sign-in form,
// which comes back to path (errors.go, loginFor).
func signInTo(path string) string { return "/login?next=" + url.QueryEscape(path) }

// isSignIn says a redirect goes to the sign-in form, with a way back or
// without (a POST's).
func isSignIn(location string) bool {
	return location == "/login" || strings.HasPrefix(location, "/login?next=%2F")
}

// outcome is what a request should get.
type outcome string

const (
	allowed    outcome = "allowed"
	toLogin    outcome = "303 /login"
	notFound   outcome = "404"
	forbidden  outcome = "403"
	apiRefused outcome = "401 JSON"
)

// expected is the rule table: who gets what, per group. Outsiders are
// members or admins of globex trying acme; staff are in no org (a
// read-only member's view of every org).
func expected(g access, who string) outcome {
	if g == public {
		return allowed
	}
	if g == apiBearer {
		return apiRefused // whoever's session cookie comes along
	}
	if who == "anonymous" {
		return toLogin
	}
	switch g {
	case signedIn:
		return allowed
	case staffOnly:
		if who == "staff" {
			return allowed
		}
		return forbidden
	case member:
		switch who {
		case "outsider member", "outsider admin":
			return notFound
		}
		return allowed // member, dispatcher, admin, and staff (read-only view of every org)
	case editor:
		switch who {
		case "outsider member", "outsider admin":
			return notFound
		case "admin", "dispatcher":
			return allowed
		}
		return forbidden // member, and staff who are not the org's admin
	case admin:
		switch who {
		case "outsider member", "outsider admin":
			return notFound
		case "admin":
			return allowed
		}
		return forbidden // member, dispatcher, and staff who are not the org's admin
	}
	panic("unknown group " + g)
}

// csrfExempt are the writes that go without checkCSRF: the one-click
// unsubscribe, which mail providers POST without any cookie or token of
// ours (RFC 8058; unsubscribe_test.go covers it), and a technician's
// request about their day sheets from their day page, whose link's token
// is the authority and which has no session (day_sheets_test.go).
func csrfExempt(method, path string) bool {
	return method == http.MethodPost && (path == "/unsubscribe" || path == "/t/:token/day-sheets")
}

// skipInMatrix are routes with their own tests: static files, probes,
// sign-in and sign-out (which would end the matrix's sessions).
func skipInMatrix(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics", "/login", "/logout":
		return true
	case "/orgs/:slug/members/:user/remove": // ends the person's sessions: members_test.go
		return true
	case "/orgs/:slug/settings/webhooks/:id/delete": // removes the endpoint the other routes use: webhook_endpoints_test.go
		return true
	case "/orgs/:slug/jobs/:id/delete": // removes the job the other routes use: field_test.go, TestJobDeletedFromItsPage
		return true
	case "/t/:token", "/t/:token/day-sheets": // public, its token the authority: daylink_test.go, day_sheets_test.go
		return true
	}
	return strings.HasPrefix(path, "/static")
}

const testDate = "2026-03-04"

// concrete fills a route pattern with plausible values.
func concrete(path string) string {
	return strings.NewReplacer("/tests/:id", "/tests/2", ":slug", "acme", ":date", testDate, ":key", "fieldforce.briefing", ":id", "1", ":kind", "jobs", ":ref", "T-1",
		":user", strconv.FormatInt(matrixMember, 10), ":invite", "1").Replace(path)
}

// plausibleForm holds a valid value for every field any form takes, so a
// request that gets through could really change something.
func plausibleForm(f *fixture) url.Values {
	return url.Values{
		"email":               {f.adminA.Email},
		"password":            {testPassword},
		"enabled":             {"false"},
		"reason":              {"route matrix"},
		"confirm":             {flagKey},
		"state":               {"off"},
		"timezone":            {"America/New_York"},
		"schedule_local_time": {"09:00"},
		"days":                {"mon", "tue"},
		"config_json":         {`{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"07:30","enabled":true}}`},
	}
}

// seedBriefings gives both orgs a briefing on testDate, so a member's GET
// of /briefings/:date finds one and a 404 can only mean "no access".
func seedBriefings(t *testing.T, f *fixture) {
	t.Helper()
	for _, org := range []int64{f.orgA.ID, f.orgB.ID} {
		_, err := f.db.Exec(context.Background(), `
			INSERT INTO ff_briefings (org_id, briefing_date, timezone, status) VALUES ($1, $2, 'UTC', 'pending')`, org, testDate)
		require.NoError(t, err)
	}
}

// seedDelivery gives acme's briefing on testDate a failed delivery, number
// 1, so an admin's re-send finds one and a 404 can only mean "no access".
func seedDelivery(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_deliveries (id, org_id, briefing_id, channel, audience, recipient, key, state, due_at)
		SELECT 1, org_id, id, 'email', 'dispatcher', 'ops@acme.test', 'msg_matrix', 'failed', now()
		  FROM ff_briefings WHERE org_id = $1 AND briefing_date = $2`, f.orgA.ID, testDate)
	require.NoError(t, err)
	pastSeeded(t, f, "ff_deliveries")
}

// pastSeeded moves table's id sequence past the ids the seeds chose, so
// a row the app inserts during the matrix never takes one of theirs.
func pastSeeded(t *testing.T, f *fixture, table string) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `SELECT setval(pg_get_serial_sequence($1, 'id'), 1000)`, table)
	require.NoError(t, err)
}

// seedAPIToken gives acme an API token, number 1, so an admin's revoke
// finds one and a 404 can only mean "no access".
func seedAPIToken(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO api_tokens (id, org_id, name, token_hash, hint) VALUES (1, $1, 'matrix', sha256('matrix'), 'fb_MATRIX0')`, f.orgA.ID)
	require.NoError(t, err)
	pastSeeded(t, f, "api_tokens")
}

// seedOutbox keeps one message in the outbox, number 1, with an HTML part,
// so a staff GET of /staff/outbox/:id finds it and a 404 can only mean "no
// access".
func seedOutbox(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO mail_outbox (id, org_id, message_id, mail_from, rcpt, subject, text_body, html_body)
		VALUES (1, $1, 'fb.1@fieldbrief.test', 'briefings@fieldbrief.test', 'ops@acme.test', 'Acme · briefing', 'text', '<p>html</p>')`,
		f.orgA.ID)
	require.NoError(t, err)
	// Test email number 2 of acme's, kept in the outbox as message 2.
	_, err = f.db.Exec(context.Background(), `
		INSERT INTO ff_deliveries (id, org_id, briefing_id, channel, audience, recipient, key, state, due_at)
		SELECT 2, org_id, id, 'email', 'test', 'admin@acme.test', 'msg_test_matrix', 'sent', now()
		  FROM ff_briefings WHERE org_id = $1 AND briefing_date = $2`, f.orgA.ID, testDate)
	require.NoError(t, err)
	messageID, err := transport.MessageIDFor("msg_test_matrix", f.srv.sender.From)
	require.NoError(t, err)
	_, err = f.db.Exec(context.Background(), `
		INSERT INTO mail_outbox (id, org_id, message_id, mail_from, rcpt, subject, text_body, html_body)
		VALUES (2, $1, $2, 'briefings@fieldbrief.test', 'admin@acme.test', '[Test] Acme · briefing', 'text', '<p>html</p>')`,
		f.orgA.ID, messageID)
	require.NoError(t, err)
	pastSeeded(t, f, "ff_deliveries")
	pastSeeded(t, f, "mail_outbox")
}

// seedField gives acme technician 1 and job 1, assigned to them, so a
// member's GET of /technicians/:id or /jobs/:id finds one and a 404 can
// only mean "no access". Numbered by hand: ids made by the database are
// opaque (migration 00043), and these are below every one it makes.
func seedField(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	_, err := f.db.Exec(ctx, `INSERT INTO technicians (id, org_id, name) VALUES (1, $1, 'Matrix Tech')`, f.orgA.ID)
	require.NoError(t, err)
	_, err = f.db.Exec(ctx, `INSERT INTO jobs (id, org_id, customer, arrival_start, arrival_end, technician_id) VALUES (1, $1, 'Matrix', $2, $3, 1)`,
		f.orgA.ID, start, start.Add(time.Hour))
	require.NoError(t, err)
	j, err := (&field.Store{DB: f.db}).Job(ctx, f.orgA.ID, 1)
	require.NoError(t, err)
	require.Equal(t, "Matrix Tech", j.TechnicianName)
}

// matrixMember is a member of acme the matrix may change the role of.
const matrixMember = 100

// seedPeople gives acme member number matrixMember and invite number 1, so
// an admin's role change, resend or revoke finds one and a 404 can only
// mean "no access".
func seedPeople(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	_, err := f.db.Exec(ctx, `INSERT INTO users (id, email, password_hash) VALUES ($1, 'matrix@acme.test', 'x')`, matrixMember)
	require.NoError(t, err)
	require.NoError(t, f.store.Tenants.AddMember(ctx, f.orgA.ID, matrixMember, tenants.RoleMember))
	sent := testStart.Add(-time.Hour)
	_, err = f.db.Exec(ctx, `
		INSERT INTO invites (id, org_id, email, role, created_at, expires_at, last_sent_at)
		VALUES (1, $1, 'invited@acme.test', 'member', $2, $3, $2)`, f.orgA.ID, sent, sent.Add(accounts.InviteLifetime))
	require.NoError(t, err)
}

// TestRouteMatrix sends every route as every kind of visitor and checks
// the answer against the rule table. Writes go twice: without a CSRF token,
// where the access checks still answer first (303 to /login, 401 for htmx,
// 404, 403) and someone allowed gets 403 with nothing changed, and then with
// the token.
func TestRouteMatrix(t *testing.T) {
	t.Parallel()
	routeMatrix(t, setup(t))
}

// routeMatrix walks every route as every kind of client on f (also run
// through PgBouncer: topology_test.go).
func routeMatrix(t *testing.T, f *fixture) {
	seedBriefings(t, f)
	seedDelivery(t, f)
	seedOutbox(t, f)
	seedAPIToken(t, f)
	seedField(t, f)
	seedUpload(t, f)
	seedPeople(t, f)
	// Webhook endpoint number 1 of acme, for its page, edit, secret and rotation.
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO webhook_endpoints (org_id, id, slot, url, secret, events)
		VALUES ($1, 1, 1, 'https://hooks.example.com/matrix', $2, '{job.created}')`, f.orgA.ID, transport.NewWebhookSecret())
	require.NoError(t, err)
	dispatcher := f.member(f.orgA, "dispatcher@acme.test", tenants.RoleDispatcher)
	// An upload is its uploader's alone (another's is 404): the dispatcher
	// previews and saves their own, number 2.
	_, err = f.db.Exec(context.Background(), `
		INSERT INTO csv_uploads (id, org_id, user_id, kind, filename, content, sha256, created_at, expires_at)
		VALUES ('2', $1, $2, 'jobs', 'jobs.csv', $3, '', $4, $5)`,
		f.orgA.ID, dispatcher.ID, fieldimport.Template(fieldimport.Jobs), f.clock.Now(), f.clock.Now().Add(fieldimport.UploadTTL))
	require.NoError(t, err)
	pathFor := func(who, pattern string) string {
		if who == "dispatcher" && strings.HasPrefix(pattern, "/orgs/:slug/import/:kind/:id") {
			return strings.Replace(concrete(pattern), "/jobs/1", "/jobs/2", 1)
		}
		return concrete(pattern)
	}
	clients := []struct {
		who string
		c   *client
	}{
		{"anonymous", f.as(nil)},
		{"outsider member", f.as(&f.memberB)},
		{"outsider admin", f.as(&f.adminB)},
		{"member", f.as(&f.memberA)},
		{"dispatcher", f.as(&dispatcher)},
		{"admin", f.as(&f.adminA)},
		{"staff", f.as(&f.staff)},
	}
	routes := 0
	for _, r := range f.srv.echo.Routes() {
		if skipInMatrix(r.Path) || r.Method == echo.RouteNotFound {
			continue
		}
		g, ok := routeAccess(r.Method, r.Path)
		require.True(t, ok, "route %s %s is not in the access matrix: add it to routeTable", r.Method, r.Path)
		routes++
		if r.Method != http.MethodGet {
			before := fingerprint(t, f)
			for _, cl := range clients {
				path := pathFor(cl.who, r.Path)
				want := expected(g, cl.who)
				if want == allowed && !csrfExempt(r.Method, r.Path) {
					want = forbidden // by the CSRF check
				}
				msg := fmt.Sprintf("%s %s without a token as %s (%s route)", r.Method, path, cl.who, g)
				requireOutcome(t, want, false, cl.c.do(r.Method, path, plausibleForm(f)), msg)
				requireOutcome(t, want, true, cl.c.htmx().do(r.Method, path, plausibleForm(f)), "htmx "+msg)
			}
			require.Equal(t, before, fingerprint(t, f), "%s %s without a token changed the database", r.Method, r.Path)
		}
		for _, cl := range clients {
			path := pathFor(cl.who, r.Path)
			var res, htmx response
			if r.Method == http.MethodGet {
				res, htmx = cl.c.get(path), cl.c.htmx().get(path)
			} else {
				res, htmx = cl.c.send(r.Method, path, plausibleForm(f)), cl.c.htmx().send(r.Method, path, plausibleForm(f))
			}
			msg := fmt.Sprintf("%s %s as %s (%s route)", r.Method, path, cl.who, g)
			requireOutcome(t, expected(g, cl.who), false, res, msg)
			requireOutcome(t, expected(g, cl.who), true, htmx, "htmx "+msg)
		}
	}
	require.Greater(t, routes, 10, "the matrix walked suspiciously few routes")
}

// requireOutcome checks a response against the rule table's outcome; an
// htmx request that is not signed in gets 401 instead of the redirect.
func requireOutcome(t *testing.T, want outcome, htmx bool, res response, msg string) {
	t.Helper()
	msg = fmt.Sprintf("%s: got %d %s", msg, res.Code, res.Header.Get("Location"))
	require.Less(t, res.Code, 500, msg+"\n"+res.Body)
	denied := res.Code == http.StatusUnauthorized || res.Code == http.StatusForbidden || res.Code == http.StatusNotFound ||
		(res.Code == http.StatusSeeOther && isSignIn(res.Header.Get("Location")))
	switch want {
	case allowed:
		require.False(t, denied, msg)
	case toLogin:
		if htmx {
			require.Equal(t, http.StatusUnauthorized, res.Code, msg)
			return
		}
		require.Equal(t, http.StatusSeeOther, res.Code, msg)
		require.True(t, isSignIn(res.Header.Get("Location")), msg)
	case notFound:
		require.Equal(t, http.StatusNotFound, res.Code, msg)
	case forbidden:
		require.Equal(t, http.StatusForbidden, res.Code, msg)
	case apiRefused:
		require.Equal(t, http.StatusUnauthorized, res.Code, msg)
		require.JSONEq(t, `"unauthorized"`, apitest.JSONAt(t, res.Body, "error", "code"), msg)
	}
}

// TestUnmatchedPathsAndMethods: a path or method no route has is echo's
// 404 or 405, not a refusal. Under /orgs/:slug and /staff the group's
// catch-all answers once its access checks pass: 404 for a member (not 403
// from an admin check), /login for the anonymous.
func TestUnmatchedPathsAndMethods(t *testing.T) {
	t.Parallel()
	f := setup(t)
	anon, memberA, adminA, outsider, staff := f.anon(), f.as(&f.memberA), f.as(&f.adminA), f.as(&f.memberB), f.as(&f.staff)

	for _, c := range []struct {
		method, path string
	}{{http.MethodDelete, "/login"}, {http.MethodPut, "/logout"}, {http.MethodPost, "/healthz"}, {http.MethodDelete, "/"}} {
		res := anon.do(c.method, c.path, nil)
		require.Equal(t, http.StatusMethodNotAllowed, res.Code, "%s %s", c.method, c.path)
		require.NotEmpty(t, res.Header.Get("Allow"), "%s %s", c.method, c.path)
		requireSecurityHeaders(t, c.method+" "+c.path, res)
		res = memberA.do(c.method, c.path, nil)
		require.Equal(t, http.StatusMethodNotAllowed, res.Code, "%s %s signed in", c.method, c.path)
	}
	require.Equal(t, http.StatusNotFound, anon.get("/no/such/page").Code)
	require.Equal(t, http.StatusNotFound, anon.postNoCSRF("/no/such/page", nil).Code)

	for _, c := range []*client{memberA, adminA, outsider} {
		for _, r := range []struct {
			method, path string
		}{
			{http.MethodGet, "/orgs/acme/nope"},
			{http.MethodGet, "/orgs/acme/settings/nope"},
			{http.MethodPost, "/orgs/acme/briefings"},
			{http.MethodPost, "/orgs/acme/settings/fieldforce/preview"},
		} {
			var res response
			if r.method == http.MethodGet {
				res = c.get(r.path)
			} else {
				res = c.post(r.path, url.Values{})
				require.Equal(t, http.StatusNotFound, c.postNoCSRF(r.path, nil).Code, "%s %s without a token", r.method, r.path)
			}
			require.Equal(t, http.StatusNotFound, res.Code, "%s %s", r.method, r.path)
			requireSecurityHeaders(t, r.method+" "+r.path, res)
		}
	}
	require.Equal(t, http.StatusNotFound, staff.get("/staff/nope").Code)
	require.Equal(t, http.StatusForbidden, memberA.get("/staff/nope").Code)
	res := anon.get("/orgs/acme/nope")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, signInTo("/orgs/acme/nope"), res.Header.Get("Location"))
}

// TestNotMemberLooksLikeMissingOrg: an org you are not in answers exactly
// like one that does not exist.
func TestNotMemberLooksLikeMissingOrg(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.memberB)
	theirs := c.get("/orgs/acme/briefings")
	missing := c.get("/orgs/nosuchorg/briefings")
	require.Equal(t, http.StatusNotFound, theirs.Code)
	require.Equal(t, missing.Code, theirs.Code)
	require.Equal(t, strings.ReplaceAll(missing.Body, "nosuchorg", "X"), strings.ReplaceAll(theirs.Body, "acme", "X"))
}

func requireSecurityHeaders(t *testing.T, what string, r response) {
	t.Helper()
	require.Equal(t, contentSecurityPolicy, r.Header.Get("Content-Security-Policy"), what)
	require.Contains(t, r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'", what)
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), what)
	referrer := "same-origin"
	if strings.Contains(what, " /t/") { // a day link is a credential: no Referer at all (daylink.go)
		referrer = "no-referrer"
	}
	require.Equal(t, referrer, r.Header.Get("Referrer-Policy"), what)
	require.Equal(t, "DENY", r.Header.Get("X-Frame-Options"), what)
	require.NotEmpty(t, r.Header.Get("Permissions-Policy"), what)
}

func TestSecurityHeadersEverywhere(t *testing.T) {
	t.Parallel()
	f := setup(t)
	anon, member, staff := f.anon(), f.as(&f.memberA), f.as(&f.staff)

	cases := map[string]response{
		"404":                anon.get("/no/such/page"),
		"404 signed in":      member.get("/orgs/nosuchorg/briefings"),
		"403 error page":     member.get("/staff/flags"),
		"csrf 403":           staff.postNoCSRF("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"off"}}),
		"401 htmx":           anon.htmx().get("/orgs/acme/briefings"),
		"303 redirect":       anon.get("/"),
		"fragment":           staff.htmx().post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"off"}}),
		"422 fragment":       staff.htmx().post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"?"}}),
		"static file":        anon.get("/static/app.css"),
		"health":             anon.get("/healthz"),
		"authenticated page": member.get("/orgs/acme/briefings"),
		"method not allowed": anon.do(http.MethodPut, "/login", nil),
		"delete login":       anon.do(http.MethodDelete, "/login", nil),
	}
	for what, r := range cases {
		requireSecurityHeaders(t, what, r)
	}
	require.Equal(t, http.StatusNotFound, cases["404"].Code)
	require.Equal(t, http.StatusForbidden, cases["403 error page"].Code)
	require.Equal(t, http.StatusOK, cases["fragment"].Code)
	require.Equal(t, http.StatusOK, cases["static file"].Code)
	require.Equal(t, http.StatusMethodNotAllowed, cases["method not allowed"].Code)
	require.Equal(t, http.StatusMethodNotAllowed, cases["delete login"].Code)
	require.Equal(t, "no-store", cases["authenticated page"].Header.Get("Cache-Control"))
	require.Equal(t, "no-store", cases["fragment"].Header.Get("Cache-Control"))
	require.Empty(t, cases["authenticated page"].Header.Get("Strict-Transport-Security"), "no HSTS over plain HTTP")
}

// inline matches what the CSP forbids: inline scripts, style attributes,
// style elements and event handler attributes.
var inline = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<script(?:\s(?:[^s>]|s[^r>])*)?>|\sstyle=|<style|\son[a-z]+=`)

// TestNoInlineScriptOrStyle renders every page (as admin and as staff) and
// finds nothing the CSP would block.
func TestNoInlineScriptOrStyle(t *testing.T) {
	t.Parallel()
	f := setup(t)
	seedBriefings(t, f)
	seedField(t, f)
	pages := 0
	for _, c := range []*client{f.anon(), f.as(&f.adminA), f.as(&f.staff)} {
		for _, r := range f.srv.echo.Routes() {
			if r.Method != http.MethodGet || r.Method == echo.RouteNotFound || strings.HasPrefix(r.Path, "/static") {
				continue
			}
			res := c.get(concrete(r.Path))
			if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				continue
			}
			pages++
			require.Empty(t, inline.FindAllString(res.Body, -1), "GET %s", r.Path)
		}
	}
	require.Greater(t, pages, 5)
}

func TestHome(t *testing.T) {
	t.Parallel()
	f := setup(t)

	res := f.as(&f.memberA).get("/")
	require.Equal(t, http.StatusSeeOther, res.Code, "one org: straight to it")
	require.Equal(t, "/orgs/acme/briefings", res.Header.Get("Location"))

	require.NoError(t, f.store.Tenants.AddMember(t.Context(), f.orgB.ID, f.memberA.ID, "admin"))
	res = f.as(&f.memberA).get("/")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, `href="/orgs/acme/briefings"`)
	require.Contains(t, res.Body, `href="/orgs/globex/briefings"`)
	require.NotContains(t, res.Body, "/staff/flags")

	res = f.as(&f.staff).get("/")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, `href="/staff/flags"`)
	require.NotContains(t, res.Body, "not in an org yet", "staff are not told to ask for an invite")
}

func TestSecureModeSendsHSTS(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.SecureCookies = true })
	res := f.anon().get("/login")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Header.Get("Strict-Transport-Security"), "max-age=")
}
