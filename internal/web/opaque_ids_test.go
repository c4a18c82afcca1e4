package web

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

// Ids and ETags count nothing (docs/security.md, "Ids and ETags"): an org
// that makes two jobs a few moments apart learns nothing from their ids of
// what other orgs made in between. Before migration 00043 the second id was
// the first plus one plus the other orgs' jobs in between, and the ETag
// carried the same count.
func TestIdsAndETagsDoNotCountOtherOrgs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.api(f.newToken(f.orgA, "a"))
	b := f.api(f.newToken(f.orgB, "b"))
	job := func(api *apitest.Client, ref string) (int64, string) {
		t.Helper()
		r := api.Put("/api/v1/jobs/"+ref, map[string]any{"customer": ref,
			"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T09:00"})
		require.Equal(t, http.StatusCreated, r.Code, r.Body)
		id := int64(r.JSON["id"].(float64))
		return id, r.Header.Get("ETag")
	}

	first, firstTag := job(a, "A-1")
	for i := range 5 {
		job(b, fmt.Sprintf("B-%d", i))
	}
	second, secondTag := job(a, "A-2")

	for _, id := range []int64{first, second} {
		require.GreaterOrEqual(t, id, int64(1)<<52, "an id made now is in [2^52, 2^53)")
		require.Less(t, id, int64(1)<<53, "an id stays exact in a JavaScript number")
	}
	gap := second - first
	require.NotEqual(t, int64(6), gap, "the second id counts the other org's five jobs")
	// Two ids of a keyed permutation are 2^20 apart or more but once in 2^31 runs.
	require.Greater(t, max(gap, -gap), int64(1)<<20, "ids %d and %d are close enough to count by", first, second)

	// The ETag names the record by that id and its own version, nothing else.
	require.Equal(t, `"`+strconv.FormatInt(first, 10)+`-1"`, firstTag)
	require.Equal(t, `"`+strconv.FormatInt(second, 10)+`-1"`, secondTag)

	// The same holds for technicians, whose ids a page's URLs carry too.
	tech := func(api *apitest.Client, ref string) int64 {
		r := api.Put("/api/v1/technicians/"+ref, map[string]any{"name": ref})
		require.Equal(t, http.StatusCreated, r.Code, r.Body)
		return int64(r.JSON["id"].(float64))
	}
	t1 := tech(a, "TA-1")
	tech(b, "TB-1")
	t2 := tech(a, "TA-2")
	require.Greater(t, max(t2-t1, t1-t2), int64(1)<<20, "technician ids %d and %d", t1, t2)

	// The ids reach the pages: the technician's page opens by its opaque id,
	// and another org's admin gets the same 404 as for an id nobody has.
	admin := f.as(&f.adminA)
	require.Equal(t, http.StatusOK, admin.get(fmt.Sprintf("/orgs/%s/technicians/%d", f.orgA.Slug, t1)).Code)
	other := f.as(&f.adminB)
	require.Equal(t, http.StatusNotFound, other.get(fmt.Sprintf("/orgs/%s/technicians/%d", f.orgB.Slug, t1)).Code)
}
