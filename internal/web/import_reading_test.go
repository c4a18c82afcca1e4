package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/tenants"
)

// The reading side of the import preview: the delimiter
// and columns forms are the uploader's alone, CSRF-checked; a columns
// choice that does not fit is 422 and remembers nothing; a chosen one is
// used by the next preview of the same header row; the save links to the
// board of the first day.
func TestImportReadingForms(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	admin := f.as(&f.adminA)
	file := "Ticket;Client;When;From;To\nJ-1;Ann;11/27/2026;9am;10:30 AM\nJ-2;Bob;11/26/2026;1pm;2pm\n"
	loc, doc := previewOf(t, admin, "jobs", file)
	require.Contains(t, doc.byID("import-read-as").text(), "semicolons (detected)")
	_, open := hasAttr(doc.byID("import-columns").n, "open")
	require.True(t, open, "a required field is unmatched: the step is open")
	require.Contains(t, doc.byID("import-problems").text(), "Missing required column “Job number”")

	admin2 := f.member(f.orgA, "admin2@acme.test", tenants.RoleAdmin)
	cols := url.Values{"col.external_ref": {"0"}, "col.customer": {"1"}, "col.date": {"2"}, "col.arrival_from": {"3"}, "col.arrival_to": {"4"}}
	for _, c := range []*client{f.as(&admin2), f.as(&f.adminB)} {
		require.Equal(t, http.StatusNotFound, c.post(loc+"/columns", cols).Code)
		require.Equal(t, http.StatusNotFound, c.post(loc+"/delimiter", url.Values{"delimiter": {"comma"}}).Code)
	}
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(loc+"/columns", cols).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(loc+"/columns", cols).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(loc+"/delimiter", url.Values{"delimiter": {"comma"}}).Code)
	require.Equal(t, 0, f.rows("import_columns"))

	bad := url.Values{"col.external_ref": {"0"}, "col.customer": {"0"}}
	r := admin.post(loc+"/columns", bad)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code)
	require.Contains(t, parseDoc(t, r.Body).byID("import-conflict").text(), "one field only")
	require.Equal(t, 0, f.rows("import_columns"))

	// Any other field left out of the form is "not in this file".
	r = admin.post(loc+"/columns", cols)
	require.Equal(t, http.StatusSeeOther, r.Code)
	require.Equal(t, loc, r.Header.Get("Location"))
	require.Equal(t, 1, f.rows("import_columns"))
	r = admin.get(loc)
	doc = parseDoc(t, r.Body)
	require.Nil(t, doc.byID("import-problems"), r.Body)
	require.Contains(t, doc.byID("import-summary").text(), "2 new")

	// Read with commas instead, the file is one column: the preview says
	// so; back to detection, it reads as before.
	require.Equal(t, http.StatusSeeOther, admin.post(loc+"/delimiter", url.Values{"delimiter": {"comma"}}).Code)
	doc = parseDoc(t, admin.get(loc).Body)
	require.Contains(t, doc.byID("import-read-as").text(), "commas.")
	require.NotNil(t, doc.byID("import-problems"))
	require.Equal(t, http.StatusSeeOther, admin.post(loc+"/delimiter", url.Values{"delimiter": {""}}).Code)
	doc = parseDoc(t, admin.get(loc).Body)
	require.Contains(t, doc.byID("import-read-as").text(), "semicolons (detected)")

	r = saveImport(t, admin, loc, doc)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	to := r.Header.Get("Location")
	require.Contains(t, to, "&day=2026-11-26", "the first day imported, not the first row's")
	doc = parseDoc(t, admin.get(to).Body)
	link := doc.byID("import-board-link").find(hasTag("a"))
	require.Equal(t, "/orgs/acme/board?date=2026-11-26", link.attr("href"))
	require.Contains(t, link.text(), "Nov 26, 2026")

	// The board link takes a date only.
	doc = parseDoc(t, admin.get(importPath+"?notice=imported&day=<b>x</b>").Body)
	require.Nil(t, doc.byID("import-board-link"))

	// The next file with that header row is read with the chosen columns.
	_, doc = previewOf(t, admin, "jobs", strings.Replace(file, "J-1;Ann", "J-3;Cy", 1))
	require.Contains(t, doc.byID("import-columns-state").text(), "chosen last time")
	require.Nil(t, doc.byID("import-problems"))
}

func TestHeaderLabelIsBounded(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Job #", headerLabel("  Job # "))
	long := headerLabel(strings.Repeat("ü", 10_000))
	require.Equal(t, maxHeaderLabel, utf8.RuneCountInString(long))
	require.True(t, strings.HasSuffix(long, "…"))
}
