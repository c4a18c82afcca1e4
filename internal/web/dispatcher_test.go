package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/tenants"
)

// TestDispatcherAccess: a dispatcher edits a job and a technician, assigns
// on the board and runs an import, and is refused (403, nothing changed)
// on settings, the schedule, delivery, API tokens and members. The nav
// shows what they may use. (TestRouteMatrix walks every route; this is the
// list of docs/accounts.md "Roles", with the changes checked in the database.)
func TestDispatcherAccess(t *testing.T) {
	ff := setupField(t)
	f := ff.fixture
	seedBriefings(t, f)
	seedDelivery(t, f)
	seedAPIToken(t, f)
	d := f.member(f.orgA, "dispatcher@acme.test", tenants.RoleDispatcher)
	disp := f.as(&d)
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(f.orgA.ID, "Initech", day, 0)

	// The field data: a job, a technician, the board, an import.
	r := disp.post(fmt.Sprintf("/orgs/acme/jobs/%d", j.ID), url.Values{"customer": {"Initech Corp"}, "address": {"1 Main St"},
		"date": {"2026-03-04"}, "from": {"09:00"}, "to": {"11:00"}, "status": {"scheduled"}, "version": {strconv.FormatInt(j.Version, 10)}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "Initech Corp", ff.storedJob(f.orgA.ID, j.ID).Customer)
	r = disp.post(fmt.Sprintf("/orgs/acme/jobs/%d/assign", j.ID), url.Values{"technician_id": {fmt.Sprint(ff.ana.ID)}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, ff.ana.ID, ff.storedJob(f.orgA.ID, j.ID).TechnicianID, "assigned from the board")
	r = disp.post(fmt.Sprintf("/orgs/acme/technicians/%d", ff.ana.ID), url.Values{"name": {"Ana Lima-Souza"}, "active": {"true"},
		"version": {strconv.FormatInt(ff.storedTech(f.orgA.ID, ff.ana.ID).Version, 10)}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "Ana Lima-Souza", ff.storedTech(f.orgA.ID, ff.ana.ID).Name)
	loc, doc := previewOf(t, disp, "technicians", techCSV)
	require.Equal(t, http.StatusSeeOther, saveImport(t, disp, loc, doc).Code)
	require.Equal(t, 1, ff.count(`SELECT count(*) FROM technicians WHERE org_id = $1 AND external_ref = 'T-1'`, f.orgA.ID), "imported")
	require.Positive(t, ff.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND actor_email = $2`, f.orgA.ID, d.Email),
		"their changes are theirs in the audit log")

	// Not settings, the schedule, delivery, API tokens or members.
	before := fingerprint(t, f)
	for _, c := range []struct {
		method, path string
		form         url.Values
	}{
		{http.MethodGet, "/orgs/acme/settings/fieldforce", nil},
		{http.MethodPost, "/orgs/acme/settings/fieldforce", url.Values{"timezone": {"Europe/Paris"}, "schedule_local_time": {"05:00"}}},
		{http.MethodPost, "/orgs/acme/settings/fieldforce/enabled", url.Values{"enabled": {"false"}}},
		{http.MethodPost, "/orgs/acme/settings/locale", url.Values{"locale": {"de-DE"}}},
		{http.MethodPost, "/orgs/acme/settings/fieldforce/test-email", url.Values{"email": {d.Email}}},
		{http.MethodPost, "/orgs/acme/briefings/generate", nil},
		{http.MethodPost, "/orgs/acme/briefings/" + testDate + "/deliveries/1/resend", nil},
		{http.MethodGet, "/orgs/acme/settings/api-tokens", nil},
		{http.MethodPost, "/orgs/acme/settings/api-tokens", url.Values{"name": {"mine"}}},
		{http.MethodPost, "/orgs/acme/settings/api-tokens/1/revoke", nil},
		{http.MethodPost, "/orgs/acme/members/invite", url.Values{"email": {"new@acme.test"}, "role": {"admin"}}},
		{http.MethodPost, "/orgs/acme/members/" + strconv.FormatInt(d.ID, 10) + "/role", url.Values{"role": {"admin"}}},
		{http.MethodPost, "/orgs/acme/members/" + strconv.FormatInt(f.memberA.ID, 10) + "/remove", nil},
	} {
		var r response
		if c.method == http.MethodGet {
			r = disp.get(c.path)
		} else {
			r = disp.post(c.path, c.form)
		}
		require.Equal(t, http.StatusForbidden, r.Code, "%s %s", c.method, c.path)
	}
	require.Equal(t, before, fingerprint(t, f), "nothing changed")
	require.Equal(t, "dispatcher", roleOf(t, f, d.ID), "no promotion of oneself")

	// A briefing's details, as an admin reads them, without the re-send.
	_, err := f.db.Exec(context.Background(), `UPDATE ff_briefings SET last_error = 'smtp relay down' WHERE org_id = $1`, f.orgA.ID)
	require.NoError(t, err)
	brief := "/orgs/acme/briefings/" + testDate
	require.Contains(t, disp.get(brief).Body, "smtp relay down")
	require.NotContains(t, disp.get(brief).Body, "/resend")
	require.Contains(t, f.as(&f.adminA).get(brief).Body, "/deliveries/1/resend")
	require.NotContains(t, ff.membr.get(brief).Body, "smtp relay down", "members see outcomes only")

	// The nav: import, not settings; the members page read-only.
	nav := parseDoc(t, disp.get("/orgs/acme/board").Body).find(hasClass("nav"))
	require.NotNil(t, nav.find(attrIs("href", "/orgs/acme/import")))
	require.Nil(t, nav.find(attrIs("href", "/orgs/acme/settings/fieldforce")))
	members := disp.get("/orgs/acme/members").Body
	require.NotContains(t, members, `id="invite-email"`)
	require.NotContains(t, members, "/remove")
	require.Contains(t, members, `data-role="dispatcher">Dispatcher<`)
	memberNav := parseDoc(t, f.as(&f.memberA).get("/orgs/acme/board").Body).find(hasClass("nav"))
	require.Nil(t, memberNav.find(attrIs("href", "/orgs/acme/import")), "a member does not get the import link")
}

func roleOf(t *testing.T, f *fixture, userID int64) string {
	t.Helper()
	var role string
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2`,
		f.orgA.ID, userID).Scan(&role))
	return role
}

// TestMemberRoleDispatcher: the members page offers the role (invite and
// change), the invite page names it, and a dispatcher is not an admin for
// the last-admin rule.
func TestMemberRoleDispatcher(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	doc := parseDoc(t, admin.get("/orgs/acme/members").Body)
	options := func(id string) []string {
		var v []string
		for _, o := range doc.byID(id).findAll(tagIs("option")) {
			v = append(v, o.attr("value")+"="+o.text())
		}
		return v
	}
	require.Equal(t, []string{"member=Member", "dispatcher=Dispatcher", "admin=Admin"}, options("invite-role"))
	require.Equal(t, []string{"member=Member", "dispatcher=Dispatcher", "admin=Admin"}, options("role-"+strconv.FormatInt(f.memberA.ID, 10)))
	require.Contains(t, doc.byID("invite-role-hint").text(), "Dispatchers also edit technicians")

	// Invite as a dispatcher: the invite says so; accepting gives the role.
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/invite", url.Values{"email": {"dana@acme.test"}, "role": {"dispatcher"}}).Code)
	link := mailLink(t, f, "invite")
	page := f.anon().get(link)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body, "a dispatcher")

	// Member → dispatcher, keeping the form's version; then the only
	// admin cannot become a dispatcher (a dispatcher is not an admin).
	mid := strconv.FormatInt(f.memberA.ID, 10)
	version := doc.byID("member-list").find(attrIs("data-user-id", mid)).find(attrIs("name", "version")).attr("value")
	require.NotEmpty(t, version)
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/"+mid+"/role", url.Values{"role": {"dispatcher"}, "version": {version}}).Code)
	require.Equal(t, "dispatcher", roleOf(t, f, f.memberA.ID))
	r := admin.post("/orgs/acme/members/"+mid+"/role", url.Values{"role": {"member"}, "version": {version}})
	require.Equal(t, http.StatusConflict, r.Code, "the old version is stale")
	require.Contains(t, parseDoc(t, r.Body).byID("member-list").text(), "Dispatcher")
	self := strconv.FormatInt(f.adminA.ID, 10)
	r = admin.post("/orgs/acme/members/"+self+"/role", url.Values{"role": {"dispatcher"}})
	require.Equal(t, http.StatusConflict, r.Code)
	require.Contains(t, r.Body, "only admin")
	require.Equal(t, "admin", roleOf(t, f, f.adminA.ID))
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/"+mid+"/role", url.Values{"role": {"admin"}}).Code)
	require.Equal(t, http.StatusUnprocessableEntity, admin.post("/orgs/acme/members/"+mid+"/role", url.Values{"role": {"owner"}}).Code)
	require.Equal(t, http.StatusSeeOther, admin.post("/orgs/acme/members/"+self+"/role", url.Values{"role": {"dispatcher"}}).Code,
		"with another admin, an admin may step down to dispatcher")
	require.Equal(t, http.StatusForbidden, admin.post("/orgs/acme/members/"+mid+"/role", url.Values{"role": {"member"}}).Code,
		"and is no admin from then on")
}

// TestJobSearchPage: the jobs page finds jobs across days by customer,
// address, reference or phone, newest first, with each one's date, window,
// technician and links to the job and its day on the board; another org's
// never; a query too short is 422 with a hint.
func TestJobSearchPage(t *testing.T) {
	ff := setupField(t)
	f := ff.fixture
	ctx := context.Background()
	add := func(orgID int64, customer, address, ref, phone string, start time.Time, tech int64) field.Job {
		j, err := ff.st.CreateJob(ctx, audit.System, ff.clock.Now(), orgID, field.JobInput{Customer: customer, Address: address, ExternalRef: ref,
			CustomerPhone: phone, ArrivalStart: start, ArrivalEnd: start.Add(2 * time.Hour), TechnicianID: tech})
		require.NoError(t, err)
		return j
	}
	old := add(f.orgA.ID, "Maria Smith", "12 Elm Street", "J-1042", "(555) 014-2233", time.Date(2026, 1, 20, 14, 0, 0, 0, time.UTC), ff.ana.ID)
	soon := add(f.orgA.ID, "Smithers", "9 Oak Ave", "", "", time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC), 0)
	add(f.orgB.ID, "Smith of Globex", "12 Elm Street", "J-1042", "(555) 014-2233", time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC), 0)

	found := func(q string) []string {
		t.Helper()
		r := ff.membr.get("/orgs/acme/jobs?" + url.Values{"q": {q}}.Encode())
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		var rows []string
		for _, n := range parseDoc(t, r.Body).byID("job-search-results").findAll(tagIs("tr")) {
			if id := n.attr("data-job"); id != "" {
				rows = append(rows, id)
			}
		}
		return rows
	}
	id := func(j field.Job) string { return strconv.FormatInt(j.ID, 10) }
	require.Equal(t, []string{id(soon), id(old)}, found("smith"), "newest first, across days, this org's only")
	require.Equal(t, []string{id(old)}, found("elm"), "address fragment")
	require.Equal(t, []string{id(old)}, found("J-1042"), "reference")
	require.Equal(t, []string{id(old)}, found("555.014.2233"), "phone digits")
	require.Empty(t, found("globex"))

	r := ff.membr.get("/orgs/acme/jobs?q=elm+street")
	doc := parseDoc(t, r.Body)
	row := doc.byID("job-search-table").find(attrIs("data-job", id(old)))
	require.Equal(t, "2026-01-20", row.attr("data-date"))
	require.Equal(t, "Tue, Jan 20, 2026", row.find(hasClass("j-date")).text())
	require.Equal(t, "9:00 – 11:00 AM EST", row.find(hasClass("j-window")).text())
	require.Equal(t, "Ana Lima", row.find(hasClass("j-technician")).text())
	require.Equal(t, "/orgs/acme/jobs/"+id(old), row.find(hasClass("j-customer")).find(tagIs("a")).attr("href"))
	require.Equal(t, "/orgs/acme/board?date=2026-01-20", row.find(hasClass("j-board")).find(tagIs("a")).attr("href"))
	require.Equal(t, "elm street", doc.byID("job-q").attr("value"))
	require.Nil(t, doc.byID("jobs-filter"), "the results replace the day's list")

	r = ff.membr.get("/orgs/acme/jobs?q=%20a%20")
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, parseDoc(t, r.Body).byID("job-q-error").text(), "at least 3 characters")
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get("/orgs/acme/jobs?q=smith").Code)
	day := ff.membr.get("/orgs/acme/jobs?date=2026-03-10")
	require.Contains(t, day.Body, `id="jobs-search"`, "the search box is on the day's list")
	require.NotContains(t, day.Body, `id="job-search-results"`)
}

// TestJobSearchPages: a search shows at most field.SearchPageSize jobs,
// with a link to the next page; a page out of range is the nearest one.
func TestJobSearchPages(t *testing.T) {
	ff := setupField(t)
	n := field.SearchPageSize + 3
	_, err := ff.db.Exec(context.Background(), `
		INSERT INTO jobs (org_id, customer, arrival_start, arrival_end)
		SELECT $1, 'Pager ' || i, $2::timestamptz + i * interval '1 day', $2::timestamptz + i * interval '1 day'
		  FROM generate_series(1, $3) i`, ff.orgA.ID, time.Date(2026, 1, 1, 14, 0, 0, 0, time.UTC), n)
	require.NoError(t, err)
	rows := func(r response) int { return strings.Count(r.Body, `<tr data-job=`) }
	r := ff.membr.get("/orgs/acme/jobs?q=pager")
	require.Equal(t, field.SearchPageSize, rows(r))
	next := parseDoc(t, r.Body).byID("job-search-results").find(attrIs("rel", "next")).attr("href")
	require.Equal(t, "/orgs/acme/jobs?page=2&q=pager", next)
	r = ff.membr.get(next)
	require.Equal(t, 3, rows(r))
	require.NotContains(t, r.Body, `rel="next"`)
	require.Equal(t, 0, rows(ff.membr.get("/orgs/acme/jobs?q=pager&page=999")), "past the last page: clamped to the deepest allowed, which is empty")
}

// TestJobLinksInBriefingActionItems: each job needing action links to the
// job and to its own day on the board (an overdue job's earlier day).
func TestJobLinksInBriefingActionItems(t *testing.T) {
	t.Parallel()
	f := setup(t)
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})
	doc := parseDoc(t, f.as(&f.memberA).get(briefingsPath+"/2026-03-03").Body)
	links := func(section, job string) (string, string) {
		j := doc.byID(section).find(attrIs("data-job", job))
		require.NotNil(t, j, "%s %s", section, job)
		return j.find(attrIs("data-link", "job")).attr("href"), j.find(attrIs("data-link", "board")).attr("href")
	}
	jobURL, board := links("overdue", "5")
	require.Equal(t, "/orgs/acme/jobs/5", jobURL)
	require.Equal(t, "/orgs/acme/board?date=2026-03-01", board, "the overdue job's own day")
	jobURL, board = links("emergencies", "1")
	require.Equal(t, "/orgs/acme/jobs/1", jobURL)
	require.Equal(t, "/orgs/acme/board?date=2026-03-03", board)
	require.Nil(t, doc.byID("routes").find(attrIs("data-link", "job")), "routes are not action items")
}
