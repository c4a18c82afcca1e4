package api

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

// pageAll reads a list to its end, a page at a time, calling between after
// each page; it returns the external_refs in the order read.
func pageAll(t *testing.T, api *apitest.Client, path, key string, between func(page int)) []string {
	t.Helper()
	refs, _ := pageRun(t, api, path, key, between)
	return refs
}

// pageFeed reads a feed of jobs as pageAll does; until is the run's
// complete_until (its first page's, which its cursors keep).
func pageFeed(t *testing.T, api *apitest.Client, path string, between func(page int)) (refs []string, until string) {
	t.Helper()
	return pageRun(t, api, path, "jobs", between)
}

func pageRun(t *testing.T, api *apitest.Client, path, key string, between func(page int)) (refs []string, until string) {
	t.Helper()
	next := ""
	for page := 0; ; page++ {
		p := path
		if next != "" {
			p += "&cursor=" + url.QueryEscape(next)
		}
		r := api.Get(p)
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		if page == 0 {
			until, _ = r.JSON["complete_until"].(string)
		}
		for _, j := range r.JSON[key].([]any) {
			refs = append(refs, j.(map[string]any)["external_ref"].(string))
		}
		c, _ := r.JSON["next_cursor"].(string)
		if c == "" {
			return refs, until
		}
		next = c
		if between != nil {
			between(page)
		}
	}
}

// The keyset pages: jobs inserted and changed between the pages of a list
// neither make another job be skipped nor read twice.
func TestAPIJobPagesNeitherSkipNorRepeatUnderWrites(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	const n = 30
	for i := range n {
		r := api.Put(fmt.Sprintf("/api/v1/jobs/J-%02d", i), map[string]any{"customer": "c",
			"arrival_start": fmt.Sprintf("2026-03-09T%02d:%02d", 6+i/6, (i%6)*10), "arrival_end": "2026-03-09T23:00"})
		require.Equal(t, http.StatusCreated, r.Code, r.Body)
	}
	writer := f.api(f.newToken(f.orgA, "office"))
	var inserted atomic.Int32
	refs := pageAll(t, api, "/api/v1/jobs?from=2026-03-09&to=2026-03-09&limit=4", "jobs", func(page int) {
		// Before the next page: a job early in the day (before the cursor),
		// one late, and an edit of a job already read and of one not yet.
		k := inserted.Add(1)
		for _, at := range []string{"05:00", "22:00"} {
			require.Equal(t, http.StatusCreated, writer.Put(fmt.Sprintf("/api/v1/jobs/NEW-%d-%s", k, at), map[string]any{"customer": "new",
				"arrival_start": "2026-03-09T" + at, "arrival_end": "2026-03-09T23:00"}).Code)
		}
		for _, ref := range []string{"J-00", "J-29"} {
			r := writer.Call(http.MethodPatch, "/api/v1/jobs/"+ref, fmt.Sprintf(`{"notes": "edit %d"}`, k), "Content-Type", mergePatch)
			require.Equal(t, http.StatusOK, r.Code, r.Body)
		}
	})
	seen := map[string]int{}
	for _, ref := range refs {
		seen[ref]++
	}
	for i := range n {
		require.Equal(t, 1, seen[fmt.Sprintf("J-%02d", i)], "J-%02d in %v", i, refs)
	}
	for ref, times := range seen {
		require.Equal(t, 1, times, "%s read twice", ref)
	}
}

// The feed: changes in the order they happened, up to complete_until, the
// deletions of the span; the next sync from complete_until misses nothing
// and repeats only what changed again; a cursor belongs to its query;
// unknown parameters are a 400 naming them.
func TestAPIFeedOfChangesAndDeletions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	start := api.Get("/api/v1/technicians?updated_since=2000-01-01T00:00:00Z")
	require.Equal(t, http.StatusOK, start.Code, start.Body)
	require.Empty(t, start.JSON["technicians"])
	since := start.JSON["complete_until"].(string)

	for _, ref := range []string{"T-1", "T-2", "T-3"} {
		require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/"+ref, map[string]any{"name": ref}).Code)
	}
	require.Equal(t, http.StatusOK, api.Call(http.MethodPatch, "/api/v1/technicians/T-1", `{"phone": "1"}`, "Content-Type", mergePatch).Code)
	require.Equal(t, http.StatusOK, api.Call(http.MethodDelete, "/api/v1/technicians/T-2", nil).Code)
	// Another org's changes are not in this org's feed.
	require.Equal(t, http.StatusCreated, f.api(f.newToken(f.orgB, "b")).Put("/api/v1/technicians/T-9", map[string]any{"name": "B"}).Code)

	r := api.Get("/api/v1/technicians?updated_since=" + url.QueryEscape(since) + "&limit=1")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	deleted := r.JSON["deleted"].([]any)
	require.Len(t, deleted, 1)
	require.Equal(t, "T-2", deleted[0].(map[string]any)["external_ref"])
	refs := pageAll(t, api, "/api/v1/technicians?updated_since="+url.QueryEscape(since)+"&limit=1", "technicians", nil)
	require.Equal(t, []string{"T-3", "T-1"}, refs, "in the order they last changed; the deleted one is gone")
	next := r.JSON["complete_until"].(string)

	// Nothing changed since: an empty feed. Then one change: only it.
	r = api.Get("/api/v1/technicians?updated_since=" + url.QueryEscape(next))
	require.Empty(t, r.JSON["technicians"], r.Body)
	require.Nil(t, r.JSON["deleted"])
	require.Equal(t, http.StatusOK, api.Call(http.MethodPatch, "/api/v1/technicians/T-3", `{"phone": "3"}`, "Content-Type", mergePatch).Code)
	require.Equal(t, []string{"T-3"}, pageAll(t, api, "/api/v1/technicians?updated_since="+url.QueryEscape(next), "technicians", nil))

	// Jobs the same way, filtered by technician and status.
	for i, tech := range []string{"T-1", "T-3", "T-1"} {
		require.Equal(t, http.StatusCreated, api.Put(fmt.Sprintf("/api/v1/jobs/J-%d", i), map[string]any{"customer": "c", "technician_ref": tech,
			"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"}).Code)
	}
	require.Equal(t, http.StatusOK, api.Call(http.MethodPatch, "/api/v1/jobs/J-0", `{"status": "done"}`, "Content-Type", mergePatch).Code)
	require.Equal(t, []string{"J-2", "J-0"}, pageAll(t, api, "/api/v1/jobs?technician_ref=T-1&updated_since="+url.QueryEscape(next), "jobs", nil))
	require.Equal(t, []string{"J-0"}, pageAll(t, api, "/api/v1/jobs?status=done&from=2026-03-01", "jobs", nil))
	apitest.RequireError(t, api.Get("/api/v1/jobs?technician_ref=T-404"), http.StatusUnprocessableEntity, "invalid")

	// A cursor of another query; unknown and repeated parameters.
	r = api.Get("/api/v1/jobs?from=2026-03-01&limit=1")
	cursor := r.JSON["next_cursor"].(string)
	fields := apitest.RequireError(t, api.Get("/api/v1/jobs?from=2026-03-02&limit=1&cursor="+url.QueryEscape(cursor)), http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, fields, "cursor")
	r = api.Get("/api/v1/jobs?date=2026-03-09&stauts=done")
	apitest.RequireError(t, r, http.StatusBadRequest, "bad_request")
	require.Contains(t, r.JSON["error"].(map[string]any)["message"], `"stauts"`)
	r = api.Get("/api/v1/technicians?updated_since=2026-03-01T00:00:00Z&active=true")
	apitest.RequireError(t, r, http.StatusBadRequest, "bad_request")
	require.Contains(t, r.JSON["error"].(map[string]any)["message"], `"active"`)
	apitest.RequireError(t, api.Get("/api/v1/jobs?date=2026-03-09&date=2026-03-10"), http.StatusBadRequest, "bad_request")
	apitest.RequireError(t, api.Get("/api/v1/jobs?updated_since=yesterday"), http.StatusUnprocessableEntity, "invalid")
}

// The horizon: a feed stops a settle time before the database's clock, so
// a change stamped inside it (by a transaction that may still be open) is
// left for the next sync, which starts at complete_until and gets it.
func TestAPIFeedStopsBeforeWritesInFlight(t *testing.T) {
	t.Parallel()
	f := setupDeps(t, func(d *Deps) { d.FeedSettle = time.Hour })
	api := f.api(f.newToken(f.orgA, "sync"))
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana"}).Code)
	r := api.Get("/api/v1/technicians?updated_since=2000-01-01T00:00:00Z")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Empty(t, r.JSON["technicians"], "a change younger than the settle time is not listed yet")
	until, err := time.Parse(time.RFC3339Nano, r.JSON["complete_until"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(-time.Hour), until, 5*time.Minute)

	// Once it has settled (here: stamped an hour and a half ago), it is.
	_, err = f.db.Exec(t.Context(), `UPDATE technicians SET updated_at = now() - interval '90 minutes' WHERE external_ref = 'T-1'`)
	require.NoError(t, err)
	r = api.Get("/api/v1/technicians?updated_since=2000-01-01T00:00:00Z")
	require.Len(t, r.JSON["technicians"], 1)
}

// The same property with the writes side by side with the reads: a writer
// inserts jobs and edits the ones that were there while two readers page
// through the day's list and through the feed, all at once. The list reads
// each job that was there once; the feed repeats none within a run, and
// with the next run (from its complete_until, once the writes settled)
// holds every job as it is now, edited and new ones included.
func TestAPIPagesNeitherSkipNorRepeatBesideConcurrentWrites(t *testing.T) {
	t.Parallel()
	// The settle time stands in for production's minute: longer than any of
	// this test's write transactions runs, on a loaded machine too (a
	// second was not, under the race detector beside the suite).
	const settle = 5 * time.Second
	f := setupDeps(t, func(d *Deps) {
		d.FeedSettle = settle
		// The fixture's clock stands still, so a token's bucket never
		// refills: the writer's pace, not this test's subject, would decide
		// when a token ran out of its burst.
		d.Rate, d.Burst = 1e6, 1e6
	})
	api := f.api(f.newToken(f.orgA, "sync"))
	const n = 40
	for i := range n {
		r := api.Put(fmt.Sprintf("/api/v1/jobs/J-%02d", i), map[string]any{"customer": "c",
			"arrival_start": fmt.Sprintf("2026-03-09T%02d:%02d", 6+i/6, (i%6)*10), "arrival_end": "2026-03-09T23:00"})
		require.Equal(t, http.StatusCreated, r.Code, r.Body)
	}
	time.Sleep(settle + 100*time.Millisecond) // the seeded jobs are inside the first run's span

	writer := f.api(f.newToken(f.orgA, "office"))
	stop := make(chan struct{})
	var writes atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			at := []string{"05:00", "12:00", "22:00"}[k%3]
			r := writer.Put(fmt.Sprintf("/api/v1/jobs/NEW-%03d", k), map[string]any{"customer": "new",
				"arrival_start": "2026-03-09T" + at, "arrival_end": "2026-03-09T23:00"})
			assert.Equal(t, http.StatusCreated, r.Code, r.Body)
			r = writer.Call(http.MethodPatch, fmt.Sprintf("/api/v1/jobs/J-%02d", (k*7)%n), fmt.Sprintf(`{"notes": "edit %d"}`, k),
				"Content-Type", mergePatch)
			assert.Equal(t, http.StatusOK, r.Code, r.Body)
			writes.Add(2)
			time.Sleep(50 * time.Millisecond)
		}
	})
	// Between two pages, at least one more write lands (the writer does
	// not wait for the readers; this only keeps a fast reader from running
	// ahead of it).
	await := func(int) {
		seen := writes.Load()
		for deadline := time.Now().Add(time.Minute); writes.Load() == seen && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	list := pageAll(t, api, "/api/v1/jobs?from=2026-03-09&to=2026-03-09&limit=3", "jobs", await)
	feed, feedUntil := pageFeed(t, api, "/api/v1/jobs?updated_since=2000-01-01T00:00:00Z&limit=3", await)
	close(stop)
	wg.Wait()
	require.Positive(t, writes.Load(), "writes ran beside the reads")
	t.Logf("%d writes beside %d list rows and %d feed rows", writes.Load(), len(list), len(feed))

	once := func(what string, refs []string) map[string]bool {
		t.Helper()
		seen := map[string]bool{}
		for _, ref := range refs {
			require.False(t, seen[ref], "%s read %s twice: %v", what, ref, refs)
			seen[ref] = true
		}
		return seen
	}
	inList := once("the list", list)
	for i := range n {
		require.True(t, inList[fmt.Sprintf("J-%02d", i)], "the list skipped J-%02d: %v", i, list)
	}
	inFeed := once("the feed", feed)

	// The next sync, from the first's complete_until once the writes have settled.
	require.NotEmpty(t, feedUntil)
	time.Sleep(settle + 100*time.Millisecond)
	nextRefs, _ := pageFeed(t, api, "/api/v1/jobs?updated_since="+url.QueryEscape(feedUntil)+"&limit=7", nil)
	next := once("the next feed", nextRefs)
	all := pageAll(t, api, "/api/v1/jobs?from=2026-03-09&to=2026-03-09&limit=500", "jobs", nil)
	require.Len(t, all, n+int(writes.Load())/2)
	for _, ref := range all {
		require.True(t, inFeed[ref] || next[ref], "%s is in neither sync", ref)
	}
}
