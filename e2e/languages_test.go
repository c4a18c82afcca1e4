package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/demo"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
	"fieldbrief/internal/worker"
)

// Languages and formats (docs/i18n.md), in a browser at a phone's width (390 px): each
// of the four languages on an org page and in an email, on the demo's own
// orgs where it has them. Bergmann (de-DE) reads German on a 24-hour clock,
// Northwind (en-US) English on a 12-hour clock, Maria Lopez (a Spanish
// speaking technician at Northwind) gets a Spanish email and day page on
// the US clock (es-US), a Spanish-speaking Northwind member who chose
// Spanish on her profile reads the board in Spanish, and an fr-FR org (the
// demo has none; the test makes one) reads French on a 24-hour clock.
//
// Each surface is checked for: <html lang>; words of its language read from
// the catalog files (internal/i18n), plus a few literal native phrases, so
// a catalog that lost or garbled them fails too; no other language's words;
// no raw message id, pseudo-locale marker or missing template value; the
// times in the locale's clock, written out by hand here (not by
// internal/locale, the code under test): "4:30 PM" with U+202F for en-US,
// "4:30 p.m." for es-US, "16:30" for de-DE and fr-FR, and no time of the
// other clock; nothing wider than the screen, and no text wider than its
// box (squeezedJS). The pages: sign-in, profile (es), day board, job list,
// technicians, briefings, today's briefing; the emails: the technician's and the
// dispatcher's briefing, as the worker sent them; and the technician's day
// page from the email's link. Screenshots: docs/i18n.md, "Screenshots".
func TestLanguagesPagesAndEmailsAt390(t *testing.T) {
	e := startEnv(t)
	now := time.Now()
	sum, err := demo.Seed(e.ctx, e.store.Accounts, now)
	e.must("seed the demo data", err)
	e.trace("demo seeded")
	orgOf := func(slug string) tenants.Org {
		t.Helper()
		if !slices.ContainsFunc(sum.Orgs, func(o demo.OrgSummary) bool { return o.Slug == slug }) {
			t.Fatalf("the demo has no org %q: %+v", slug, sum.Orgs)
		}
		o, err := e.store.Tenants.OrgBySlug(e.ctx, slug)
		e.must("find demo org "+slug, err)
		return o
	}
	northwind, bergmann := orgOf("northwind"), orgOf("bergmann")
	lumiere := e.seedFrenchOrg(now)

	// Each org's briefing is due at this minute, every day, so the real
	// worker tick below fires it and sends it (a firing long after its
	// minute would be "late" and send nothing; docs/delivery.md).
	for _, o := range []struct {
		org            tenants.Org
		zone, dispatch string
	}{
		{northwind, "America/New_York", "dispatch@northwind.test"},
		{bergmann, "Europe/Berlin", "dispatch@bergmann.test"},
		{lumiere, "Europe/Paris", "dispatch@lumiere.test"},
	} {
		z, err := schedule.LoadZone(o.zone)
		e.must("zone "+o.zone, err)
		cfg := fmt.Sprintf(`{"briefing":{"timezone":%q,"schedule_local_time":%q,"enabled":true},"delivery":{"email":{"to":[%q],"technicians":true}}}`,
			o.zone, now.In(z.Loc).Format("15:04"), o.dispatch)
		_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, o.org.ID, []byte(cfg), tenants.AnyVersion)
		e.must("schedule "+o.org.Slug+"'s briefing for now", err)
	}

	// The real worker path: a tick, the generation, a delivery task per
	// recipient, through SMTP to a sink.
	sink := transporttest.NewSMTPServer(t)
	mailer, err := transport.NewMailer(sink.URL, e.db)
	e.must("mailer", err)
	w := &worker.Worker{DB: e.db, Log: slog.New(slog.NewTextHandler(e.logs, nil)), Now: func() time.Time { return now },
		Sender: &delivery.Sender{Mailer: mailer, From: "fieldbrief <briefings@fieldbrief.test>", BaseURL: e.url}}
	res, err := w.RunOnce(e.ctx, now, 30*time.Second)
	e.must("run the worker once", err)
	if len(res.Pending) > 0 {
		t.Fatalf("the worker left tasks pending: %+v", res)
	}
	emails := map[string]transporttest.Received{}
	for _, m := range sink.Messages() {
		emails[strings.Join(m.To, ",")] = m
	}
	e.trace("worker ran: %d emails", len(emails))

	cat := readCatalogs(t)
	cases := languageCases(sum.Password)
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.lang
	}
	e.inParallel(names, func(p *env, i int) {
		c := cases[i]
		k := checker{t: p.t, c: c, cat: cat}
		p.languagePages(k, now)
		m, ok := emails[c.techEmail]
		if !ok {
			p.t.Fatalf("no email to %s (%s); the sink has: %v", c.tech, c.techEmail, slices.Sorted(maps.Keys(emails)))
		}
		p.languageEmails(k, m, emails[c.dispatch], now)
	})
}

// langCase is one language's reader, technician and the literal phrases
// pinned for it.
type langCase struct {
	lang, locale   string // catalog language; formats locale, <html lang>
	reader         account
	chooseLanguage bool   // the reader picks lang on their profile first (else it is the org's)
	accept         string // the browser's Accept-Language, for the sign-in page
	slug, zone     string
	tech           string // a technician whose email and day page are checked
	techEmail      string
	dispatch       string // the org's dispatcher when the org reads lang, else ""
	// Literal native phrases: the board's heading, the technician email's
	// title, the zone's name.
	board, yourDay, zoneName string
	out                      string                // the dispatcher's summary: technicians out in the field (not absent)
	clock                    func(h, m int) string // the locale's clock, by hand
	otherClock               *regexp.Regexp        // a time in the clock the locale does not use
}

var (
	// A 24-hour time past noon: never on a 12-hour page.
	hour24 = regexp.MustCompile(`\b(1[3-9]|2[0-3]):[0-5]\d\b`)
	// A time with a day period as CLDR writes them for en and es: never on
	// a 24-hour page. (Not "am": German writes "am 26.")
	dayPeriod = regexp.MustCompile(`\d[ \x{a0}\x{202f}]?(AM|PM|a\. ?m\.|p\. ?m\.)`)
)

// clock12 writes h:mm and the day period as CLDR does for en-US and es-US:
// joined by U+202F NARROW NO-BREAK SPACE.
func clock12(am, pm string) func(h, m int) string {
	return func(h, m int) string {
		period := am
		if h >= 12 {
			period = pm
		}
		if h12 := h % 12; h12 != 0 {
			return fmt.Sprintf("%d:%02d\u202f%s", h12, m, period)
		}
		return fmt.Sprintf("12:%02d\u202f%s", m, period)
	}
}

func clock24(h, m int) string { return fmt.Sprintf("%02d:%02d", h, m) }

func languageCases(demoPassword string) []langCase {
	return []langCase{
		{lang: "en", locale: "en-US", reader: account{"admin@northwind.test", demoPassword}, accept: "en-US,en",
			slug: "northwind", zone: "America/New_York", tech: "Aisha Khan", techEmail: "aisha.khan@northwind.test",
			dispatch: "dispatch@northwind.test", out: "technicians out",
			board: "Day board", yourDay: "Your day", zoneName: "Eastern Time (New York)",
			clock: clock12("AM", "PM"), otherClock: hour24},
		{lang: "de", locale: "de-DE", reader: account{"admin@bergmann.test", demoPassword}, accept: "de-DE,de",
			slug: "bergmann", zone: "Europe/Berlin", tech: "Lena Schmidt", techEmail: "lena.schmidt@bergmann.test",
			dispatch: "dispatch@bergmann.test", out: "Techniker im Einsatz",
			board: "Tagesplan", yourDay: "Ihr Tag", zoneName: "Mitteleuropäische Zeit (Berlin)",
			clock: clock24, otherClock: dayPeriod},
		// A Spanish speaker in the en-US org: Spanish words, US formats.
		{lang: "es", locale: "es-US", reader: account{"member@northwind.test", demoPassword}, chooseLanguage: true, accept: "es-US,es",
			slug: "northwind", zone: "America/New_York", tech: "Maria Lopez", techEmail: "maria.lopez@northwind.test",
			out:   "técnicos en campo",
			board: "Tablero del día", yourDay: "Su día", zoneName: "hora oriental (Nueva York)",
			clock: clock12("a.m.", "p.m."), otherClock: hour24},
		{lang: "fr", locale: "fr-FR", reader: account{"admin@lumiere.test", password}, accept: "fr-FR,fr",
			slug: "lumiere", zone: "Europe/Paris", tech: "Camille Martin", techEmail: "camille.martin@lumiere.test",
			dispatch: "dispatch@lumiere.test", out: "technicien sur le terrain",
			board: "Planning du jour", yourDay: "Votre journée", zoneName: "heure d’Europe centrale (Paris)",
			clock: clock24, otherClock: dayPeriod},
	}
}

// seedFrenchOrg makes the fr-FR org the demo lacks: Plomberie Lumière in
// Paris, its admin, and a technician with two jobs today, 08:00–10:00 and
// 14:30–16:30 Paris time (the windows the demo's first slots use).
func (e *env) seedFrenchOrg(now time.Time) tenants.Org {
	e.t.Helper()
	org, err := e.store.Tenants.CreateOrg(e.ctx, "lumiere", "Plomberie Lumière", time.Time{})
	e.must("create the French org", err)
	_, err = e.store.Tenants.SetLocale(e.ctx, audit.System, org.ID, "fr-FR")
	e.must("set its locale", err)
	e.addUser(account{"admin@lumiere.test", password}, false, org, tenants.RoleAdmin)
	var tech int64
	e.must("add its technician", e.db.QueryRow(e.ctx, `INSERT INTO technicians (org_id, name, email, phone)
		VALUES ($1, 'Camille Martin', 'camille.martin@lumiere.test', '+33 6 55 50 12 01') RETURNING id`, org.ID).Scan(&tech))
	paris, err := schedule.LoadZone("Europe/Paris")
	e.must("zone", err)
	y, m, d := now.In(paris.Loc).Date()
	for _, j := range []struct {
		customer, address, kind string
		h, min                  int
	}{
		{"Boulangerie Dupont", "12 rue des Martyrs, 75009 Paris", "Entretien", 8, 0},
		{"Cabinet du Dr Lefèvre", "48 boulevard Voltaire, 75011 Paris", "Réparation", 14, 30},
	} {
		start := time.Date(y, m, d, j.h, j.min, 0, 0, paris.Loc)
		_, err := e.db.Exec(e.ctx, `
			INSERT INTO jobs (org_id, technician_id, customer, address, job_type, arrival_start, arrival_end)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			org.ID, tech, j.customer, j.address, j.kind, start, start.Add(2*time.Hour))
		e.must("add a job for "+j.customer, err)
	}
	return org
}

// languagePages signs in at 390 px and checks the sign-in page (in the
// browser's language), the profile (where the Spanish reader chooses
// Spanish), the day board, the job list, the technicians page, the
// briefings page and today's briefing.
func (p *env) languagePages(k checker, now time.Time) {
	p.t.Helper()
	c := k.c
	s := p.newSession(c.lang + "-reader")
	s.do("phone viewport and "+c.accept,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders,
				network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": c.accept}})
			return err
		}))

	// Signed out, the browser's language decides.
	s.open("/login")
	k.page(s, "the sign-in page", "signin.title", "signin.email", "signin.password", "signin.forgot")
	s.screenshot("50-lang-" + c.lang + "-signin-390")
	s.login(c.reader)

	if c.chooseLanguage {
		s.open("/profile")
		s.setValue("#language", c.lang)
		s.submit("#save-language")
		s.waitText(`main .notice[role="status"]`)
		k.page(s, "the profile", "notice.language_saved", "profile.language_heading")
		s.screenshot("50-lang-" + c.lang + "-profile-390")
	}

	// The day board: today's jobs, so both a morning and an afternoon window.
	s.open("/orgs/" + c.slug + "/board")
	s.waitText("#board")
	txt := k.page(s, "the day board", "board.heading", "board.prev", "board.next", "board.unassigned", "board.times_in", "nav.jobs", "nav.technicians")
	// The board names its zone as the reader knows it, the IANA id in
	// small print after it.
	k.contains("the day board", txt, c.board, c.zoneName, c.zone, c.clock(10, 0), c.clock(16, 30))
	s.screenshot("51-lang-" + c.lang + "-board-390")

	// The same day as a list, and the team.
	s.open("/orgs/" + c.slug + "/jobs")
	s.waitText("main table")
	txt = k.page(s, "the job list", "jobs.heading", "jobs.of_the_day", "jobs.show", "jobs.times_in")
	k.contains("the job list", txt, c.clock(10, 0), c.clock(16, 30))
	s.screenshot("51b-lang-" + c.lang + "-jobs-390")
	s.open("/orgs/" + c.slug + "/technicians")
	txt = k.page(s, "the technicians page", "technicians.heading", "technicians.team", "technicians.active")
	k.contains("the technicians page", txt, c.tech)
	s.screenshot("51c-lang-" + c.lang + "-technicians-390")

	s.open("/orgs/" + c.slug + "/briefings")
	txt = k.page(s, "the briefings page", "briefings.title", "briefings.next_run", "briefings.last_two_weeks")
	k.contains("the briefings page", txt, c.zoneName)
	// The next run is at this test's minute, tomorrow: some time in the clock.
	if c.otherClock == hour24 && !regexp.MustCompile(`\d:\d\d\x{202f}(AM|PM|a\.m\.|p\.m\.)`).MatchString(txt) ||
		c.otherClock == dayPeriod && !regexp.MustCompile(`\b\d\d:\d\d\b`).MatchString(txt) {
		p.t.Errorf("%s: the briefings page shows no time in the %s clock:\n%s", c.lang, c.locale, txt)
	}
	s.screenshot("52-lang-" + c.lang + "-briefings-390")

	// Today's briefing, as the worker made it.
	z, err := schedule.LoadZone(c.zone)
	p.must("zone", err)
	s.open("/orgs/" + c.slug + "/briefings/" + schedule.DateOf(now.In(z.Loc)).String())
	txt = k.page(s, "today's briefing", "briefing.zone", "briefing.generated", "briefing.runs", "briefing.times_in")
	k.contains("today's briefing", txt, c.zoneName, c.out, c.clock(10, 0), c.clock(16, 30))
	s.screenshot("52b-lang-" + c.lang + "-briefing-390")
}

// languageEmails loads the technician's email (and the dispatcher's, when
// the org reads this language) as the worker sent them, in a phone's
// browser, and opens the day link from the technician's email.
func (p *env) languageEmails(k checker, tech, disp transporttest.Received, now time.Time) {
	p.t.Helper()
	c := k.c
	phone := p.newSession(c.lang + "-technician")
	phone.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))

	subject, html := p.emailOf(tech)
	if !strings.HasPrefix(subject, c.yourDay) {
		p.t.Errorf("%s: the subject of %s's email is %q, want it to start with %q", c.lang, c.tech, subject, c.yourDay)
	}
	ends := p.jobEnds(c, now)
	phone.openHTML(html)
	txt := k.page(phone, c.tech+"'s email", "mail.title_technician", "mail.own.jobs", "mail.open_day", "mail.times_in")
	k.contains(c.tech+"'s email", txt, append([]string{c.yourDay, c.zoneName}, ends...)...)
	phone.screenshot("53-lang-" + c.lang + "-email-390")

	link := regexp.MustCompile(`href="` + regexp.QuoteMeta(p.url) + `(/t/[A-Za-z0-9_-]{43})"`).FindStringSubmatch(html)
	if link == nil {
		p.t.Fatalf("%s: no day link in %s's email", c.lang, c.tech)
	}
	if status := phone.open(link[1]); status != 200 {
		p.t.Fatalf("%s: the day link answered %d", c.lang, status)
	}
	txt = k.page(phone, c.tech+"'s day page", "daylink.title", "daylink.valid_until")
	k.contains(c.tech+"'s day page", txt, append([]string{c.tech, c.zoneName}, ends...)...)
	phone.screenshot("54-lang-" + c.lang + "-day-390")

	if c.dispatch == "" {
		return
	}
	if disp.Raw == nil {
		p.t.Fatalf("%s: no email to the dispatcher %s", c.lang, c.dispatch)
	}
	_, html = p.emailOf(disp)
	phone.openHTML(html)
	txt = k.page(phone, "the dispatcher's email", "mail.title", "mail.routes", "mail.open_briefing")
	k.contains("the dispatcher's email", txt, c.zoneName, c.out, c.clock(10, 0), c.clock(16, 30))
	phone.screenshot("55-lang-" + c.lang + "-dispatcher-email-390")
}

// emailOf is an email's decoded subject and HTML body.
func (p *env) emailOf(m transporttest.Received) (subject, html string) {
	p.t.Helper()
	parsed, err := m.Parse()
	p.must("parse the email to "+strings.Join(m.To, ","), err)
	subject, err = new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	p.must("decode its subject", err)
	_, html, err = m.Bodies()
	p.must("read its bodies", err)
	return subject, html
}

// jobEnds are the ends of the technician's windows today (cancelled jobs
// aside), in the locale's clock: each ends a range, so it carries its day
// period in a 12-hour clock ("9:30 – 11:30 AM").
func (p *env) jobEnds(c langCase, now time.Time) []string {
	p.t.Helper()
	z, err := schedule.LoadZone(c.zone)
	p.must("zone", err)
	y, m, d := now.In(z.Loc).Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, z.Loc)
	rows, err := p.db.Query(p.ctx, `
		SELECT j.arrival_end FROM jobs j JOIN technicians t ON t.id = j.technician_id
		WHERE t.email = $1 AND j.status <> 'cancelled' AND j.arrival_start >= $2 AND j.arrival_start < $3
		ORDER BY j.arrival_start`, c.techEmail, from, from.AddDate(0, 0, 1))
	p.must("read "+c.tech+"'s jobs", err)
	var ends []string
	for rows.Next() {
		var end time.Time
		p.must("scan a job", rows.Scan(&end))
		local := end.In(z.Loc)
		ends = append(ends, c.clock(local.Hour(), local.Minute()))
	}
	p.must("read "+c.tech+"'s jobs", rows.Err())
	if len(ends) < 2 {
		p.t.Fatalf("%s has %d jobs today; the test wants a morning and an afternoon one", c.tech, len(ends))
	}
	return ends
}

// openHTML shows an email's HTML as a page, as a mail app would.
func (s *session) openHTML(html string) {
	s.t.Helper()
	s.do("open an email", chromedp.Navigate("data:text/html;charset=utf-8;base64,"+base64.StdEncoding.EncodeToString([]byte(html))))
	s.waitJS("the email to load", `document.readyState === "complete"`)
}

// catalogs are the message catalogs as the files say, one map of message
// id to text per language (a plural's forms under id.one, id.other, …).
type catalogs map[string]map[string]string

func readCatalogs(t *testing.T) catalogs {
	t.Helper()
	out := catalogs{}
	for _, lang := range i18n.Languages() {
		raw, err := os.ReadFile(filepath.Join("..", "internal", "i18n", "locales", "active."+lang+".toml"))
		if err != nil {
			t.Fatalf("no catalog for %s: %v", lang, err)
		}
		var tree map[string]any
		if _, err := toml.Decode(string(raw), &tree); err != nil {
			t.Fatalf("read the %s catalog: %v", lang, err)
		}
		out[lang] = map[string]string{}
		var walk func(prefix string, m map[string]any)
		walk = func(prefix string, m map[string]any) {
			for k, v := range m {
				switch v := v.(type) {
				case string:
					out[lang][prefix+k] = v
				case map[string]any:
					walk(prefix+k+".", v)
				}
			}
		}
		walk("", tree)
	}
	if len(out["en"]) < 100 {
		t.Fatalf("the en catalog has only %d messages", len(out["en"]))
	}
	return out
}

var templateField = regexp.MustCompile(`\{\{[^}]*\}\}`)

// words is what of a message a page surely shows, whatever its template
// data: its longest piece of literal text.
func (cat catalogs) words(t *testing.T, lang, id string) string {
	t.Helper()
	msg, ok := cat[lang][id]
	if !ok {
		t.Fatalf("the %s catalog has no message %s", lang, id)
	}
	best := ""
	for _, part := range templateField.Split(msg, -1) {
		if part = strings.TrimSpace(part); len(part) > len(best) {
			best = part
		}
	}
	return best
}

// rawID matches what looks like a message id printed as text
// ("briefings.title", "mail.own.jobs").
var rawID = regexp.MustCompile(`\b[a-z][a-z_]*(\.[a-z][a-z_]*)+\b`)

// doubledPeriod is a word followed by two periods (not an ellipsis).
var doubledPeriod = regexp.MustCompile(`\pL+\.\.(\s|$)`)

// checker holds the checks every surface of one language gets.
type checker struct {
	t   *testing.T
	c   langCase
	cat catalogs
}

// page checks the page the session shows (at most a few seconds after it
// started loading) and returns its visible text: <html lang>, the words of
// the given catalog messages, no other language's words, no raw ids, the
// clock, no horizontal overflow.
func (k checker) page(s *session, what string, ids ...string) string {
	k.t.Helper()
	c := k.c
	want := make([]string, len(ids))
	for i, id := range ids {
		want[i] = k.cat.words(k.t, c.lang, id)
	}
	txt := s.waitTextWhere("body", func(txt string) bool { return containsAll(txt, want...) },
		fmt.Sprintf("say (in %s) %q", c.lang, want))
	lang, err := eval[string](s, `document.documentElement.lang`)
	k.must(what, "read <html lang>", err)
	if lang != c.locale {
		k.t.Errorf("%s: %s has <html lang=%q>, want %q", c.lang, what, lang, c.locale)
	}
	// Another language's words: the day board's name in the navigation, the
	// technician's "open your day".
	for _, other := range i18n.Languages() {
		if other == c.lang {
			continue
		}
		for _, id := range []string{"nav.board", "mail.open_day", "signin.forgot"} {
			if w := k.cat.words(k.t, other, id); w != k.cat.words(k.t, c.lang, id) && strings.Contains(txt, w) {
				k.t.Errorf("%s: %s shows %q, the %s of %s", c.lang, what, w, other, id)
			}
		}
	}
	for _, m := range rawID.FindAllString(txt, -1) {
		if _, isID := k.cat["en"][m]; isID || k.isTable(m) {
			k.t.Errorf("%s: %s shows the raw message id %q", c.lang, what, m)
		}
	}
	for _, bad := range []string{i18n.MarkOpen, i18n.MarkClose, "<no value>", "%!"} {
		if strings.Contains(txt, bad) {
			k.t.Errorf("%s: %s shows %q: a message rendered wrong", c.lang, what, bad)
		}
	}
	// A message ending a sentence after a date whose CLDR form ends in a
	// period ("Fr., 27. Nov.") prints "Nov.." unless it is written around it.
	if m := doubledPeriod.FindString(txt); m != "" {
		k.t.Errorf("%s: %s shows %q: a sentence's period after an abbreviation's", c.lang, what, m)
	}
	if m := c.otherClock.FindString(txt); m != "" {
		k.t.Errorf("%s: %s shows %q, a time in a clock %s does not use:\n%s", c.lang, what, m, c.locale, txt)
	}
	js := overflowJS
	if !strings.HasPrefix(s.pathOr(), s.e.url) { // an email: no <main>
		js = strings.Replace(overflowJS, "main *, ", "body *, ", 1)
	}
	over, err := eval[[]string](s, js)
	k.must(what, "measure overflow", err)
	if len(over) > 0 {
		k.t.Errorf("%s: at 390 px %s reaches past the screen: %q", c.lang, what, over)
	}
	squeezed, err := eval[[]string](s, squeezedJS)
	k.must(what, "measure the boxes", err)
	if len(squeezed) > 0 {
		k.t.Errorf("%s: at 390 px %s has text wider than its box (content > box width, px): %q", c.lang, what, squeezed)
	}
	return txt
}

// squeezedJS lists (at most ten) elements of the main content whose
// content is wider than their box and spills out visibly, and stacked
// table cells whose column name is taller than the cell (it then runs into
// the next line): a language's longer words ("← Vorheriger Tag", "Correo
// electrónico") squeezed into a box sized for English, which overflowJS
// does not see when the page itself keeps its width. Elements that scroll
// or clip on purpose, and the tables and board that scroll sideways, are
// left out of the first check.
const squeezedJS = `(() => {
	const out = [];
	const scope = document.querySelector("main") || document.body;
	for (const el of scope.querySelectorAll("*")) {
		if (el.clientWidth === 0) continue;
		// A stacked table's cell shows its column's name on its left
		// (app.css): the name must fit the cell's height.
		if (el.matches("td[data-label]")) {
			const label = parseFloat(getComputedStyle(el, "::before").height);
			if (label > el.clientHeight + 1) out.push("the label of td " + el.dataset.label + " " + Math.round(label) + " > " + el.clientHeight);
		}
		const cs = getComputedStyle(el);
		if (cs.overflowX !== "visible" && el.tagName !== "INPUT") continue;
		if (el.closest(".table-wrap, .board")) continue;
		if (el.scrollWidth > el.clientWidth + 1) out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + el.className + " " + el.scrollWidth + " > " + el.clientWidth + " " + (el.innerText || el.value || "").slice(0, 30));
	}
	return out.slice(0, 10);
})()`

// isTable reports whether s is a plural message's id ("count.jobs"),
// whose forms are id.one, id.other.
func (k checker) isTable(s string) bool {
	_, ok := k.cat["en"][s+".other"]
	return ok
}

// contains fails for each literal the text lacks.
func (k checker) contains(what, txt string, want ...string) {
	k.t.Helper()
	for _, w := range want {
		if !strings.Contains(txt, w) {
			k.t.Errorf("%s: %s lacks %q:\n%s", k.c.lang, what, w, txt)
		}
	}
}

func (k checker) must(what, step string, err error) {
	k.t.Helper()
	if err != nil {
		k.t.Fatalf("%s: %s: %s: %v", k.c.lang, what, step, err)
	}
}
