package web

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
)

// The import pages, field problems, zone names, the day link's errors and
// the unsubscribe pages in the reader's language (docs/i18n.md).

// An import preview of a de-DE org says every row's problem in German,
// from its code; the page around it is German too, and the codes are on
// the rows for scripts and tests. The same file in the en-US org reads as
// it always did.
func TestImportPreviewInTheOrgsLanguage(t *testing.T) {
	ff := setupField(t) // acme: America/New_York
	ff.setLocale(ff.orgA.ID, "de-DE")

	page := ff.admin.get(importPath)
	require.Equal(t, http.StatusOK, page.Code)
	doc := parseDoc(t, page.Body)
	require.Equal(t, "CSV-Import", doc.find(hasTag("h1")).text())
	require.Contains(t, doc.byID("import-jobs").text(), "Beginn des Ankunftsfensters in der Zeitzone der Organisation: 08:00, 8:00 Uhr, 9am")
	require.Contains(t, doc.byID("import-intro").text(), "höchstens 5 MB und 50.000 Zeilen", "numbers in the locale's grouping")

	file := "external_ref,customer,date,arrival_from,arrival_to,technician_ref,emergency\n" +
		"J-1,,2026-03-09,08:00,10:00,,\n" + // customer required
		"J-2,Bäckerei,2026-02-30,08:00,10:00,,\n" + // no such date
		"J-3,Bäckerei,2026-03-08,02:30,04:00,,\n" + // clocks spring forward in New York
		"J-4,Bäckerei,2026-03-09,08:00,10:00,T-404,vielleicht\n" + // yes/no; unknown technician (in the same first preview, CSVM)
		"J-1,Bäckerei,2026-03-09,08:00,10:00,,\n" // the same reference again
	_, doc = previewOf(t, ff.admin, "jobs", file)
	probs := doc.byID("import-problems").findAll(hasTag("tr"))[1:] // the header row first
	got := map[string]string{}
	for _, p := range probs {
		got[p.attr("data-row")+" "+p.attr("data-code")] = p.findAll(hasTag("td"))[2].text()
	}
	require.Equal(t, map[string]string{
		"2 " + field.CodeRequired:                 "Kunde ist ein Pflichtfeld.",
		"3 " + fieldimport.CodeDateInvalid:        "Datum: „2026-02-30“ ist kein Datum. Schreiben Sie es wie 2026-11-26 oder mit Tag, Monat und Jahr in der Reihenfolge des Gebietsschemas Ihrer Organisation (oben angegeben).",
		"5 " + fieldimport.CodeTechnicianNotFound: "Techniker: Kein Techniker dieser Organisation hat den Namen, die E-Mail-Adresse oder die Referenz „T-404“.",
		"4 " + fieldimport.CodeTimeGap: "Ankunft ab: So., 8. März, 02:30 gibt es in America/New_York nicht: " +
			"An diesem Tag springen die Uhren von 02:00 auf 03:00 (EST auf EDT).",
		"5 " + fieldimport.CodeYesNo: "Notfall muss ja oder nein sein (auch yes oder no), nicht „vielleicht“.",
		"6 " + field.CodeRefRepeated: "Auftragsnummer „J-1“ steht auch in Zeile 2: Jede Zeile braucht ihre eigene.",
	}, got)
	require.Contains(t, doc.byID("import-summary").text(), "0 neu, 0 Aktualisierungen, 0 unveränderte Zeilen, 6 Fehler.")
	require.Contains(t, doc.byID("import-blocked").text(), "Gespeichert werden kann erst")

	// Row 5's technician alone: the import's code (a name, an email or a
	// reference), in German, naming what the file says.
	_, doc = previewOf(t, ff.admin, "jobs", "external_ref,customer,date,arrival_from,arrival_to,technician_ref\n"+
		"J-4,Bäckerei,2026-03-09,08:00,10:00,T-404\n")
	row := doc.byID("import-problems").find(attrIs("data-code", fieldimport.CodeTechnicianNotFound))
	require.NotNil(t, row)
	require.Contains(t, row.text(), "Kein Techniker dieser Organisation hat den Namen, die E-Mail-Adresse oder die Referenz „T-404“.")

	// A row that can be saved shows its values as the reader reads them:
	// the date and times in the locale's words and clock, yes/no and the
	// status in German; what is saved does not change.
	_, doc = previewOf(t, ff.admin, "jobs", "external_ref,customer,date,arrival_from,arrival_to,status,emergency\n"+
		"J-5,Bäckerei,2026-03-09,08:00,10:00,in progress,no\n")
	cells := doc.byID("import-rows").find(attrIs("data-row", "2")).findAll(hasTag("td"))
	var shown []string
	for _, c := range cells {
		shown = append(shown, c.text())
	}
	require.Contains(t, shown, "Mo., 9. März 2026")
	require.Contains(t, shown, "08:00 EDT")
	require.Contains(t, shown, "10:00 EDT")
	require.Contains(t, shown, "In Arbeit")
	require.Contains(t, shown, "nein")
	require.Contains(t, doc.byID("import-summary").text(), "1 neu")

	// A file refused whole is refused in German too.
	r := ff.admin.upload(importPath+"/jobs", "j.csv", []byte(strings.Repeat("x", fieldimport.MaxBytes+1)), false)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Code)
	require.Contains(t, parseDoc(t, r.Body).byID("import-error-jobs").text(), "Die Datei ist größer als 5 MB")
}

// The technician and job forms of a de-DE org say the store's problems
// beside the field in German; the en-US org's stay as they were.
func TestFieldFormProblemsInTheReadersLanguage(t *testing.T) {
	ff := setupField(t)
	ff.setLocale(ff.orgB.ID, "de-DE")
	adminB := ff.as(&ff.adminB)

	r := adminB.post("/orgs/globex/technicians", map[string][]string{"name": {"Gus"}, "email": {"gus at globex"}, "active": {"true"}})
	requireFieldError(t, r, "email", "keine E-Mail-Adresse wie name@example.com")
	r = adminB.post("/orgs/globex/jobs", jobValues(strings.Repeat("x", field.MaxCustomer+1), "2026-03-09", "08:00", "10:00"))
	requireFieldError(t, r, "customer", "zu lang: höchstens 200 Zeichen")
	r = adminB.post("/orgs/globex/jobs", jobValues("", "2026-03-09", "08:00", "10:00"))
	requireFieldError(t, r, "customer", "Pflichtfeld")

	r = ff.admin.post("/orgs/acme/jobs", jobValues("", "2026-03-09", "08:00", "10:00"))
	requireFieldError(t, r, "customer", "is required")
}

// The board, the job list and the job form of a de-DE org name the zone as
// German speakers know it, with the IANA id and the day's abbreviation in
// small print; an en-US org's in English.
func TestFieldZoneNamedInTheReadersLanguage(t *testing.T) {
	ff := setupField(t) // acme: America/New_York
	ff.setLocale(ff.orgA.ID, "de-DE")

	r := ff.admin.get("/orgs/acme/board")
	require.Equal(t, http.StatusOK, r.Code)
	zone := parseDoc(t, r.Body).byID("board-zone")
	require.Contains(t, zone.text(), "Nordamerikanische Ostküstenzeit (New York)")
	small := zone.find(hasClass("zone-id"))
	require.NotNil(t, small, "the IANA id in small print")
	require.Equal(t, "America/New_York (EST)", small.text())
	require.Equal(t, "America/New_York", small.attr("data-zone"))
	require.Contains(t, parseDoc(t, r.Body).byID("window-hint").text(), "Nordamerikanische Ostküstenzeit (New York)")

	// The job list's caption, and the form's hint on a summer day (EDT).
	ff.job(ff.orgA.ID, "Smith", time.Date(2026, 7, 1, 14, 0, 0, 0, time.UTC), 0)
	r = ff.admin.get("/orgs/acme/jobs?date=2026-07-01")
	doc := parseDoc(t, r.Body)
	require.Contains(t, doc.find(hasTag("caption")).text(), "Nordamerikanische Ostküstenzeit (New York)")
	require.Equal(t, "America/New_York (EDT)", doc.find(hasTag("caption")).find(hasClass("zone-id")).text())
	require.Equal(t, "America/New_York (EDT)", doc.byID("window-hint").find(hasClass("zone-id")).text())

	// The en-US org next door, in Berlin.
	ff.setLocale(ff.orgB.ID, "en-US")
	r = ff.as(&ff.memberB).get("/orgs/globex/board")
	zone = parseDoc(t, r.Body).byID("board-zone")
	require.Contains(t, zone.text(), "Times in Central European Time (Berlin)")
	require.Equal(t, "Europe/Berlin (CET)", zone.find(hasClass("zone-id")).text())
}

// An org without a saved zone reads its UTC times with the reason, in its
// language.
func TestFieldZoneNotSavedInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgB.ID, "fr-FR")
	r := f.as(&f.memberB).get("/orgs/globex/board")
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, parseDoc(t, r.Body).byID("board-zone").text(), "aucun fuseau horaire n’est encore enregistré")
}

// A day link that does not open, and one opened too often, answer in the
// browser's language: whose link it was is not known.
func TestDayLinkErrorsInTheBrowsersLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.anon().with("Accept-Language", "fr-FR,fr;q=0.9,en;q=0.5")
	path := "/t/" + strings.Repeat("A", 43)
	r := c.get(path)
	require.Equal(t, http.StatusNotFound, r.Code)
	requireDayLinkHeaders(t, r)
	require.Contains(t, r.Body, `<html lang="fr-FR"`)
	require.Contains(t, pageText(t, r.Body), "Ce lien a expiré ou n’est plus valide.")
	require.NotContains(t, r.Body, "This link has expired")

	// English readers keep the English words.
	r = f.anon().get(path)
	require.Contains(t, r.Body, "This link has expired or is no longer valid")

	for range dayLinkBurst {
		c.get(path)
	}
	r = c.get(path)
	require.Equal(t, http.StatusTooManyRequests, r.Code)
	require.Contains(t, pageText(t, r.Body), "Trop de requêtes depuis votre réseau. Attendez 1 seconde,")
}

// The unsubscribe pages speak the recipient's language: their technician
// language when the org has a technician with that address, else the
// org's; a link that does not open, the browser's.
func TestUnsubscribeInTheRecipientsLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	f.saveRecipients(f.orgA.ID, `{"email":{"to":["ops@acme.test","tech@acme.test"]}}`)
	_, err := f.db.Exec(context.Background(),
		`INSERT INTO technicians (org_id, name, email, language) VALUES ($1, 'Tina', 'Tech@acme.test', 'es')`, f.orgA.ID)
	require.NoError(t, err)
	browser := f.anon().with("Accept-Language", "fr")

	r := browser.get(f.unsubscribePath(f.orgA.ID, "ops@acme.test"))
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Contains(t, r.Body, `<html lang="de-DE"`)
	require.Equal(t, "de-DE", r.Header.Get("Content-Language"))
	require.Contains(t, r.Body, "<p>Keine Briefing-E-Mails mehr an <strong>ops@acme.test</strong> für <strong>Acme Field Services</strong> senden?</p>")

	r = browser.get(f.unsubscribePath(f.orgA.ID, "tech@acme.test"))
	require.Contains(t, r.Body, "<p>¿Dejar de enviar los correos de resumen a <strong>tech@acme.test</strong> de <strong>Acme Field Services</strong>?</p>")
	form := parseDoc(t, r.Body).find(attrIs("action", "/unsubscribe"))
	done := browser.post("/unsubscribe", map[string][]string{"t": {form.find(attrIs("name", "t")).attr("value")}})
	require.Equal(t, http.StatusOK, done.Code, done.Body)
	require.Contains(t, pageText(t, done.Body), "Ya no recibirá estos correos")

	bad := browser.get("/unsubscribe?t=" + strings.Repeat("A", 40))
	require.Equal(t, http.StatusUnprocessableEntity, bad.Code)
	require.Contains(t, pageText(t, bad.Body), "Ce lien de désabonnement n’est pas valide.")
}

// Every problem code internal/field and internal/fieldimport declare has
// words in each language, as a form's fragment (field's) and an import's
// sentence (both): a code added without them fails here. The codes are
// read from the packages' source, so the lists in problems.go cannot
// silently fall behind.
func TestEveryProblemCodeHasWords(t *testing.T) {
	t.Parallel()
	declared := func(dir string) []string {
		fset := token.NewFileSet()
		var codes []string
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		require.NoError(t, err)
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			require.NoError(t, err)
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !strings.HasPrefix(n.Name, "Code") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						require.True(t, ok, "%s: %s is not a string literal", name, n.Name)
						v, err := strconv.Unquote(lit.Value)
						require.NoError(t, err)
						codes = append(codes, v)
					}
				}
			}
		}
		require.NotEmpty(t, codes, dir)
		return codes
	}
	fieldDeclared, importDeclared := declared("field"), declared("fieldimport")
	require.Len(t, fieldCodes, len(fieldDeclared))
	require.Len(t, importCodes, len(importDeclared))
	for _, lang := range i18n.Languages() {
		l := i18n.Resolve(lang, "", "")
		for _, code := range fieldDeclared {
			require.True(t, fieldCodes[code], "problems.go lacks field's %q", code)
			ve := &field.ValidationError{Fields: map[string]string{"name": "English"},
				Problems: map[string]field.Problem{"name": {Code: code, Value: "T-1", Limit: 200}}}
			msg := fieldProblem(l, ve, "name")
			require.NotEqual(t, "English", msg, code)
			require.NotContains(t, msg, "fieldproblem.", "%s: %s has no words", lang, code)
			msg = importProblem(l, fieldimport.Jobs, fieldimport.Problem{Row: 2, Column: "customer", Code: code, Value: "T-1", Limit: 200, Message: "English"})
			require.NotContains(t, msg, "import.problem.", "%s: %s has no words", lang, code)
			require.NotEqual(t, "English", msg, code)
		}
		for _, code := range importDeclared {
			require.True(t, importCodes[code], "problems.go lacks fieldimport's %q", code)
			p := fieldimport.Problem{Row: 2, Column: "date", Code: code, Value: "x", Count: 3, Limit: 2, Message: "English"}
			if code == fieldimport.CodeTimeGap {
				loc, err := time.LoadLocation("America/New_York")
				require.NoError(t, err)
				_, _, err = schedule.LocalDateTime(loc, schedule.Date{Year: 2026, Month: 3, Day: 8}, schedule.LocalTime{Hour: 2, Minute: 30})
				require.ErrorAs(t, err, &p.Gap)
			}
			msg := importProblem(l, fieldimport.Jobs, p)
			require.NotContains(t, msg, "import.problem.", "%s: %s has no words", lang, code)
			require.NotEqual(t, "English", msg, code)
		}
		for _, k := range []fieldimport.Kind{fieldimport.Technicians, fieldimport.Jobs} {
			for _, c := range fieldimport.Columns(k) {
				id := "import.help." + string(k) + "." + c.Name
				require.NotEqual(t, id, l.T(id), "%s: column %s of %s has no help", lang, c.Name, k)
			}
		}
	}
}

// The API keeps English messages (developers' convention) and carries the
// same codes the pages translate, even for a de-DE org.
func TestAPIProblemsAreEnglishWithCodes(t *testing.T) {
	ff := setupField(t)
	ff.setLocale(ff.orgA.ID, "de-DE")
	a := ff.api(ff.newToken(ff.orgA, "sync"))
	res := a.Put("/api/v1/technicians/T-9", `{"name":"","email":"not an address"}`)
	fields := apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, "is required", fields["name"])
	require.Equal(t, "is not an email address like name@example.com", fields["email"])
	codes, ok := res.JSON["error"].(map[string]any)["codes"].(map[string]any)
	require.True(t, ok, res.Body)
	require.Equal(t, map[string]any{"name": field.CodeRequired, "email": field.CodeEmailInvalid}, codes)

	// A job whose time is not read keeps the codes of its other problems.
	res = a.Put("/api/v1/jobs/J-9", `{"customer":"","arrival_start":"2026-03-09T08:00"}`)
	apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	codes, ok = res.JSON["error"].(map[string]any)["codes"].(map[string]any)
	require.True(t, ok, res.Body)
	require.Equal(t, map[string]any{"customer": field.CodeRequired, "arrival_end": field.CodeRequired}, codes)

	// Every unknown member is named, each with its code.
	res = a.Put("/api/v1/technicians/T-9", `{"colour":"red", "name": "Ana", "Phone": "1", "size": 2}`)
	apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, map[string]any{"colour": "unknown_member", "Phone": "unknown_member", "size": "unknown_member"},
		res.JSON["error"].(map[string]any)["codes"], res.Body)

	// An error without field problems has no codes member.
	res = a.Put("/api/v1/technicians/T-9", `{"name": "Ana"} {"name": "Bo"}`)
	apitest.RequireError(t, res, http.StatusUnprocessableEntity, "invalid")
	_, has := res.JSON["error"].(map[string]any)["codes"]
	require.False(t, has, res.Body)
}
