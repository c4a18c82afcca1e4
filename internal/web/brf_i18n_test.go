package web

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
)

// The briefing page, the members page, the invite, password and link
// pages and the API tokens page in the reader's language and formats
// (docs/i18n.md); the existing English tests (briefings_test.go,
// accounts_test.go) keep the en-US side.

// A de-DE org's briefing page is German, its dates as Germans write them,
// its windows in 24-hour time with their zone, the zone by its German
// name; a Spanish-speaking user of the en-US org reads Spanish words with
// US formats (es-US: 12-hour "a.m.").
func TestBriefingPageInTheOrgsLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	id := insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})
	insertRun(t, f, f.orgA.ID, id, "completed", 1, "")

	res := f.as(&f.memberA).get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	require.Contains(t, res.Body, `<html lang="de-DE">`)
	doc := parseDoc(t, res.Body)
	require.Equal(t, "Briefing für Dienstag, 3. März 2026", doc.find(tagIs("h1")).text())
	require.Contains(t, res.Body, "<title>Briefing für Di., 3. März · fieldbrief</title>")
	meta := doc.find(hasClass("briefing-meta")).text()
	require.Contains(t, meta, "Status bereit")
	require.Contains(t, meta, "Zeitzone Nordamerikanische Ostküstenzeit (New York) America/New_York")
	require.Contains(t, meta, "Ausgelöst Di., 3. März 2026, 08:00 UTC−5")
	summary := doc.byID("summary").text()
	require.Contains(t, summary, "3 Aufträge heute")
	require.Contains(t, summary, "1 storniert (nicht mitgezählt).")
	require.Contains(t, summary, "Zeitzone: Nordamerikanische Ostküstenzeit (New York) (UTC−5).")
	require.Contains(t, doc.byID("action-items-title").text(), "Handlungsbedarf (3)")
	require.Contains(t, doc.byID("unassigned").text(), "Stark Industries Stark Industries HQ niemand Zurückgestellt")
	techs := doc.findAll(hasClass("technician"))
	require.Regexp(t, `^Ada Lovelace 555-0100 07:00–08:00 Uhr UTC−5 Fire Station .* 09:00–10:00 Uhr UTC−5 Initech Initech HQ Geplant$`, techs[0].text())
	require.Contains(t, techs[1].text(), "Heute keine Aufträge.")
	require.Contains(t, doc.find(attrIs("data-yesterday", "")).text(), "3 von 5 geplanten Aufträgen erledigt.")
	require.Contains(t, doc.find(hasClass("runs")).text(), "Zeitplan Erstellt")
	nav := doc.find(hasClass("day-nav")).text()
	require.Contains(t, nav, "Mo., 2. März")
	require.Contains(t, nav, "Alle Briefings")
	for _, english := range []string{"Run history", "jobs today", "Needs action", "Times in", "No jobs today", "scheduled jobs completed"} {
		require.NotContains(t, res.Body, english)
	}

	// A Spanish-speaking member of the en-US org: Spanish words, US clock.
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})
	b := f.as(&f.memberB)
	require.Equal(t, http.StatusSeeOther, b.post("/profile/language", url.Values{"language": {"es"}}).Code)
	res = b.get("/orgs/globex/briefings/2026-03-03")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	doc = parseDoc(t, res.Body)
	require.Contains(t, doc.find(tagIs("h1")).text(), "2026") // the long date, es-US
	require.Contains(t, doc.findAll(hasClass("technician"))[0].text(), "Ada Lovelace 555-0100 7:00–8:00 a.m. EST Fire Station")
	require.Contains(t, doc.byID("summary").text(), "3 trabajos hoy")
	require.Contains(t, doc.byID("routes").text(), "Técnicos (2, 3 trabajos hoy)")
}

// The members page of a de-DE org is German (its times in UTC, as Germans
// write them); refusals made by the lower packages reach the page in the
// reader's language by their codes: an invite error in Spanish for a
// Spanish-speaking admin, the admins-only refusal and the last admin's in
// German. The notices after a redirect too.
func TestMembersPageInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	admin := f.as(&f.adminA)

	res := admin.get("/orgs/acme/members")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	doc := parseDoc(t, res.Body)
	require.Equal(t, "Mitglieder", doc.find(tagIs("h1")).text())
	require.Contains(t, doc.byID("invite-title").text(), "Jemanden einladen")
	list := doc.byID("member-list").text()
	require.Contains(t, list, "Letzte Anmeldung")
	require.Contains(t, list, "Administrator")
	require.Contains(t, list, "Mi., 4. März 2026, 15:00 UTC")
	require.NotContains(t, res.Body, "Invite someone")

	require.Contains(t, admin.get("/orgs/acme/members?notice=role-changed").Body, "Rolle geändert.")
	res = admin.post("/orgs/acme/members/invite", url.Values{"email": {"not-an-address"}, "role": {"member"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("email-error").text(), "Bitte geben Sie eine gültige E-Mail-Adresse ein")

	// The org's only admin cannot leave it.
	res = admin.post("/orgs/acme/members/"+itoa(int(f.adminA.ID))+"/remove", url.Values{})
	require.Equal(t, http.StatusConflict, res.Code, res.Body)
	require.Contains(t, parseDoc(t, res.Body).byID("members-error").text(), "einzige Administrator dieser Organisation")

	// Not an admin: the refusal's code in German.
	res = f.as(&f.memberA).post("/orgs/acme/members/invite", url.Values{"email": {"x@acme.test"}, "role": {"member"}})
	require.Equal(t, http.StatusForbidden, res.Code)
	require.Contains(t, res.Body, "Das können nur die Administratoren dieser Organisation.")
	require.NotContains(t, res.Body, "Only this org")

	// A Spanish-speaking admin of the en-US org: the invite form's errors in Spanish.
	b := f.as(&f.adminB)
	require.Equal(t, http.StatusSeeOther, b.post("/profile/language", url.Values{"language": {"es"}}).Code)
	res = b.post("/orgs/globex/members/invite", url.Values{"email": {f.memberB.Email}, "role": {"member"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("email-error").text(), f.memberB.Email+" ya es miembro de esta organización.")
	res = b.post("/orgs/globex/members/invite", url.Values{"email": {"nuevo@globex.test"}, "role": {"owner"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("role-error").text(), "Elija Miembro, Despachador o Administrador.")
	require.Contains(t, res.Body, "Invitar a alguien")
}

// Signed out, the invite, link, forgot and reset pages follow the
// browser: an invite of a de-DE org opened in a French browser is French,
// its errors too.
func TestAccountPagesFollowTheBrowser(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	require.Equal(t, http.StatusSeeOther, f.as(&f.adminA).post("/orgs/acme/members/invite", url.Values{"email": {"neu@acme.test"}, "role": {"admin"}}).Code)
	link := mailLink(t, f, accounts.EmailInvite)

	fr := f.anon().with("Accept-Language", "fr-FR,fr;q=0.9")
	res := fr.get(link)
	require.Equal(t, http.StatusOK, res.Code)
	doc := parseDoc(t, res.Body)
	require.Equal(t, "Rejoindre Acme Field Services", doc.find(tagIs("h1")).text())
	require.Contains(t, res.Body, "sur fieldbrief en tant qu’administrateur.")
	res = fr.post(link, url.Values{"name": {""}, "password": {"nia picks a long passphrase"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("name-error").text(), "Saisissez votre nom")
	res = fr.get("/invites/NOTATOKEN")
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "Ce lien d’invitation ne fonctionne pas")

	es := f.anon().with("Accept-Language", "es-MX")
	res = es.get("/password/forgot")
	require.Contains(t, res.Body, "Restablecer su contraseña")
	res = es.post("/password/forgot", url.Values{"email": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("email-error").text(), "Escriba su correo electrónico.")
	res = es.get("/password/reset/NOTATOKEN")
	require.Equal(t, http.StatusGone, res.Code)
	require.Contains(t, res.Body, "Este enlace para restablecer la contraseña no funciona")
	require.Contains(t, res.Body, "Pedir un enlace nuevo")
}

// The API tokens page of a de-DE org is German, its name error by the
// tokens package's code; the JSON API's messages stay English.
func TestAPITokensPageInTheOrgsLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	admin := f.as(&f.adminA)
	res := admin.get("/orgs/acme/settings/api-tokens")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	require.Equal(t, "API-Tokens", parseDoc(t, res.Body).find(tagIs("h1")).text())
	require.Contains(t, res.Body, "Noch keine Tokens.")
	res = admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "Geben Sie einen Namen ein (höchstens")
	res = admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"Dispatch sync"}})
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, "Kopieren Sie diesen Token jetzt.")
	res = admin.post("/orgs/acme/settings/api-tokens", url.Values{"name": {"Dispatch sync"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "Ein aktiver Token dieser Organisation heißt bereits „Dispatch sync“")
	require.Contains(t, res.Body, "Zuletzt verwendet")

	// The API: English, whatever the org's locale.
	api := f.anon().with("Authorization", "Bearer fb_not_a_token")
	res = api.get("/api/v1/technicians")
	require.Equal(t, http.StatusUnauthorized, res.Code)
	require.Contains(t, res.Body, "The API token is missing")
}

// Account pages show times in the org's zone, never UTC once the org has
// one (docs/i18n.md, "The briefing page, members and account pages"): the
// last sign-in (the test clock, 15:00 UTC) is 16:00 MEZ in a Berlin org
// read in German, 10:00 AM EST in a New York org read in English.
func TestAccountTimesInTheOrgsZone(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"06:45"}}`)
	f.setLocale(f.orgA.ID, "de-DE")
	admin := f.as(&f.adminA)
	list := parseDoc(t, admin.get("/orgs/acme/members").Body).byID("member-list").text()
	require.Contains(t, list, "Mi., 4. März 2026, 16:00 MEZ")
	require.NotContains(t, list, "UTC")

	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	f.setLocale(f.orgA.ID, "en-US")
	list = parseDoc(t, admin.get("/orgs/acme/members").Body).byID("member-list").text()
	require.Contains(t, list, "Wed, Mar 4, 2026, 10:00 AM EST")
}
