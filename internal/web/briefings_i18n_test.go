package web

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The briefings page in the reader's language and clock (docs/i18n.md): a
// de-DE org reads German with 24-hour times and dates as Germans write
// them, an en-US org English with 12-hour times; both see their zone by
// its name with the IANA id in small print.
func TestBriefingListInTheOrgsLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"14:00","days":["mon","tue","wed","thu","fri"]}}`)
	saveConfig(t, f, f.orgB.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"14:00","days":["mon","wed"]}}`)
	// Wed 2026-03-04 12:00 UTC: 13:00 in Berlin, 07:00 in New York.
	setClock(f, time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC))

	res := f.as(&f.adminA).get("/orgs/acme/briefings")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, `<html lang="de-DE">`)
	rows, doc := listRows(t, f.as(&f.adminA), briefingsPath)
	require.Equal(t, "Briefings", doc.find(tagIs("h1")).text())
	require.Equal(t, "Montags bis freitags um 14:00 Uhr, Mitteleuropäische Zeit (Berlin).", doc.find(hasClass("state")).text())
	require.Equal(t, "Aktiv", doc.find(hasClass("badge-ready")).text())
	require.Equal(t, "Nächste Ausführung: Mi., 4. März um 14:00 Uhr (UTC+01:00), 13:00 UTC", doc.find(hasClass("next-run")).text())
	require.Equal(t, "Mi., 4. März heute noch nicht: läuft um 14:00 Uhr", rows["2026-03-04"].text())
	require.Contains(t, rows["2026-03-01"].text(), "So., 1. März")
	require.Contains(t, doc.find(tagIs("caption")).text(), "Datumsangaben in der Zeitzone Mitteleuropäische Zeit (Berlin).")
	require.Equal(t, "Europe/Berlin", doc.find(hasClass("zone-id")).attr("data-zone"))
	require.Equal(t, "Datum Briefing", doc.find(tagIs("thead")).text())
	require.Contains(t, doc.find(hasClass("enabled-toggle")).text(), "Briefings pausieren")
	require.NotContains(t, res.Body, "Next run")
	require.NotContains(t, res.Body, "not yet")

	rows, doc = listRows(t, f.as(&f.adminB), "/orgs/globex/briefings")
	require.Equal(t, "Every Mon, Wed at 2:00 PM, Eastern Time (New York).", doc.find(hasClass("state")).text())
	require.Equal(t, "Next run: Wed, Mar 4 at 2:00 PM (UTC−05:00), 7:00 PM UTC", doc.find(hasClass("next-run")).text())
	require.Equal(t, "Wed, Mar 4 today not yet: runs at 2:00 PM", rows["2026-03-04"].text())
	require.Equal(t, "America/New_York", doc.find(hasClass("zone-id")).attr("data-zone"))
	require.Equal(t, "Date Briefing", doc.find(tagIs("thead")).text())
	require.Contains(t, doc.find(hasClass("enabled-toggle")).text(), "Pause briefings")

	// A Spanish-speaking member of the en-US org: Spanish words, US formats (es-US).
	b := f.as(&f.memberB)
	require.Equal(t, http.StatusSeeOther, b.post("/profile/language", url.Values{"language": {"es"}}).Code)
	rows, doc = listRows(t, b, "/orgs/globex/briefings")
	require.Equal(t, "Resúmenes", doc.find(tagIs("h1")).text())
	require.Equal(t, "Fecha Resumen", doc.find(tagIs("thead")).text())
	require.Equal(t, "Los días lun, mié a las 2:00 p.m., hora oriental (Nueva York).", doc.find(hasClass("state")).text())
	require.Equal(t, "mié, 4 de mar hoy todavía no: se ejecuta a las 2:00 p.m.", rows["2026-03-04"].text())
}
