package fieldimport_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/schedule"
)

// Real office files (docs/field-data.md, "What real office files give"):
// each is imported as an office would, and what comes out is asserted —
// rows read, the problems of the first preview (all of them at once),
// the suggestions offered, and the rows saved once the office has
// answered the preview. The figures in the docs are these.

// officeFile is one of testdata/offices.
func officeFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/offices/" + name)
	require.NoError(t, err)
	return string(b)
}

// officeSetup is an org in locale and zone, on 1 December 2026, with
// technicians (a technicians file of reference;name).
func officeSetup(t *testing.T, locale, zone, techs string) *bundle {
	t.Helper()
	b := setup(t)
	b.now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	z, err := schedule.LoadZone(zone)
	require.NoError(t, err)
	b.zone = z
	_, err = b.store.DB.Exec(b.ctx, `UPDATE orgs SET locale = $1 WHERE id = $2`, locale, b.acme.ID)
	require.NoError(t, err)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	return b
}

// problemLines lists a plan's problems as "row column code" for asserting.
func problemLines(p fieldimport.Plan) []string {
	out := make([]string, len(p.Problems))
	for i, pr := range p.Problems {
		out[i] = strings.Join(strings.Fields(strings.Join([]string{strconv.Itoa(pr.Row), pr.Column, pr.Code, pr.Value}, " ")), " ")
	}
	return out
}

// again reads the upload as stored now (its accepted suggestions) and
// previews it.
func (b *bundle) again(t *testing.T, up fieldimport.Upload) (fieldimport.Upload, fieldimport.Plan) {
	t.Helper()
	up, err := b.store.LoadUpload(b.ctx, up.OrgID, up.UserID, up.Kind, up.ID, b.now)
	require.NoError(t, err)
	p, err := b.store.Preview(b.ctx, up, b.zone, b.now, false)
	require.NoError(t, err)
	return up, p
}

// chooseDontImport answers the columns step: every column no field takes
// is "don't import" (the mapping as matched is remembered).
func (b *bundle) chooseDontImport(t *testing.T, up fieldimport.Upload, p fieldimport.Plan) {
	t.Helper()
	require.NoError(t, b.store.RememberMapping(b.ctx, up, p.Reading.Match.Mapping(), b.now))
}

// A German office's Excel export: Windows-1252, semicolons, dd.mm.yyyy,
// a "Notiz" column, PLZ and Ort in columns of their own.
func TestOfficeFileGermanExcel(t *testing.T) {
	t.Parallel()
	b := officeSetup(t, "de-DE", "Europe/Berlin", "Referenz;Name\nT-1;Jörg Müller\nT-2;Anna Schmidt\n")
	file := officeFile(t, "de-excel-cp1252.csv")
	up, p := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.Equal(t, fieldimport.EncWindows1252, p.Reading.Encoding)
	require.Equal(t, ';', p.Reading.Delimiter)
	require.Len(t, p.Rows, 6)
	notes := p.Reading.Match.Mapping()["notes"]
	require.Equal(t, "Notiz", p.Reading.Match.Header[notes], "Notiz is the notes")
	// Every problem at once: the two columns no field takes, a date that
	// does not exist beside an unknown status on the same row, a window
	// that ends before it starts.
	require.Equal(t, []string{
		"1 column_not_chosen PLZ",
		"1 column_not_chosen Ort",
		"4 date date_invalid 31.02.2026",
		"4 status status_unknown unklar",
		"5 arrival_to window_reversed",
	}, problemLines(p))
	require.Empty(t, p.Suggestions)
	require.Equal(t, []int{6}, p.Past, "A-1005 is dated 2 November, before today")
	require.False(t, p.OK())
	require.Equal(t, "Hund im Garten; bitte klingeln", p.Rows[0].Values[11])
	require.Equal(t, "Jörg Müller", p.Rows[0].Values[9])
	require.Equal(t, []string{"scheduled", "scheduled", "unklar", "in_progress", "done", "scheduled"}, column(p, 8))
	require.Equal(t, []string{"no", "yes", "no", "no", "no", "no"}, column(p, 10))

	// The office says "don't import" to PLZ and Ort, and corrects the two
	// rows in the file: the next upload of the same header is saved.
	b.chooseDontImport(t, up, p)
	_, p = b.again(t, up)
	require.Equal(t, []string{"4 date date_invalid 31.02.2026", "4 status status_unknown unklar", "5 arrival_to window_reversed"}, problemLines(p))
	fixed := strings.NewReplacer("31.02.2026", "03.12.2026", ";unklar;", ";Offen;", "14:00;13:00", "14:00;15:00").Replace(file)
	up, p = b.preview(t, b.acme, fieldimport.Jobs, fixed)
	require.Empty(t, p.Problems)
	saved, err := b.save(up, p)
	require.NoError(t, err)
	require.Equal(t, 6, saved.Created)
	require.Equal(t, 6, b.count(t, "jobs", b.acme))
}

// A French office's Excel "Unicode text": UTF-16 LE with a BOM, tabs,
// "8h30", and a technician written in other case and without accents.
func TestOfficeFileFrenchUTF16(t *testing.T) {
	t.Parallel()
	b := officeSetup(t, "fr-FR", "Europe/Paris", "Référence;Nom\nT-3;Amélie Durand\nT-4;Luc Martin\n")
	up, p := b.preview(t, b.acme, fieldimport.Jobs, officeFile(t, "fr-excel-unicode-utf16le.txt"))
	require.Equal(t, fieldimport.EncUTF16LE, p.Reading.Encoding)
	require.Equal(t, '\t', p.Reading.Delimiter)
	require.Len(t, p.Rows, 4)
	require.False(t, p.Reading.Match.NeedsReview(), "every column is matched by its French name")
	require.Equal(t, []string{
		"3 technician_ref technician_not_found amelie durand",
		"5 technician_ref technician_not_found AMELIE DURAND",
	}, problemLines(p))
	require.Equal(t, []fieldimport.Suggestion{
		{Value: "amelie durand", Ref: "T-3", Name: "Amélie Durand", Rows: []int{3}},
		{Value: "AMELIE DURAND", Ref: "T-3", Name: "Amélie Durand", Rows: []int{5}},
	}, p.Suggestions)
	require.Empty(t, p.Past)
	require.Equal(t, "Facture jointe ; payée", p.Rows[3].Values[11])

	// One click accepts both for every row.
	require.NoError(t, b.store.AcceptSuggestions(b.ctx, up, map[string]string{"amelie durand": "T-3", "AMELIE DURAND": "T-3"}))
	up, p = b.again(t, up)
	require.Empty(t, p.Problems)
	require.Empty(t, p.Suggestions)
	saved, err := b.save(up, p)
	require.NoError(t, err)
	require.Equal(t, 4, saved.Created)
	require.Equal(t, 3, b.countWhere(t, "jobs", b.acme, `technician_id = (SELECT id FROM technicians WHERE external_ref = 'T-3')`))
}

// A US office's export: "T1" where fieldbrief says T-1, "t 2", a first
// name, and "urgent" as a status.
func TestOfficeFileUSWithT1(t *testing.T) {
	t.Parallel()
	b := officeSetup(t, "en-US", "America/New_York", "external_ref,name\nT-1,Dana O'Neil\nT-2,Marcus Webb\nT-3,Priya Shah\n")
	file := officeFile(t, "us-export-t1.csv")
	up, p := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.Equal(t, fieldimport.EncUTF8, p.Reading.Encoding)
	require.Len(t, p.Rows, 6)
	require.Equal(t, []string{
		"2 technician_ref technician_not_found T1",
		"3 status status_unknown urgent",
		"3 technician_ref technician_not_found T2",
		"4 technician_ref technician_not_found T1",
		"5 technician_ref technician_not_found t 2",
		"6 status status_unknown urgent",
		"6 technician_ref technician_not_found Dana",
	}, problemLines(p))
	require.Equal(t, []fieldimport.Suggestion{
		{Value: "T1", Ref: "T-1", Name: "Dana O'Neil", Rows: []int{2, 4}},
		{Value: "T2", Ref: "T-2", Name: "Marcus Webb", Rows: []int{3}},
		{Value: "t 2", Ref: "T-2", Name: "Marcus Webb", Rows: []int{5}},
		{Value: "Dana", Ref: "T-1", Name: "Dana O'Neil", Rows: []int{6}},
	}, p.Suggestions)

	accept := map[string]string{}
	for _, s := range p.Suggestions {
		accept[s.Value] = s.Ref
	}
	require.NoError(t, b.store.AcceptSuggestions(b.ctx, up, accept))
	_, p = b.again(t, up)
	require.Equal(t, []string{"3 status status_unknown urgent", "6 status status_unknown urgent"}, problemLines(p))
	require.Equal(t, "T-1", p.Rows[0].Values[9], "the row shows the technician accepted")

	// "urgent" is not a status: the office writes one, uploads again and
	// accepts the suggestions of the new upload.
	up, p = b.preview(t, b.acme, fieldimport.Jobs, strings.ReplaceAll(file, ",urgent,", ",Scheduled,"))
	require.Len(t, p.Suggestions, 4)
	require.NoError(t, b.store.AcceptSuggestions(b.ctx, up, accept))
	up, p = b.again(t, up)
	require.Empty(t, p.Problems)
	saved, err := b.save(up, p)
	require.NoError(t, err)
	require.Equal(t, 6, saved.Created)
	require.Equal(t, 3, b.countWhere(t, "jobs", b.acme, `technician_id = (SELECT id FROM technicians WHERE external_ref = 'T-1')`))
}

// column is the plan's values of column i, row by row.
func column(p fieldimport.Plan, i int) []string {
	out := make([]string, len(p.Rows))
	for j, r := range p.Rows {
		out[j] = r.Values[i]
	}
	return out
}
