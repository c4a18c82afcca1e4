package fieldimport_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/fieldimport"
	"fieldbrief/internal/tenants"
)

// Matching rows to records,
// keeping changes made in fieldbrief, overlapping saves.

func (b *bundle) addTechnician(t *testing.T, org tenants.Org, ref, name, email string) field.Technician {
	t.Helper()
	tech, err := b.field.CreateTechnician(b.ctx, b.actor, org.ID, field.TechnicianInput{ExternalRef: ref, Name: name, Email: email, Active: true})
	require.NoError(t, err)
	return tech
}

func rowOf(t *testing.T, p fieldimport.Plan, row int) fieldimport.PlannedRow {
	t.Helper()
	for _, r := range p.Rows {
		if r.Row == row {
			return r
		}
	}
	t.Fatalf("no row %d", row)
	return fieldimport.PlannedRow{}
}

func problemsOf(p fieldimport.Plan, code string) []fieldimport.Problem {
	var out []fieldimport.Problem
	for _, pr := range p.Problems {
		if pr.Code == code {
			out = append(out, pr)
		}
	}
	return out
}

// A technician added by hand, then a file without references that has the
// same email (in other case): the record is updated, not doubled, and is
// given a generated reference; a new one gets the next.
func TestImportTechnicianMatchedByEmail(t *testing.T) {
	b := setup(t)
	hand := b.addTechnician(t, b.acme, "", "Ana Lima", "ana@example.com")
	b.addTechnician(t, b.globex, "", "Ana Lima", "ana@example.com") // another org's never matches

	file := "name,email,phone\nAna Lima,ANA@example.com,555 0101\nBo Chen,bo@example.com,\n"
	// The preview reads: with Ana's row held by another transaction (an
	// edit being saved), it still answers, as it gives her no reference.
	holder, err := b.store.DB.Begin(b.ctx)
	require.NoError(t, err)
	defer holder.Rollback(b.ctx) //nolint:errcheck // rolled back below; again on a failure
	_, err = holder.Exec(b.ctx, `SELECT id FROM technicians WHERE id = $1 FOR UPDATE`, hand.ID)
	require.NoError(t, err)
	up, err := b.store.SaveUpload(b.ctx, b.acme.ID, b.user.ID, fieldimport.Technicians, "file.csv", []byte(file), b.now)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	p, err := b.store.Preview(ctx, up, b.zone, b.now, false)
	cancel()
	require.NoError(t, err, "the preview does not wait for a technician's row")
	require.NoError(t, holder.Rollback(b.ctx))
	require.Empty(t, p.Problems)
	require.Equal(t, 1, p.Created)
	require.Equal(t, 1, p.Updated)
	ana := rowOf(t, p, 2)
	require.Equal(t, fieldimport.Update, ana.Action)
	require.Contains(t, ana.Changes, fieldimport.Change{Column: "phone", Old: "", New: "555 0101"})
	require.Contains(t, ana.Changes, fieldimport.Change{Column: "external_ref", Old: "", New: "T-1"})
	require.Equal(t, "T-2", rowOf(t, p, 3).Values[0])

	b.importOK(t, b.acme, fieldimport.Technicians, file)
	require.Equal(t, 2, b.count(t, "technicians", b.acme))
	got, err := b.field.Technician(b.ctx, b.acme.ID, hand.ID)
	require.NoError(t, err)
	require.Equal(t, "555 0101", got.Phone)
	require.Equal(t, "T-1", got.ExternalRef)

	var given int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT (new_value->>'given')::int FROM audit_log
		WHERE org_id = $1 AND action = 'field.technician.import_reference'`, b.acme.ID).Scan(&given))
	require.Equal(t, 1, given, "Ana's reference is in the log")

	// The same file again: matched by email, nothing to do.
	p = b.importOK(t, b.acme, fieldimport.Technicians, file)
	require.Equal(t, 2, p.Unchanged)
	require.Equal(t, 2, b.count(t, "technicians", b.acme))
}

// A name alone matches when one technician has it; two of that name are
// an error naming both, and so are two rows, or a row and another
// technician, with one email.
func TestImportTechnicianNamesAndEmails(t *testing.T) {
	b := setup(t)
	b.addTechnician(t, b.acme, "T-1", "Ana Lima", "")
	b.addTechnician(t, b.acme, "T-7", "Ana Lima", "")
	b.addTechnician(t, b.acme, "T-3", "Bo Chen", "bo@example.com")
	b.addTechnician(t, b.acme, "", "Cy Diaz", "")

	file := "external_ref,name,email\n" +
		",Ana Lima,\n" + // row 2: two Ana Limas
		",Cy Diaz,\n" + // row 3: the one Cy Diaz
		"T-9,Dee Fox,dee@example.com\n" + // row 4
		"T-10,Dee Fox Jr,DEE@example.com\n" + // row 5: the email of row 4
		"T-11,Ed Gray,bo@example.com\n" // row 6: Bo Chen's email under another reference
	_, p := b.preview(t, b.acme, fieldimport.Technicians, file)

	amb := problemsOf(p, fieldimport.CodeTechnicianAmbiguous)
	require.Len(t, amb, 1)
	require.Equal(t, 2, amb[0].Row)
	require.Equal(t, "name", amb[0].Column)
	require.Equal(t, "T-1, T-7", amb[0].Names)
	require.Equal(t, "2 technicians are called Ana Lima: T-1, T-7. Give each row the reference or email of the one it updates.", amb[0].Message)

	rep := problemsOf(p, fieldimport.CodeEmailRepeated)
	require.Len(t, rep, 1)
	require.Equal(t, 5, rep[0].Row)
	require.Equal(t, 4, rep[0].Other)

	taken := problemsOf(p, fieldimport.CodeEmailTaken)
	require.Len(t, taken, 1)
	require.Equal(t, 6, taken[0].Row)
	require.Equal(t, "T-3", taken[0].Names)

	require.Equal(t, fieldimport.Update, rowOf(t, p, 3).Action) // Cy Diaz, given a reference
	require.Len(t, p.Problems, 3, "every problem of the file in the first preview: %+v", p.Problems)
}

// A jobs file names technicians by reference, email or name; an ambiguous
// name is an error naming the candidates.
func TestImportJobsTechnicianByNameOrEmail(t *testing.T) {
	b := setup(t)
	dana := b.addTechnician(t, b.acme, "", "Dana Reyes", "dana@example.com")
	sam := b.addTechnician(t, b.acme, "T-2", "Sam Lee", "")
	b.addTechnician(t, b.acme, "T-5", "Ana Lima", "")
	b.addTechnician(t, b.acme, "T-6", "Ana Lima", "")

	file := jobHeader +
		"J-1,Ann,,2026-03-09,08:00,10:00,,Dana Reyes,,\n" +
		"J-2,Bob,,2026-03-09,08:00,10:00,,DANA@example.com,,\n" +
		"J-3,Cat,,2026-03-09,08:00,10:00,,Sam Lee,,\n" +
		"J-4,Dan,,2026-03-09,08:00,10:00,,Ana Lima,,\n"
	_, p := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.Len(t, p.Problems, 1)
	require.Equal(t, fieldimport.CodeTechnicianAmbiguous, p.Problems[0].Code)
	require.Equal(t, 5, p.Problems[0].Row)
	require.Equal(t, "technician_ref", p.Problems[0].Column)
	require.Equal(t, "2 technicians are called Ana Lima: T-5, T-6. Name one by its reference or email.", p.Problems[0].Message)

	b.importOK(t, b.acme, fieldimport.Jobs, file[:len(file)-len("J-4,Dan,,2026-03-09,08:00,10:00,,Ana Lima,,\n")])
	for ref, want := range map[string]int64{"J-1": dana.ID, "J-2": dana.ID, "J-3": sam.ID} {
		var got int64
		require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT technician_id FROM jobs WHERE org_id = $1 AND external_ref = $2`, b.acme.ID, ref).Scan(&got))
		require.Equal(t, want, got, ref)
	}
}

// A re-import after the board assigned a job and marked another done keeps
// both, and the preview says which rows; ticking "overwrite" gives the
// file's values. An update shows each changed field old → new.
func TestImportKeepsChangesMadeInFieldbrief(t *testing.T) {
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	file := jobHeader +
		"J-1,Ann,,2026-03-09,08:00,10:00,,T-1,,\n" +
		"J-2,Bob,,2026-03-09,08:00,10:00,,T-1,,\n" +
		"J-3,Cy,,2026-03-09,08:00,10:00,,,,\n"
	b.importOK(t, b.acme, fieldimport.Jobs, file)

	var j1, j2, sam int64
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, b.acme.ID).Scan(&j1))
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = 'J-2'`, b.acme.ID).Scan(&j2))
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT id FROM technicians WHERE org_id = $1 AND external_ref = 'T-2'`, b.acme.ID).Scan(&sam))
	// Sam was imported deactivated; a job goes to active technicians only.
	_, err := b.field.SetTechnicianActive(b.ctx, b.actor, b.acme.ID, sam, true)
	require.NoError(t, err)
	_, err = b.field.Assign(b.ctx, b.actor, b.now, b.acme.ID, j1, sam, 0)
	require.NoError(t, err)
	_, err = b.field.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j2, field.StatusDone, 0)
	require.NoError(t, err)

	// The office edits the customer of J-3 and re-imports.
	file2 := jobHeader +
		"J-1,Ann,,2026-03-09,08:00,10:00,,T-1,,\n" +
		"J-2,Bob,,2026-03-09,08:00,10:00,,T-1,,\n" +
		"J-3,Cy Ltd,,2026-03-09,08:30,10:00,,,,\n"
	up, p := b.preview(t, b.acme, fieldimport.Jobs, file2)
	require.Empty(t, p.Problems)
	require.Equal(t, 2, p.KeptRows)
	require.Equal(t, []string{"status", "technician_ref"}, p.KeptColumns)
	r1 := rowOf(t, p, 2)
	require.Equal(t, fieldimport.Unchanged, r1.Action)
	require.Equal(t, []fieldimport.Kept{{Column: "technician_ref", Value: "Sam Lee", File: "Dana Reyes"}}, r1.Kept)
	require.Equal(t, "Sam Lee", r1.Values[9])
	require.Equal(t, []fieldimport.Kept{{Column: "status", Value: "done", File: "scheduled"}}, rowOf(t, p, 3).Kept)
	r3 := rowOf(t, p, 4)
	require.Equal(t, fieldimport.Update, r3.Action)
	require.Equal(t, []fieldimport.Change{
		{Column: "customer", Old: "Cy", New: "Cy Ltd"},
		{Column: "arrival_from", Old: "08:00 EDT", New: "08:30 EDT"},
	}, r3.Changes)

	saved, err := b.save(up, p)
	require.NoError(t, err)
	require.Equal(t, 1, saved.Updated)
	job, err := b.field.Job(b.ctx, b.acme.ID, j1)
	require.NoError(t, err)
	require.Equal(t, sam, job.TechnicianID, "the board's assignment is kept")
	job, err = b.field.Job(b.ctx, b.acme.ID, j2)
	require.NoError(t, err)
	require.Equal(t, field.StatusDone, job.Status, "the board's status is kept")

	// Again, still kept: the import remembers what it set, not what it kept.
	up, p = b.preview(t, b.acme, fieldimport.Jobs, file2)
	require.Equal(t, 2, p.KeptRows)
	// Ticked: the file's values, with the same preview's digest.
	saved, err = b.store.Save(b.ctx, b.actor, up.OrgID, up.UserID, up.Kind, up.ID, p.Digest, b.zone, b.now, true)
	require.NoError(t, err)
	require.Equal(t, 2, saved.Updated)
	require.Zero(t, saved.KeptRows)
	job, err = b.field.Job(b.ctx, b.acme.ID, j1)
	require.NoError(t, err)
	require.NotEqual(t, sam, job.TechnicianID)
	job, err = b.field.Job(b.ctx, b.acme.ID, j2)
	require.NoError(t, err)
	require.Equal(t, field.StatusScheduled, job.Status)
}

// A technician deactivated in the app stays inactive at a re-import that
// says active, unless overwritten.
func TestImportKeepsTechnicianDeactivated(t *testing.T) {
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	var dana int64
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT id FROM technicians WHERE org_id = $1 AND external_ref = 'T-1'`, b.acme.ID).Scan(&dana))
	_, err := b.field.SetTechnicianActive(b.ctx, b.actor, b.acme.ID, dana, false)
	require.NoError(t, err)
	p := b.importOK(t, b.acme, fieldimport.Technicians, techs)
	require.Equal(t, 1, p.KeptRows)
	got, err := b.field.Technician(b.ctx, b.acme.ID, dana)
	require.NoError(t, err)
	require.False(t, got.Active)
}

// Two admins save overlapping files at the same moment: exactly one
// commits; the other is told the data changed (409) with a new preview,
// and the audit log's counts match the table.
func TestImportConcurrentSaves(t *testing.T) {
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	file := jobsFile(500, 0)
	up1, p1 := b.preview(t, b.acme, fieldimport.Jobs, file)
	up2, p2 := b.preview(t, b.acme, fieldimport.Jobs, file)
	require.Equal(t, 500, p1.Created)
	require.Equal(t, p1.Digest, p2.Digest)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	plans := make([]fieldimport.Plan, 2)
	start := make(chan struct{})
	for i, up := range []fieldimport.Upload{up1, up2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			plans[i], errs[i] = b.save(up, p1)
		}()
	}
	close(start)
	wg.Wait()
	ok, changed := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
			require.Equal(t, 500, plans[i].Created)
		case errors.Is(err, fieldimport.ErrChanged):
			changed++
			require.Equal(t, 500, plans[i].Unchanged, "the new preview: everything is there now")
		default:
			t.Fatalf("save %d: %v", i, err)
		}
	}
	require.Equal(t, 1, ok)
	require.Equal(t, 1, changed)
	require.Equal(t, 500, b.count(t, "jobs", b.acme))
	var entries, created int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT count(*), coalesce(sum((new_value->>'created')::int), 0) FROM audit_log
		WHERE org_id = $1 AND action = 'field.job.import'`, b.acme.ID).Scan(&entries, &created))
	require.Equal(t, 1, entries)
	require.Equal(t, 500, created)
}

// A job changed on the board between the preview and the save: the save
// is refused with the new preview, nothing saved.
func TestImportSaveRefusedAfterBoardChange(t *testing.T) {
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	file := jobHeader + "J-1,Ann,,2026-03-09,08:00,10:00,,T-1,,\n"
	b.importOK(t, b.acme, fieldimport.Jobs, file)
	up, p := b.preview(t, b.acme, fieldimport.Jobs, jobHeader+"J-1,Ann B,,2026-03-09,08:00,10:00,,T-1,,\n")
	var j1 int64
	require.NoError(t, b.store.DB.QueryRow(b.ctx, `SELECT id FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, b.acme.ID).Scan(&j1))
	_, err := b.field.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j1, field.StatusInProgress, 0)
	require.NoError(t, err)
	np, err := b.save(up, p)
	require.ErrorIs(t, err, fieldimport.ErrChanged)
	require.Equal(t, 1, np.KeptRows)
	job, err := b.field.Job(b.ctx, b.acme.ID, j1)
	require.NoError(t, err)
	require.Equal(t, "Ann", job.Customer)
}

// Two rows that match one technician by name are an error naming the
// first row, not a second record.
func TestImportTwoRowsOneTechnician(t *testing.T) {
	b := setup(t)
	b.addTechnician(t, b.acme, "", "Cy Diaz", "")
	_, p := b.preview(t, b.acme, fieldimport.Technicians, "name,phone\nCy Diaz,1\nCy Diaz,2\n")
	require.Len(t, p.Problems, 1)
	require.Equal(t, field.CodeRefRepeated, p.Problems[0].Code)
	require.Equal(t, 3, p.Problems[0].Row)
	require.Equal(t, 2, p.Problems[0].Other)
	require.Equal(t, 1, b.count(t, "technicians", b.acme))
}

// A job's baseline goes with the job (the trigger of migration 00028),
// and another org's jobs never touch it.
func TestImportBaselineGoesWithItsJob(t *testing.T) {
	b := setup(t)
	b.importOK(t, b.acme, fieldimport.Technicians, techs)
	b.importOK(t, b.acme, fieldimport.Jobs, jobHeader+"J-1,Ann,,2026-03-09,08:00,10:00,,T-1,,\nJ-2,Bob,,2026-03-09,08:00,10:00,,,,\n")
	b.importOK(t, b.globex, fieldimport.Jobs, jobHeader+"J-1,Gil,,2026-03-09,08:00,10:00,,,,\n")
	require.Equal(t, 2, b.count(t, "job_import_baselines", b.acme))
	require.Equal(t, 2, b.count(t, "technician_import_baselines", b.acme))
	_, err := b.store.DB.Exec(b.ctx, `DELETE FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, b.acme.ID)
	require.NoError(t, err)
	require.Equal(t, 1, b.count(t, "job_import_baselines", b.acme))
	require.Equal(t, 1, b.count(t, "job_import_baselines", b.globex))
}
