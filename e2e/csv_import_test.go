package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The reading side of the CSV import (docs/field-data.md, "CSV import"): the
// files an office has (Excel's BOM and semicolons, US dates, "9am" and
// "10:30 AM", the headers people write, a column we don't import, the
// template's example row left in) go through the screens without editing
// them: preview, the columns step, save, the link to the board of the
// first day, the jobs on the board.
//
// The jobs file names technicians as an office does, by name ("Tech" =
// "Dana Reyes"), not by our reference.
func TestOfficeCSVImportThroughTheScreens(t *testing.T) {
	e := newEnv(t)
	e.seed() // acme: en-US, Europe/Berlin
	admin := e.newSession("admin")
	admin.login(adminA)
	dir := t.TempDir()
	excel := func(name, text string) string {
		p := filepath.Join(dir, name)
		// Excel's "CSV UTF-8": a byte order mark and CRLF line ends.
		e.must("write "+name, os.WriteFile(p, append([]byte{0xEF, 0xBB, 0xBF}, []byte(strings.ReplaceAll(text, "\n", "\r\n"))...), 0o600))
		return p
	}
	techs := excel("Technicians.csv", "Tech ID;Name;E-Mail;Phone\nT-1;Dana Reyes;dana@acme-field.example;+49 30 1234\nT-2;Jörg Müller;joerg@acme-field.example;\n")
	jobs := excel("Jobs.csv", "Job #;Customer Name;Address;Date;Start;End;Tech;Memo;Notes\n"+
		"EXAMPLE-J-2001;Harbor Bakery;12 Pier Road;2026-03-09;08:00;10:00;T-100;;Example row\n"+
		"J-1001;Café Lindner;Hauptstraße 1, Berlin;11/26/2026;9am;10:30 AM;Dana Reyes;call first;Side door\n"+
		"J-1002;Bäckerei Schmidt;Torstraße 5, Berlin;11/26/2026;1pm;3:00 PM;Jörg Müller;;\n"+
		"J-1003;Hotel Adlon;Unter den Linden 77;12/01/2026;8:00;0930;;;\n")

	upload := func(kind, path string) {
		t.Helper()
		admin.open("/orgs/acme/import")
		admin.do("choose "+filepath.Base(path), chromedp.SetUploadFiles(`#file-`+kind, []string{path}))
		if status := admin.submit(`#import-` + kind + ` button[type="submit"]`); status != 200 {
			t.Fatalf("uploading %s answered %d:\n%s", path, status, admin.text("main"))
		}
	}

	// Technicians: read as UTF-8 with a BOM and semicolons, every header
	// matched by its name, so the columns step stays closed.
	upload("technicians", techs)
	admin.waitText(`#import-read-as`, "UTF-8 with a byte order mark", "semicolons (detected)")
	admin.waitText(`#import-summary`, "2 new")
	if open, _ := eval[bool](admin, `document.querySelector('#import-columns').open`); open {
		t.Errorf("every column matched, yet the columns step is open: %s", admin.text(`#import-columns`))
	}
	if status := admin.submit(`#import-save button[type="submit"]`); status != 200 {
		t.Fatalf("saving technicians answered %d", status)
	}
	admin.waitText(`#import-notice`, "2 new")

	// Jobs: the Memo column is not ours, so the columns step opens and
	// says so; the admin keeps the matches as they are.
	upload("jobs", jobs)
	admin.waitText(`#import-read-as`, "semicolons (detected)")
	admin.waitText(`#import-columns-unused`, "Memo")
	if open, _ := eval[bool](admin, `document.querySelector('#import-columns').open`); !open {
		t.Fatalf("the columns step should be open for a column not imported")
	}
	if v, _ := eval[string](admin, `document.querySelector('#col-technician_ref').selectedOptions[0].textContent`); v != "Tech" {
		t.Errorf("technician_ref is matched to %q, want the file's Tech", v)
	}
	// The Memo column waits for a choice (never dropped by default): the
	// admin chooses "don't import".
	if admin.exists(`#import-save`) {
		t.Errorf("a save is offered while the Memo column waits for a choice")
	}
	admin.setValue(`#import-unchosen select`, "-")
	if status := admin.submit(`#import-columns-form button[type="submit"]`); status != 200 {
		t.Fatalf("choosing the columns answered %d:\n%s", status, admin.text("main"))
	}
	// Chosen, the columns are remembered for this header row, and the
	// step closes (the Memo column was seen).
	admin.waitText(`#import-summary`, "3 new")
	if state, _ := eval[string](admin, `document.querySelector('#import-columns-state').textContent`); !strings.Contains(state, "chosen last time") {
		t.Errorf("after choosing the columns the step says %q", state)
	}
	admin.waitText(`#import-summary`, "3 new")
	admin.waitText(`#import-examples`, "row 2")
	admin.waitText(`#import-dates`, "month first", "en-US")
	admin.waitText(`#import-date-readings`, "12/01/2026", "December 1, 2026")
	rows := admin.text(`#import-rows`)
	for _, want := range []string{"Café Lindner", "9:00\u202fAM", "10:30\u202fAM", "Nov 26, 2026", "3:00\u202fPM", "9:30\u202fAM"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the preview's rows lack %q:\n%s", want, rows)
		}
	}
	if strings.Contains(rows, "Harbor Bakery") {
		t.Errorf("the template's example row is among the rows to import:\n%s", rows)
	}
	admin.screenshot("import-office-preview")
	// At phone width the reading part and the columns step fit the screen.
	admin.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	if _, err := eval[bool](admin, `document.querySelector('#import-columns').open = true`); err != nil {
		t.Fatalf("open the columns step: %v", err)
	}
	if wide, err := eval[int](admin, `document.documentElement.scrollWidth - window.innerWidth`); err != nil || wide > 0 {
		t.Errorf("the preview is %d px wider than a 390 px screen (%v)", wide, err)
	}
	admin.screenshot("import-office-preview-390")
	admin.do("desktop viewport", chromedp.EmulateViewport(1280, 900))
	if status := admin.submit(`#import-save button[type="submit"]`); status != 200 {
		t.Fatalf("saving jobs answered %d:\n%s", status, admin.text("main"))
	}
	admin.waitText(`#import-notice`, "3 new")
	admin.waitText(`#import-board-link`, "Nov 26, 2026")

	// The board of the first day imported, with the jobs under their
	// technicians.
	if status := admin.follow(`#import-board-link a`); status != 200 {
		t.Fatalf("the board link answered %d", status)
	}
	if p := admin.pathOr(); !strings.Contains(p, "/orgs/acme/board") {
		t.Fatalf("the link opened %s", p)
	}
	board := admin.waitText(`#board`, "Café Lindner", "Bäckerei Schmidt", "Dana Reyes", "Jörg Müller")
	if strings.Contains(board, "Hotel Adlon") {
		t.Errorf("the board of Nov 26 shows the job of Dec 1:\n%s", board)
	}
	var n int
	e.must("count jobs", e.db.QueryRow(e.ctx, `SELECT count(*) FROM jobs WHERE org_id = $1`, e.orgA.ID).Scan(&n))
	if n != 3 {
		t.Errorf("%d jobs saved, want 3 (the example row is never imported)", n)
	}
	var tech string
	e.must("the job's technician", e.db.QueryRow(e.ctx, `SELECT t.name FROM jobs j JOIN technicians t ON t.id = j.technician_id WHERE j.org_id = $1 AND j.external_ref = 'J-1001'`, e.orgA.ID).Scan(&tech))
	if tech != "Dana Reyes" {
		t.Errorf("J-1001 is assigned to %q, want Dana Reyes", tech)
	}
}
