package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/history"
	"fieldbrief/internal/locale"
)

// The briefing page says how long history is kept and the first day of
// the oldest month kept, in the reader's language and date format
// (docs/operations.md, "History retention"); the delivery log on the
// settings page too.
func TestBriefingPageSaysWhereHistoryStarts(t *testing.T) {
	t.Parallel()
	f := setup(t)
	oldest := time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC) // before every month a test database has
	_, err := history.EnsureMonths(t.Context(), f.db, oldest, oldest)
	require.NoError(t, err)
	f.setLocale(f.orgA.ID, "de-DE")
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})

	de := locale.Nearest("de-DE")
	res := f.as(&f.memberA).get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	note := parseDoc(t, res.Body).find(attrIs("data-history-note", "")).text()
	require.Equal(t, "Der Verlauf wird 400 Tage lang aufbewahrt; der älteste erhaltene Eintrag stammt vom "+de.DateYear(oldest)+".", note)

	// The settings page's delivery log says it too.
	log := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body).byID("delivery-log")
	require.NotNil(t, log)
	require.Equal(t, note, log.find(attrIs("data-history-note", "")).text())

	en := locale.Nearest("en-US")
	res = f.as(&f.memberB).get("/orgs/globex/briefings/2026-03-03")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	note = parseDoc(t, res.Body).find(attrIs("data-history-note", "")).text()
	require.Equal(t, "History is kept for 400 days; the oldest kept is from "+en.DateYear(oldest)+".", note)
	require.NotEqual(t, en.DateYear(oldest), de.DateYear(oldest), "each in its reader's format")
}
