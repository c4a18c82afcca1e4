package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// TestDaySheetsAndFirstSetup, in the four languages at 390 and 1280 px, in
// one browser session (docs/delivery.md, "Stopping day sheets"; docs/web.md,
// "First setup"): an org's new admin lands on the first setup's checklist,
// whose done steps are ticked from the data; a technician asks on their
// day page to stop their day sheets, the office reads "does not receive
// day sheets since …" on the technician's page and the board, and an
// admin resumes them; a job's form says who a change tells; today's
// briefing made before a job was added says so at the top. The sign-out
// button never says what stopping says.
// Screenshots: docs/i18n.md, "Screenshots".
func TestDaySheetsAndFirstSetup(t *testing.T) {
	e := newEnv(t)
	cat := readCatalogs(t)
	now := time.Now()
	boss := account{"boss@sheets.test", password}
	e.addUser(boss, false, tenants.Org{}, "")
	type orgCase struct {
		lang, locale, slug, zone string
		org                      tenants.Org
		tech, job                int64
		token                    string
	}
	cases := []*orgCase{
		{lang: "en", locale: "en-US", slug: "sheets-en", zone: "America/Chicago"},
		{lang: "de", locale: "de-DE", slug: "sheets-de", zone: "Europe/Berlin"},
		{lang: "es", locale: "es-ES", slug: "sheets-es", zone: "Europe/Madrid"},
		{lang: "fr", locale: "fr-FR", slug: "sheets-fr", zone: "Europe/Paris"},
	}
	for _, c := range cases {
		org, err := e.store.Tenants.ProvisionOrgIn(e.ctx, audit.System, c.slug, "Sheets "+strings.ToUpper(c.lang), c.locale)
		e.must("create org "+c.slug, err)
		c.org = org
		e.addUser(boss, false, org, tenants.RoleAdmin)
		// The zone and time are saved, technicians get their day, one is
		// there with a job today: four of the five steps; no test yet.
		_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, org.ID,
			[]byte(`{"briefing":{"timezone":"`+c.zone+`","schedule_local_time":"07:00"},"delivery":{"email":{"technicians":true}}}`), tenants.AnyVersion)
		e.must("save config", err)
		e.must("add a technician", e.db.QueryRow(e.ctx, `INSERT INTO technicians (org_id, name, email) VALUES ($1, 'Alex Tech', $2) RETURNING id`,
			org.ID, "alex@"+c.slug+".test").Scan(&c.tech))
		zone, err := schedule.LoadZone(c.zone)
		e.must("zone", err)
		today := schedule.DateOf(now.In(zone.Loc))
		start, _ := schedule.DayBounds(zone.Loc, today)
		e.must("add a job", e.db.QueryRow(e.ctx, `INSERT INTO jobs (org_id, technician_id, customer, address, arrival_start, arrival_end)
			VALUES ($1, $2, 'Dogwood Bakery', '500 W 2nd St', $3::timestamptz, $3::timestamptz + interval '1 hour') RETURNING id`,
			org.ID, c.tech, start.Add(14*time.Hour)).Scan(&c.job))
		// Today's briefing, made an hour ago: the job above came after it.
		_, err = e.db.Exec(e.ctx, `
			WITH b AS (
			    INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, trigger, status, content, generated_at, revision, requested_revision)
			    VALUES ($1, $2::date, $3, $4::timestamptz, 'schedule', 'ready', $5::jsonb, $4::timestamptz, 1, 1)
			    RETURNING id, org_id, trigger, content, generated_at)
			INSERT INTO ff_briefing_revisions (org_id, briefing_id, revision, trigger, content, generated_at)
			SELECT org_id, id, 1, trigger, content, generated_at FROM b`,
			org.ID, today.String(), c.zone, now.Add(-time.Hour), `{"date":"`+today.String()+`","timezone":"`+c.zone+`"}`)
		e.must("store today's briefing", err)
		c.token, err = daylinks.Issue(e.ctx, e.db, org.ID, c.tech, today, zone.Loc, now, "alex@"+c.slug+".test")
		e.must("issue a day link", err)
	}

	s := e.newSession("boss")
	s.login(boss)
	for _, width := range []int{390, 1280} {
		s.do(fmt.Sprintf("%d px", width), chromedp.EmulateViewport(int64(width), 900))
		for _, c := range cases {
			w := func(id string) string { return cat.words(t, c.lang, id) }
			name := fmt.Sprintf("%s-%d", c.lang, width)
			techPath := "/orgs/" + c.slug + "/technicians/" + strconv.FormatInt(c.tech, 10)

			// The org's home is the checklist while setup is not done.
			s.open("/orgs/" + c.slug)
			if p := s.path(); p != "/orgs/"+c.slug+"/setup" {
				t.Fatalf("%s: the org's home should be its checklist; got %s", name, p)
			}
			s.waitText("main", w("setup.heading"), w("setup.schedule.title"), w("setup.test.title"))
			s.waitJS("four steps ticked", `document.querySelectorAll('.setup-step[data-done="true"]').length === 4`)
			s.waitJS("the test to do", `document.querySelector('[data-step="test"]').dataset.done === "false"`)
			signOut := s.text("form.signout button")
			if signOut != w("layout.sign_out") {
				t.Errorf("%s: the sign-out button says %q, want %q", name, signOut, w("layout.sign_out"))
			}
			checkFits(t, s, name+" checklist")
			s.screenshot("sheets-" + name + "-setup")

			// The technician asks, on their day page, to stop their day sheets.
			s.open("/t/" + c.token)
			s.waitText("#day-sheets", w("daylink.sheets_heading"), w("daylink.sheets_stop"))
			if strings.EqualFold(s.text("#day-sheets button"), signOut) {
				t.Errorf("%s: the day page's stop button says the sign-out's %q", name, signOut)
			}
			checkFits(t, s, name+" day page")
			s.screenshot("sheets-" + name + "-daypage")
			s.submit("#day-sheets button")
			s.waitJS("the day page says they asked", `document.querySelector('#day-sheets').dataset.daySheets === "stopped"`)
			s.waitText("#day-sheets", w("daylink.sheets_resume"))
			s.screenshot("sheets-" + name + "-daypage-stopped")

			// The office sees it: the technician's page and the board.
			s.open(techPath)
			s.waitText("#day-sheets", w("technicians.no_day_sheets"), w("technicians.resume_day_sheets"))
			checkFits(t, s, name+" technician")
			s.screenshot("sheets-" + name + "-technician")
			s.open("/orgs/" + c.slug + "/board")
			s.waitText(`.tl-note[data-day-sheets="stopped"]`, w("technicians.no_day_sheets"))
			s.screenshot("sheets-" + name + "-board")

			// An admin resumes them.
			s.open(techPath)
			s.submit("#day-sheets button")
			s.waitText("main", w("fieldnotice.day_sheets_resumed"))
			if s.exists(`[data-day-sheets="stopped"]`) {
				t.Errorf("%s: still stopped after the admin resumed", name)
			}

			// The job's form says who a change tells.
			s.open("/orgs/" + c.slug + "/jobs/" + strconv.FormatInt(c.job, 10))
			s.waitText("#told-hint", w("jobform.told"))
			checkFits(t, s, name+" job")
			s.screenshot("sheets-" + name + "-job")

			// Today's briefing, made before the job: it says so at the top.
			s.open("/orgs/" + c.slug + "/briefings/" + today(c.zone).String())
			s.waitText("#changed-since", w("briefing.changed_board"))
			checkFits(t, s, name+" briefing")
			s.screenshot("sheets-" + name + "-briefing-changed")
		}
	}
}

// today is the date in zone now.
func today(zone string) schedule.Date {
	z, _ := schedule.LoadZone(zone)
	return schedule.DateOf(time.Now().In(z.Loc))
}

// checkFits fails when the page reaches past the screen or squeezes text
// past its box (overflowJS, squeezedJS).
func checkFits(t *testing.T, s *session, what string) {
	t.Helper()
	if over, err := eval[[]string](s, overflowJS); err != nil || len(over) > 0 {
		t.Errorf("%s reaches past the screen: %q %v", what, over, err)
	}
	if sq, err := eval[[]string](s, squeezedJS); err != nil || len(sq) > 0 {
		t.Errorf("%s has text wider than its box: %q %v", what, sq, err)
	}
}
