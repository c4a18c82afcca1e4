package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A de-DE org's member reads the day board and the job list in German with
// the 24-hour clock and German dates; an en-US org's member reads English
// with the 12-hour clock (docs/i18n.md, "Formats").
func TestFieldPagesInTheOrgsLanguageAndClock(t *testing.T) {
	ff := setupField(t)
	ff.setLocale(ff.orgB.ID, "de-DE")
	day := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)                                      // the test clock's day
	ff.job(ff.orgA.ID, "Smith", day, ff.ana.ID)                                              // 09:00 EST
	ff.job(ff.orgB.ID, "Müller", time.Date(2026, 3, 4, 13, 0, 0, 0, time.UTC), ff.theirs.ID) // 14:00 CET
	de := ff.as(&ff.memberB)

	r := de.get("/orgs/globex/board")
	require.Equal(t, http.StatusOK, r.Code)
	doc := parseDoc(t, r.Body)
	require.Contains(t, r.Body, "<h1>Tagesplan ")
	require.Equal(t, "Mittwoch, 4. März 2026", doc.find(hasClass("day-label")).text())
	require.Contains(t, r.Body, "Tagesplan Mi., 4. März · fieldbrief</title>")
	require.Equal(t, "14:00–16:00 Uhr MEZ", doc.find(hasClass("blk")).find(hasClass("w")).text())
	require.Contains(t, doc.find(attrIs("data-technician", "0")).text(), "Nicht zugewiesen 0 Aufträge Keine Aufträge.")
	require.Contains(t, doc.byID("board-counts").text(), "Notfälle: 0")
	require.Equal(t, "06:00", doc.find(hasClass("tl-hour")).text(), "the hours on the 24-hour clock")
	require.Equal(t, "← Vorheriger Tag", doc.byID("prev-day").text())
	main := doc.find(hasTag("main")).text() // not the whole body: a CSRF token may hold "PM"
	require.NotContains(t, main, "Day board")
	require.NotContains(t, main, " AM")
	require.NotContains(t, main, " PM")

	r = de.get("/orgs/globex/jobs")
	require.Equal(t, http.StatusOK, r.Code)
	doc = parseDoc(t, r.Body)
	require.Contains(t, r.Body, "<h1>Aufträge</h1>")
	require.Equal(t, "14:00–16:00 Uhr MEZ", doc.find(hasClass("j-window")).text())
	require.Contains(t, doc.find(hasClass("j-status")).text(), "Geplant")
	require.Contains(t, r.Body, "<th scope=\"col\">Zeitfenster</th>")
	requireFieldError(t, de.get("/orgs/globex/jobs?status=nope"), "f-status", "Bitte einen der Status wählen")

	// A time the clocks skip is refused beside the field, in German, on the 24-hour clock.
	res := ff.as(&ff.adminB).post("/orgs/globex/jobs", jobValues("Müller", "2026-03-29", "02:30", "04:00"))
	requireFieldError(t, res, "from", "So., 29. März, 02:30 gibt es in der Zeitzone Europe/Berlin nicht: An diesem Tag springen die Uhren von 02:00 auf 03:00 (MEZ auf MESZ)")
	require.Contains(t, res.Body, "Ankunftszeitfenster")

	// The en-US org next door: English, 12-hour times, its own dates.
	r = ff.membr.get("/orgs/acme/board")
	require.Equal(t, http.StatusOK, r.Code)
	doc = parseDoc(t, r.Body)
	require.Equal(t, "Wednesday, March 4, 2026", doc.find(hasClass("day-label")).text())
	require.Contains(t, r.Body, "Day board Wed, Mar 4 · fieldbrief</title>")
	require.Equal(t, "9:00 – 11:00 AM EST", doc.find(hasClass("blk")).find(hasClass("w")).text())
	require.Contains(t, doc.find(attrIs("data-technician", "0")).text(), "Unassigned 0 jobs No jobs.")
	require.NotContains(t, r.Body, "Tagesplan")
	r = ff.membr.get("/orgs/acme/jobs")
	require.Equal(t, "9:00 – 11:00 AM EST", parseDoc(t, r.Body).find(hasClass("j-window")).text())
	require.Contains(t, r.Body, "Scheduled")
}
