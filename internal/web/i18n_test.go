package web

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
)

// setLocale makes an org read in locale, as its admin would.
func (f *fixture) setLocale(orgID int64, locale string) {
	f.t.Helper()
	_, err := f.store.Tenants.SetLocale(context.Background(), audit.Actor{Email: "admin@test"}, orgID, locale)
	require.NoError(f.t, err)
}

// A de-DE org's members read the layout, their profile and its error pages
// in German, with <html lang="de-DE">; the en-US org next door stays
// English; a member of the other org never sees the German org's language,
// not even on its 404 (docs/i18n.md, "Resolution").
func TestOrgLocaleDecidesTheLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	a := f.as(&f.memberA)

	res := a.get("/orgs/acme/jobs")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, `<html lang="de-DE">`)
	require.Contains(t, res.Body, "Zum Inhalt springen")
	require.Contains(t, res.Body, ">Aufträge</a>")
	require.Contains(t, res.Body, ">Abmelden</button>")
	require.NotContains(t, res.Body, ">Sign out</button>")
	require.Equal(t, "de-DE", res.Header.Get("Content-Language"))

	res = a.get("/profile")
	require.Equal(t, http.StatusOK, res.Code)
	require.Contains(t, res.Body, "<h1>Ihr Profil</h1>")
	require.Contains(t, res.Body, "Ihr Profil · fieldbrief</title>")
	require.Contains(t, res.Body, "Passwort ändern")

	res = a.get("/orgs/acme/no-such-page")
	require.Equal(t, http.StatusNotFound, res.Code)
	require.Contains(t, res.Body, "Seite nicht gefunden")
	require.Contains(t, res.Body, "Fehler 404")
	require.Contains(t, res.Body, "Zurück zu Acme Field Services")

	b := f.as(&f.memberB)
	for _, path := range []string{"/orgs/globex/jobs", "/profile", "/orgs/acme/jobs", "/orgs/acme/no-such-page"} {
		res := b.get(path)
		require.Contains(t, res.Body, `<html lang="en-US">`, path)
		require.Contains(t, res.Body, ">Sign out</button>", path)
		require.NotContains(t, res.Body, "Abmelden", path)
		require.NotContains(t, res.Body, "Seite nicht gefunden", path)
	}
	require.Equal(t, http.StatusNotFound, b.get("/orgs/acme/jobs").Code)
}

// Signed out, the browser's Accept-Language decides: the sign-in page and
// its messages in German, French or Spanish; nothing of ours (or no
// header) is English.
func TestSignInFollowsTheBrowser(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for accept, want := range map[string][]string{
		"de-DE,de;q=0.9,en;q=0.5": {`<html lang="de-DE">`, "<h1 id=\"login-title\">Anmelden</h1>", "Passwort vergessen?"},
		"fr-FR":                   {`<html lang="fr-FR">`, "Connexion", "Mot de passe oublié\u202f?"},
		"es-US,es;q=0.9":          {`<html lang="es-US">`, "Iniciar sesión", "¿Olvidó su contraseña?"},
		"pt-BR":                   {`<html lang="en-US">`, "Sign in", "Forgot password?"},
		"":                        {`<html lang="en-US">`, "Sign in", "Forgot password?"},
	} {
		c := f.anon()
		if accept != "" {
			c = c.with("Accept-Language", accept)
		}
		res := c.get("/login")
		require.Equal(t, http.StatusOK, res.Code, accept)
		for _, w := range want {
			require.Contains(t, res.Body, w, accept)
		}
		require.Contains(t, res.Header.Values("Vary"), "Accept-Language", accept)
	}
	de := f.anon().with("Accept-Language", "de")
	res := de.post("/login", url.Values{"email": {""}, "password": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "Bitte geben Sie Ihre E-Mail-Adresse ein.")
	require.Contains(t, res.Body, "Bitte geben Sie Ihr Passwort ein.")
	res = de.post("/login", url.Values{"email": {f.memberA.Email}, "password": {"wrong password!"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "E-Mail-Adresse oder Passwort ist falsch.")
	res = de.get("/no-such-page")
	require.Equal(t, http.StatusNotFound, res.Code)
	require.Contains(t, res.Body, "Seite nicht gefunden")
}

// A user's own language wins over the org's (and the browser's); the
// formats keep the org's region (es + de-DE: es-DE). The choice is audited;
// "the org's" takes it back; an unsupported one is a 422 beside the field
// and changes nothing.
func TestUserLanguageWins(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	a := f.as(&f.memberA).with("Accept-Language", "fr")

	res := a.post("/profile/language", url.Values{"language": {"es"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	res = a.get(res.Header.Get("Location"))
	require.Contains(t, res.Body, `<html lang="es-DE">`)
	require.Contains(t, res.Body, "<h1>Su perfil</h1>")
	require.Contains(t, res.Body, "Idioma guardado.")
	require.Contains(t, res.Body, `<option value="es" lang="es" selected>Español</option>`)
	require.Contains(t, a.get("/orgs/acme/jobs").Body, ">Cerrar sesión</button>")
	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE action = 'user.language.set' AND actor_email = $1
		AND new_value->>'language' = 'es'`, f.memberA.Email))

	for _, bad := range []string{"pt", "klingon", "es-AR"} {
		res = a.post("/profile/language", url.Values{"language": {bad}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, bad)
		require.Contains(t, res.Body, `<p class="field-error" id="language-error">Elija uno de los idiomas disponibles.</p>`, bad)
	}
	require.Equal(t, "es", f.languageOf(f.memberA.ID))

	res = a.post("/profile/language", url.Values{"language": {""}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Equal(t, "", f.languageOf(f.memberA.ID))
	require.Contains(t, a.get("/profile").Body, "<h1>Ihr Profil</h1>")
	require.Equal(t, 2, f.count(`SELECT count(*) FROM audit_log WHERE action = 'user.language.set' AND actor_email = $1`, f.memberA.Email))
}

func (f *fixture) languageOf(userID int64) string {
	f.t.Helper()
	var l string
	require.NoError(f.t, f.db.QueryRow(context.Background(), `SELECT coalesce(language, '') FROM users WHERE id = $1`, userID).Scan(&l))
	return l
}

// Staff create an org with a locale: the form offers the browser's, the
// org gets the one chosen; an unsupported one is a 422 beside the field.
func TestStaffNewOrgLocale(t *testing.T) {
	t.Parallel()
	f := setup(t)
	staff := f.as(&f.staff).with("Accept-Language", "de-AT,de;q=0.9")
	body := staff.get("/staff/orgs/new").Body
	require.Contains(t, body, `<option value="de-AT" lang="de-AT" selected>Deutsch (Österreich)</option>`)
	require.Contains(t, body, `>English (United States)</option>`)

	res := staff.post("/staff/orgs", url.Values{"slug": {"newco"}, "name": {"New Co"}, "admin_email": {"first@newco.test"}, "locale": {"xx-YY"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, `id="locale-error"`)
	require.Zero(t, f.count(`SELECT count(*) FROM orgs WHERE slug = 'newco'`))

	res = staff.post("/staff/orgs", url.Values{"slug": {"newco"}, "name": {"New Co"}, "admin_email": {"first@newco.test"}, "locale": {"de-AT"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM orgs WHERE slug = 'newco' AND locale = 'de-AT'`))
}

// An admin chooses the org's locale in its settings: the select offers the
// supported locales by their own names, the choice is audited and shown
// in the settings' history, and the next page is in the new language; a
// tag not offered is a 422 beside the field, nothing saved; members and
// other orgs' admins cannot change it.
func TestSettingsLocale(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	body := admin.get("/orgs/acme/settings/fieldforce").Body
	require.Contains(t, body, `<option value="en-US" lang="en-US" selected>English (United States)</option>`)
	require.Contains(t, body, `>Deutsch (Deutschland)</option>`)
	require.Contains(t, body, `>Español (Estados Unidos)</option>`)
	require.Contains(t, body, `>Français (France)</option>`)

	res := admin.post("/orgs/acme/settings/locale", url.Values{"locale": {"pt-BR"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, `<p class="field-error" id="org-locale-error">`)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM orgs WHERE slug = 'acme' AND locale = 'en-US'`))

	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post("/orgs/acme/settings/locale", url.Values{"locale": {"de-DE"}}).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post("/orgs/acme/settings/locale", url.Values{"locale": {"de-DE"}}).Code)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM orgs WHERE slug = 'acme' AND locale = 'en-US'`))

	res = admin.post("/orgs/acme/settings/locale", url.Values{"locale": {"de-DE"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	body = admin.get(res.Header.Get("Location")).Body
	require.Contains(t, body, `<html lang="de-DE">`)
	require.Contains(t, body, `<option value="de-DE" lang="de-DE" selected>Deutsch (Deutschland)</option>`)
	require.Contains(t, body, "org.locale.set")
	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE action = 'org.locale.set' AND org_id = $1
		AND old_value->>'locale' = 'en-US' AND new_value->>'locale' = 'de-DE' AND actor_email = $2`, f.orgA.ID, f.adminA.Email))
	require.Equal(t, 1, f.count(`SELECT count(*) FROM orgs WHERE slug = 'globex' AND locale = 'en-US'`))
}

// A technician's language: the API's optional "language" (validated, 422
// naming the field), the technician form's select (422 beside it), and
// the CSV column "language" (an empty cell keeps theirs). Another org's
// technician is never touched.
func TestTechnicianLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "ci"))

	r := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Rosa Díaz", "language": "es"})
	require.Equal(t, http.StatusCreated, r.Code, r.Body)
	require.Equal(t, "es", r.JSON["language"])
	r = api.Get("/api/v1/technicians/T-1")
	require.Equal(t, "es", r.JSON["language"], r.Body)
	r = api.Put("/api/v1/technicians/T-2", map[string]any{"name": "Sam Lee"})
	require.Equal(t, "", r.JSON["language"], r.Body) // the org's
	for _, bad := range []any{"pt", "klingon", 7} {
		r = api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Rosa Díaz", "language": bad})
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, "%v: %s", bad, r.Body)
		require.Contains(t, r.Body, "language", bad)
	}
	require.Equal(t, "es", api.Get("/api/v1/technicians/T-1").JSON["language"])

	var id int64
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT id FROM technicians WHERE org_id = $1 AND external_ref = 'T-2'`, f.orgA.ID).Scan(&id))
	admin := f.as(&f.adminA)
	path := "/orgs/acme/technicians/" + itoa(int(id))
	require.Contains(t, admin.get(path).Body, `<option value="" selected>The org&#39;s language</option>`)
	form := url.Values{"name": {"Sam Lee"}, "active": {"true"}, "external_ref": {"T-2"}, "language": {"xx"}}
	res := admin.post(path, form)
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, `<p class="field-error" id="language-error">Choose one of the languages offered.</p>`)
	// A de-DE org's admin reads the form and its error in German.
	f.setLocale(f.orgA.ID, "de-DE")
	res = admin.post(path, form)
	require.Contains(t, res.Body, `<p class="field-error" id="language-error">Bitte wählen Sie eine der angebotenen Sprachen.</p>`)
	require.Contains(t, res.Body, `>Sprache der Organisation</option>`)
	f.setLocale(f.orgA.ID, "en-US")
	form.Set("language", "fr")
	res = admin.post(path, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.Contains(t, admin.get(path).Body, `<option value="fr" lang="fr" selected>Français</option>`)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(path, form).Code)

	loc, doc := previewOf(t, admin, "technicians", "external_ref,name,language\nT-1,Rosa Díaz,\nT-2,Sam Lee,de\nT-3,Ana Ruiz,ES\n")
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)
	got := map[string]string{}
	rows, err := f.db.Query(context.Background(), `SELECT external_ref, coalesce(language, '') FROM technicians WHERE org_id = $1`, f.orgA.ID)
	require.NoError(t, err)
	for rows.Next() {
		var ref, lang string
		require.NoError(t, rows.Scan(&ref, &lang))
		got[ref] = lang
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{"T-1": "es", "T-2": "de", "T-3": "es"}, got)

	_, doc = previewOf(t, admin, "technicians", "external_ref,name,language\nT-1,Rosa Díaz,pt\n")
	require.Contains(t, doc.text(), "Language must be one of en, de, es, fr")
}

// On org-less pages (profile, start) a person in orgs of different
// locales reads their browser's language: no org is "the" org there; in
// each org's pages, that org's language.
func TestOrgLessPagesOfPeopleInSeveralOrgs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	both := f.member(f.orgA, "both@acme.test", "member")
	_, err := f.db.Exec(context.Background(), `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'member')`, f.orgB.ID, both.ID)
	require.NoError(t, err)
	c := f.as(&both).with("Accept-Language", "fr-FR")
	require.Contains(t, c.get("/profile").Body, "<h1>Votre profil</h1>")
	require.Contains(t, c.get("/orgs/acme/jobs").Body, ">Abmelden</button>")
	require.Contains(t, c.get("/orgs/globex/jobs").Body, ">Sign out</button>")
	f.setLocale(f.orgB.ID, "de-CH")
	require.Contains(t, c.get("/profile").Body, "<h1>Votre profil</h1>") // de-DE and de-CH differ
	f.setLocale(f.orgB.ID, "de-DE")
	require.Contains(t, c.get("/profile").Body, "<h1>Ihr Profil</h1>")
}

// A store's refusal (a reason code and its arguments) reaches a page in
// the reader's language through the catalog's one table (docs/i18n.md,
// "Refusals: one table"): a German org's member reads a missing job in
// German on the error page, the English org's member in English.
func TestRefusalsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")

	res := f.as(&f.memberA).get("/orgs/acme/jobs/987654321")
	require.Equal(t, http.StatusNotFound, res.Code)
	require.Contains(t, res.Body, "Diesen Auftrag gibt es nicht.")
	require.NotContains(t, res.Body, "No such job.")

	res = f.as(&f.memberB).get("/orgs/globex/jobs/987654321")
	require.Equal(t, http.StatusNotFound, res.Code)
	require.Contains(t, res.Body, "No such job.")
}
