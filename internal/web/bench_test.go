package web

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/snapshot"
)

// BenchmarkPages measures whole pages through the HTTP stack (client,
// middleware, session row, store queries, templ rendering) on a real test
// database. GET /healthz runs first as the baseline, and every page reports
// its time as a multiple of it (x-healthz): compare those ratios, not ns/op
// across machines.
//
//	go test -run '^$' -bench BenchmarkPages -benchtime 200x ./internal/web/
func BenchmarkPages(b *testing.B) {
	f := setup(b)
	seedPages(b, f)
	admin, staff := f.as(&f.adminA), f.as(&f.staff)
	pages := []struct {
		name string
		c    *client
		path string
		want string // on the page, so a 200 is the page we mean to measure
	}{
		{"briefings", admin, briefingsPath, `data-date="2026-02-18"`},
		{"briefing", admin, briefingsPath + "/2026-03-03", "Wayne Enterprises"},
		{"settings", admin, settingsPath, "America/New_York"},
		{"preview", admin.htmx(), settingsPath + "/preview?timezone=America/New_York&schedule_local_time=08:00" +
			"&days=mon&days=tue&days=wed&days=thu&days=fri&enabled=true", `data-preview="runs"`},
		{"zones", admin.htmx(), settingsPath + "/zones?q=new", "America/New_York"},
		{"staff_flags", staff, "/staff/flags", "fieldforce.briefing"},
	}
	for _, p := range pages {
		r := p.c.get(p.path)
		require.Equal(b, http.StatusOK, r.Code, "GET %s: %s", p.path, r.Body)
		require.Contains(b, r.Body, p.want, "GET %s", p.path)
	}

	var healthz float64 // ns/op; stays 0 when -bench filters the baseline out
	b.Run("healthz", func(b *testing.B) { healthz = benchGet(b, admin, "/healthz") })
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			ns := benchGet(b, p.c, p.path)
			if healthz > 0 {
				b.ReportMetric(ns/healthz, "x-healthz")
			}
		})
	}
}

// benchGet times GET path with c's cookies and headers, requiring a 200
// every time, and returns ns/op.
func benchGet(b *testing.B, c *client, path string) float64 {
	for b.Loop() {
		req, err := http.NewRequestWithContext(b.Context(), http.MethodGet, c.base+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		for k, v := range c.header {
			req.Header[k] = v
		}
		res, err := c.hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: status %d", path, res.StatusCode)
		}
	}
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
}

// seedPages gives acme what a working org has at the fixture's clock (Wed
// 2026-03-04, 10:00 in New York): a weekday schedule, a ready briefing with
// a full snapshot on each weekday of the list's 15 days, and a run for the
// one the show page reads.
func seedPages(b testing.TB, f *fixture) {
	saveConfig(b, f, f.orgA.ID, nyWeekdays)
	var show int64
	for d := time.Date(2026, 2, 18, 0, 0, 0, 0, time.UTC); !d.After(testStart); d = d.AddDate(0, 0, 1) {
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			continue
		}
		date := d.Format(time.DateOnly)
		id := insertBriefing(b, f, f.orgA.ID, briefingRow{Date: date, Content: benchSnapshot(d)})
		if date == "2026-03-03" {
			show = id
		}
	}
	insertRun(b, f, f.orgA.ID, show, "completed", 1, "")
}

// benchSnapshot is a day of a mid-sized org, like the demo's: five
// technicians with four jobs each, a few unassigned, overdue and on hold.
func benchSnapshot(day time.Time) *snapshot.Snapshot {
	est := time.FixedZone("EST", -5*3600)
	at := func(d time.Time, h int) time.Time { return time.Date(d.Year(), d.Month(), d.Day(), h, 0, 0, 0, est) }
	line := func(n int, d time.Time, h int, status, tech string) snapshot.JobLine {
		customer := fmt.Sprintf("Customer %d", n)
		return snapshot.JobLine{ID: int64(n), Customer: customer, Address: fmt.Sprintf("%d Main Street, Springfield", 100+n),
			Technician: tech, ArrivalStart: at(d, h), ArrivalEnd: at(d, h+2),
			Window: fmt.Sprintf("%02d:00–%02d:00", h, h+2), Status: status}
	}
	s := &snapshot.Snapshot{Date: day.Format(time.DateOnly), Timezone: "America/New_York",
		DayStart: at(day, 0), DayEnd: at(day.AddDate(0, 0, 1), 0), GeneratedAt: at(day, 8)}
	n := 0
	for i, name := range []string{"Ada Lovelace", "Bob Noyce", "Grace Hopper", "Ken Thompson", "Radia Perlman"} {
		t := snapshot.TechnicianDay{ID: int64(i + 1), Name: name, Phone: fmt.Sprintf("555-01%02d", i)}
		for h := 8; h < 16; h += 2 {
			n++
			t.Jobs = append(t.Jobs, line(n, day, h, "scheduled", name))
		}
		s.Technicians = append(s.Technicians, t)
	}
	for h := 9; h < 15; h += 2 {
		n++
		s.Unassigned = append(s.Unassigned, line(n, day, h, "scheduled", ""))
	}
	earlier := func(l snapshot.JobLine) snapshot.JobLine { // windows on other days carry their date
		l.Window = l.ArrivalStart.Format(time.DateOnly) + " " + l.Window
		return l
	}
	overdue := earlier(line(n+1, day.AddDate(0, 0, -2), 9, "scheduled", "Bob Noyce"))
	overdue.Customer = "Wayne Enterprises"
	s.Overdue = []snapshot.JobLine{overdue, earlier(line(n+2, day.AddDate(0, 0, -1), 13, "in_progress", "Ada Lovelace"))}
	s.OnHold = []snapshot.JobLine{earlier(line(n+3, day.AddDate(0, 0, -1), 10, "on_hold", "Grace Hopper"))}
	s.Yesterday = snapshot.DayCounts{Date: day.AddDate(0, 0, -1).Format(time.DateOnly), Scheduled: 21, Completed: 18}
	s.Totals = snapshot.Totals{Technicians: 5, Jobs: 23, Unassigned: 3, Overdue: 2, OnHold: 1}
	return s
}
