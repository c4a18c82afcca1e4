package e2e

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/briefing"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/worker"
)

// Selectors of the field data screens (views/technicians.templ,
// views/jobs.templ, views/board.templ).
const (
	techniciansPath = "/orgs/acme/technicians"
	boardPath       = "/orgs/acme/board"
	technicianForm  = `#technician-form`
	jobForm         = `#job-form`
	unassignedCol   = `#board .tl-row[data-technician="0"]`
)

// An admin adds a technician, adds a job on the day board (unassigned) and
// assigns it there with htmx. The briefing generated before the assignment
// lists it as unassigned; the day's scheduled briefing, made by a tick of
// the worker after it, lists it under the technician and no longer as
// unassigned.
func TestAdminAssignsAJobOnTheBoardAndTheBriefingFollows(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)

	admin.open(techniciansPath)
	admin.typeInto(technicianForm+` #name`, "Tess Tech")
	admin.typeInto(technicianForm+` #email`, "tess@acme.test")
	if status := admin.submit(technicianForm + ` button[type="submit"]`); status != 200 {
		t.Fatalf("adding a technician answered %d after the redirect:\n%s", status, admin.text("main"))
	}
	admin.waitText(`main .notice[role="status"]`, "Technician added")
	admin.waitText(`table.technicians`, "Tess Tech")
	var techID int64
	e.must("find the technician", e.db.QueryRow(e.ctx, `SELECT id FROM technicians WHERE org_id = $1 AND name = 'Tess Tech'`, e.orgA.ID).Scan(&techID))
	techCol := fmt.Sprintf(`#board .tl-row[data-technician="%d"]`, techID)

	// The board of today, Berlin time: the new technician has a column.
	admin.open(boardPath)
	admin.waitText(techCol, "Tess Tech", "No jobs")
	admin.typeInto(jobForm+` #customer`, "Boiler Co")
	admin.typeInto(jobForm+` #address`, "Hauptstraße 1, Berlin")
	admin.setValue(jobForm+` #from`, "10:00")
	admin.setValue(jobForm+` #to`, "12:00")
	if status := admin.submit(jobForm + ` button[type="submit"]`); status != 200 {
		t.Fatalf("adding a job answered %d after the redirect:\n%s", status, admin.text("main"))
	}
	if p := admin.path(); p != boardPath {
		t.Fatalf("after adding a job from the board, the page is %s, want the board", p)
	}
	// acme is en-US: the 12-hour clock, with CLDR's narrow and thin spaces.
	admin.waitText(unassignedCol, "Boiler Co", "10:00\u202fAM\u2009–\u200912:00\u202fPM")

	// The briefing as it stands: the job is unassigned.
	before := e.generateBriefing(e.orgA)
	if !listed(before.Content.Unassigned, "Boiler Co") {
		t.Fatalf("before the assignment, the briefing's unassigned jobs are %v", customers(before.Content.Unassigned))
	}

	// Assign it with htmx: its Move dialog, the technician, confirm; the
	// board is swapped in place.
	admin.moveInDialog(unassignedCol+` article.blk`, techID)
	admin.waitText(techCol, "Boiler Co")
	admin.waitTextWhere(unassignedCol, func(s string) bool { return !strings.Contains(s, "Boiler Co") }, "no longer list Boiler Co")
	if p := admin.path(); p != boardPath {
		t.Errorf("assigning left the board for %s; htmx should answer in place", p)
	}
	admin.screenshot("board-assigned")

	// The day's scheduled briefing, by a tick of the worker: every day at
	// 00:00, so it is due whenever the test runs.
	_, err := e.store.Tenants.SaveFieldforce(e.ctx, audit.System, e.orgA.ID, []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"00:00","enabled":true}}`), tenants.AnyVersion)

	e.must("schedule the briefing for every day", err)
	w := &worker.Worker{DB: e.db, Log: slog.New(slog.NewTextHandler(e.logs, nil))}
	res, err := w.RunOnce(e.ctx, time.Now(), 30*time.Second)
	e.must("run a tick of the worker", err)
	if !slices.Contains(res.Tick.BriefingIDs, before.ID) {
		t.Fatalf("the tick did not fire acme's briefing of today (%d): %+v", before.ID, res.Tick)
	}
	store, err := briefing.NewStore(e.db)
	e.must("briefing store", err)
	after, err := store.Get(e.ctx, e.orgA.ID, before.Date)
	e.must("read the briefing", err)
	if after.Status != briefing.StatusReady || after.Revision <= before.Revision {
		t.Fatalf("after the tick the briefing is %s at revision %d (was %d): %s", after.Status, after.Revision, before.Revision, after.LastError)
	}
	c := after.Content
	if listed(c.Unassigned, "Boiler Co") {
		t.Errorf("the briefing still lists Boiler Co as unassigned")
	}
	i := slices.IndexFunc(c.Technicians, func(d snapshot.TechnicianDay) bool { return d.ID == techID })
	if i < 0 || !listed(c.Technicians[i].Jobs, "Boiler Co") {
		t.Fatalf("the briefing does not list Boiler Co under Tess Tech: %+v", c.Technicians)
	}

	// And the briefing's page says so.
	admin.open("/orgs/acme/briefings/" + after.Date.String())
	page := admin.waitText("main", "Tess Tech", "Boiler Co")
	if !strings.Contains(page, "10:00") {
		t.Errorf("the briefing page should show the window in Berlin time:\n%s", page)
	}
	if admin.exists(`#unassigned`) && strings.Contains(admin.text(`#unassigned`), "Boiler Co") {
		t.Errorf("the briefing page lists Boiler Co as unassigned:\n%s", admin.text(`#unassigned`))
	}
	if today := schedule.DateOf(time.Now().In(berlin(t))); after.Date != today {
		t.Errorf("the briefing is for %s, want Berlin's today %s", after.Date, today)
	}

	// At phone width every field screen fits: nothing wider than the screen.
	admin.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	for _, p := range []struct{ path, wait, name string }{
		{boardPath, "Boiler Co", "field-phone-board"},
		{"/orgs/acme/jobs?date=" + after.Date.String(), "Boiler Co", "field-phone-jobs"},
		{techniciansPath, "Tess Tech", "field-phone-technicians"},
	} {
		admin.open(p.path)
		admin.waitText("main", p.wait)
		wide, err := eval[int](admin, `document.documentElement.scrollWidth - window.innerWidth`)
		e.must("measure "+p.path, err)
		if wide > 0 {
			t.Errorf("%s is %d px wider than a 390 px screen", p.path, wide)
		}
		admin.screenshot(p.name)
	}
}

func listed(jobs []snapshot.JobLine, customer string) bool {
	return slices.ContainsFunc(jobs, func(j snapshot.JobLine) bool { return j.Customer == customer })
}

func customers(jobs []snapshot.JobLine) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Customer)
	}
	return out
}

func berlin(t *testing.T) *time.Location {
	z, err := schedule.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return z.Loc
}
