package fieldimport_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// An office's file through the preview and the save: Excel's
// BOM and semicolons, US dates, "9am" times, the headers people write,
// the template's example row left in.
func TestImportOfficeFile(t *testing.T) {
	t.Parallel()
	b := setup(t) // acme: en-US
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	file := "\uFEFFJob #;Customer Name;Address;Date;Start;End;Tech;Notes\r\n" +
		"EXAMPLE-J-2001;Harbor Bakery;12 Pier Road;2026-03-09;08:00;10:00;T-1;Example row\r\n" +
		"J-1;Ann;1 Main St;03/10/2026;9am;10:30 AM;T-1;gate code 12\r\n" +
		"J-2;Bob;;3/9/26;0830;14h30;;\r\n"
	up, p := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.Empty(t, p.Problems)
	require.Equal(t, 2, p.Created)
	r := p.Reading
	require.Equal(t, fieldimport.EncUTF8BOM, r.Encoding)
	require.Equal(t, ';', r.Delimiter)
	require.True(t, r.Detected)
	require.Equal(t, []int{2}, r.Examples)
	require.False(t, r.Match.NeedsReview())
	require.Equal(t, "en-US", r.Locale)
	require.Equal(t, fieldimport.MonthFirst, r.Order)
	require.Equal(t, []fieldimport.DateReading{
		{Row: 3, Value: "03/10/2026", Date: schedule.Date{Year: 2026, Month: 3, Day: 10}},
		{Row: 4, Value: "3/9/26", Date: schedule.Date{Year: 2026, Month: 3, Day: 9}},
	}, r.Dates)
	require.Equal(t, []string{"J-1", "Ann", "1 Main St", "", "2026-03-10", "09:00 EDT", "10:30 EDT", "", "scheduled", "T-1", "no", "gate code 12"}, p.Rows[0].Values)
	require.Equal(t, []string{"J-2", "Bob", "", "", "2026-03-09", "08:30 EDT", "14:30 EDT", "", "scheduled", "", "no", ""}, p.Rows[1].Values)
	_, err := b.save(up, p)
	require.NoError(t, err)
	require.Equal(t, 2, b.count(t, "jobs", b.acme), "the example row is not imported")

	// The same file in a de-DE org reads 03/10/2026 as 3 October.
	_, err = b.store.DB.Exec(b.ctx, `UPDATE orgs SET locale = 'de-DE' WHERE id = $1`, b.globex.ID)
	require.NoError(t, err)
	_, p = b.preview(t, b.globex, fieldimport.Jobs, "Auftragsnummer;Kunde;Datum;Von;Bis\nJ-1;Müller;03/10/2026;8:00 Uhr;14h30\nJ-2;Jörg;26.11.2026;8;9\n")
	require.Empty(t, p.Problems)
	require.Equal(t, "2026-10-03", p.Rows[0].Values[4])
	require.Equal(t, "2026-11-26", p.Rows[1].Values[4])
	require.Equal(t, fieldimport.DayFirst, p.Reading.Order)
}

// A date or time that can't be read, and a time the clocks skip, are
// errors with their codes; the time gap keeps its own.
func TestImportDatesAndTimesRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, p := b.preview(t, b.acme, fieldimport.Jobs, "ref;customer;date;start;end\nJ-1;Ann;2/30/2026;9am;10am\nJ-2;Ann;3/8/2026;2:30 AM;4am\nJ-3;Ann;3/9/2026;9 o'clock;10am\n")
	codes := map[int]string{}
	for _, pr := range p.Problems {
		codes[pr.Row] = pr.Code
	}
	require.Equal(t, map[int]string{2: fieldimport.CodeDateInvalid, 3: fieldimport.CodeTimeGap, 4: fieldimport.CodeTimeInvalid}, codes)
}

// The columns the admin chooses are remembered per org and kind for the
// next file with the same header row, and only there.
func TestRememberedColumns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	file := "Ticket;Client;When;Window opens;Window closes;Memo\nJ-1;Ann;2026-03-09;08:00;10:00;x\n"
	up, p := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.True(t, p.Reading.Match.NeedsReview())
	missing, notChosen := map[string]bool{}, []string{}
	for _, pr := range p.Problems {
		switch pr.Code {
		case fieldimport.CodeColumnNotChosen:
			notChosen = append(notChosen, pr.Value)
		default:
			require.Equal(t, fieldimport.CodeColumnMissing, pr.Code)
			missing[pr.Column] = true
		}
	}
	require.Equal(t, map[string]bool{"external_ref": true, "date": true, "arrival_from": true, "arrival_to": true}, missing)
	require.Equal(t, []string{"Ticket", "When", "Window opens", "Window closes", "Memo"}, notChosen)

	m := fieldimport.Mapping{}
	for _, c := range fieldimport.Columns(fieldimport.Jobs) {
		m[c.Name] = fieldimport.NotInFile
	}
	m["external_ref"], m["customer"], m["date"], m["arrival_from"], m["arrival_to"], m["notes"] = 0, 1, 2, 3, 4, 5
	bad := fieldimport.Mapping{}
	for k, v := range m {
		bad[k] = v
	}
	bad["address"] = 1 // the customer's column twice
	require.True(t, fieldimport.IsMappingInvalid(b.store.RememberMapping(b.ctx, up, bad, b.now)))
	require.NoError(t, b.store.RememberMapping(b.ctx, up, m, b.now))

	// The next file with this header row (other case and spaces) uses it.
	up2, p := b.preview(t, b.acme, fieldimport.Jobs, "ticket ; client;WHEN;Window opens;Window closes;Memo\nJ-2;Bob;2026-03-10;09:00;11:00;y\n")
	require.Empty(t, p.Problems)
	require.True(t, p.Reading.Match.Remembered)
	require.Equal(t, "J-2", p.Rows[0].Values[0])
	require.Equal(t, "y", p.Rows[0].Values[11])
	_, err := b.save(up2, p)
	require.NoError(t, err)

	// Not for another org, nor for technicians.
	_, p = b.preview(t, b.globex, fieldimport.Jobs, file)
	require.False(t, p.Reading.Match.Remembered)
	require.NotEmpty(t, p.Problems)

	// Bounded per org and kind.
	for i := range fieldimport.RememberedPerKind + 5 {
		u, _ := b.preview(t, b.acme, fieldimport.Technicians, "external_ref,name,x"+string(rune('a'+i%26))+string(rune('a'+i/26))+"\nT-1,Dana,1\n")
		require.NoError(t, b.store.RememberMapping(b.ctx, u, fieldimport.Mapping{"external_ref": 0, "name": 1, "email": -1, "phone": -1, "active": -1, "language": -1}, b.now.Add(timeStep(i))))
	}
	require.Equal(t, fieldimport.RememberedPerKind, b.countWhere(t, "import_columns", b.acme, "kind = 'technicians'"))
	require.Equal(t, 1, b.countWhere(t, "import_columns", b.acme, "kind = 'jobs'"))
}

// The delimiter chosen on the preview is kept with the upload: the
// preview and the save read the file with it.
func TestDelimiterChosenIsKept(t *testing.T) {
	t.Parallel()
	b := setup(t)
	file := "external_ref,name\nT-1,\"Reyes; Dana\"\n"
	up, p := b.preview(t, b.acme, fieldimport.Technicians, file)
	require.Equal(t, ',', p.Reading.Delimiter)
	require.NoError(t, b.store.SetDelimiter(b.ctx, up, ';'))
	up, err := b.store.LoadUpload(b.ctx, up.OrgID, up.UserID, up.Kind, up.ID, b.now)
	require.NoError(t, err)
	require.Equal(t, ';', up.Delimiter)
	p, err = b.store.Preview(b.ctx, up, b.zone, b.now, false)
	require.NoError(t, err)
	require.False(t, p.Reading.Detected)
	require.NotEmpty(t, p.Problems, "read with semicolons, the header is one column")
	_, err = b.save(up, p)
	require.ErrorIs(t, err, fieldimport.ErrNotSaveable, "the save reads it as the preview did")
}

func timeStep(i int) time.Duration { return time.Duration(i) * time.Second }

func (b *bundle) countWhere(t testing.TB, table string, org tenants.Org, where string) int {
	t.Helper()
	var n int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT count(*) FROM `+table+` WHERE org_id = $1 AND `+where, org.ID).Scan(&n))
	return n
}
