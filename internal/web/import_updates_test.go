package web

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Updates and overlapping saves through the pages (docs/field-data.md, "Updates: old → new, and changes made in fieldbrief are kept").

const updJobs = "external_ref,customer,date,arrival_from,arrival_to,technician_ref\n" +
	"J-1,Harbor Bakery,2026-03-09,08:00,10:00,T-1\n" +
	"J-2,Pier Cafe,2026-03-09,08:00,10:00,Dana Reyes\n"

func (f *fixture) jobTechnician(ref string) string {
	f.t.Helper()
	var tech string
	require.NoError(f.t, f.db.QueryRow(context.Background(), `SELECT coalesce(t.external_ref, '') FROM jobs j
		LEFT JOIN technicians t ON t.id = j.technician_id WHERE j.org_id = $1 AND j.external_ref = $2`, f.orgA.ID, ref).Scan(&tech))
	return tech
}

// The board assigns a job after an import; the next import's preview says
// the row keeps it, shows the other row's change old → new, and a ticked
// "overwrite" gives the file's technician back.
func TestImportPreviewKeepsBoardChange(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	loc, doc := previewOf(t, admin, "technicians", techCSV)
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)
	loc, doc = previewOf(t, admin, "jobs", updJobs)
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)
	require.Nil(t, doc.byID("import-kept"))
	require.Equal(t, "T-1", f.jobTechnician("J-2"), "a technician by name")

	_, err := f.db.Exec(context.Background(), `UPDATE jobs SET technician_id = (SELECT id FROM technicians WHERE org_id = $1 AND external_ref = 'T-2')
		WHERE org_id = $1 AND external_ref = 'J-1'`, f.orgA.ID)
	require.NoError(t, err)

	loc, doc = previewOf(t, admin, "jobs", updJobs[:len(updJobs)-len("Pier Cafe,2026-03-09,08:00,10:00,Dana Reyes\n")]+"Pier Café,2026-03-09,08:00,10:00,Dana Reyes\n")
	kept := doc.byID("import-kept")
	require.NotNil(t, kept)
	require.Equal(t, "1 row keeps a change made in fieldbrief since the last import: assignment.", kept.text())
	require.NotNil(t, doc.byID("import-overwrite"))
	note := doc.find(attrIs("data-kept", "true"))
	require.NotNil(t, note)
	require.Equal(t, "assignment: keeps Sam Lee, changed in fieldbrief since the last import (the file says Dana Reyes).", note.text())
	change := doc.find(attrIs("data-column", "customer"))
	require.NotNil(t, change)
	require.Equal(t, "customer: Pier Cafe → Pier Café", change.text())
	require.Equal(t, map[string]string{"2": "unchanged", "3": "update"}, actions(doc))

	form := doc.byID("import-save")
	r := admin.post(loc, url.Values{"digest": {form.find(attrIs("name", "digest")).attr("value")}, "overwrite": {"1"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, "T-1", f.jobTechnician("J-1"), "overwritten")
}

// Two admins' saves of one file at the same moment: one 303, one 409 with
// the new preview; the audit log's count is the table's.
func TestImportOverlappingSaves(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	loc, doc := previewOf(t, admin, "technicians", techCSV)
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)
	loc1, doc1 := previewOf(t, admin, "jobs", updJobs)
	loc2, doc2 := previewOf(t, admin, "jobs", updJobs)

	codes := make([]int, 2)
	bodies := make([]string, 2)
	var wg sync.WaitGroup
	for i, p := range []struct {
		loc string
		doc htmlDoc
	}{{loc1, doc1}, {loc2, doc2}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			digest := p.doc.byID("import-save").find(attrIs("name", "digest")).attr("value")
			r := admin.post(p.loc, url.Values{"digest": {digest}})
			codes[i], bodies[i] = r.Code, r.Body
		}()
	}
	wg.Wait()
	require.ElementsMatch(t, []int{http.StatusSeeOther, http.StatusConflict}, codes)
	for i, c := range codes {
		if c == http.StatusConflict {
			again := parseDoc(t, bodies[i])
			require.NotNil(t, again.byID("import-conflict"))
			require.Equal(t, map[string]string{"2": "unchanged", "3": "unchanged"}, actions(again))
		}
	}
	require.Equal(t, 2, f.count(`SELECT count(*) FROM jobs`))
	require.Equal(t, 2, f.count(`SELECT coalesce(sum((new_value->>'created')::int), 0) FROM audit_log WHERE action = 'field.job.import'`))
}
