package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkAPIPutJob measures the API's upsert throughput with one token:
// PUT /api/v1/jobs/{ref} through the whole stack (HTTP, bearer lookup, rate
// limiter, org zone, field's upsert and audit entry in one transaction) on
// a real test database, from 8 clients at once. It reports requests per
// second; GET /healthz in the same run is the baseline.
//
//	go test -run '^$' -bench BenchmarkAPIPutJob -benchtime 3000x ./internal/web/
//
// On the 2-core development machine, shared with other helpers' test runs,
// -benchtime 3000x, four runs between 20:23 and 20:43 UTC: creates 370–930
// req/s, unchanged PUTs 350–410, updates 225–470 (healthz 6,400–19,500 in
// the same runs); under heavy load (15–30) 130–330. The figure follows the
// database's round trips (about ten per PUT over four pooled connections),
// not our CPU, which stayed near 12% of one core.
func BenchmarkAPIPutJob(b *testing.B) {
	// The rate limit would be the figure otherwise.
	f := setupDeps(b, func(d *Deps) { d.Rate, d.Burst = 1e9, 1e9 })
	f.setZone(f.orgA, "America/New_York")
	token := f.newToken(f.orgA, "bench")
	api := f.api(token)
	for i := range 5 {
		ref := fmt.Sprintf("T-%d", i)
		if r := api.Put("/api/v1/technicians/"+ref, map[string]any{"name": "Tech " + ref}); r.Code != http.StatusCreated {
			b.Fatalf("seed technician: %d %s", r.Code, r.Body)
		}
	}
	body := func(n int64, customer string) []byte {
		return fmt.Appendf(nil, `{"customer":%q,"address":"%d Main St","arrival_start":"2026-03-09T%02d:00",`+
			`"arrival_end":"2026-03-09T%02d:30","technician_ref":"T-%d","job_type":"Service"}`, customer, n, 8+n%8, 8+n%8, n%5)
	}
	var next, made atomic.Int64 // the request number; the jobs created
	run := func(b *testing.B, want int, req func(n int64) (string, []byte)) {
		next.Store(0)
		b.SetParallelism(4) // × GOMAXPROCS (2 here) = 8 clients
		b.RunParallel(func(pb *testing.PB) {
			hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
			for pb.Next() {
				path, payload := req(next.Add(1))
				method := http.MethodPut
				var rd io.Reader = bytes.NewReader(payload)
				if payload == nil {
					method, rd = http.MethodGet, nil
				}
				r, err := http.NewRequest(method, f.ts.URL+path, rd)
				if err != nil {
					b.Fatal(err)
				}
				r.Header.Set("Authorization", "Bearer "+token)
				r.Header.Set("Content-Type", "application/json")
				res, err := hc.Do(r)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != want {
					b.Fatalf("%s %s: %d, want %d", method, path, res.StatusCode, want)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	}
	b.Run("healthz", func(b *testing.B) {
		run(b, http.StatusOK, func(int64) (string, []byte) { return "/healthz", nil })
	})
	b.Run("create", func(b *testing.B) {
		run(b, http.StatusCreated, func(int64) (string, []byte) {
			n := made.Add(1)
			return fmt.Sprintf("/api/v1/jobs/J-%d", n), body(n, "Customer")
		})
	})
	created := made.Load()
	// The body each job was created with: nothing to write.
	b.Run("unchanged", func(b *testing.B) {
		run(b, http.StatusOK, func(n int64) (string, []byte) {
			ref := 1 + n%created
			return fmt.Sprintf("/api/v1/jobs/J-%d", ref), body(ref, "Customer")
		})
	})
	b.Run("update", func(b *testing.B) {
		run(b, http.StatusOK, func(n int64) (string, []byte) {
			ref := 1 + n%created
			return fmt.Sprintf("/api/v1/jobs/J-%d", ref), body(ref, fmt.Sprintf("Customer %d", n))
		})
	})
}
