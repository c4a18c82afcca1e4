package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
)

// Imports that lose nothing, through the screens in the four languages
// (docs/field-data.md, "CSV import"): an office's jobs file in its own
// language, with a column we have no field for, a technician written "T1"
// where fieldbrief says T-1, and a job dated in the past. The first
// preview names our fields in the reader's language (never a code name),
// blocks the save until the column has a choice, offers "did you mean
// T-1 (Dana O'Neil)?" and warns about the past date; the admin chooses
// "don't import", accepts the suggestion in one click, and saves. One
// browser session walks all four, at 1280 px with the first preview also
// at 390 px; the screenshots are listed in docs/field-data.md.
func TestImportLosesNothingInFourLanguages(t *testing.T) {
	e := newEnv(t)
	e.seed()
	for _, tech := range []field.TechnicianInput{{ExternalRef: "T-1", Name: "Dana O'Neil", Active: true}, {ExternalRef: "T-2", Name: "Sam Lee", Active: true}} {
		_, _, err := field.UpsertTechnicianByRef(e.ctx, e.db, audit.System, e.orgA.ID, tech)
		e.must("add technician "+tech.ExternalRef, err)
	}
	admin := e.newSession("admin")
	admin.login(adminA)
	dir := t.TempDir()

	for _, c := range []struct {
		lang, locale, file string
		words              []string // in the first preview: a field's name, the column, the suggestion, the past date
		saved              string   // the notice after the save
	}{
		{"en", "en-US", "Job #,Customer Name,Date,Start,End,Tech,Status,Notes,Memo\n" +
			"J-EN-1,Harbor Bakery,03/15/2027,8:00 AM,10:00 AM,T1,Scheduled,Side door,x\n" +
			"J-EN-2,Elm Dental,01/15/2026,9am,11am,T-2,Completed,,y\n",
			[]string{"Job number", "Arrival from", "“Memo”", "Did you mean T-1 (Dana O'Neil)?", "dated before today"}, "2 new"},
		{"de", "de-DE", "Auftragsnummer;Kunde;Datum;Von;Bis;Techniker;Status;Notiz;PLZ\n" +
			"J-DE-1;Bäckerei Schäfer;15.03.2027;08:00;10:00;T1;Offen;Hund im Garten;10115\n" +
			"J-DE-2;Café Größenwahn;15.01.2026;09:00;11:00;T-2;erledigt;;10623\n",
			[]string{"Auftragsnummer", "Ankunft ab", "„PLZ“", "Meinten Sie T-1 (Dana O'Neil)?", "vor heute"}, "2 neu"},
		{"es", "es-ES", "Número de trabajo;Cliente;Fecha;Inicio;Fin;Técnico;Estado;Nota;Código postal\n" +
			"J-ES-1;Panadería Sol;15/03/2027;8:00;10:00;T1;Programado;Perro en el jardín;28001\n" +
			"J-ES-2;Clínica Luna;15/01/2026;9:00;11:00;T-2;Terminado;;28002\n",
			[]string{"Número de trabajo", "Llegada desde", "«Código postal»", "¿Quiso decir T-1 (Dana O'Neil)?", "anterior a hoy"}, "2 nuevos"},
		{"fr", "fr-FR", "N° d'intervention;Client;Date;Début;Fin;Technicien;Statut;Remarque;Code postal\n" +
			"J-FR-1;Boulangerie Lefèvre;15/03/2027;8h00;10h00;T1;Planifiée;Sonner deux fois;69001\n" +
			"J-FR-2;Garage Moreau;15/01/2026;9h00;11h00;T-2;Terminée;;69002\n",
			[]string{"Numéro d’intervention", "Arrivée dès", "«\u202fCode postal\u202f»", "Vouliez-vous dire T-1 (Dana O'Neil)\u202f?", "d’avant aujourd’hui"}, "2 nouvelles"},
	} {
		_, err := e.db.Exec(e.ctx, `UPDATE orgs SET locale = $1 WHERE id = $2`, c.locale, e.orgA.ID)
		e.must("set the org's locale", err)
		path := filepath.Join(dir, "jobs-"+c.lang+".csv")
		e.must("write the file", os.WriteFile(path, append([]byte{0xEF, 0xBB, 0xBF}, []byte(strings.ReplaceAll(c.file, "\n", "\r\n"))...), 0o600))

		admin.do("desktop viewport", chromedp.EmulateViewport(1280, 900))
		admin.open("/orgs/acme/import")
		admin.do("choose "+filepath.Base(path), chromedp.SetUploadFiles(`#file-jobs`, []string{path}))
		if status := admin.submit(`#import-jobs button[type="submit"]`); status != 200 {
			t.Fatalf("%s: uploading answered %d:\n%s", c.lang, status, admin.text("main"))
		}
		// The first preview: every problem at once, our fields by name.
		admin.waitText(`#import-problems`, c.words[2], c.words[3])
		// (textContent: the header row is upper-cased by CSS.)
		if head, err := eval[string](admin, `document.querySelector('#import-rows thead').textContent`); err != nil || !containsAll(head, c.words[0], c.words[1]) {
			t.Errorf("%s: the preview's columns are %q, want %q and %q (%v)", c.lang, head, c.words[0], c.words[1], err)
		}
		admin.waitText(`#import-suggestions`, c.words[3])
		admin.waitText(`#import-past`, c.words[4])
		if admin.exists(`#import-save`) {
			t.Errorf("%s: a save is offered while a column waits for a choice", c.lang)
		}
		if main := admin.text("main"); containsAny(main, "external_ref", "technician_ref", "arrival_from", "customer_phone") {
			t.Errorf("%s: the preview shows a code name:\n%s", c.lang, main)
		}
		admin.screenshot("import-" + c.lang + "-first-1280")
		admin.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		if wide, err := eval[int](admin, `document.documentElement.scrollWidth - window.innerWidth`); err != nil || wide > 0 {
			t.Errorf("%s: the preview is %d px wider than a 390 px screen (%v)", c.lang, wide, err)
		}
		admin.screenshot("import-" + c.lang + "-first-390")
		admin.do("desktop viewport", chromedp.EmulateViewport(1280, 900))

		// "Don't import" for the column, then one click for the technician.
		admin.setValue(`#import-unchosen select`, "-")
		if status := admin.submit(`#import-columns-form button[type="submit"]`); status != 200 {
			t.Fatalf("%s: choosing the columns answered %d:\n%s", c.lang, status, admin.text("main"))
		}
		admin.waitText(`#import-suggestions`, c.words[3])
		if status := admin.submit(`#import-suggestions li form button[type="submit"]`); status != 200 {
			t.Fatalf("%s: accepting the suggestion answered %d:\n%s", c.lang, status, admin.text("main"))
		}
		admin.waitText(`#import-summary`, c.saved)
		if admin.exists(`#import-problems`) {
			t.Errorf("%s: problems left after the choices:\n%s", c.lang, admin.text(`#import-problems`))
		}
		admin.waitText(`#import-rows`, "T-1")
		admin.screenshot("import-" + c.lang + "-ready-1280")
		if status := admin.submit(`#import-save button[type="submit"]`); status != 200 {
			t.Fatalf("%s: saving answered %d:\n%s", c.lang, status, admin.text("main"))
		}
		admin.waitText(`#import-notice`, "2")
	}
	var n int
	e.must("count jobs of T-1", e.db.QueryRow(e.ctx, `SELECT count(*) FROM jobs j JOIN technicians t ON t.id = j.technician_id
		WHERE j.org_id = $1 AND t.external_ref = 'T-1'`, e.orgA.ID).Scan(&n))
	if n != 4 {
		t.Errorf("%d jobs are T-1's, want 4 (one per language, each written T1)", n)
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
