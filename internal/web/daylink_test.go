package web

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/schedule"
)

// dayTech creates a technician of org and returns its id.
func (f *fixture) dayTech(orgID int64, name, phone string) int64 {
	f.t.Helper()
	var id int64
	require.NoError(f.t, f.db.QueryRow(context.Background(),
		`INSERT INTO technicians (org_id, name, phone) VALUES ($1, $2, $3) RETURNING id`, orgID, name, phone).Scan(&id))
	return id
}

// dayJob creates a job of org for tech (0: nobody) at start, an hour long.
func (f *fixture) dayJob(orgID, tech int64, customer, address, phone, notes, status string, start time.Time) int64 {
	f.t.Helper()
	var techID *int64
	if tech != 0 {
		techID = &tech
	}
	var id int64
	require.NoError(f.t, f.db.QueryRow(context.Background(), `
		INSERT INTO jobs (org_id, technician_id, customer, address, customer_phone, notes, status, job_type, arrival_start, arrival_end)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'Boiler repair', $8::timestamptz, $8::timestamptz + interval '1 hour') RETURNING id`,
		orgID, techID, customer, address, phone, notes, status, start).Scan(&id))
	return id
}

// dayToken issues a day link of tech for date (in Chicago) at the test clock.
func (f *fixture) dayToken(orgID, tech int64, date string) string {
	f.t.Helper()
	d, err := schedule.ParseDate(date)
	require.NoError(f.t, err)
	zone, err := schedule.LoadZone("America/Chicago")
	require.NoError(f.t, err)
	tok, err := daylinks.Issue(context.Background(), f.db, orgID, tech, d, zone.Loc, f.clock.Now(), "")
	require.NoError(f.t, err)
	return tok
}

func requireDayLinkHeaders(t *testing.T, r response) {
	t.Helper()
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	require.Equal(t, "no-referrer", r.Header.Get("Referrer-Policy"))
	require.Contains(t, r.Header.Get("X-Robots-Tag"), "noindex")
}

// TestDayLinkPage: the link opens its technician's jobs of its date, as
// they are now, signed out, with the map and call links, and nothing of
// anyone else's.
func TestDayLinkPage(t *testing.T) {
	t.Parallel()
	f := setup(t) // the clock: Wed 4 Mar 2026 15:00 UTC, 09:00 CST
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "+1 512 555 0199")
	ben := f.dayTech(f.orgA.ID, "Ben Ode", "")
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	f.dayJob(f.orgA.ID, ana, "Dogwood Bakery", "500 W 2nd St, Austin", "+1 (512) 555-0100", "Gate 4411\nDog in yard", "scheduled", at("2026-03-04T14:00:00Z"))
	moved := f.dayJob(f.orgA.ID, ana, "Elm Clinic", "", "", "", "scheduled", at("2026-03-04T18:00:00Z"))
	f.dayJob(f.orgA.ID, ana, "Gum Grocer", "", "", "", "cancelled", at("2026-03-04T20:00:00Z"))
	f.dayJob(f.orgA.ID, ana, "Customer of tomorrow", "", "", "", "scheduled", at("2026-03-05T15:00:00Z"))
	f.dayJob(f.orgA.ID, ben, "Customer of Ben", "", "", "", "scheduled", at("2026-03-04T15:00:00Z"))
	f.dayJob(f.orgA.ID, 0, "Customer of nobody", "", "", "", "scheduled", at("2026-03-04T16:00:00Z"))
	tok := f.dayToken(f.orgA.ID, ana, "2026-03-04")

	r := f.anon().get("/t/" + tok)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	requireDayLinkHeaders(t, r)
	require.Contains(t, r.Body, `<meta name="robots" content="noindex, nofollow">`)
	require.Contains(t, r.Body, `<meta name="viewport" content="width=device-width, initial-scale=1">`)
	require.Contains(t, r.Body, "Ana Ruiz&#39;s day, Wed, Mar 4, 2026")
	require.Contains(t, r.Body, "Acme Field Services")
	require.Contains(t, r.Body, "8:00\u2009–\u20099:00\u202fAM CST")
	require.Contains(t, r.Body, `href="https://www.google.com/maps/search/?api=1&amp;query=500+W+2nd+St%2C+Austin"`)
	require.Contains(t, r.Body, `href="tel:+15125550100"`)
	require.Contains(t, r.Body, "Gate 4411\nDog in yard")
	require.Contains(t, r.Body, "Boiler repair")
	require.Contains(t, r.Body, "Cancelled (1)")
	require.Contains(t, r.Body, "until the end of Thu, Mar 5")
	// Its one form asks the office about the day sheets (day_sheets_test.go).
	require.Equal(t, 1, strings.Count(r.Body, "<form"))
	require.Contains(t, r.Body, `<form method="post" action="/t/`+tok+`/day-sheets">`)
	for _, other := range []string{"Customer of Ben", "Customer of nobody", "Customer of tomorrow", "555 0199", "<script"} {
		require.NotContains(t, r.Body, other)
	}

	// Live: a job moved to Ben leaves Ana's page; Ben's link shows it.
	_, err := f.db.Exec(context.Background(), `UPDATE jobs SET technician_id = $1 WHERE id = $2`, ben, moved)
	require.NoError(t, err)
	require.NotContains(t, f.anon().get("/t/"+tok).Body, "Elm Clinic")
	require.Contains(t, f.anon().get("/t/"+f.dayToken(f.orgA.ID, ben, "2026-03-04")).Body, "Elm Clinic")

	// HEAD answers as GET does, headers and all.
	req, err := http.NewRequest(http.MethodHead, f.ts.URL+"/t/"+tok, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
}

// TestDayLinkOverdue: the page shows its technician's own jobs overdue
// on the link's date, as they are now (all of them, as the email's "and N
// more" promises), and no one else's.
func TestDayLinkOverdue(t *testing.T) {
	t.Parallel()
	f := setup(t) // the clock: Wed 4 Mar 2026 15:00 UTC, 09:00 CST
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	ben := f.dayTech(f.orgA.ID, "Ben Ode", "")
	zed := f.dayTech(f.orgB.ID, "Zed Globex", "")
	day := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC) // midnight in Chicago
	var stuck int64
	for k := 1; k <= 60; k++ {
		id := f.dayJob(f.orgA.ID, ana, fmt.Sprintf("Ana overdue %d", k), "", "", "", "scheduled", day.AddDate(0, 0, -k).Add(9*time.Hour))
		if k == 1 {
			stuck = id
		}
	}
	f.dayJob(f.orgA.ID, ana, "Ana done long ago", "", "", "", "done", day.AddDate(0, 0, -3))
	f.dayJob(f.orgA.ID, ben, "Ben overdue", "", "", "", "on_hold", day.AddDate(0, 0, -2))
	f.dayJob(f.orgB.ID, zed, "Globex overdue", "", "", "", "scheduled", day.AddDate(0, 0, -2))
	f.dayJob(f.orgA.ID, ana, "Ana today", "", "", "", "scheduled", day.Add(14*time.Hour))
	tok := f.dayToken(f.orgA.ID, ana, "2026-03-04")

	r := f.anon().get("/t/" + tok)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Contains(t, r.Body, "Overdue (60)")
	require.Contains(t, r.Body, "Still open from before this day.")
	require.Equal(t, 60, strings.Count(r.Body, "Ana overdue "), "all of them")
	require.Contains(t, r.Body, "Ana today")
	require.Less(t, strings.Index(r.Body, "Ana today"), strings.Index(r.Body, "Ana overdue 60"), "the day's jobs first")
	require.Less(t, strings.Index(r.Body, "Ana overdue 60"), strings.Index(r.Body, "Ana overdue 1<"), "the oldest first")
	require.Contains(t, r.Body, "Sat, Jan 3 9:00\u2009–\u200910:00\u202fAM CST")
	for _, other := range []string{"Ben overdue", "Globex overdue", "Ana done long ago"} {
		require.NotContains(t, r.Body, other)
	}

	// Live: a job done since leaves the list.
	_, err := f.db.Exec(context.Background(), `UPDATE jobs SET status = 'done' WHERE id = $1`, stuck)
	require.NoError(t, err)
	require.Contains(t, f.anon().get("/t/"+tok).Body, "Overdue (59)")
}

// TestDayLinkNotFound: a tampered, unknown, expired or revoked link
// (deactivated, even if active again) is the same 404, with the link's headers; another org's link shows its
// own technician's day only.
func TestDayLinkNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	zed := f.dayTech(f.orgB.ID, "Zed Globex", "")
	start := time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC)
	f.dayJob(f.orgA.ID, ana, "Customer of Acme", "", "", "", "scheduled", start)
	f.dayJob(f.orgB.ID, zed, "Customer of Globex", "", "", "", "scheduled", start)
	tok := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	zedTok := f.dayToken(f.orgB.ID, zed, "2026-03-04")
	c := f.anon()

	notFound := func(path, why string) {
		t.Helper()
		r := c.get(path)
		require.Equal(t, http.StatusNotFound, r.Code, why)
		requireDayLinkHeaders(t, r)
		require.Contains(t, r.Body, "This link has expired or is no longer valid", why)
		require.NotContains(t, r.Body, "Customer of Acme", why)
	}
	tampered := []byte(tok)
	tampered[0] = map[bool]byte{true: 'B', false: 'A'}[tampered[0] == 'A']
	notFound("/t/"+string(tampered), "tampered")
	notFound("/t/"+tok[:20], "truncated")
	notFound("/t/"+strings.Repeat("A", daylinks.TokenLen), "unknown")

	// Another org's token: its own technician's day, nothing of acme's.
	r := c.get("/t/" + zedTok)
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body, "Customer of Globex")
	require.NotContains(t, r.Body, "Acme")

	// Deactivated: 404; active again: still 404 (the link was revoked),
	// a new link opens.
	_, err := f.db.Exec(context.Background(), `UPDATE technicians SET active = false WHERE id = $1`, ana)
	require.NoError(t, err)
	notFound("/t/"+tok, "deactivated")
	_, err = f.db.Exec(context.Background(), `UPDATE technicians SET active = true WHERE id = $1`, ana)
	require.NoError(t, err)
	notFound("/t/"+tok, "reactivated")
	tok = f.dayToken(f.orgA.ID, ana, "2026-03-04")
	require.Equal(t, http.StatusOK, c.get("/t/"+tok).Code)

	// Expired at the end of the following local day: Fri 6 Mar 00:00 CST.
	f.advance(time.Date(2026, 3, 6, 6, 0, 0, 0, time.UTC).Sub(f.clock.Now()) - time.Second)
	require.Equal(t, http.StatusOK, c.get("/t/"+tok).Code)
	f.advance(time.Second)
	notFound("/t/"+tok, "expired")
}

// TestDayLinkRateLimit: one client gets a burst, then 429 with
// Retry-After, with the link's headers; it recovers with time.
func TestDayLinkRateLimit(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon()
	path := "/t/" + strings.Repeat("A", daylinks.TokenLen)
	for i := range dayLinkBurst {
		require.Equal(t, http.StatusNotFound, c.get(path).Code, "request %d", i+1)
	}
	r := c.get(path)
	require.Equal(t, http.StatusTooManyRequests, r.Code)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	requireDayLinkHeaders(t, r)
	// Other pages are not this limit's business.
	require.Equal(t, http.StatusOK, c.get("/login").Code)
	f.advance(time.Second)
	require.Equal(t, http.StatusNotFound, c.get(path).Code)
	require.Equal(t, http.StatusTooManyRequests, c.get(path).Code)
}

// TestDayLinkRateLimitPerIPv6Network: an IPv6 client is limited by its
// /64 (what one home or phone is given), so changing the address's last
// 64 bits does not buy a new burst; another /64 and IPv4 addresses are
// limited on their own.
func TestDayLinkRateLimitPerIPv6Network(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := "/t/" + strings.Repeat("A", daylinks.TokenLen)
	get := func(remote string) int {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, r)
		return w.Code
	}
	for i := range dayLinkBurst {
		require.Equal(t, http.StatusNotFound, get(fmt.Sprintf("[2001:db8:1:2::%x]:4000", i+1)), "request %d", i+1)
	}
	require.Equal(t, http.StatusTooManyRequests, get("[2001:db8:1:2:ffff:ffff:ffff:ffff]:4000"), "same /64")
	require.Equal(t, http.StatusNotFound, get("[2001:db8:1:3::1]:4000"), "another /64")
	require.Equal(t, http.StatusNotFound, get("192.0.2.1:4000"))
	require.Equal(t, http.StatusNotFound, get("192.0.2.2:4000"), "IPv4 addresses are apart")
}

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDayLinkTokenIsNotLogged: the request log names the route, never the
// token, whether the link opens or not.
func TestDayLinkTokenIsNotLogged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var logs lockedBuffer
	srv, err := New(testConfig(), f.db, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	srv.now = f.clock.Now
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	tok := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	bad := strings.Repeat("Q", daylinks.TokenLen)
	c := f.clientFor(ts)
	require.Equal(t, http.StatusOK, c.get("/t/"+tok).Code)
	require.Equal(t, http.StatusNotFound, c.get("/t/"+bad).Code)
	require.Equal(t, http.StatusNotFound, c.get("/t/"+tok+"/more").Code)

	require.Contains(t, logs.String(), "route=/t/:token")
	require.NotContains(t, logs.String(), tok)
	require.NotContains(t, logs.String(), bad)
}

// TestBriefingPageListsDayLinks: admins and staff see that a technician's
// day link was sent and until when; members see no such list; nobody
// sees a token; another org's links are not listed.
func TestBriefingPageListsDayLinks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, status) VALUES ($1, '2026-03-04', 'America/Chicago', 'pending')`, f.orgA.ID)
	require.NoError(t, err)
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	zed := f.dayTech(f.orgB.ID, "Zed Globex", "")
	tok := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	zedTok := f.dayToken(f.orgB.ID, zed, "2026-03-04")
	f.dayToken(f.orgA.ID, ana, "2026-03-05") // another date's

	page := "/orgs/acme/briefings/2026-03-04"
	for _, u := range []*struct {
		name string
		c    *client
	}{{"admin", f.as(&f.adminA)}, {"staff", f.as(&f.staff)}} {
		r := u.c.get(page)
		require.Equal(t, http.StatusOK, r.Code, u.name)
		require.Contains(t, r.Body, "Technicians&#39; day links", u.name) // the catalog's words, escaped as templ escapes data
		require.Contains(t, r.Body, "Ana Ruiz: day link sent Wed, Mar 4, 2026, 9:00\u202fAM CST, valid until Fri, Mar 6, 2026, 12:00\u202fAM CST", u.name)
		require.Equal(t, 1, strings.Count(r.Body, "day link sent"), "%s: this date's only", u.name)
		require.NotContains(t, r.Body, "Zed Globex", u.name)
		require.NotContains(t, r.Body, tok, u.name)
		require.NotContains(t, r.Body, zedTok, u.name)
	}
	r := f.as(&f.memberA).get(page)
	require.Equal(t, http.StatusOK, r.Code)
	require.NotContains(t, r.Body, "day link sent")
}

// TestDayLinkPageInTheTechniciansLanguage: a Spanish-speaking technician
// in an en-US org reads their day page in Spanish on the org's 12-hour
// clock; in a de-DE org, one without a language of their own reads German
// with 24-hour times (docs/i18n.md, "Who reads what").
func TestDayLinkPageInTheTechniciansLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t) // the clock: Wed 4 Mar 2026 15:00 UTC, 09:00 CST
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	_, err := f.db.Exec(context.Background(), `UPDATE technicians SET language = 'es' WHERE id = $1 AND org_id = $2`, ana, f.orgA.ID)
	require.NoError(t, err)
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	f.dayJob(f.orgA.ID, ana, "Dogwood Bakery", "500 W 2nd St, Austin", "", "", "scheduled", at("2026-03-04T14:00:00Z"))
	f.dayJob(f.orgA.ID, ana, "Gum Grocer", "", "", "", "cancelled", at("2026-03-04T20:00:00Z"))

	r := f.anon().get("/t/" + f.dayToken(f.orgA.ID, ana, "2026-03-04"))
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "es-US", r.Header.Get("Content-Language"))
	require.Contains(t, r.Body, `<html lang="es-US">`)
	require.Contains(t, r.Body, "El día de Ana Ruiz, mié, 4 de mar de 2026")
	require.Contains(t, r.Body, "Zona horaria: hora central (Chicago) (CST)")
	require.Contains(t, r.Body, `<small class="zone-id">America/Chicago</small>`)
	require.Contains(t, r.Body, "Sus trabajos (1)")
	require.Contains(t, r.Body, "8:00–9:00\u202fa.m. CST")
	require.Contains(t, r.Body, ">Programado<")
	require.Contains(t, r.Body, "Cancelados (1)")
	require.Contains(t, r.Body, "Este enlace funciona hasta el jue, 5 de mar inclusive.")
	require.NotContains(t, r.Body, "Your jobs")

	// A de-DE org: its technician reads German, 24-hour times.
	_, err = f.db.Exec(context.Background(), `UPDATE orgs SET locale = 'de-DE' WHERE id = $1`, f.orgB.ID)
	require.NoError(t, err)
	jonas := f.dayTech(f.orgB.ID, "Jonas", "")
	f.dayJob(f.orgB.ID, jonas, "Bäckerei Lang", "", "", "", "scheduled", at("2026-03-04T14:00:00Z"))
	r = f.anon().get("/t/" + f.dayToken(f.orgB.ID, jonas, "2026-03-04"))
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Contains(t, r.Body, `<html lang="de-DE">`)
	require.Contains(t, r.Body, "Tag von Jonas")
	require.Contains(t, r.Body, "Ihre Aufträge (1)")
	require.Contains(t, r.Body, ">Geplant<")
	require.NotContains(t, r.Body, "a.m.")
	require.NotContains(t, r.Body, "AM ")
}
