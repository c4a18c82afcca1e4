package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
)

const briefingsPath = "/orgs/acme/briefings"

// nyWeekdays is acme's schedule in most briefing tests.
const nyWeekdays = `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["mon","tue","wed","thu","fri"]}}`

// briefingRow is what a test briefing is made of; zero fields get defaults.
type briefingRow struct {
	Date      string
	Status    string
	Trigger   string
	Content   *snapshot.Snapshot
	LastError string
}

// insertBriefing stores a briefing as the worker would have, and returns its id.
func insertBriefing(t testing.TB, f *fixture, orgID int64, b briefingRow) int64 {
	t.Helper()
	if b.Status == "" {
		b.Status = briefing.StatusReady
	}
	if b.Trigger == "" {
		b.Trigger = briefing.TriggerSchedule
	}
	var content []byte
	if b.Content != nil {
		var err error
		content, err = json.Marshal(b.Content)
		require.NoError(t, err)
	}
	var id int64
	err := f.db.QueryRow(context.Background(), `
		WITH b AS (
		    INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, status, content,
		                              generated_at, last_error, revision, requested_revision)
		    VALUES ($1, $2::date, 'America/New_York', ($2::date + time '13:00') AT TIME ZONE 'UTC',
		            CASE WHEN $3 = 'schedule' THEN ($2::date + time '13:00') AT TIME ZONE 'UTC' END, $3, $4, $5,
		            CASE WHEN $5::jsonb IS NULL THEN NULL ELSE ($2::date + time '13:01') AT TIME ZONE 'UTC' END, $6,
		            CASE WHEN $5::jsonb IS NULL THEN 0 ELSE 1 END, 1)
		    RETURNING id, org_id, trigger, content, generated_at
		), r AS (
		    INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at)
		    SELECT org_id, id, 1, trigger, content, generated_at FROM b WHERE content IS NOT NULL
		)
		SELECT id FROM b`, orgID, b.Date, b.Trigger, b.Status, content, b.LastError).Scan(&id)
	require.NoError(t, err)
	return id
}

// insertRun stores one generation attempt of a briefing.
func insertRun(t testing.TB, f *fixture, orgID, briefingID int64, outcome string, attempt int, errText string) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_briefing_runs (org_id, briefing_id, revision, attempt, trigger, started_at, finished_at, outcome, error, worker)
		VALUES ($1, $2, 1, $3, 'schedule', '2026-03-03 13:00Z', '2026-03-03 13:02Z', $4, $5, 'worker-7')`,
		orgID, briefingID, attempt, outcome, errText)
	require.NoError(t, err)
}

// listRows is the briefings list as date → its row.
func listRows(t *testing.T, c *client, path string) (map[string]*htmlNode, htmlDoc) {
	t.Helper()
	r := c.get(path)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	doc := parseDoc(t, r.Body)
	rows := map[string]*htmlNode{}
	for _, tr := range doc.findAll(func(n *html.Node) bool { _, ok := hasAttr(n, "data-date"); return ok }) {
		rows[tr.attr("data-date")] = &tr
	}
	return rows, doc
}

func TestOrgHomeRedirectsToBriefings(t *testing.T) {
	t.Parallel()
	f := setup(t)
	r := f.as(&f.memberA).get("/orgs/acme")
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, briefingsPath, r.Header.Get("Location"))
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get("/orgs/acme").Code)
}

func TestBriefingListStatusesAndReasons(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03"})
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-02", Status: briefing.StatusFailed, LastError: "database timeout"})
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-02-27"}) // globex's: never shown to acme

	// Wed 2026-03-04 07:00 in New York, an hour before the run.
	setClock(f, time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC))
	rows, doc := listRows(t, f.as(&f.memberA), briefingsPath)
	require.Len(t, rows, 15, "today and the 14 days before")
	require.NotNil(t, rows["2026-03-04"])
	require.NotNil(t, rows["2026-02-18"])

	require.Equal(t, "not_yet", rows["2026-03-04"].attr("data-reason"))
	require.Contains(t, rows["2026-03-04"].text(), "not yet: runs at 8:00 AM", "en-US reads its 12-hour clock")
	require.Contains(t, rows["2026-03-04"].text(), "today")
	require.Equal(t, "ready", rows["2026-03-03"].attr("data-status"))
	require.NotNil(t, rows["2026-03-03"].find(attrIs("href", briefingsPath+"/2026-03-03")))
	require.Equal(t, "failed", rows["2026-03-02"].attr("data-status"))
	require.NotContains(t, rows["2026-03-02"].text(), "database timeout", "errors are for admins")
	require.Equal(t, "day_off", rows["2026-03-01"].attr("data-reason"), "a Sunday")
	require.Equal(t, "day_off", rows["2026-02-28"].attr("data-reason"), "a Saturday")
	require.Equal(t, "missed", rows["2026-02-27"].attr("data-reason"), "a Friday without a briefing")
	require.Contains(t, doc.find(hasClass("next-run")).text(), "Wed, Mar 4 at 8:00 AM (UTC−05:00), 1:00 PM UTC")
	require.Nil(t, doc.find(attrIs("action", briefingsPath+"/generate")), "members cannot generate")

	// 09:00 in New York: due, the worker is about to make it.
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	rows, doc = listRows(t, f.as(&f.adminA), briefingsPath)
	require.Equal(t, "due", rows["2026-03-04"].attr("data-reason"))
	require.Contains(t, doc.find(hasClass("next-run")).text(), "now — today's 8:00 AM has passed: today's briefing will be made now",
		"the worker's catch-up run, not tomorrow's")
	require.NotNil(t, doc.find(attrIs("action", briefingsPath+"/generate")))
	require.Contains(t, doc.find(hasClass("enabled-toggle")).text(), "Pause")
	require.Contains(t, rows["2026-03-02"].text(), "database timeout")
}

// "Generate now" and a test send never change the next run: only a
// scheduled briefing takes its date (docs/scheduling.md, "The next run").
func TestBriefingListNextRunCountsScheduledBriefingsOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["mon","tue","wed","thu","fri"]},`+
		`"delivery":{"email":{"to":["dispatch@acme.test"]}}}`)
	next := func() string {
		t.Helper()
		_, doc := listRows(t, f.as(&f.memberA), briefingsPath)
		return doc.find(hasClass("next-run")).text()
	}
	// Wed 06:00 in New York: today's 08:00 is the next run.
	setClock(f, time.Date(2026, 3, 4, 11, 0, 0, 0, time.UTC))
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-04", Trigger: briefing.TriggerManual})
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-03-04"}) // globex's scheduled one is not acme's
	require.Contains(t, next(), "Wed, Mar 4 at 8:00 AM (UTC−05:00), 1:00 PM UTC", "a look made by hand takes no date")

	// 12:00: 4 h after 08:00, past send_within (3h): made now, kept, not sent.
	setClock(f, time.Date(2026, 3, 4, 17, 0, 0, 0, time.UTC))
	require.Contains(t, next(), "now — today's 8:00 AM has passed: today's briefing will be kept, not sent; first sent: Thu, Mar 5 8:00 AM")
	// 10:00, within send_within: made and sent now.
	setClock(f, time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC))
	require.Contains(t, next(), "now — today's 8:00 AM has passed: today's briefing will be made and sent now")

	// Once the tick fired today, tomorrow's 08:00.
	_, err := f.db.Exec(context.Background(), `UPDATE ff_briefings SET scheduled_at = fired_at WHERE org_id = $1`, f.orgA.ID)
	require.NoError(t, err)
	require.Contains(t, next(), "Thu, Mar 5 at 8:00 AM (UTC−05:00), 1:00 PM UTC")
}

func TestBriefingListUsesTheOrgsLocalDate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Asia/Tokyo","schedule_local_time":"08:00"}}`)
	// 20:00 UTC on the 4th is 05:00 on the 5th in Tokyo.
	setClock(f, time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC))
	rows, _ := listRows(t, f.as(&f.memberA), briefingsPath)
	require.Contains(t, rows["2026-03-05"].text(), "today")
	require.Equal(t, "not_yet", rows["2026-03-05"].attr("data-reason"))
	require.NotNil(t, rows["2026-02-19"])
	require.Nil(t, rows["2026-02-18"])
}

func TestBriefingListWhyNothingRuns(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, f *fixture)
		reason  string
		state   string
	}{
		{"not configured", func(*testing.T, *fixture) {}, "not_configured", "No schedule is saved yet"},
		{"paused", func(t *testing.T, f *fixture) {
			saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","enabled":false}}`)
		}, "paused", "Paused"},
		{"flag off", func(t *testing.T, f *fixture) {
			saveConfig(t, f, f.orgA.ID, nyWeekdays)
			require.NoError(t, f.store.Flags.SetOrg(context.Background(), audit.System, f.orgA.ID, schedule.FlagKey, flags.Off, "test"))
		}, "flag_off", "switched off"},
		{"invalid config", func(t *testing.T, f *fixture) {
			forceConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"8h"}}`)
		}, "invalid_config", "Choose a time between 00:00 and 23:59"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)) // Wed 09:00 in New York
			tc.prepare(t, f)
			rows, doc := listRows(t, f.as(&f.adminA), briefingsPath)
			require.Equal(t, tc.reason, rows["2026-03-04"].attr("data-reason"))
			require.Equal(t, tc.reason, rows["2026-02-27"].attr("data-reason"), "past days too")
			require.Contains(t, doc.find(attrIs("data-state", tc.reason)).text(), tc.state)
			require.Nil(t, doc.find(hasClass("next-run")))
		})
	}
}

// Switched off by the platform, the page says so and nothing contradicts
// it: no "Running" badge, no generate button, no pause/resume.
func TestBriefingListFlagOffOffersNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	require.NoError(t, f.store.Flags.SetOrg(context.Background(), audit.System, f.orgA.ID, schedule.FlagKey, flags.Off, "test"))
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	_, doc := listRows(t, f.as(&f.adminA), briefingsPath)
	state := doc.find(attrIs("data-state", "flag_off"))
	require.Contains(t, state.text(), "Off by the platform")
	require.NotContains(t, state.text(), "Running")
	require.Nil(t, doc.find(attrIs("action", briefingsPath+"/generate")), "generating would be refused")
	require.Nil(t, doc.find(hasClass("enabled-toggle")))

	settings := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body)
	require.NotNil(t, settings.byID("flag-off"))
	require.Nil(t, settings.find(hasClass("enabled-toggle")))
}

// Dates before the org existed are not "missed": nothing was due then.
func TestBriefingListBeforeTheOrgExisted(t *testing.T) {
	t.Parallel()
	// Set up on Mon 2026-03-02 at 09:00 in New York, after that day's run time.
	f := setupCreated(t, time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC))
	saveConfig(t, f, f.orgA.ID, nyWeekdays)                   // weekdays at 08:00 in New York
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)) // Wed 09:00 in New York
	rows, _ := listRows(t, f.as(&f.adminA), briefingsPath)
	require.Equal(t, "missed", rows["2026-03-03"].attr("data-reason"), "the first full day")
	require.Equal(t, "before_setup", rows["2026-03-02"].attr("data-reason"), "set up after that day's 08:00")
	require.Equal(t, "before_setup", rows["2026-02-27"].attr("data-reason"))
	require.Contains(t, rows["2026-02-27"].text(), "before the org was set up")
	require.Equal(t, "before_setup", rows["2026-02-28"].attr("data-reason"), "before set-up beats day off")
}

func TestBriefingListAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	require.Equal(t, http.StatusOK, f.as(&f.memberA).get(briefingsPath).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).get(briefingsPath).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get(briefingsPath+"/2026-03-03").Code)
	r := f.anon().get(briefingsPath)
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, signInTo(briefingsPath), r.Header.Get("Location"))
}

func TestBriefingShowRendersSnapshot(t *testing.T) {
	t.Parallel()
	f := setup(t)
	at := func(h, m int) time.Time { return time.Date(2026, 3, 3, h, m, 0, 0, time.FixedZone("EST", -5*3600)) }
	job := func(customer, window, status, tech string) snapshot.JobLine {
		return snapshot.JobLine{Customer: customer, Address: customer + " HQ", Window: window, Status: status,
			Technician: tech, ArrivalStart: at(8, 0), ArrivalEnd: at(10, 0)}
	}
	snap := &snapshot.Snapshot{
		Date: "2026-03-03", Timezone: "America/New_York",
		Technicians: []snapshot.TechnicianDay{
			{ID: 1, Name: "Ada Lovelace", Phone: "555-0100", Jobs: []snapshot.JobLine{
				job("Initech", "08:00–10:00", "scheduled", "Ada Lovelace"),
				job("Umbrella", "10:30–12:00", "in_progress", "Ada Lovelace"),
			}},
			{ID: 2, Name: "Bob Noyce"},
		},
		Unassigned: []snapshot.JobLine{job("Stark Industries", "13:00–15:00", "scheduled", "")},
		Overdue:    []snapshot.JobLine{job("Wayne Enterprises", "2026-03-01 09:00–11:00", "scheduled", "Bob Noyce")},
		OnHold:     []snapshot.JobLine{job("Oscorp", "2026-03-02 14:00–16:00", "on_hold", "Ada Lovelace")},
		Yesterday:  snapshot.DayCounts{Date: "2026-03-02", Scheduled: 5, Completed: 3},
		Totals:     snapshot.Totals{Technicians: 2, Jobs: 3, Unassigned: 1, Overdue: 1, OnHold: 1},
	}
	id := insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: snap, Trigger: briefing.TriggerManual})
	insertRun(t, f, f.orgA.ID, id, "failed", 5, "connection reset")
	insertRun(t, f, f.orgA.ID, id, "completed", 1, "")

	r := f.as(&f.memberA).get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	doc := parseDoc(t, r.Body)

	ada := doc.findAll(hasClass("technician"))
	require.Len(t, ada, 2)
	require.Contains(t, ada[0].text(), "Ada Lovelace 555-0100")
	require.Regexp(t, `08:00–10:00 EST Initech Initech HQ Scheduled.*10:30–12:00 EST Umbrella Umbrella HQ In progress`, ada[0].text(),
		"jobs in arrival order with window (and its zone, as the email writes it), customer, address and status")
	require.Contains(t, ada[1].text(), "No jobs today")
	require.Contains(t, doc.byID("unassigned").text(), "Unassigned (1)")
	require.Contains(t, doc.byID("unassigned").text(), "Stark Industries")
	require.Contains(t, doc.byID("overdue").text(), "2026-03-01 09:00–11:00 EST Wayne Enterprises Wayne Enterprises HQ Bob Noyce")
	require.Contains(t, doc.byID("on-hold").text(), "Oscorp")
	require.Contains(t, doc.find(attrIs("data-yesterday", "")).text(), "3 of 5 scheduled jobs completed")
	require.Contains(t, doc.find(hasClass("briefing-meta")).text(), "Tue, Mar 3, 2026, 8:00 AM EST (generated on request)")

	revs := doc.findAll(attrIs("data-revision", "1"))
	require.Len(t, revs, 1)
	require.Contains(t, revs[0].text(), "Tue, Mar 3, 2026, 8:01 AM EST")
	require.Contains(t, revs[0].text(), "generate now")

	// Members see outcomes in plain words; errors, worker ids and attempt
	// counts are for admins.
	runs := doc.findAll(attrIs("data-run-state", "failed"))
	require.Len(t, runs, 1)
	require.Contains(t, runs[0].text(), "Failed")
	require.NotContains(t, runs[0].text(), "connection reset")
	require.NotContains(t, runs[0].text(), "worker-7")
	require.Empty(t, runs[0].findAll(attrIs("data-label", "Attempt")), "no attempt count")
	require.NotContains(t, doc.find(hasClass("runs")).text(), "Attempt")
	completed := doc.findAll(attrIs("data-run-state", "completed"))
	require.Len(t, completed, 1)
	require.Contains(t, completed[0].text(), "Generated")
	require.NotContains(t, completed[0].text(), "completed")
	r = f.as(&f.adminA).get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	runs = parseDoc(t, r.Body).findAll(attrIs("data-run-state", "failed"))
	require.Len(t, runs, 1)
	require.Contains(t, runs[0].text(), "connection reset")
	require.Contains(t, runs[0].text(), "worker-7")
	require.Equal(t, "5", runs[0].find(attrIs("data-label", "Attempt")).text())
}

func TestBriefingShowNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Status: briefing.StatusPending})
	insertRun(t, f, f.orgA.ID, id, "retry", 1, "")

	member := f.as(&f.memberA)
	r := member.get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body, "Being generated")
	for _, date := range []string{"2026-3-3", "2026-02-30", "today", "2026-03-03x", "2026-03-04"} {
		require.Equal(t, http.StatusNotFound, member.get(briefingsPath+"/"+date).Code, date)
	}
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).get("/orgs/globex/briefings/2026-03-03").Code, "another org's date")
}

func TestBriefingGenerate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	generate := func() response { t.Helper(); return admin.post(briefingsPath+"/generate", url.Values{}) }
	briefingState := func(date string) (status string, runs int) {
		t.Helper()
		err := f.db.QueryRow(context.Background(), `
			SELECT b.status, (SELECT count(*) FROM river_job j WHERE (j.args->>'briefing_id')::bigint = b.id)
			  FROM ff_briefings b WHERE b.org_id = $1 AND b.briefing_date = $2`, f.orgA.ID, date).Scan(&status, &runs)
		require.NoError(t, err)
		return status, runs
	}

	// Not set up: refused with the reason, on the list.
	r := generate()
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, parseDoc(t, r.Body).byID("problem").text(), "Set the briefing time zone and schedule")

	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	// 22:00 on Tue the 3rd in New York, 03:00 UTC on the 4th: today is the local date.
	setClock(f, time.Date(2026, 3, 4, 3, 0, 0, 0, time.UTC))
	r = generate()
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, briefingsPath+"?notice=generating", r.Header.Get("Location"))
	status, runs := briefingState("2026-03-03")
	require.Equal(t, "pending", status)
	require.Equal(t, 1, runs)
	rows, doc := listRows(t, admin, r.Header.Get("Location"))
	require.Equal(t, "pending", rows["2026-03-03"].attr("data-status"))
	require.Contains(t, doc.find(hasClass("notice")).text(), "Generating")

	// Pressing again while it is on its way shows it: no more jobs.
	r = generate()
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, briefingsPath+"/2026-03-03?notice=already-generating", r.Header.Get("Location"))
	_, runs = briefingState("2026-03-03")
	require.Equal(t, 1, runs)
	page := admin.get(r.Header.Get("Location"))
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, parseDoc(t, page.Body).find(hasClass("notice")).text(), notices["already-generating"])

	// Once made, pressing again refreshes: the same date's briefing, one more job.
	_, err := f.db.Exec(context.Background(), `UPDATE ff_briefings SET status = 'ready', revision = requested_revision WHERE org_id = $1`, f.orgA.ID)
	require.NoError(t, err)
	r = generate()
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, briefingsPath+"?notice=generating", r.Header.Get("Location"))
	_, runs = briefingState("2026-03-03")
	require.Equal(t, 2, runs)

	// A failed briefing is retried the same way.
	_, err = f.db.Exec(context.Background(), `UPDATE ff_briefings SET status = 'failed', last_error = 'boom' WHERE org_id = $1`, f.orgA.ID)
	require.NoError(t, err)
	r = generate()
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	status, runs = briefingState("2026-03-03")
	require.Equal(t, "pending", status)
	require.Equal(t, 3, runs)

	// Members read but do not generate; other orgs do not see it.
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(briefingsPath+"/generate", url.Values{}).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(briefingsPath+"/generate", url.Values{}).Code)
	_, runs = briefingState("2026-03-03")
	require.Equal(t, 3, runs)
}

// TestGenerateNowIsBounded: "generate now" is a look, and a bounded one.
// Ten quick presses queue one generation; past six generations in an hour
// a press is a 429 with Retry-After and the wait in words, on the list;
// another org is not affected.
func TestGenerateNowIsBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	saveConfig(t, f, f.orgB.ID, nyWeekdays)
	admin := f.as(&f.adminA)
	generate := func(c *client, slug string) response {
		t.Helper()
		return c.post("/orgs/"+slug+"/briefings/generate", url.Values{})
	}
	tasks := func(org int64) int {
		t.Helper()
		var n int
		require.NoError(t, f.db.QueryRow(context.Background(), `SELECT count(*) FROM river_job
			 WHERE kind = 'generate_briefing' AND (args->>'org_id')::bigint = $1`, org).Scan(&n))
		return n
	}
	// What the worker does with a queued generation, as far as the web sees it.
	made := func() {
		t.Helper()
		_, err := f.db.Exec(context.Background(), `UPDATE ff_briefings SET status = 'ready', revision = requested_revision WHERE org_id = $1`, f.orgA.ID)
		require.NoError(t, err)
	}

	for range 10 {
		require.Equal(t, http.StatusSeeOther, generate(admin, "acme").Code)
	}
	require.Equal(t, 1, tasks(f.orgA.ID), "ten presses, one generation")
	made()

	// Five more generations, twelve minutes apart from the first: six in all.
	for i := range 5 {
		f.advance(time.Minute)
		r := generate(admin, "acme")
		require.Equal(t, briefingsPath+"?notice=generating", r.Header.Get("Location"), "generation %d", i+2)
		made()
	}
	f.advance(47 * time.Minute) // the first was 52 minutes ago
	r := generate(admin, "acme")
	require.Equal(t, http.StatusTooManyRequests, r.Code, r.Body)
	require.Equal(t, "480", r.Header.Get("Retry-After"))
	problem := parseDoc(t, r.Body).byID("problem")
	require.NotNil(t, problem, r.Body)
	require.Contains(t, problem.text(), "You can generate again in 8 minutes.")
	r = admin.htmx().post(briefingsPath+"/generate", url.Values{})
	require.Equal(t, http.StatusTooManyRequests, r.Code)
	require.Equal(t, "480", r.Header.Get("Retry-After"))
	require.Equal(t, 6, tasks(f.orgA.ID))

	// Another org has its own allowance.
	r = generate(f.as(&f.adminB), "globex")
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, 1, tasks(f.orgB.ID))

	// An hour after the first, acme may again.
	f.advance(8 * time.Minute)
	require.Equal(t, http.StatusSeeOther, generate(admin, "acme").Code)
	require.Equal(t, 7, tasks(f.orgA.ID))
}

// TestBriefingShowZoneRules: the page says which tz database decided the
// briefing, and which built its content when that differs; rows from
// before the rules were recorded say nothing about them.
func TestBriefingShowZoneRules(t *testing.T) {
	t.Parallel()
	f := setup(t)
	snap := &snapshot.Snapshot{Date: "2026-03-03", Timezone: "America/New_York"}
	id := insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: snap})
	page := func() htmlDoc {
		t.Helper()
		r := f.as(&f.memberA).get(briefingsPath + "/2026-03-03")
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		return parseDoc(t, r.Body)
	}

	doc := page()
	require.NotContains(t, doc.find(hasClass("briefing-meta")).text(), "Zone rules", "not recorded: nothing to say")
	require.Contains(t, doc.find(attrIs("data-revision", "1")).text(), "not recorded")

	exec := func(sql string) {
		t.Helper()
		_, err := f.db.Exec(context.Background(), sql, id)
		require.NoError(t, err)
	}
	exec(`UPDATE ff_briefings SET tzdata_version = '2025b', tzdata_source = 'embedded' WHERE id = $1`)
	exec(`UPDATE ff_briefing_revisions SET tzdata_version = '2025b', tzdata_source = 'embedded' WHERE briefing_id = $1`)
	doc = page()
	meta := doc.find(hasClass("zone-rules"))
	require.Equal(t, "tzdata 2025b (embedded)", meta.attr("data-zone-rules"))
	require.Contains(t, doc.find(hasClass("briefing-meta")).text(), "Zone rules tzdata 2025b (built in)")
	require.NotContains(t, meta.text(), "content built with")
	require.Contains(t, doc.find(attrIs("data-revision", "1")).text(), "tzdata 2025b (built in)")

	exec(`UPDATE ff_briefing_revisions SET tzdata_version = '2025c', tzdata_source = 'host' WHERE briefing_id = $1`)
	doc = page()
	require.Contains(t, doc.find(hasClass("zone-rules")).text(), "tzdata 2025b (built in) (content built with tzdata 2025c (the server's))")
	require.Contains(t, doc.find(attrIs("data-revision", "1")).text(), "tzdata 2025c (the server's)")
}
