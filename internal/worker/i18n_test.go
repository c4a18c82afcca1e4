package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/locale"
	"fieldbrief/internal/transport/transporttest"
)

// enUS is the default org locale's formats, as the tests' emails write
// times and dates (docs/i18n.md).
var enUS = locale.Nearest("en-US")

// TestEmailsInTheReadersLanguage: in an en-US org, a technician whose
// language is Spanish gets a Spanish email with the org's 12-hour times,
// an English-speaking one English; a de-DE org's dispatcher and technician
// read German with 24-hour times (docs/i18n.md, "Who reads what").
func TestEmailsInTheReadersLanguage(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	us := f.Org("northwind", deliveryConfig("America/Chicago", "06:30", []string{"dispatch@northwind.test"}, true, ""))
	ana := f.techWithEmail(us, "Ana", "ana@northwind.test")
	ben := f.techWithEmail(us, "Ben", "ben@northwind.test")
	_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET language = 'es' WHERE id = $1 AND org_id = $2`, ana, us)
	require.NoError(t, err)
	// Thu 26 Nov 2026 in Austin (CST, UTC−6): 14:00 UTC is 8:00 AM.
	first := f.Job(us, ana, "Dogwood Bakery", utc("2026-11-26T14:00:00Z"), utc("2026-11-26T16:00:00Z"), "scheduled")
	_, err = f.DB.Exec(f.Ctx, `UPDATE jobs SET address = '500 W 2nd St, Austin, TX 78701' WHERE id = $1`, first)
	require.NoError(t, err)
	f.Job(us, ana, "Elm Clinic", utc("2026-11-26T20:00:00Z"), utc("2026-11-26T21:00:00Z"), "scheduled")
	f.Job(us, ben, "Fir Farm", utc("2026-11-26T15:00:00Z"), utc("2026-11-26T16:00:00Z"), "scheduled")

	// 13:00 in Berlin (CET, UTC+1) is 12:00 UTC; its org reads German.
	de := f.Org("bergmann", deliveryConfig("Europe/Berlin", "13:00", []string{"dispo@bergmann.test"}, true, ""))
	_, err = f.DB.Exec(f.Ctx, `UPDATE orgs SET locale = 'de-DE' WHERE id = $1`, de)
	require.NoError(t, err)
	jonas := f.techWithEmail(de, "Jonas", "jonas@bergmann.test")
	f.Job(de, jonas, "Bäckerei Lang", utc("2026-11-26T13:00:00Z"), utc("2026-11-26T15:00:00Z"), "scheduled") // 14:00–16:00 CET

	now := utc("2026-11-26T12:30:00Z") // 06:30 CST, 13:30 CET: both fired, neither late
	f.runOnceWith(f.deliveringWorker(sink.URL, func() time.Time { return now }), now)
	byTo := map[string]transporttest.Received{}
	for _, m := range sink.Messages() {
		byTo[strings.Join(m.To, ",")] = m
	}
	read := func(to string) (subject, text, html string) {
		t.Helper()
		m, ok := byTo[to]
		require.True(t, ok, "no email to %s (got %d)", to, len(byTo))
		parsed, err := m.Parse()
		require.NoError(t, err)
		text, html, err = m.Bodies()
		require.NoError(t, err)
		return decodeHeader(t, parsed.Header.Get("Subject")), strings.ReplaceAll(text, "\r\n", "\n"), html
	}

	// Ana: Spanish words, the US org's clock (es-US).
	subject, text, html := read("ana@northwind.test")
	require.Equal(t, "Su día, "+locale.Nearest("es-US").Date(utc("2026-11-26T18:00:00Z"))+
		": 2 trabajos, el primero a las 8:00\u202fa.m. en 500 W 2nd St", subject)
	require.Contains(t, text, "Zona horaria: "+locale.Nearest("es-US").ZoneName("America/Chicago", now)+" · America/Chicago\n")
	require.Contains(t, text, "SUS TRABAJOS (2)\n")
	require.Contains(t, text, "- 8:00–10:00\u202fa.m. CST  Dogwood Bakery\n")
	require.Contains(t, text, "  Programado\n")
	require.Contains(t, text, "Abra su día en el teléfono: https://app.fieldbrief.test/t/")
	require.Contains(t, html, `<html lang="es-US">`)
	require.Contains(t, html, ">Abrir su día</a>")
	require.NotContains(t, text, "Your ")

	// Ben has no language of his own: the org's, English on a 12-hour clock.
	subject, text, _ = read("ben@northwind.test")
	require.Equal(t, "Your day, Thu, Nov 26: 1 job, 9:00\u202fAM at Fir Farm street", subject)
	require.Contains(t, text, "- 9:00\u2009–\u200910:00\u202fAM CST  Fir Farm\n")

	// The US dispatcher: English.
	subject, _, _ = read("dispatch@northwind.test")
	require.Equal(t, "northwind · briefing for Thu, Nov 26", subject)

	// Bergmann's dispatcher and technician: German, 24-hour times.
	subject, text, html = read("dispo@bergmann.test")
	require.Equal(t, "bergmann · Briefing für Do., 26. Nov.", subject)
	require.Contains(t, text, "Briefing für Do., 26. Nov.\nZeitzone: Mitteleuropäische Zeit (Berlin) · Europe/Berlin\n\n1 Auftrag · ")
	require.Contains(t, text, "TOUREN\n")
	require.Contains(t, text, "- 14:00–16:00 Uhr MEZ  Bäckerei Lang\n")
	require.Contains(t, text, "Briefing öffnen: https://app.fieldbrief.test/orgs/bergmann/briefings/2026-11-26")
	require.Contains(t, html, `<html lang="de-DE">`)
	subject, _, _ = read("jonas@bergmann.test")
	require.Equal(t, "Ihr Tag, Do., 26. Nov.: 1 Auftrag, um 14:00, Bäckerei Lang street", subject)
}
