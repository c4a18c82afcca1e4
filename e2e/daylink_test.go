package e2e

import (
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
	"fieldbrief/internal/worker"
)

// A technician opens the day link from the real email the worker sent
// (through SMTP, caught by the sink) on a phone, without an account, and
// sees their own jobs of the day and nobody else's.
func TestTechnicianOpensTheDayLinkFromTheirEmail(t *testing.T) {
	e := newEnv(t)
	org, err := e.store.Tenants.CreateOrg(e.ctx, "austin", "Austin Plumbing", time.Time{})
	e.must("create org", err)
	_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, org.ID, []byte(
		`{"briefing":{"timezone":"America/Chicago","schedule_local_time":"06:30","enabled":true},"delivery":{"email":{"technicians":true}}}`), tenants.AnyVersion)

	e.must("save the schedule", err)

	// Today in Austin, the scheduled minute: the worker runs as at 06:30.
	zone, err := schedule.LoadZone("America/Chicago")
	e.must("zone", err)
	today := schedule.DateOf(time.Now().In(zone.Loc))
	at := func(h, m int) time.Time { return time.Date(today.Year, today.Month, today.Day, h, m, 0, 0, zone.Loc) }
	tech := func(name, email string) int64 {
		var id int64
		e.must("add "+name, e.db.QueryRow(e.ctx, `INSERT INTO technicians (org_id, name, email, phone) VALUES ($1, $2, $3, '+1 512 555 0199') RETURNING id`,
			org.ID, name, email).Scan(&id))
		return id
	}
	job := func(techID int64, customer, address, phone, notes string, start time.Time) {
		_, err := e.db.Exec(e.ctx, `
			INSERT INTO jobs (org_id, technician_id, customer, address, customer_phone, notes, job_type, arrival_start, arrival_end)
			VALUES ($1, $2, $3, $4, $5, $6, 'Water heater', $7::timestamptz, $7::timestamptz + interval '2 hours')`,
			org.ID, techID, customer, address, phone, notes, start)
		e.must("add a job for "+customer, err)
	}
	ana, ben := tech("Ana Ruiz", "ana@austin.test"), tech("Ben Ode", "ben@austin.test")
	job(ana, "Dogwood Bakery", "500 W 2nd St, Austin, TX 78701", "+1 (512) 555-0100", "Gate code 4411\nDog in the yard", at(8, 0))
	job(ana, "Elm Street Clinic", "1201 Elm St, Austin, TX", "", "", at(13, 0))
	job(ben, "Ben's Customer", "9 Oak Ave, Austin, TX", "", "", at(9, 0))

	sink := transporttest.NewSMTPServer(t)
	mailer, err := transport.NewMailer(sink.URL, e.db)
	e.must("mailer", err)
	now := at(6, 30)
	w := &worker.Worker{DB: e.db, Log: slog.New(slog.NewTextHandler(e.logs, nil)), Now: func() time.Time { return now },
		Sender: &delivery.Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: e.url}}
	res, err := w.RunOnce(e.ctx, now, 30*time.Second)
	e.must("run the worker once", err)
	if res.Tick.Enqueued != 1 || len(res.Pending) > 0 {
		t.Fatalf("the worker's run: %+v", res)
	}

	var html string
	for _, m := range sink.Messages() {
		if strings.Join(m.To, ",") == "ana@austin.test" {
			_, html, err = m.Bodies()
			e.must("read Ana's email", err)
		}
	}
	link := regexp.MustCompile(`href="(` + regexp.QuoteMeta(e.url) + `/t/[A-Za-z0-9_-]{43})"`).FindStringSubmatch(html)
	if link == nil {
		t.Fatalf("no day link in Ana's email (%d messages in the sink):\n%s", len(sink.Messages()), html)
	}
	u, err := url.Parse(link[1])
	e.must("parse the day link", err)

	phone := e.newSession("technician")
	phone.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	if status := phone.open(u.Path); status != 200 {
		t.Fatalf("the day link answered %d:\n%s", status, phone.text("body"))
	}
	page := phone.waitText("main", "Ana Ruiz's day", "Dogwood Bakery", "Elm Street Clinic")
	for _, want := range []string{"8:00\u2009–\u200910:00\u202fAM C", "500 W 2nd St, Austin, TX 78701", "+1 (512) 555-0100", "Water heater", "Gate code 4411\nDog in the yard"} {
		if !strings.Contains(page, want) {
			t.Errorf("the day page lacks %q:\n%s", want, page)
		}
	}
	for _, other := range []string{"Ben", "Sign in", "Sign out", "555 0199"} {
		if strings.Contains(page, other) {
			t.Errorf("the day page shows %q, not Ana's to see:\n%s", other, page)
		}
	}
	if p := phone.path(); p != u.Path {
		t.Errorf("the day link went on to %s", p)
	}
	hrefs, err := eval[[]string](phone, `[...document.querySelectorAll("main a")].map(a => a.href)`)
	e.must("read the links", err)
	for _, want := range []string{"https://www.google.com/maps/search/?api=1&query=500+W+2nd+St%2C+Austin%2C+TX+78701", "tel:+15125550100"} {
		if !containsAll(strings.Join(hrefs, " "), want) {
			t.Errorf("no link %s on the page; links: %q", want, hrefs)
		}
	}
	over, err := eval[[]string](phone, overflowJS)
	e.must("measure overflow", err)
	if len(over) > 0 {
		t.Errorf("at 390 px the day page reaches past the screen: %q", over)
	}
	if v := phone.axe(); len(v) > 0 {
		t.Errorf("axe-core found %d serious or critical violation(s) on the day page:\n%s", len(v), strings.Join(v, "\n"))
	}
	phone.screenshot("40-day-link-390")

	// A link with one character changed opens nothing.
	tampered := []byte(u.Path)
	last := len(tampered) - 1
	tampered[last] = map[bool]byte{true: 'B', false: 'A'}[tampered[last] == 'A']
	if status := phone.open(string(tampered)); status != 404 {
		t.Errorf("a tampered day link answered %d, want 404", status)
	}
	phone.waitText("main", "expired or is no longer valid")
}

// Signing in from a link (the email's "Open the briefing") lands on the
// page the link pointed to, not on the list.
func TestSignInFromADeepLinkLandsThere(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := e.generateBriefing(e.orgA)
	path := "/orgs/acme/briefings/" + b.Date.String()

	s := e.newSession("admin")
	s.open(path)
	if p := s.path(); p != "/login" {
		t.Fatalf("signed out, %s went to %s, want /login", path, p)
	}
	s.do("fill in the login form", enterText(`input[name="email"]`, adminA.Email), enterText(`input[name="password"]`, adminA.Password))
	if status := s.submit(`form:has(input[name="password"]) [type="submit"]`); status != 200 {
		t.Fatalf("signing in answered %d", status)
	}
	if p := s.path(); p != path {
		t.Fatalf("after signing in the browser is on %s, want %s", p, path)
	}
	s.waitText("main h1", "Briefing for "+locale.Default().LongDate(b.Date.Time())) // en-US: "Wednesday, March 4, 2026"
}
