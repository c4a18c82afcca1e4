package fieldimport_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

type bundle struct {
	ctx    context.Context
	store  *fieldimport.Store
	field  *field.Store
	acme   tenants.Org
	globex tenants.Org
	user   accounts.User
	actor  audit.Actor
	zone   schedule.Zone
	now    time.Time
}

func setup(t testing.TB) *bundle {
	t.Helper()
	ctx := context.Background()
	db := testdb.New(t)
	os := testutil.NewStores(db)
	acme, err := os.Tenants.CreateOrg(ctx, "acme", "Acme", time.Time{})
	require.NoError(t, err)
	globex, err := os.Tenants.CreateOrg(ctx, "globex", "Globex", time.Time{})
	require.NoError(t, err)
	// Users are referenced by uploads only: no password check runs here.
	var uid int64
	require.NoError(t, db.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ('admin@acme.test', 'x') RETURNING id`).Scan(&uid))
	zone, err := schedule.LoadZone("America/New_York")
	require.NoError(t, err)
	return &bundle{ctx: ctx, store: &fieldimport.Store{DB: db}, field: &field.Store{DB: db}, acme: acme, globex: globex,
		user: accounts.User{ID: uid, Email: "admin@acme.test"}, actor: audit.Actor{UserID: uid, Email: "admin@acme.test"},
		zone: zone, now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

// preview uploads content and returns the upload and its preview.
func (b *bundle) preview(t testing.TB, org tenants.Org, k fieldimport.Kind, content string) (fieldimport.Upload, fieldimport.Plan) {
	t.Helper()
	up, err := b.store.SaveUpload(b.ctx, org.ID, b.user.ID, k, "file.csv", []byte(content), b.now)
	require.NoError(t, err)
	p, err := b.store.Preview(b.ctx, up, b.zone, b.now, false)
	require.NoError(t, err)
	return up, p
}

// save saves an upload with its preview's digest.
func (b *bundle) save(up fieldimport.Upload, p fieldimport.Plan) (fieldimport.Plan, error) {
	return b.store.Save(b.ctx, b.actor, up.OrgID, up.UserID, up.Kind, up.ID, p.Digest, b.zone, b.now, false)
}

// importOK previews and saves a file that must have no problems.
func (b *bundle) importOK(t testing.TB, org tenants.Org, k fieldimport.Kind, content string) fieldimport.Plan {
	t.Helper()
	up, p := b.preview(t, org, k, content)
	require.Empty(t, p.Problems)
	saved, err := b.save(up, p)
	require.NoError(t, err)
	require.Equal(t, p.Digest, saved.Digest)
	return saved
}

func (b *bundle) count(t testing.TB, table string, org tenants.Org) int {
	t.Helper()
	var n int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT count(*) FROM `+table+` WHERE org_id = $1`, org.ID).Scan(&n))
	return n
}

const techs = "external_ref,name,email,phone,active\nT-1,Dana Reyes,dana@example.com,555 0100,yes\nT-2,Sam Lee,,,no\n"

const jobHeader = "external_ref,customer,address,date,arrival_from,arrival_to,status,technician_ref,emergency,notes\n"

// Every error of the import contract, one file each, reported by row and
// column; none of them saves anything.
func TestPreviewErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	b.importOK(t, b.globex, fieldimport.Technicians, "external_ref,name\nG-1,Globex tech\n")
	jobsBefore := b.count(t, "jobs", b.acme)

	for _, tc := range []struct {
		name   string
		file   string
		row    int
		column string
		msg    string
		code   string
	}{
		{"bad date", jobHeader + "J-1,Ann,,2026-02-30,08:00,10:00,,,,\n", 2, "date", `date "2026-02-30" is not a date like 2026-03-09`, fieldimport.CodeDateInvalid},
		{"bad time", jobHeader + "J-1,Ann,,2026-03-09,25:00,10:00,,,,\n", 2, "arrival_from", `arrival_from "25:00" is not a time`, fieldimport.CodeTimeInvalid},
		{"window end before start", jobHeader + "J-1,Ann,,2026-03-09,10:00,08:00,,,,\n", 2, "arrival_to", "arrival_to must not be before the start of the window", field.CodeWindowReversed},
		{"unknown technician reference", jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,,T-404,,\n", 2, "technician_ref", `No technician of this org has the name, email or reference "T-404"`, fieldimport.CodeTechnicianNotFound},
		{"another org's technician reference", jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,,G-1,,\n", 2, "technician_ref", `No technician of this org has the name, email or reference "G-1"`, fieldimport.CodeTechnicianNotFound},
		{"unknown status", jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,urgent,,,\n", 2, "status", `status "urgent" is not a status: write one of scheduled, in_progress`, field.CodeStatusUnknown},
		{"duplicate reference", jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,,,,\nJ-1,Bob,,2026-03-09,08:00,10:00,,,,\n", 3, "external_ref", `external_ref "J-1" is also on row 2`, field.CodeRefRepeated},
		{"missing reference", jobHeader + ",Ann,,2026-03-09,08:00,10:00,,,,\n", 2, "external_ref", "external_ref is required", field.CodeRequired},
		{"bad yes/no", jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,,,maybe,\n", 2, "emergency", `emergency must be yes or no, not "maybe"`, fieldimport.CodeYesNo},
		{"too many columns", jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,,,,,extra\n", 2, "", "This row has 11 columns but the header has 10", fieldimport.CodeRowExtraCells},
		{"missing required column", "external_ref,customer,date,arrival_from\nJ-1,Ann,2026-03-09,08:00\n", 1, "arrival_to", `Missing required column "arrival_to"`, fieldimport.CodeColumnMissing},
		{"two columns for one field", "external_ref,customer,Client,date,arrival_from,arrival_to\nJ-1,Ann,Ann,2026-03-09,08:00,10:00\n", 1, "customer", `Columns "customer", "Client" could each be "customer"`, fieldimport.CodeColumnAmbiguous},
		{"nonexistent local time", jobHeader + "J-1,Ann,,2026-03-08,02:30,04:00,,,,\n", 2, "arrival_from",
			"arrival_from: 2026-03-08 02:30 does not exist in America/New_York: clocks jump from 02:00 to 03:00", fieldimport.CodeTimeGap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up, p := b.preview(t, b.acme, fieldimport.Jobs, tc.file)
			require.Len(t, p.Problems, 1, "%+v", p.Problems)
			got := p.Problems[0]
			require.Equal(t, tc.row, got.Row)
			require.Equal(t, tc.column, got.Column)
			require.Contains(t, got.Message, tc.msg)
			require.Equal(t, tc.code, got.Code, "the problem's stable code")
			require.False(t, p.OK())
			_, err := b.save(up, p)
			require.ErrorIs(t, err, fieldimport.ErrNotSaveable)
			require.Equal(t, jobsBefore, b.count(t, "jobs", b.acme), "nothing saved")
		})
	}
}

// A row with an error does not hide what the others would do.
func TestPreviewShowsEveryRow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	_, p := b.preview(t, b.acme, fieldimport.Technicians,
		"external_ref,name,active\nT-1,Dana Reyes,yes\nT-2,Sam Lee Jr,no\nT-3,,yes\nT-4,New Person,\n")
	actions := map[int]fieldimport.Action{}
	for _, r := range p.Rows {
		actions[r.Row] = r.Action
	}
	// T-1 loses its email and phone (their columns are absent): an update.
	require.Equal(t, map[int]fieldimport.Action{2: fieldimport.Update, 3: fieldimport.Update, 4: fieldimport.Invalid, 5: fieldimport.Create}, actions)
	require.Equal(t, []fieldimport.Problem{{Row: 4, Column: "name", Code: field.CodeRequired, Message: "name is required."}}, p.Problems)
	require.Equal(t, []string{"T-4", "New Person", "", "", "yes", ""}, p.Rows[3].Values)
}

func TestImportIsIdempotent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.importOK(t, b.acme, fieldimport.Technicians, techs)
	require.Equal(t, [3]int{2, 0, 0}, [3]int{first.Created, first.Updated, first.Unchanged})
	jobs := jobHeader + "J-1,Ann,1 Main St,2026-03-09,08:00,10:00,,T-1,yes,ring twice\nJ-2,Bob,,2026-03-09,13:00,15:00,on hold,,,\n"
	first = b.importOK(t, b.acme, fieldimport.Jobs, jobs)
	require.Equal(t, [3]int{2, 0, 0}, [3]int{first.Created, first.Updated, first.Unchanged})

	var updatedAt time.Time
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT max(updated_at) FROM jobs WHERE org_id = $1`, b.acme.ID).Scan(&updatedAt))
	var audits int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT count(*) FROM audit_log WHERE org_id = $1`, b.acme.ID).Scan(&audits))
	for _, k := range []struct {
		kind fieldimport.Kind
		file string
	}{{fieldimport.Technicians, techs}, {fieldimport.Jobs, jobs}} {
		again := b.importOK(t, b.acme, k.kind, k.file)
		require.Equal(t, [3]int{0, 0, 2}, [3]int{again.Created, again.Updated, again.Unchanged}, k.kind)
	}
	var updatedAgain time.Time
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT max(updated_at) FROM jobs WHERE org_id = $1`, b.acme.ID).Scan(&updatedAgain))
	require.Equal(t, updatedAt, updatedAgain, "a re-import touches no row")
	var auditsAgain int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT count(*) FROM audit_log WHERE org_id = $1`, b.acme.ID).Scan(&auditsAgain))
	require.Equal(t, audits, auditsAgain, "nothing changed, nothing to audit")

	page, err := b.field.ListJobs(b.ctx, b.acme.ID, field.JobFilter{})
	require.NoError(t, err)
	require.Len(t, page.Jobs, 2)
	j := page.Jobs[0]
	require.Equal(t, "J-1", j.ExternalRef)
	require.Equal(t, "T-1", j.TechnicianRef)
	require.True(t, j.Emergency)
	require.Equal(t, "ring twice", j.Notes)
	require.Equal(t, time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC), j.ArrivalStart.UTC(), "08:00 EDT")
	require.Equal(t, field.StatusOnHold, page.Jobs[1].Status)
}

// The import's counts are one audit entry.
func TestImportAudited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	var action, actor string
	var created int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `
		SELECT action, actor_email, (new_value->>'created')::int FROM audit_log WHERE org_id = $1`, b.acme.ID).Scan(&action, &actor, &created))
	require.Equal(t, "field.technician.import", action)
	require.Equal(t, "admin@acme.test", actor)
	require.Equal(t, 2, created)
}

func TestImportBOMAndCRLF(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.importOK(t, b.acme, fieldimport.Technicians, "\uFEFF"+strings.ReplaceAll(techs, "\n", "\r\n"))
	require.Equal(t, 2, p.Created)
	list, err := b.field.ListTechnicians(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.Equal(t, "T-1", list[0].ExternalRef, "no BOM in the first cell")
	require.Equal(t, "yes", p.Rows[0].Values[4], "no CR in the last cell")
}

// An ambiguous local time (clocks go back) is its first occurrence, with a note.
func TestImportFallBackTakesFirstOccurrence(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.importOK(t, b.acme, fieldimport.Jobs, jobHeader+"J-1,Ann,,2026-11-01,01:30,02:30,,,,\n")
	require.Len(t, p.Rows[0].Notes, 1)
	require.Contains(t, p.Rows[0].Notes[0], "happens twice in America/New_York")
	require.Equal(t, "01:30 EDT", p.Rows[0].Values[5])
	page, err := b.field.ListJobs(b.ctx, b.acme.ID, field.JobFilter{})
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), page.Jobs[0].ArrivalStart.UTC(), "01:30 EDT, the first")
}

// The save is what the preview showed: data that changed in between
// (here a technician the file names now exists) makes it refuse, save
// nothing and show the new preview, which can then be saved.
func TestSaveRefusesWhatWasNotPreviewed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	up, p := b.preview(t, b.acme, fieldimport.Technicians, techs)
	b.importOK(t, b.acme, fieldimport.Technicians, "external_ref,name\nT-1,Someone Else\n")
	newer, err := b.save(up, p)
	require.ErrorIs(t, err, fieldimport.ErrChanged)
	require.NotEqual(t, p.Digest, newer.Digest)
	require.Equal(t, fieldimport.Update, newer.Rows[0].Action)
	list, err := b.field.ListTechnicians(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.Len(t, list, 1, "nothing saved")
	_, err = b.save(up, newer)
	require.NoError(t, err, "the upload survives a refused save")
	_, err = b.save(up, newer)
	require.Equal(t, apperr.NotFound, apperr.Code(err), "and is used up by a successful one")
}

// An upload is its owner's, in its org, for its kind, until it expires.
func TestUploadBelongsToItsOwner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	up, err := b.store.SaveUpload(b.ctx, b.acme.ID, b.user.ID, fieldimport.Technicians, "t.csv", []byte(techs), b.now)
	require.NoError(t, err)
	for _, tc := range []struct {
		org, user int64
		kind      fieldimport.Kind
		at        time.Time
	}{
		{b.globex.ID, b.user.ID, fieldimport.Technicians, b.now},
		{b.acme.ID, b.user.ID + 1, fieldimport.Technicians, b.now},
		{b.acme.ID, b.user.ID, fieldimport.Jobs, b.now},
		{b.acme.ID, b.user.ID, fieldimport.Technicians, b.now.Add(fieldimport.UploadTTL)},
	} {
		_, err := b.store.LoadUpload(b.ctx, tc.org, tc.user, tc.kind, up.ID, tc.at)
		require.Equal(t, apperr.NotFound, apperr.Code(err), "%+v", tc)
	}
	got, err := b.store.LoadUpload(b.ctx, b.acme.ID, b.user.ID, fieldimport.Technicians, up.ID, b.now.Add(fieldimport.UploadTTL-time.Second))
	require.NoError(t, err)
	require.Equal(t, techs, string(got.Content))
}

// Storage stays bounded: a user keeps UploadsPerUser per org, and expired
// uploads are deleted by the next one.
func TestUploadsBounded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range fieldimport.UploadsPerUser + 2 {
		_, err := b.store.SaveUpload(b.ctx, b.acme.ID, b.user.ID, fieldimport.Technicians, "t.csv", []byte(techs), b.now.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
	}
	require.Equal(t, fieldimport.UploadsPerUser, b.count(t, "csv_uploads", b.acme))
	_, err := b.store.SaveUpload(b.ctx, b.globex.ID, b.user.ID, fieldimport.Technicians, "t.csv", []byte(techs), b.now.Add(fieldimport.UploadTTL+time.Minute))
	require.NoError(t, err)
	require.Equal(t, 0, b.count(t, "csv_uploads", b.acme), "expired ones deleted")
}

// 10,000 rows with one bad one near the end: nothing is saved.
func TestImportAllOrNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	file := jobsFile(10_000, 9_999)
	up, p := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.Len(t, p.Problems, 1)
	require.Equal(t, 9_999, p.Problems[0].Row)
	require.Equal(t, 9_999, p.Created, "every other row shows what it would do")
	_, err := b.save(up, p)
	require.ErrorIs(t, err, fieldimport.ErrNotSaveable)
	require.Equal(t, 0, b.count(t, "jobs", b.acme))

	p = b.importOK(t, b.acme, fieldimport.Jobs, jobsFile(10_000, 0))
	require.Equal(t, 10_000, p.Created)
	require.Equal(t, 10_000, b.count(t, "jobs", b.acme))
}

// jobsFile is n jobs over a month, assigned in turn to T-1, T-1 and nobody
// (T-2 of techs is deactivated: no job goes to them);
// row bad (a spreadsheet row number, 0 for none) has a window that ends
// before it starts.
func jobsFile(n, bad int) string {
	var sb strings.Builder
	sb.WriteString(jobHeader)
	refs := []string{"T-1", "T-1", ""}
	for i := range n {
		from, to := "08:00", "10:00"
		if i+2 == bad {
			from, to = to, from
		}
		fmt.Fprintf(&sb, "J-%05d,Customer %d,%d Main Street,2026-04-%02d,%s,%s,scheduled,%s,no,Notes for job %d\n",
			i, i, i, 1+i%30, from, to, refs[i%3], i)
	}
	return sb.String()
}

// A client's file name is stored whatever bytes it holds.
func TestUploadFilenameCleaned(t *testing.T) {
	t.Parallel()
	b := setup(t)
	up, err := b.store.SaveUpload(b.ctx, b.acme.ID, b.user.ID, fieldimport.Technicians, "bad\xff\x00name"+strings.Repeat("é", 300)+".csv", []byte(techs), b.now)
	require.NoError(t, err)
	got, err := b.store.LoadUpload(b.ctx, b.acme.ID, b.user.ID, fieldimport.Technicians, up.ID, b.now)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(got.Filename, "bad\uFFFDnameé"), got.Filename)
	require.Len(t, []rune(got.Filename), 255)
}
