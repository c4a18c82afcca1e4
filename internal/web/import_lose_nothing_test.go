package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/fieldimport"
)

// Imports that lose nothing (docs/field-data.md, "CSV import"): the
// template in the org's language and delimiter, a column not imported
// waiting for a choice, a near-miss technician accepted in one click for
// every row, past jobs warned about, a file that changes nothing.

// The template follows the org's locale: semicolons where decimals take a
// comma, the header and the example row in the org's language and
// formats; and each reads back without a problem (the example row, given
// a reference of its own, is a job).
func TestImportTemplateFollowsTheOrgsLocale(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	for _, tc := range []struct {
		locale, header, example string
	}{
		{"en-US", "Job number,Customer,Address,Customer phone,Date,Arrival from,Arrival until,Job type,Status,Technician,Emergency,Notes",
			"EXAMPLE-J-2001,Harbor Bakery,\"12 Pier Road, Springfield\",+1 555 0199,03/09/2026,8:00\u202fAM,10:00\u202fAM,repair,Scheduled,T-100,no,"},
		{"de-DE", "Auftragsnummer;Kunde;Adresse;Kundentelefon;Datum;Ankunft ab;Ankunft bis;Auftragsart;Status;Techniker;Notfall;Notizen",
			"BEISPIEL-J-2001;Bäckerei am Hafen;Hafenstraße 12, Hamburg;+1 555 0199;09.03.2026;08:00;10:00;Reparatur;Geplant;T-100;nein;"},
		{"es-ES", "Número de trabajo;Cliente;Dirección;Teléfono del cliente;Fecha;Llegada desde;Llegada hasta;Tipo de trabajo;Estado;Técnico;Urgencia;Notas",
			"EJEMPLO-J-2001;Panadería del Puerto;Calle del Muelle 12, Valencia;+1 555 0199;09/03/2026;8:00;10:00;reparación;Programado;T-100;no;"},
		{"fr-FR", "Numéro d’intervention;Client;Adresse;Téléphone du client;Date;Arrivée dès;Arrivée jusqu’à;Type d’intervention;Statut;Technicien;Urgence;Remarques",
			"EXEMPLE-J-2001;Boulangerie du Port;12 quai du Port, Marseille;+1 555 0199;09/03/2026;08:00;10:00;réparation;Planifiée;T-100;non;"},
	} {
		f.setLocale(f.orgA.ID, tc.locale)
		r := admin.get(importPath + "/jobs/template.csv")
		require.Equal(t, http.StatusOK, r.Code)
		require.True(t, strings.HasPrefix(r.Body, "\uFEFF"+tc.header+"\r\n"+tc.example), "%s:\n%s", tc.locale, r.Body)

		// Read back: the example row is the example; with a reference of
		// its own (and no technician) it is a new job, without a problem.
		_, doc := previewOf(t, admin, "jobs", r.Body)
		require.NotNil(t, doc.byID("import-examples"), tc.locale)
		require.Nil(t, doc.byID("import-reading").find(attrIs("aria-invalid", "true")), "%s: every column matched", tc.locale)
		delim := string(tc.header[strings.IndexAny(tc.header, ",;")])
		row := strings.Replace(strings.Replace(r.Body, "-J-2001", "J-2001", 1), delim+"T-100"+delim, delim+delim, 1)
		row = row[strings.Index(row, "\r\n")+2:]
		row = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(row, "EXAMPLE"), "BEISPIEL"), "EJEMPLO"), "EXEMPLE")
		_, doc = previewOf(t, admin, "jobs", "\uFEFF"+tc.header+"\r\n"+row)
		require.Equal(t, map[string]string{"2": "create"}, actions(doc), "%s: %s", tc.locale, doc.byID("import-problems").text())

		r = admin.get(importPath + "/technicians/template.csv")
		require.Equal(t, http.StatusOK, r.Code)
		_, doc = previewOf(t, admin, "technicians", strings.Replace(r.Body, "-T-100", "T-100", 1))
		require.Equal(t, "0", doc.byID("import-summary").attr("data-errors"), "%s: %s", tc.locale, r.Body)
	}
}

// A column no field takes is never dropped by default: the save waits
// until the admin chooses a field for it or "don't import".
func TestImportColumnNotImportedWaitsForAChoice(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	file := "Job #,Customer,Date,Start,End,Memo,Notiz\nJ-1,Ann,2026-03-09,08:00,10:00,gate 4,Hund im Garten\n"
	loc, doc := previewOf(t, admin, "jobs", file)
	require.Nil(t, doc.byID("import-save"), "no save while a column waits")
	require.Contains(t, doc.byID("import-blocked").text(), "Answer the questions above")
	require.Contains(t, doc.byID("import-problems").text(), "Column “Memo” of the file is not imported yet")
	require.NotContains(t, doc.byID("import-problems").text(), "Notiz", "Notiz is the notes")
	sel := doc.find(attrIs("name", "file.5"))
	require.NotNil(t, sel, "a select for Memo")
	require.Contains(t, sel.text(), "Don't import")
	require.Contains(t, sel.text(), "Customer phone")

	cols := url.Values{"col.external_ref": {"0"}, "col.customer": {"1"}, "col.date": {"2"}, "col.arrival_from": {"3"},
		"col.arrival_to": {"4"}, "col.notes": {"6"}}
	r := admin.post(loc+"/columns", cols)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, "no choice for Memo")
	require.Contains(t, r.Body, "Choose what to do with every column")
	cols.Set("file.5", "")
	require.Equal(t, http.StatusUnprocessableEntity, admin.post(loc+"/columns", cols).Code)
	cols.Set("file.5", "customer_phone")
	cols.Set("file.6", "customer_phone")
	require.Equal(t, http.StatusUnprocessableEntity, admin.post(loc+"/columns", cols).Code, "one field for two columns")
	require.Zero(t, f.rows("import_columns"), "a refused choice is not remembered")

	cols.Del("file.6")
	cols.Set("file.5", "-")
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(loc+"/columns", cols).Code)
	r = admin.post(loc+"/columns", cols)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	r = admin.get(loc)
	doc = parseDoc(t, r.Body)
	require.NotNil(t, doc.byID("import-save"), "chosen: the file can be saved")
	require.Contains(t, doc.byID("import-columns-unused").text(), "Memo")
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)
	require.Equal(t, 1, f.count(`SELECT count(*) FROM jobs WHERE notes = 'Hund im Garten'`))
}

// "T1" for T-1: the preview offers "did you mean T-1 (Dana O'Neil)?" and
// one click reads every such row as T-1.
func TestImportSuggestionAcceptedForEveryRow(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	loc, doc := previewOf(t, admin, "technicians", "external_ref,name\nT-1,Dana O'Neil\nT-2,Sam Lee\n")
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)

	loc, doc = previewOf(t, admin, "jobs", "Job #,Customer,Date,Start,End,Tech,Status\n"+
		"J-1,Ann,2026-03-09,08:00,10:00,T1,urgent\nJ-2,Bob,2026-03-09,10:00,11:00,T1,Completed\nJ-3,Cy,2026-03-09,12:00,13:00,sam,\n")
	li := doc.find(attrIs("data-from", "T1"))
	require.NotNil(t, li)
	require.Equal(t, "T-1", li.attr("data-to"))
	require.Contains(t, li.text(), "“T1” names no technician (2 rows: 2, 3). Did you mean T-1 (Dana O'Neil)?")
	require.Contains(t, li.text(), "Use T-1 for every “T1”")
	require.NotNil(t, doc.find(attrIs("data-from", "sam")), "a unique name prefix")
	// Every problem at once, the allowed values in words.
	probs := doc.byID("import-problems").text()
	require.Contains(t, probs, "Status “urgent” is not a status: write one of Scheduled, In progress, On hold, Done, Cancelled")
	require.Equal(t, "4", doc.byID("import-summary").attr("data-errors"))

	bad := url.Values{"from": {"T1"}, "to": {"T-9"}}
	require.Equal(t, http.StatusUnprocessableEntity, admin.post(loc+"/technicians", bad).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(loc+"/technicians", url.Values{"from": {"T1"}, "to": {"T-1"}}).Code)
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(loc+"/technicians", url.Values{"from": {"T1"}, "to": {"T-1"}}).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(loc+"/technicians", url.Values{"from": {"T1"}, "to": {"T-1"}}).Code)

	all := doc.byID("import-suggest-all")
	require.NotNil(t, all)
	form := url.Values{}
	for _, in := range all.findAll(attrIs("type", "hidden")) {
		if n := in.attr("name"); n == "from" || n == "to" {
			form.Add(n, in.attr("value"))
		}
	}
	require.Equal(t, http.StatusSeeOther, admin.post(loc+"/technicians", form).Code)
	doc = parseDoc(t, admin.get(loc).Body)
	require.Nil(t, doc.byID("import-suggestions"))
	require.Equal(t, "1", doc.byID("import-summary").attr("data-errors"), doc.byID("import-problems").text())
	require.Equal(t, fieldimport.Invalid, fieldimport.Action(actions(doc)["2"]), "urgent is still not a status")
	require.Equal(t, "create", actions(doc)["3"])
	require.Equal(t, "create", actions(doc)["4"])
}

// Jobs dated before today are warned about; a file that changes nothing
// says so and offers no save.
func TestImportPastJobsAndNothingToSave(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	file := "external_ref,customer,date,arrival_from,arrival_to\nJ-1,Ann,2026-03-01,08:00,10:00\nJ-2,Bob,2026-03-09,08:00,10:00\n"
	loc, doc := previewOf(t, admin, "jobs", file)
	require.Contains(t, doc.byID("import-past").text(), "1 job is dated before today (Wed, Mar 4, 2026): row 2.")
	require.Equal(t, http.StatusSeeOther, saveImport(t, admin, loc, doc).Code)

	_, doc = previewOf(t, admin, "jobs", file)
	require.Equal(t, map[string]string{"2": "unchanged", "3": "unchanged"}, actions(doc))
	require.Contains(t, doc.byID("import-nothing").text(), "Nothing to import")
	require.Nil(t, doc.byID("import-save"))
	require.Nil(t, doc.byID("import-blocked"))
}
