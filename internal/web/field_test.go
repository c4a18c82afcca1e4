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

// fieldFixture is the web fixture with acme in New York and globex in
// Berlin, and a technician in each.
type fieldFixture struct {
	*fixture
	st           *field.Store
	ana, theirs  field.Technician
	admin, membr *client
}

func setupField(t *testing.T) *fieldFixture {
	t.Helper()
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	saveConfig(t, f, f.orgB.ID, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"06:45"}}`)
	ff := &fieldFixture{fixture: f, st: &field.Store{DB: f.db}}
	ctx := context.Background()
	var err error
	ff.ana, err = ff.st.CreateTechnician(ctx, audit.System, f.orgA.ID, field.TechnicianInput{Name: "Ana Lima", Active: true, ExternalRef: "T-ana"})
	require.NoError(t, err)
	ff.theirs, err = ff.st.CreateTechnician(ctx, audit.System, f.orgB.ID, field.TechnicianInput{Name: "Globex Gus", Active: true})
	require.NoError(t, err)
	ff.admin, ff.membr = f.as(&f.adminA), f.as(&f.memberA)
	return ff
}

func (ff *fieldFixture) job(orgID int64, customer string, start time.Time, techID int64) field.Job {
	ff.t.Helper()
	j, err := ff.st.CreateJob(context.Background(), audit.System, ff.clock.Now(), orgID, field.JobInput{
		Customer: customer, ArrivalStart: start, ArrivalEnd: start.Add(2 * time.Hour), TechnicianID: techID})
	require.NoError(ff.t, err)
	return j
}

func (ff *fieldFixture) count(sql string, args ...any) int {
	ff.t.Helper()
	var n int
	require.NoError(ff.t, ff.db.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

func (ff *fieldFixture) storedJob(orgID, id int64) field.Job {
	ff.t.Helper()
	j, err := ff.st.Job(context.Background(), orgID, id)
	require.NoError(ff.t, err)
	return j
}

func jobValues(customer, date, from, to string) url.Values {
	return url.Values{"customer": {customer}, "address": {"1 Main St"}, "date": {date}, "from": {from}, "to": {to},
		"status": {"scheduled"}, "next": {"jobs"}}
}

// requireFieldError checks a 422 that names field beside its input.
func requireFieldError(t *testing.T, r response, name string, contains ...string) {
	t.Helper()
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	msg := parseDoc(t, r.Body).byID(name + "-error")
	require.NotNil(t, msg, "no error beside %s:\n%s", name, r.Body)
	for _, c := range contains {
		require.Contains(t, msg.text(), c)
	}
}

func TestTechniciansScreens(t *testing.T) {
	ff := setupField(t)
	base := "/orgs/acme/technicians"

	// Members read the list, without forms.
	r := ff.membr.get(base)
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body, "Ana Lima")
	require.NotContains(t, r.Body, "Globex Gus")
	require.Nil(t, parseDoc(t, r.Body).byID("technician-form"))

	// An admin adds one.
	r = ff.admin.post(base, url.Values{"name": {"Bo Berg"}, "email": {"bo@acme.test"}, "phone": {"+1 555 0101"}, "active": {"true"}, "external_ref": {"T-bo"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, 1, ff.count(`SELECT count(*) FROM technicians WHERE org_id = $1 AND name = 'Bo Berg' AND active AND email = 'bo@acme.test'`, ff.orgA.ID))
	r = ff.admin.get(r.Header.Get("Location"))
	require.Contains(t, r.Body, "Technician added.")
	require.Contains(t, r.Body, "Bo Berg")

	// Bad input: 422, the field named beside it, the input kept, nothing saved.
	before := ff.count(`SELECT count(*) FROM technicians`)
	r = ff.admin.post(base, url.Values{"name": {"Cy"}, "email": {"not-an-email"}})
	requireFieldError(t, r, "email", "email address")
	require.Contains(t, parseDoc(t, r.Body).byID("email").attr("value"), "not-an-email")
	r = ff.admin.post(base, url.Values{"name": {strings.Repeat("x", 201)}})
	requireFieldError(t, r, "name", "200")
	r = ff.admin.post(base, url.Values{"name": {"Dup"}, "external_ref": {"T-ana"}})
	requireFieldError(t, r, "external_ref", "already used")
	require.Equal(t, before, ff.count(`SELECT count(*) FROM technicians`))

	// Members cannot write; a missing token is refused; both save nothing.
	require.Equal(t, http.StatusForbidden, ff.membr.post(base, url.Values{"name": {"Mallory"}}).Code)
	require.Equal(t, http.StatusForbidden, ff.admin.postNoCSRF(base, url.Values{"name": {"Mallory"}}).Code)
	require.Equal(t, before, ff.count(`SELECT count(*) FROM technicians`))

	// Edit.
	one := fmt.Sprintf("%s/%d", base, ff.ana.ID)
	r = ff.admin.get(one)
	require.Equal(t, http.StatusOK, r.Code)
	require.Equal(t, "Ana Lima", parseDoc(t, r.Body).byID("name").attr("value"))
	r = ff.admin.post(one, url.Values{"name": {"Ana L. Lima"}, "active": {"true"}, "external_ref": {"T-ana"}, "phone": {"555"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "Ana L. Lima", ff.storedTech(ff.orgA.ID, ff.ana.ID).Name)
	r = ff.admin.post(one, url.Values{"name": {""}, "active": {"true"}})
	requireFieldError(t, r, "name", "required")
	require.Equal(t, "Ana L. Lima", ff.storedTech(ff.orgA.ID, ff.ana.ID).Name)

	// Deactivate: kept, inactive, off the board's columns.
	r = ff.admin.post(one+"/active", url.Values{"active": {"false"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.False(t, ff.storedTech(ff.orgA.ID, ff.ana.ID).Active)
	board := parseDoc(t, ff.admin.get("/orgs/acme/board").Body)
	require.Nil(t, board.find(attrIs("data-technician", fmt.Sprint(ff.ana.ID))))

	// Another org's technician does not exist here, for reading or writing.
	theirs := fmt.Sprintf("%s/%d", base, ff.theirs.ID)
	require.Equal(t, http.StatusNotFound, ff.admin.get(theirs).Code)
	require.Equal(t, http.StatusNotFound, ff.admin.post(theirs, url.Values{"name": {"Hijacked"}, "active": {"true"}}).Code)
	require.Equal(t, http.StatusNotFound, ff.admin.post(theirs+"/active", url.Values{"active": {"false"}}).Code)
	require.Equal(t, http.StatusNotFound, ff.admin.get(base+"/abc").Code)
	got := ff.storedTech(ff.orgB.ID, ff.theirs.ID)
	require.Equal(t, "Globex Gus", got.Name)
	require.True(t, got.Active)
}

func (ff *fieldFixture) storedTech(orgID, id int64) field.Technician {
	ff.t.Helper()
	tech, err := ff.st.Technician(context.Background(), orgID, id)
	require.NoError(ff.t, err)
	return tech
}

// Local times on the job form are read in the org's zone: across the
// spring-forward and fall-back days in New York (acme) and Berlin (globex).
func TestJobFormReadsLocalTimeInOrgZone(t *testing.T) {
	ff := setupField(t)
	adminB := ff.as(&ff.adminB)
	tests := []struct {
		c                *client
		org              string
		date, from, to   string
		wantStart        string // UTC; "" = refused
		errField, errMsg string
		ambiguous        bool
	}{
		{ff.admin, "acme", "2026-03-08", "01:00", "01:59", "2026-03-08T06:00:00Z", "", "", false},
		{ff.admin, "acme", "2026-03-08", "03:00", "05:00", "2026-03-08T07:00:00Z", "", "", false},
		{ff.admin, "acme", "2026-03-08", "02:30", "04:00", "", "from", "Sun, Mar 8, 2:30 AM does not exist in America/New_York: clocks jump from 2:00 AM to 3:00 AM (EST to EDT)", false},
		{ff.admin, "acme", "2026-03-08", "01:00", "02:15", "", "to", "America/New_York", false},
		{ff.admin, "acme", "2026-11-01", "01:30", "03:00", "2026-11-01T05:30:00Z", "", "", true},
		{ff.admin, "acme", "2026-11-01", "02:00", "03:00", "2026-11-01T07:00:00Z", "", "", false},
		{adminB, "globex", "2026-03-29", "02:30", "04:00", "", "from", "Sun, Mar 29, 2:30 AM does not exist in Europe/Berlin: clocks jump from 2:00 AM to 3:00 AM (CET to CEST)", false},
		{adminB, "globex", "2026-03-29", "03:00", "04:00", "2026-03-29T01:00:00Z", "", "", false},
		{adminB, "globex", "2026-10-25", "02:30", "04:00", "2026-10-25T00:30:00Z", "", "", true},
		{adminB, "globex", "2026-10-25", "08:00", "09:00", "2026-10-25T07:00:00Z", "", "", false},
		// Other bad input.
		{ff.admin, "acme", "2026-03-09", "11:00", "09:00", "", "to", "before the start", false},
		{ff.admin, "acme", "2026-03-09", "25:00", "26:00", "", "from", "HH:MM", false},
		{ff.admin, "acme", "2026-02-30", "09:00", "10:00", "", "date", "YYYY-MM-DD", false},
		{ff.admin, "acme", "", "09:00", "10:00", "", "date", "YYYY-MM-DD", false},
	}
	for i, tt := range tests {
		customer := fmt.Sprintf("Customer %d", i)
		before := ff.count(`SELECT count(*) FROM jobs`)
		r := tt.c.post("/orgs/"+tt.org+"/jobs", jobValues(customer, tt.date, tt.from, tt.to))
		if tt.wantStart == "" {
			requireFieldError(t, r, tt.errField, tt.errMsg)
			require.Equal(t, before, ff.count(`SELECT count(*) FROM jobs`), "case %d saved something", i)
			require.Equal(t, customer, parseDoc(t, r.Body).byID("customer").attr("value"), "the form keeps what was typed")
			continue
		}
		require.Equal(t, http.StatusSeeOther, r.Code, "case %d: %s", i, r.Body)
		var start time.Time
		require.NoError(t, ff.db.QueryRow(context.Background(), `SELECT arrival_start FROM jobs WHERE customer = $1`, customer).Scan(&start))
		require.Equal(t, tt.wantStart, start.UTC().Format(time.RFC3339), "case %d", i)
		loc := r.Header.Get("Location")
		if !tt.ambiguous {
			require.Contains(t, loc, "/jobs?date="+tt.date, "case %d", i)
			continue
		}
		// Ambiguous: saved as the first occurrence, and the job's page says so.
		require.Contains(t, loc, "notice=ambiguous", "case %d", i)
		page := parseDoc(t, tt.c.get(loc).Body)
		note := page.find(hasClass("dst-note"))
		require.NotNil(t, note, "case %d", i)
		require.Contains(t, note.text(), "happens twice")
		require.Contains(t, note.text(), "the first")
		require.Equal(t, tt.from, page.byID("from").attr("value"))
	}
	// The form names the zone with its abbreviation for the day.
	r := ff.admin.get("/orgs/acme/jobs?date=2026-07-01")
	require.Contains(t, parseDoc(t, r.Body).byID("window-hint").text(), "America/New_York (EDT)")
	r = ff.admin.get("/orgs/acme/jobs?date=2026-01-05")
	require.Contains(t, parseDoc(t, r.Body).byID("window-hint").text(), "America/New_York (EST)")
}

func TestJobScreens(t *testing.T) {
	ff := setupField(t)
	ctx := context.Background()
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC) // 09:00 EST on the test clock's day
	mine := ff.job(ff.orgA.ID, "Smith", day, ff.ana.ID)
	other := ff.job(ff.orgA.ID, "Jones", day.Add(3*time.Hour), 0)
	theirs := ff.job(ff.orgB.ID, "Globex customer", day, ff.theirs.ID)
	_, err := ff.st.SetStatus(ctx, audit.System, ff.clock.Now(), ff.orgA.ID, other.ID, field.StatusOnHold, 0)
	require.NoError(t, err)

	// The list: today by default (org-local), filters by status and technician.
	r := ff.membr.get("/orgs/acme/jobs")
	require.Equal(t, http.StatusOK, r.Code)
	rows := parseDoc(t, r.Body).findAll(attrIs("class", "j-window"))
	require.Len(t, rows, 2)
	// acme is en-US: its 12-hour clock (text() turns CLDR's thin and
	// narrow spaces into plain ones).
	require.Equal(t, "9:00 – 11:00 AM EST", rows[0].text())
	require.NotContains(t, r.Body, "Globex customer")
	require.Nil(t, parseDoc(t, r.Body).byID("job-form"), "members get no form")
	r = ff.membr.get("/orgs/acme/jobs?date=2026-03-04&status=on_hold")
	require.Contains(t, r.Body, "Jones")
	require.NotContains(t, r.Body, "Smith")
	r = ff.membr.get(fmt.Sprintf("/orgs/acme/jobs?date=2026-03-04&technician=%d", ff.ana.ID))
	require.Contains(t, r.Body, "Smith")
	require.NotContains(t, r.Body, "Jones")
	r = ff.membr.get("/orgs/acme/jobs?date=2026-03-04&technician=none")
	require.Contains(t, r.Body, "Jones")
	require.NotContains(t, r.Body, "Smith")
	r = ff.membr.get("/orgs/acme/jobs?date=2026-03-05")
	require.NotNil(t, parseDoc(t, r.Body).byID("no-jobs"))
	requireFieldError(t, ff.membr.get("/orgs/acme/jobs?status=nope"), "f-status")
	requireFieldError(t, ff.membr.get("/orgs/acme/jobs?date=2026-13-01"), "f-date")

	// Edit: members read, admins save; bad input is a 422 and saves nothing.
	one := fmt.Sprintf("/orgs/acme/jobs/%d", mine.ID)
	r = ff.membr.get(one)
	require.Equal(t, http.StatusOK, r.Code)
	require.Nil(t, parseDoc(t, r.Body).byID("job-form"))
	require.Contains(t, r.Body, "Ana Lima")
	r = ff.admin.get(one)
	doc := parseDoc(t, r.Body)
	require.Equal(t, "2026-03-04", doc.byID("date").attr("value"))
	require.Equal(t, "09:00", doc.byID("from").attr("value"))
	form := jobValues("Smith & Sons", "2026-03-04", "10:00", "12:00")
	form.Set("technician_id", fmt.Sprint(ff.ana.ID))
	form.Set("emergency", "true")
	form.Set("notes", "Gate code 1234\nDog in yard")
	r = ff.admin.post(one, form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	got := ff.storedJob(ff.orgA.ID, mine.ID)
	require.Equal(t, "Smith & Sons", got.Customer)
	require.True(t, got.Emergency)
	require.Equal(t, "Gate code 1234\nDog in yard", got.Notes)
	require.Equal(t, "2026-03-04T15:00:00Z", got.ArrivalStart.UTC().Format(time.RFC3339))

	requireFieldError(t, ff.admin.post(one, jobValues("", "2026-03-04", "10:00", "12:00")), "customer", "required")
	bad := jobValues("X", "2026-03-04", "10:00", "12:00")
	bad.Set("technician_id", fmt.Sprint(ff.theirs.ID))
	requireFieldError(t, ff.admin.post(one, bad), "technician_id", "not a technician")
	bad = jobValues("X", "2026-03-04", "10:00", "12:00")
	bad.Set("status", "finished")
	requireFieldError(t, ff.admin.post(one, bad), "status")
	require.Equal(t, got.UpdatedAt, ff.storedJob(ff.orgA.ID, mine.ID).UpdatedAt, "nothing saved")

	// Members cannot write; a missing token is refused.
	require.Equal(t, http.StatusForbidden, ff.membr.post(one, form).Code)
	require.Equal(t, http.StatusForbidden, ff.admin.postNoCSRF(one, form).Code)
	require.Equal(t, http.StatusForbidden, ff.membr.post("/orgs/acme/jobs", form).Code)

	// Another org's job does not exist here.
	theirsURL := fmt.Sprintf("/orgs/acme/jobs/%d", theirs.ID)
	require.Equal(t, http.StatusNotFound, ff.admin.get(theirsURL).Code)
	require.Equal(t, http.StatusNotFound, ff.admin.post(theirsURL, form).Code)
	require.Equal(t, http.StatusNotFound, ff.admin.post(theirsURL+"/assign", url.Values{"technician_id": {fmt.Sprint(ff.ana.ID)}}).Code)
	require.Equal(t, http.StatusNotFound, ff.admin.post(theirsURL+"/status", url.Values{"status": {"done"}}).Code)
	require.Equal(t, "Globex customer", ff.storedJob(ff.orgB.ID, theirs.ID).Customer)
	require.Equal(t, field.StatusScheduled, ff.storedJob(ff.orgB.ID, theirs.ID).Status)
}

func TestDayBoard(t *testing.T) {
	ff := setupField(t)
	ctx := context.Background()
	bo, err := ff.st.CreateTechnician(ctx, audit.System, ff.orgA.ID, field.TechnicianInput{Name: "Bo Berg", Active: true})
	require.NoError(t, err)
	gone, err := ff.st.CreateTechnician(ctx, audit.System, ff.orgA.ID, field.TechnicianInput{Name: "Gone Gary", Active: true})
	require.NoError(t, err)
	today := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC) // the test clock's org-local day, 09:00 EST
	assigned := ff.job(ff.orgA.ID, "Assigned Co", today, ff.ana.ID)
	open := ff.job(ff.orgA.ID, "Open Co", today.Add(time.Hour), 0)
	orphan := ff.job(ff.orgA.ID, "Orphan Co", today.Add(2*time.Hour), gone.ID)
	// Deactivated after the job was theirs: no new job goes to them.
	_, err = ff.st.SetTechnicianActive(ctx, audit.System, ff.orgA.ID, gone.ID, false)
	require.NoError(t, err)
	late := ff.job(ff.orgA.ID, "Late Co", today.Add(-48*time.Hour), ff.ana.ID)
	doneEarlier := ff.job(ff.orgA.ID, "Done Co", today.Add(-48*time.Hour), ff.ana.ID)
	_, err = ff.st.SetStatus(ctx, audit.System, ff.clock.Now(), ff.orgA.ID, doneEarlier.ID, field.StatusDone, 0)
	require.NoError(t, err)
	theirs := ff.job(ff.orgB.ID, "Globex customer", today, 0)

	column := func(doc htmlDoc, techID int64) string {
		t.Helper()
		col := doc.find(attrIs("data-technician", fmt.Sprint(techID)))
		require.NotNil(t, col, "no column for %d", techID)
		return col.text()
	}
	r := ff.membr.get("/orgs/acme/board")
	require.Equal(t, http.StatusOK, r.Code)
	doc := parseDoc(t, r.Body)
	require.Contains(t, column(doc, ff.ana.ID), "Assigned Co")
	require.Contains(t, column(doc, 0), "Open Co")
	require.Contains(t, column(doc, 0), "Orphan Co", "an inactive technician's job needs someone else")
	require.NotContains(t, column(doc, bo.ID), "Co")
	require.Nil(t, doc.find(attrIs("data-technician", fmt.Sprint(gone.ID))), "no column for inactive technicians")
	overdue := doc.byID("overdue").text()
	require.Contains(t, overdue, "Late Co")
	require.NotContains(t, overdue, "Done Co")
	require.NotContains(t, column(doc, ff.ana.ID), "Late Co", "overdue jobs are apart")
	require.NotContains(t, r.Body, "Globex customer")
	require.Nil(t, doc.find(hasClass("mv")), "members get no Move action")
	require.NotContains(t, r.Body, "data-version=", "members drag nothing (static/board.js drags blocks that carry a version)")
	require.Nil(t, doc.byID("move-dialog"))
	require.Equal(t, "/orgs/acme/board?date=2026-03-03", doc.byID("prev-day").attr("href"))
	require.Equal(t, "/orgs/acme/board?date=2026-03-05", doc.byID("next-day").attr("href"))
	require.Contains(t, r.Body, "America/New_York (EST)")

	// Another day has its own jobs; the overdue section is as of that day.
	r = ff.membr.get("/orgs/acme/board?date=2026-03-02")
	doc = parseDoc(t, r.Body)
	require.Contains(t, column(doc, ff.ana.ID), "Late Co")
	require.Nil(t, doc.byID("overdue"))
	require.Equal(t, "/orgs/acme/board?date=2026-03-04", doc.byID("today").attr("href"))
	require.Equal(t, http.StatusUnprocessableEntity, ff.membr.get("/orgs/acme/board?date=tomorrow").Code)

	// Assign without JavaScript: a plain form, then back to the board.
	assign := fmt.Sprintf("/orgs/acme/jobs/%d/assign", open.ID)
	r = ff.admin.post(assign, url.Values{"technician_id": {fmt.Sprint(bo.ID)}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "/orgs/acme/board?date=2026-03-04&notice=assigned", r.Header.Get("Location"))
	require.Equal(t, bo.ID, ff.storedJob(ff.orgA.ID, open.ID).TechnicianID)

	// With htmx: the board fragment comes back, the job in its new column.
	r = ff.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/assign", assigned.ID), url.Values{"technician_id": {fmt.Sprint(bo.ID)}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.True(t, strings.HasPrefix(strings.TrimSpace(r.Body), `<div id="board"`), r.Body)
	frag := parseDoc(t, r.Body)
	require.Equal(t, "Job assigned.", frag.byID("board-notice").text())
	require.Contains(t, column(frag, bo.ID), "Assigned Co")
	require.NotContains(t, column(frag, ff.ana.ID), "Assigned Co")

	// Unassign, and change status (done records when).
	r = ff.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/assign", assigned.ID), url.Values{"technician_id": {""}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, column(parseDoc(t, r.Body), 0), "Assigned Co")
	r = ff.admin.post(fmt.Sprintf("/orgs/acme/jobs/%d/status", late.ID), url.Values{"status": {"done"}, "date": {"2026-03-04"}})
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.NotNil(t, ff.storedJob(ff.orgA.ID, late.ID).CompletedAt)
	require.Nil(t, parseDoc(t, ff.admin.get("/orgs/acme/board").Body).byID("overdue"), "done is no longer overdue")

	// Refused changes: 422 naming the field, nothing saved.
	before := ff.storedJob(ff.orgA.ID, orphan.ID)
	for _, c := range []struct {
		path string
		form url.Values
		name string
	}{
		{fmt.Sprintf("/orgs/acme/jobs/%d/assign", orphan.ID), url.Values{"technician_id": {fmt.Sprint(ff.theirs.ID)}, "date": {"2026-03-04"}}, "technician_id"},
		{fmt.Sprintf("/orgs/acme/jobs/%d/assign", orphan.ID), url.Values{"technician_id": {"x"}}, "technician_id"},
		{fmt.Sprintf("/orgs/acme/jobs/%d/status", orphan.ID), url.Values{"status": {"finished"}}, "status"},
		{fmt.Sprintf("/orgs/acme/jobs/%d/status", orphan.ID), url.Values{}, "status"},
	} {
		for _, cl := range []*client{ff.admin, ff.admin.htmx()} {
			r := cl.post(c.path, c.form)
			require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
			require.Contains(t, parseDoc(t, r.Body).byID("board-problem").text(), c.name)
		}
	}
	require.Equal(t, before.UpdatedAt, ff.storedJob(ff.orgA.ID, orphan.ID).UpdatedAt)

	// Members cannot change the board; a missing token is refused.
	require.Equal(t, http.StatusForbidden, ff.membr.post(assign, url.Values{"technician_id": {""}}).Code)
	require.Equal(t, http.StatusForbidden, ff.admin.postNoCSRF(assign, url.Values{"technician_id": {""}}).Code)
	require.Equal(t, http.StatusForbidden, ff.admin.htmx().postNoCSRF(assign, url.Values{"technician_id": {""}}).Code)
	require.Equal(t, bo.ID, ff.storedJob(ff.orgA.ID, open.ID).TechnicianID)
	require.Zero(t, ff.storedJob(ff.orgB.ID, theirs.ID).TechnicianID)

	// Adding a job from the board goes back to the board of its day;
	// a bad one re-renders the board with the form (422).
	form := jobValues("Board Co", "2026-03-04", "13:00", "14:00")
	form.Set("next", "board")
	form.Set("technician_id", fmt.Sprint(bo.ID))
	r = ff.admin.post("/orgs/acme/jobs", form)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "/orgs/acme/board?date=2026-03-04&notice=job-added", r.Header.Get("Location"))
	require.Contains(t, column(parseDoc(t, ff.admin.get(r.Header.Get("Location")).Body), bo.ID), "Board Co")
	form.Set("to", "12:00")
	r = ff.admin.post("/orgs/acme/jobs", form)
	requireFieldError(t, r, "to")
	require.NotNil(t, parseDoc(t, r.Body).byID("board"))
}

// TestJobDeletedFromItsPage: an admin (or a dispatcher: whoever edits
// jobs) deletes a job from its page, behind a confirmation, with the
// form's CSRF token and the version the page was read at (a newer one is
// a 409, nothing deleted), and lands on the jobs list with a notice. A
// member sees no button and is refused; another org's job is a 404. (The
// route matrix skips this route, which would delete the job its other
// routes use: the visitors it would walk are walked here.)
func TestJobDeletedFromItsPage(t *testing.T) {
	ff := setupField(t)
	f := ff.fixture
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(f.orgA.ID, "Initech", day, ff.ana.ID)
	other := ff.job(f.orgB.ID, "Globex", day, 0)
	page, del := fmt.Sprintf("/orgs/acme/jobs/%d", j.ID), fmt.Sprintf("/orgs/acme/jobs/%d/delete", j.ID)
	version := url.Values{"version": {strconv.FormatInt(j.Version, 10)}}
	stored := func(id int64) int {
		return ff.count(`SELECT count(*) FROM jobs WHERE id = $1`, id)
	}

	r := ff.admin.get(page)
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body, `id="job-delete"`)
	require.Contains(t, r.Body, `action="`+del+`"`)
	require.Contains(t, r.Body, `data-confirm="Delete the job for Initech? This cannot be undone."`)
	require.NotContains(t, ff.membr.get(page).Body, `id="job-delete"`, "a member edits no job")

	r = f.anon().post(del, version)
	require.Equal(t, http.StatusSeeOther, r.Code, "not signed in")
	require.True(t, isSignIn(r.Header.Get("Location")), r.Header.Get("Location"))
	require.Equal(t, http.StatusForbidden, ff.membr.post(del, version).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(del, version).Code, "another org's admin")
	require.Equal(t, http.StatusForbidden, ff.admin.postNoCSRF(del, version).Code)
	r = ff.admin.post(del, url.Values{"version": {strconv.FormatInt(j.Version+1, 10)}})
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.Equal(t, http.StatusNotFound, ff.admin.post(fmt.Sprintf("/orgs/acme/jobs/%d/delete", other.ID), nil).Code)
	require.Equal(t, 1, stored(j.ID), "nothing deleted")
	require.Equal(t, 1, stored(other.ID))

	r = ff.admin.post(del, version)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "/orgs/acme/jobs?notice=job-deleted", r.Header.Get("Location"))
	require.Contains(t, ff.admin.get(r.Header.Get("Location")).Body, "Job deleted.")
	require.Equal(t, 0, stored(j.ID))
	require.Equal(t, 1, ff.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'field.job.delete' AND actor_email = $2`,
		f.orgA.ID, f.adminA.Email))
	require.Equal(t, 1, ff.count(`SELECT count(*) FROM field_tombstones WHERE org_id = $1 AND kind = 'job' AND id = $2`, f.orgA.ID, j.ID))
	require.Equal(t, http.StatusNotFound, ff.admin.post(del, nil).Code)

	d := f.member(f.orgA, "dispatcher@acme.test", tenants.RoleDispatcher)
	k := ff.job(f.orgA.ID, "Hooli", day, 0)
	r = f.as(&d).post(fmt.Sprintf("/orgs/acme/jobs/%d/delete", k.ID), url.Values{"version": {strconv.FormatInt(k.Version, 10)}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, 0, stored(k.ID))
}
