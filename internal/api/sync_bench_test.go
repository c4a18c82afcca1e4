package api

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// BenchmarkNightlySync is docs/api.md's "Syncing from another system",
// measured: a CRM pushes 5,000 jobs twice (the first night creates them,
// the second sends them again with one field changed), with the merge
// upsert (PATCH, a whole record the first time) against PUT, from 4
// clients at once through the whole stack on a real test database. It
// reports the calls and seconds of each night, and how many jobs the field
// had finished that the night's sync took back to scheduled (PUT resets
// what its body leaves out; PATCH does not).
//
//	go test -run '^$' -bench BenchmarkNightlySync -benchtime 1x ./internal/web/
func BenchmarkNightlySync(b *testing.B) {
	const jobs, clients = 5000, 4
	for _, method := range []string{http.MethodPatch, http.MethodPut} {
		b.Run(method, func(b *testing.B) {
			for b.Loop() {
				f := setupDeps(b, func(d *Deps) { d.Rate, d.Burst = 1e9, 1e9 })
				f.setZone(f.orgA, "America/New_York")
				token := f.newToken(f.orgA, "crm")
				night := func(address string) (time.Duration, int) {
					var wg sync.WaitGroup
					var mu sync.Mutex
					calls := 0
					start := time.Now()
					for c := range clients {
						wg.Go(func() {
							hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
							for n := c; n < jobs; n += clients {
								body := fmt.Appendf(nil, `{"customer":"Customer %d","address":"%d %s","arrival_start":"2026-03-10T%02d:00",`+
									`"arrival_end":"2026-03-10T%02d:30"}`, n, n, address, 7+n%10, 7+n%10)
								// A 503 (the server shedding load) is sent again after a
								// short pause, as a client would; it counts as a call.
								for {
									req, _ := http.NewRequest(method, fmt.Sprintf("%s/api/v1/jobs/CRM-%d", f.ts.URL, n), bytes.NewReader(body))
									req.Header.Set("Authorization", "Bearer "+token)
									req.Header.Set("Content-Type", "application/json")
									if method == http.MethodPatch {
										req.Header.Set("Content-Type", mergePatch)
									}
									res, err := hc.Do(req)
									if err != nil {
										b.Error(err)
										return
									}
									_ = res.Body.Close()
									mu.Lock()
									calls++
									mu.Unlock()
									if res.StatusCode == http.StatusServiceUnavailable {
										time.Sleep(50 * time.Millisecond)
										continue
									}
									if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
										b.Errorf("%s CRM-%d: %d", method, n, res.StatusCode)
										return
									}
									break
								}
							}
						})
					}
					wg.Wait()
					return time.Since(start), calls
				}
				first, calls1 := night("Elm St")
				// During the day the field finishes a fifth of the jobs.
				if _, err := f.db.Exec(b.Context(), `UPDATE jobs SET status = 'done', notes = 'Done' WHERE org_id = $1
					AND substring(external_ref from 5)::int % 5 = 0`, f.orgA.ID); err != nil {
					b.Fatal(err)
				}
				second, calls2 := night("Oak St")
				var undone int
				if err := f.db.QueryRow(b.Context(), `SELECT count(*) FROM jobs WHERE org_id = $1 AND status = 'scheduled'
					AND substring(external_ref from 5)::int % 5 = 0`, f.orgA.ID).Scan(&undone); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(calls1), "calls-1st")
				b.ReportMetric(first.Seconds(), "s-1st")
				b.ReportMetric(float64(calls2), "calls-2nd")
				b.ReportMetric(second.Seconds(), "s-2nd")
				b.ReportMetric(float64(undone), "done-jobs-reset")
			}
		})
	}
}
