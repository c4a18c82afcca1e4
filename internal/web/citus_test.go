//go:build citus

package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testutil"
)

// TestCitusRouteMatrix walks every route (pages, the JSON API, every
// write) as every kind of client on a real Citus cluster: the fixture's
// orgs, people and field data written through the stores into a database
// distributed by `web citus-distribute` (docs/scaling.md, step 4).
func TestCitusRouteMatrix(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	f := setupFixtureDB(t, nil, orgsCreated, fixtureDB{url: func(t testing.TB) string { return c.DistributedDatabase(t) }})
	routeMatrix(t, f)
}

// TestCitusImportAndAPIWrites: on a real Citus cluster, a technicians CSV
// import and the same file again, a jobs import that updates a job done in
// the app, and the API's writes with their version checks (ETag,
// If-Match → 412, PATCH) — as on one node (docs/scaling.md, step 4).
func TestCitusImportAndAPIWrites(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	f := setupFixtureDB(t, nil, orgsCreated, fixtureDB{url: func(t testing.TB) string { return c.DistributedDatabase(t) }})
	admin := f.as(&f.adminA)

	loc, doc := previewOf(t, admin, "technicians", "\uFEFF"+techCSV)
	require.Equal(t, map[string]string{"2": "create", "3": "create"}, actions(doc))
	r := saveImport(t, admin, loc, doc)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, importPath+"?notice=imported&created=2&updated=0&unchanged=0", r.Header.Get("Location"))
	require.Equal(t, []string{"T-1", "T-2"}, f.technicianRefs(f.orgA))
	_, doc = previewOf(t, admin, "technicians", techCSV)
	require.Equal(t, map[string]string{"2": "unchanged", "3": "unchanged"}, actions(doc))
	require.Nil(t, doc.byID("import-save"), "a file that changes nothing offers no save")

	const jobs = "external_ref,customer,date,arrival_from,arrival_to,technician_ref,status\n"
	loc, doc = previewOf(t, admin, "jobs", jobs+"J-1,Mrs Jones,2026-03-09,08:00,10:00,T-1,scheduled\nJ-2,Mr Smith,2026-03-09,11:00,12:00,,done\n")
	require.Equal(t, map[string]string{"2": "create", "3": "create"}, actions(doc))
	r = saveImport(t, admin, loc, doc)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM jobs WHERE org_id = $1 AND external_ref = 'J-2' AND completed_at IS NOT NULL`, f.orgA.ID))
	loc, doc = previewOf(t, admin, "jobs", jobs+"J-1,Mrs Jones,2026-03-09,08:00,10:30,T-1,done\n")
	require.Equal(t, map[string]string{"2": "update"}, actions(doc))
	r = saveImport(t, admin, loc, doc)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "done", f.text(`SELECT status FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, f.orgA.ID))

	api := f.api(f.newToken(f.orgA, "sync"))
	r2 := api.Put("/api/v1/technicians/T-3", map[string]any{"name": "Ana", "phone": "1"})
	require.Equal(t, http.StatusCreated, r2.Code, r2.Body)
	first := r2.Header.Get("ETag")
	r2 = api.Put("/api/v1/technicians/T-3", map[string]any{"name": "Ana", "phone": "2"})
	require.Equal(t, http.StatusOK, r2.Code, r2.Body)
	second := r2.Header.Get("ETag")
	require.NotEqual(t, first, second)
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/technicians/T-3", map[string]any{"name": "Ana", "phone": "stale"}, "If-Match", first),
		http.StatusPreconditionFailed, "precondition_failed")
	apitest.RequireError(t, api.Call(http.MethodPatch, "/api/v1/technicians/T-3", `{"phone": "stale"}`, "Content-Type", mergePatch, "If-Match", first),
		http.StatusPreconditionFailed, "precondition_failed")
	require.Equal(t, "2", f.text(`SELECT phone FROM technicians WHERE org_id = $1 AND external_ref = 'T-3'`, f.orgA.ID))
	r2 = api.Call(http.MethodPatch, "/api/v1/technicians/T-3", `{"phone": "3"}`, "Content-Type", mergePatch, "If-Match", second)
	require.Equal(t, http.StatusOK, r2.Code, r2.Body)
	r2 = api.Get("/api/v1/jobs/J-1")
	require.Equal(t, http.StatusOK, r2.Code, r2.Body)
	jobTag := r2.Header.Get("ETag")
	_, err := f.db.Exec(t.Context(), `UPDATE jobs SET notes = 'board' WHERE org_id = $1 AND external_ref = 'J-1'`, f.orgA.ID)
	require.NoError(t, err)
	apitest.RequireError(t, api.Call(http.MethodPut, "/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones",
		"arrival_start": "2026-03-09T08:00:00Z", "arrival_end": "2026-03-09T10:00:00Z"}, "If-Match", jobTag),
		http.StatusPreconditionFailed, "precondition_failed")
	apitest.RequireError(t, api.Call(http.MethodDelete, "/api/v1/technicians/T-1", nil), http.StatusConflict, "conflict")
}

// TestCitusGrowWhileRunning grows the cluster while the product works
// (docs/scaling.md, "Growing while running"): worker processes tick
// through a morning of 60 orgs' schedules and the web serves pages while
// a third worker node is added and citus_rebalance_start() moves shards
// onto it; then a tenant is isolated on a shard of its own
// (isolate_tenant_to_new_shard) while its admin adds technicians. No
// briefing is lost or doubled, no page or write fails.
func TestCitusGrowWhileRunning(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	var dbURL string
	f := setupFixtureDB(t, nil, orgsCreated, fixtureDB{url: func(t testing.TB) string {
		dbURL = c.DistributedDatabase(t)
		return dbURL
	}})
	ctx := context.Background()

	// 60 orgs due at 06:00, 06:01, … 06:59 UTC.
	const orgs = 60
	_, err := f.db.Exec(ctx, `INSERT INTO admin_feature_flags (key, is_enabled) VALUES ('fieldforce.briefing', true)
		ON CONFLICT (key) DO UPDATE SET is_enabled = true`)
	require.NoError(t, err)
	for i := range orgs {
		_, err := f.db.Exec(ctx, `
			WITH o AS (INSERT INTO orgs (slug, name) VALUES ($1, $1) RETURNING id)
			INSERT INTO org_module_configs (org_id, module, config_json)
			SELECT id, 'fieldforce', jsonb_build_object('briefing', jsonb_build_object('timezone', 'UTC', 'schedule_local_time', $2::text)) FROM o`,
			fmt.Sprintf("grow-%02d", i), fmt.Sprintf("06:%02d", i))
		require.NoError(t, err)
	}

	// The worker: one `worker -once` process per tick, every 3 minutes of
	// the morning, one after the other.
	bin := testutil.WorkerBinary(t)
	workerDone := make(chan error, 1)
	go func() {
		for m := 0; m <= 60; m += 3 { // 06:00:30 … 07:00:30
			at := time.Date(2026, 3, 10, 6, m, 30, 0, time.UTC)
			cmd := exec.Command(bin, "-once", "-now", at.Format(time.RFC3339), "-wait", "60s")
			cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
			if out, err := cmd.CombinedOutput(); err != nil {
				workerDone <- fmt.Errorf("worker -once at %s: %w\n%s", at.Format("15:04"), err, out)
				return
			}
		}
		workerDone <- nil
	}()

	// The web: pages as an admin and a member until the worker is done.
	var stop atomic.Bool
	var pages atomic.Int64
	failures := make(chan string, 100)
	var wg sync.WaitGroup
	for _, cl := range []*client{f.as(&f.adminA), f.as(&f.memberA)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for _, p := range []string{briefingsPath, "/orgs/acme/board", "/orgs/acme/jobs", "/orgs/acme/technicians"} {
					if res := cl.get(p); res.Code >= 500 {
						select {
						case failures <- fmt.Sprintf("GET %s: %d", p, res.Code):
						default:
						}
					}
					pages.Add(1)
				}
			}
		}()
	}

	newPort := c.AddWorker(t)
	start := time.Now()
	c.Query(t, dbURL, `SELECT citus_rebalance_start()`)
	c.Query(t, dbURL, `SELECT citus_rebalance_wait()`)
	t.Logf("rebalance onto the third worker: %s, %d pages served meanwhile", time.Since(start).Round(time.Millisecond), pages.Load())
	moved := c.Query(t, dbURL, `SELECT count(*) FROM citus_shards WHERE nodeport = $1`, newPort)
	require.NotEqual(t, "0", moved[0][0], "the rebalancer moved no shard onto the new worker")
	require.NoError(t, <-workerDone)

	// A tenant on a shard of its own, while its admin writes.
	admin := f.as(&f.adminA)
	writes := make(chan error, 1)
	var added atomic.Int64
	go func() {
		for i := 0; !stop.Load(); i++ {
			res := admin.post("/orgs/acme/technicians", url.Values{"name": {fmt.Sprintf("Isolated %03d", i)}, "active": {"true"}})
			if res.Code != http.StatusSeeOther {
				writes <- fmt.Errorf("add technician %d: %d %s", i, res.Code, res.Body)
				return
			}
			added.Add(1)
		}
		writes <- nil
	}()
	start = time.Now()
	c.Query(t, dbURL, `SELECT isolate_tenant_to_new_shard('jobs', $1::bigint, 'CASCADE')`, f.orgA.ID)
	t.Logf("isolate_tenant_to_new_shard: %s, %d technicians added meanwhile", time.Since(start).Round(time.Millisecond), added.Load())
	time.Sleep(500 * time.Millisecond) // a few writes after the split too
	stop.Store(true)
	wg.Wait()
	require.NoError(t, <-writes)
	close(failures)
	for fl := range failures {
		t.Error(fl)
	}

	// Every org has its briefing for the day, once.
	var briefings, doubled int
	require.NoError(t, f.db.QueryRow(ctx, `
		SELECT count(*), count(*) - count(DISTINCT (b.org_id, b.briefing_date))
		  FROM ff_briefings b JOIN orgs o ON o.id = b.org_id WHERE o.slug LIKE 'grow-%'`).Scan(&briefings, &doubled))
	require.Equal(t, orgs, briefings)
	require.Zero(t, doubled)
	var notReady int
	require.NoError(t, f.db.QueryRow(ctx, `SELECT count(*) FROM ff_briefings b JOIN orgs o ON o.id = b.org_id
		WHERE o.slug LIKE 'grow-%' AND b.status <> 'ready'`).Scan(&notReady))
	require.Zero(t, notReady)

	// acme's shard holds acme alone, and every technician written is there.
	own := c.Query(t, dbURL, `
		SELECT s.shardminvalue = s.shardmaxvalue FROM pg_dist_shard s
		 WHERE s.shardid = get_shard_id_for_distribution_column('technicians', $1::bigint)`, f.orgA.ID)
	require.Equal(t, [][]string{{"true"}}, own)
	var technicians int64
	require.NoError(t, f.db.QueryRow(ctx, `SELECT count(*) FROM technicians WHERE org_id = $1 AND name LIKE 'Isolated %'`, f.orgA.ID).Scan(&technicians))
	require.Equal(t, added.Load(), technicians)
	require.Contains(t, admin.get("/orgs/acme/technicians").Body, "Isolated 000")
}
