package web

import (
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
	"fieldbrief/internal/pgtopo"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// The production topology of docs/scaling.md, run for real: the web
// through PgBouncer in transaction mode (step 2) and pages from a
// streaming replica (step 3). internal/pgtopo starts both.

// TestRouteMatrixThroughPgBouncer walks every route (TestRouteMatrix: every
// page, API call and write, as every kind of client, each signed in
// through the web) with the server's pool going through PgBouncer in
// transaction mode, in the query mode cmd/web is told to use there.
func TestRouteMatrixThroughPgBouncer(t *testing.T) {
	t.Parallel()
	b := pgtopo.PgBouncer(t)
	f := setupFixtureDB(t, nil, orgsCreated, fixtureDB{web: b.URL})
	var via int
	require.NoError(t, f.webDB.QueryRow(t.Context(), `SELECT inet_server_port()`).Scan(&via))
	require.NotEqual(t, b.Port, via, "the pool reaches PostgreSQL itself, not only the pooler's port") // sanity: the server behind
	require.Equal(t, b.Port, int(f.webDB.Config().ConnConfig.Port), "the server's pool is not the pooler's")
	routeMatrix(t, f)

	// Pages at once: more of the web's connections than PgBouncer has
	// server connections (pgtopo: 1), so each server connection serves
	// several of the web's, as in production. pgx's default statement
	// cache fails here ("prepared statement … already exists").
	clients := []*client{f.as(&f.adminA), f.as(&f.memberA), f.as(&f.staff), f.as(&f.adminB)}
	paths := []string{briefingsPath, "/orgs/acme/board", "/orgs/acme/jobs", "/orgs/acme/technicians", "/staff/audit"}
	codes := make(chan string, 8*len(paths)*3)
	var wg sync.WaitGroup
	var shed atomic.Int64
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[i%len(clients)]
			for range 3 {
				for _, p := range paths {
					switch res := c.get(p); {
					case res.Code == http.StatusServiceUnavailable:
						shed.Add(1) // the web's own load shedding: one server connection for 8 at once
					case res.Code >= 500:
						codes <- fmt.Sprintf("GET %s: %d %s", p, res.Code, res.Body)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		t.Error(c)
	}
	// How many are shed depends on the machine's speed (a busy CI machine
	// sheds more); that pages at once are served at all is the point.
	require.Less(t, shed.Load(), int64(8*len(paths)*3), "every page at once was shed")

	// And a write that the next page shows, in a transaction of its own.
	admin := f.as(&f.adminA)
	res := admin.post("/orgs/acme/technicians", url.Values{"name": {"Pooled Pat"}, "email": {"pat@acme.test"}, "active": {"true"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Contains(t, admin.get("/orgs/acme/technicians").Body, "Pooled Pat")
}

// TestPagesFromReplica: with a streaming replica, pages read it; after a
// write, the writing browser reads the primary until the replica has
// replayed the write (its WAL position, in a cookie), while another
// browser still sees the replica's older state; a replica lagging past its
// bound, or down, sends pages to the primary.
func TestPagesFromReplica(t *testing.T) {
	t.Parallel()
	r := pgtopo.StreamingReplica(t)
	f := setupFixtureDB(t, func(c *config.Web) {
		c.ReplicaMaxLag = time.Minute  // the first part must not see the pause as lag
		c.ReadYourWrites = time.Second // shorter than the lag allowed: the cookie outlives it
	}, orgsCreated, fixtureDB{
		url:     func(t testing.TB) string { return testdb.URLOn(t, r.PrimaryServerURL()) },
		replica: r.OnReplica,
	})
	writer, reader := f.as(&f.adminA), f.as(&f.adminA) // two browsers of one admin
	r.WaitReplayed(t)
	const techs = "/orgs/acme/technicians"
	count := func(served, reason string) float64 {
		return counterValue(t, "fieldbrief_replica_page_reads_total", "served_by", served, "reason", reason)
	}
	// servedBy gets the page as c until one is counted as served by served
	// for reason, and returns that one: a check of the replica slower than
	// its bound (a loaded machine) sends a page to the primary as
	// "unreachable", which says nothing of what this test asks.
	servedBy := func(c *client, served, reason, what string) string {
		t.Helper()
		var body string
		require.Eventually(t, func() bool {
			before := count(served, reason)
			body = c.get(techs).Body
			return count(served, reason) > before
		}, testutil.Settle, 50*time.Millisecond, "%s: no page read the %s (%s)", what, served, reason)
		return body
	}
	// fromReplica: the page get makes reads the replica (within the check's
	// second, once the replica has what the browser wrote: its sign-in).
	fromReplica := func(c *client, what string) string { return servedBy(c, "replica", "ok", what) }
	require.NotContains(t, fromReplica(reader, "reader"), "Replica Rita")

	r.PauseReplay(t)
	res := writer.post(techs, url.Values{"name": {"Replica Rita"}, "email": {"rita@acme.test"}, "active": {"true"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Contains(t, servedBy(writer, "primary", "recent_write", "writer"), "Replica Rita", "the writer does not see what it saved")
	require.NotContains(t, fromReplica(reader, "reader after the write"), "Replica Rita",
		"the paused replica's page has the write")
	// However long replay stays paused (within the bound), the writer reads
	// the primary: a position, not a few seconds.
	time.Sleep(2 * time.Second)
	require.Contains(t, servedBy(writer, "primary", "recent_write", "writer, later"), "Replica Rita",
		"the writer read the replica before it had the write")

	// Replayed: the writer reads the replica again, and the write is there.
	r.ResumeReplay(t)
	r.WaitReplayed(t)
	require.Contains(t, fromReplica(writer, "writer"), "Replica Rita")

	// Lag past the bound: a server allowing 200 ms of lag reads the
	// primary once its checks see replay paused behind a later write.
	cfg := testConfig()
	cfg.ReplicaMaxLag = 200 * time.Millisecond
	_, ts := f.serve(cfg)
	strict := f.clientFor(ts)
	strict.login(f.adminA.Email, testPassword)
	r.PauseReplay(t)
	res = writer.post(techs, url.Values{"name": {"Lagging Lee"}, "email": {"lee@acme.test"}, "active": {"true"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Eventually(t, func() bool {
		lagging := count("primary", "lagging")
		return strings.Contains(strict.get(techs).Body, "Lagging Lee") && count("primary", "lagging") > lagging
	}, testutil.Settle, 100*time.Millisecond, "a lagging replica served the page")

	// Down: pages keep working, from the primary.
	r.ResumeReplay(t)
	r.StopReplica(t)
	down := count("primary", "unreachable")
	for _, c := range []*client{reader, writer} {
		res := c.get(techs)
		require.Equal(t, http.StatusOK, res.Code, res.Body)
		require.Contains(t, res.Body, "Replica Rita")
	}
	require.Greater(t, count("primary", "unreachable"), down)
}

// counterValue is a counter's value in the default registry, by its name
// and label pairs; 0 before it counted anything.
func counterValue(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	require.NoError(t, err)
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			match := true
			for i := 0; i+1 < len(labels); i += 2 {
				match = match && got[labels[i]] == labels[i+1]
			}
			if match {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
