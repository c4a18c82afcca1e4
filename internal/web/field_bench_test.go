package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
)

// BenchmarkBoard measures the day board and the job list of a busy org (50
// active technicians, 500 jobs that day, 50 overdue) through the whole HTTP
// stack, as admin (every card with its two forms), against GET /healthz as
// the baseline (x-healthz).
//
//	go test -run '^$' -bench BenchmarkBoard -benchtime 50x ./internal/web/
//
// busyBoard fills org A with a busy day (50 active technicians, 500 jobs
// on 2026-03-04 in New York, 50 overdue): the day of BenchmarkBoard and of
// TestBoardHTMLSizeBound.
func busyBoard(tb testing.TB, f *fixture) {
	ctx := context.Background()
	saveConfig(tb, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	techs := make([]field.TechnicianInput, 50)
	for i := range techs {
		techs[i] = field.TechnicianInput{Name: fmt.Sprintf("Technician %02d", i), ExternalRef: fmt.Sprintf("T%d", i), Active: true}
	}
	_, err := field.UpsertTechniciansByRef(ctx, f.db, audit.System, f.orgA.ID, techs)
	require.NoError(tb, err)
	day := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC) // 07:00 EST on the test clock's day
	var jobs []field.JobInput
	for i := range 550 {
		start := day.Add(time.Duration(i%20) * 30 * time.Minute)
		if i >= 500 {
			start = day.Add(-72 * time.Hour) // overdue
		}
		in := field.JobInput{ExternalRef: fmt.Sprintf("J%d", i), Customer: fmt.Sprintf("Customer %d", i),
			Address: fmt.Sprintf("%d Main St, Springfield", i), ArrivalStart: start, ArrivalEnd: start.Add(2 * time.Hour)}
		if i%10 != 0 {
			in.TechnicianRef = fmt.Sprintf("T%d", i%50)
		}
		jobs = append(jobs, in)
	}
	_, err = field.UpsertJobsByRef(ctx, f.db, audit.System, f.clock.Now(), f.orgA.ID, jobs)
	require.NoError(tb, err)
}

// maxBoardHTML bounds the busy day's board page (docs/benchmarks.md, "The day board": under
// 300 KB; it was 1,955 KiB with a technician menu in every card).
const maxBoardHTML = 300_000

// TestBoardHTMLSizeBound: the busy day's board, as admin (every action
// offered), stays under maxBoardHTML bytes of HTML, the page and the
// fragment htmx swaps. No timing here: BenchmarkBoard measures that.
func TestBoardHTMLSizeBound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	busyBoard(t, f)
	admin := f.as(&f.adminA)
	r := admin.get("/orgs/acme/board?date=2026-03-04")
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body, "Customer 499")
	require.Equal(t, 550, strings.Count(r.Body, `class="mv"`), "every job of the day and every overdue one has its Move action")
	require.Less(t, len(r.Body), maxBoardHTML, "the board page is %d bytes", len(r.Body))
	t.Logf("board page: %d bytes", len(r.Body))
	if os.Getenv("BOARD_DUMP") != "" {
		require.NoError(t, os.WriteFile(os.Getenv("BOARD_DUMP"), []byte(r.Body), 0o600))
	}
}

func BenchmarkBoard(b *testing.B) {
	f := setup(b)
	busyBoard(b, f)
	admin := f.as(&f.adminA)
	pages := []struct{ name, path, want string }{
		{"board", "/orgs/acme/board?date=2026-03-04", "Customer 499"},
		{"jobs", "/orgs/acme/jobs?date=2026-03-04", "Customer 480"},
		{"technicians", "/orgs/acme/technicians", "Technician 49"},
	}
	for _, p := range pages {
		r := admin.get(p.path)
		require.Equal(b, http.StatusOK, r.Code, "GET %s", p.path)
		require.Contains(b, r.Body, p.want, "GET %s", p.path)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		_, err := zw.Write([]byte(r.Body))
		require.NoError(b, err)
		require.NoError(b, zw.Close())
		b.Logf("GET %s: %d KiB, %d KiB gzipped", p.path, len(r.Body)/1024, gz.Len()/1024)
	}
	var healthz float64
	b.Run("healthz", func(b *testing.B) { healthz = benchGet(b, admin, "/healthz") })
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			ns := benchGet(b, admin, p.path)
			if healthz > 0 {
				b.ReportMetric(ns/healthz, "x-healthz")
			}
		})
	}
}
