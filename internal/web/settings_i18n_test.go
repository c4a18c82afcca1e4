package web

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/locale"
)

// A de-DE org's admin reads the settings page in German with the 24-hour
// clock, zones named in German with the IANA id in small print, and
// validation messages in German; the en-US org next door reads English
// with the 12-hour clock (docs/i18n.md). The JSON API keeps its English.
func TestSettingsInTheOrgsLanguageAndClock(t *testing.T) {
	t.Parallel()
	f := setup(t)
	setClock(f, time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"18:30","days":["mon"]}}`)
	_, err := f.db.Exec(context.Background(), `UPDATE orgs SET locale = 'de-DE' WHERE id = $1`, f.orgA.ID)
	require.NoError(t, err)
	admin := f.as(&f.adminA)

	r := admin.get(settingsPath)
	require.Equal(t, http.StatusOK, r.Code)
	doc := parseDoc(t, r.Body)
	require.Contains(t, r.Body, "<h1>Einstellungen für das Tagesbriefing</h1>")
	require.Equal(t, "18:30", doc.byID("schedule_local_time").attr("value"))
	require.Equal(t, "Nächster Lauf: Mo., 7. Dez., 18:30 MEZ", doc.byID("preview-summary").text())
	require.Contains(t, doc.find(tagIs("caption")).text(), "Mitteleuropäische Zeit (Berlin)")
	require.Contains(t, doc.find(hasClass("r-local")).text(), "18:30")
	require.Contains(t, doc.byID("timezone-hint").text(), "Mitteleuropäische Zeit (Berlin) Europe/Berlin")
	require.Contains(t, r.Body, `<label for="timezone" id="timezone-label">Zeitzone</label>`)
	require.Contains(t, r.Body, `data-msg-none="Keine Zeitzone passt."`)
	main := doc.find(hasTag("main")).text()
	require.NotContains(t, main, " PM")
	require.NotContains(t, main, "Next run")

	// A refused save: German beside the field.
	res := admin.post(settingsPath, scheduleForm("Europe/Berlin", "25:00", "mon"))
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("schedule_local_time-error").text(), "Wählen Sie eine Uhrzeit zwischen 00:00 und 23:59")

	// The JSON editor explains in German too (the JSON API, not this page, keeps English).
	api := admin.htmx().get(settingsPath + "/json/preview?" + url.Values{"config_json": {`{"briefing":{"timezone":"Moon/Base","schedule_local_time":"08:00"}}`}}.Encode())
	require.Contains(t, api.Body, "Die Zeitzone „Moon/Base“ kennen wir nicht.")

	// The en-US org next door: English, 12-hour.
	saveConfig(t, f, f.orgB.ID, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"18:30","days":["mon"]}}`)
	r = f.as(&f.adminB).get("/orgs/globex/settings/fieldforce")
	require.Equal(t, http.StatusOK, r.Code)
	doc = parseDoc(t, r.Body)
	require.Equal(t, "6:30 PM", doc.byID("schedule_local_time").attr("value"))
	require.Equal(t, "Next run: Mon, Dec 7, 6:30 PM CET", doc.byID("preview-summary").text())
	require.Contains(t, doc.find(tagIs("caption")).text(), "Central European Time (Berlin)")
}

// A briefing fired too late says so in the reader's words and clock, from
// its recorded firing, in the calendar and the delivery log: a de-DE
// reader does not get the English the worker stored.
func TestLateRunInTheReadersWords(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	id := readyBriefing(t, f, f.orgA.ID)
	ctx := context.Background()
	// Fired at 21:35 New York time for 06:30 that morning: 15 h late.
	_, err := f.db.Exec(ctx, `UPDATE ff_briefings SET scheduled_at = '2026-03-04 02:35Z', scheduled_for = '2026-03-03 11:30Z'
		WHERE org_id = $1 AND id = $2`, f.orgA.ID, id)
	require.NoError(t, err)
	_, err = f.db.Exec(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, last_code, last_detail, due_at)
		VALUES ($1, $2, 1, 'email', 'dispatcher', 'dispatch@acme.test', 'msg_late1', 'skipped', 'late',
		        'made 21:35, 15 h after 06:30 — not sent', '2026-03-03 13:00Z')`, f.orgA.ID, id)
	require.NoError(t, err)

	for _, tc := range []struct{ locale, why, row string }{
		{"en-US", "made 9:35 PM, 15 h after 6:30 AM — not sent", "ready; "},
		{"de-DE", "erstellt 21:35, 15 Std. nach 06:30 – nicht gesendet", "bereit; "},
	} {
		_, err := f.db.Exec(ctx, `UPDATE orgs SET locale = $2 WHERE id = $1`, f.orgA.ID, tc.locale)
		require.NoError(t, err)
		rows, _ := listRows(t, f.as(&f.adminA), briefingsPath)
		require.Contains(t, rows["2026-03-03"].text(), tc.row+tc.why, tc.locale)
		log := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body).byID("delivery-log")
		require.Contains(t, log.find(attrIs("data-delivery-state", "skipped")).text(), tc.why, tc.locale)
	}
}

// The time box's hint offers only what the box reads, in every locale.
func TestTimeExamplesAreRead(t *testing.T) {
	t.Parallel()
	for _, l := range locale.Supported() {
		ex := timeExamples(l)
		require.Len(t, ex, 3, l.Tag())
		for _, s := range ex {
			h, m, err := l.ParseClock(s)
			require.NoError(t, err, "%s: %q", l.Tag(), s)
			require.Contains(t, [][2]int{{6, 30}, {18, 30}}, [2]int{h, m}, "%s: %q", l.Tag(), s)
		}
	}
	require.Equal(t, []string{"6:30 AM", "6:30 pm", "18:30"}, timeExamples(locale.Nearest("en-US")))
	require.Equal(t, []string{"06:30", "6.30", "18h30"}, timeExamples(locale.Nearest("de-DE")))
}

// An invalid stored document is explained in the reader's language on the
// settings page and on the briefings page alike.
func TestInvalidConfigInTheReadersWords(t *testing.T) {
	t.Parallel()
	f := setup(t)
	forceConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Moon/Base","schedule_local_time":"08:00"}}`)
	_, err := f.db.Exec(context.Background(), `UPDATE orgs SET locale = 'de-DE' WHERE id = $1`, f.orgA.ID)
	require.NoError(t, err)
	const why = "Die Zeitzone „Moon/Base“ kennen wir nicht."

	doc := parseDoc(t, f.as(&f.adminA).get(settingsPath).Body)
	require.Contains(t, doc.byID("stored-problem").text(), why)
	require.Contains(t, doc.byID("stored-problem").text(), "Die gespeicherte Konfiguration ist ungültig")

	doc = parseDoc(t, f.as(&f.memberA).get(briefingsPath).Body)
	require.Contains(t, doc.find(hasClass("state")).text(), why)
	require.NotContains(t, doc.find(hasTag("main")).text(), "We don't know")
}
