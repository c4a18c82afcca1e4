package field_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

type bundle struct {
	ctx   context.Context
	store *field.Store
	orgs  *testutil.Stores
	acme  tenants.Org
	other tenants.Org
	actor audit.Actor
	// now is the clock the tests' writes pass (docs/scheduling.md, "Time
	// comes from the caller"): 10:00 in Chicago, whatever the hour they run.
	now time.Time
}

func setup(t *testing.T) bundle {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	os := testutil.NewStores(db)
	acme, err := os.Tenants.CreateOrg(ctx, "acme", "Acme Plumbing", time.Time{})
	require.NoError(t, err)
	other, err := os.Tenants.CreateOrg(ctx, "globex", "Globex", time.Time{})
	require.NoError(t, err)
	return bundle{ctx: ctx, store: &field.Store{DB: db}, orgs: os, acme: acme, other: other,
		actor: audit.Actor{Email: "admin@acme.example"}, now: time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)}
}

func (b bundle) tech(t *testing.T, orgID int64, name, ref string) field.Technician {
	t.Helper()
	tech, err := b.store.CreateTechnician(b.ctx, b.actor, orgID, field.TechnicianInput{Name: name, Active: true, ExternalRef: ref})
	require.NoError(t, err)
	return tech
}

var nine = time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)

func jobInput(customer string) field.JobInput {
	return field.JobInput{Customer: customer, Address: "1 Main St", ArrivalStart: nine, ArrivalEnd: nine.Add(2 * time.Hour)}
}

func (b bundle) job(t *testing.T, orgID int64, in field.JobInput) field.Job {
	t.Helper()
	j, err := b.store.CreateJob(b.ctx, b.actor, b.now, orgID, in)
	require.NoError(t, err)
	return j
}

func (b bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.store.DB.QueryRow(b.ctx, sql, args...).Scan(&n))
	return n
}

func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	var ve *field.ValidationError
	require.True(t, errors.As(err, &ve), "want a validation error, got %v", err)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	return ve.Fields
}

func TestTechnicianValidation(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("é", n) }
	tests := []struct {
		in    field.TechnicianInput
		field string // "" = valid
	}{
		{field.TechnicianInput{Name: "Ana"}, ""},
		{field.TechnicianInput{Name: long(200), Email: "ana@example.com", Phone: long(40), ExternalRef: long(100)}, ""},
		{field.TechnicianInput{Name: ""}, "name"},
		{field.TechnicianInput{Name: "   "}, "name"},
		{field.TechnicianInput{Name: long(201)}, "name"},
		{field.TechnicianInput{Name: "Ana\x00"}, "name"},
		{field.TechnicianInput{Name: "Ana\xff"}, "name"},
		{field.TechnicianInput{Name: "Ana\nBob"}, "name"},
		{field.TechnicianInput{Name: "Ana\u202e"}, "name"},
		{field.TechnicianInput{Name: "Ana", Email: "not an email"}, "email"},
		{field.TechnicianInput{Name: "Ana", Email: "Ana <ana@example.com>"}, "email"},
		{field.TechnicianInput{Name: "Ana", Email: long(250) + "@x.io"}, "email"},
		{field.TechnicianInput{Name: "Ana", Phone: long(41)}, "phone"},
		{field.TechnicianInput{Name: "Ana", ExternalRef: long(101)}, "external_ref"},
		{field.TechnicianInput{Name: "Ana", ExternalRef: "T\x01"}, "external_ref"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			in := tt.in
			in.Normalize()
			err := in.Validate()
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			require.Contains(t, fieldsOf(t, err), tt.field)
		})
	}
}

func TestJobValidation(t *testing.T) {
	t.Parallel()
	valid := jobInput("Mrs Smith")
	tests := []struct {
		edit  func(*field.JobInput)
		field string
	}{
		{func(*field.JobInput) {}, ""},
		{func(j *field.JobInput) { j.Notes = "line one\nline two\ttabbed" }, ""},
		{func(j *field.JobInput) { j.Status = "done" }, ""},
		{func(j *field.JobInput) { j.ArrivalEnd = j.ArrivalStart }, ""},
		{func(j *field.JobInput) { j.Customer = "" }, "customer"},
		{func(j *field.JobInput) { j.Customer = strings.Repeat("x", 201) }, "customer"},
		{func(j *field.JobInput) { j.Address = strings.Repeat("x", 501) }, "address"},
		{func(j *field.JobInput) { j.Address = "1 Main\nSt" }, "address"},
		{func(j *field.JobInput) { j.Notes = strings.Repeat("x", 4001) }, "notes"},
		{func(j *field.JobInput) { j.Notes = "bell\a" }, "notes"},
		{func(j *field.JobInput) { j.CustomerPhone = strings.Repeat("1", 41) }, "customer_phone"},
		{func(j *field.JobInput) { j.JobType = strings.Repeat("x", 81) }, "job_type"},
		{func(j *field.JobInput) { j.Status = "finished" }, "status"},
		{func(j *field.JobInput) { j.ExternalRef = strings.Repeat("r", 101) }, "external_ref"},
		{func(j *field.JobInput) { j.ArrivalEnd = j.ArrivalStart.Add(-time.Minute) }, "arrival_end"},
		{func(j *field.JobInput) { j.ArrivalStart = time.Time{} }, "arrival_start"},
		{func(j *field.JobInput) { j.ArrivalEnd = time.Time{} }, "arrival_end"},
		{func(j *field.JobInput) { j.ArrivalStart = time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC) }, "arrival_start"},
		{func(j *field.JobInput) {
			j.ArrivalEnd = time.Date(9998, 12, 31, 23, 0, 0, 0, time.FixedZone("", -2*3600)) // 9999 in UTC
		}, "arrival_end"},
		{func(j *field.JobInput) { j.TechnicianID, j.TechnicianRef = 1, "T1" }, "technician_ref"},
		{func(j *field.JobInput) { j.Customer = "Smith\x00" }, "customer"},
		{func(j *field.JobInput) { j.Customer = "Smith\xc3" }, "customer"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			in := valid
			tt.edit(&in)
			in.Normalize()
			err := in.Validate()
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			require.Contains(t, fieldsOf(t, err), tt.field)
		})
	}
}

func TestTechnicianCRUDStaysInItsOrg(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "T1")
	require.True(t, ana.Active)

	// Another org sees none of it, and may use the same reference.
	_, err := b.store.Technician(b.ctx, b.other.ID, ana.ID)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.UpdateTechnician(b.ctx, b.actor, b.other.ID, ana.ID, field.TechnicianInput{Name: "Hijack"})
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.SetTechnicianActive(b.ctx, b.actor, b.other.ID, ana.ID, false)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	require.Equal(t, apperr.NotFound, apperr.Code(b.store.DeleteTechnician(b.ctx, b.actor, b.other.ID, ana.ID, 0)))
	list, err := b.store.ListTechnicians(b.ctx, b.other.ID)
	require.NoError(t, err)
	require.Empty(t, list)
	b.tech(t, b.other.ID, "Other Ana", "T1")

	// A reference is unique within an org.
	_, err = b.store.CreateTechnician(b.ctx, b.actor, b.acme.ID, field.TechnicianInput{Name: "Dup", ExternalRef: "T1"})
	require.Contains(t, fieldsOf(t, err), "external_ref")

	got, err := b.store.UpdateTechnician(b.ctx, b.actor, b.acme.ID, ana.ID,
		field.TechnicianInput{Name: " Ana Lima ", Email: "ana@acme.example", Phone: "+1 555 0100", Active: true})
	require.NoError(t, err)
	require.Equal(t, "Ana Lima", got.Name)
	require.Equal(t, "", got.ExternalRef, "an empty reference clears it")

	// Invalid input saves nothing.
	_, err = b.store.UpdateTechnician(b.ctx, b.actor, b.acme.ID, ana.ID, field.TechnicianInput{Name: "", Email: "bad"})
	require.Equal(t, map[string]string{"name": "is required", "email": "is not an email address like name@example.com"}, fieldsOf(t, err))
	again, err := b.store.Technician(b.ctx, b.acme.ID, ana.ID)
	require.NoError(t, err)
	require.Equal(t, "Ana Lima", again.Name)

	off, err := b.store.SetTechnicianActive(b.ctx, b.actor, b.acme.ID, ana.ID, false)
	require.NoError(t, err)
	require.False(t, off.Active)
	require.Equal(t, "Ana Lima", off.Name)
	require.Positive(t, b.count(t, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'field.technician.deactivate'`, b.acme.ID))
}

func TestTechnicianWithJobsIsNeverDeleted(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "")
	bob := b.tech(t, b.acme.ID, "Bob", "")
	in := jobInput("Smith")
	in.TechnicianID = ana.ID
	b.job(t, b.acme.ID, in)

	err := b.store.DeleteTechnician(b.ctx, b.actor, b.acme.ID, ana.ID, 0)
	require.Equal(t, apperr.Conflict, apperr.Code(err))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM technicians WHERE id = $1`, ana.ID))

	require.NoError(t, b.store.DeleteTechnician(b.ctx, b.actor, b.acme.ID, bob.ID, 0))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM technicians WHERE id = $1`, bob.ID))

	list, err := b.store.ListTechnicians(b.ctx, b.acme.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, 1, list[0].Jobs)
}

func TestJobsAssignStatusAndIsolation(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "T1")
	theirs := b.tech(t, b.other.ID, "Theirs", "T9")
	j := b.job(t, b.acme.ID, jobInput("Smith"))
	require.Equal(t, field.StatusScheduled, j.Status)
	require.Zero(t, j.TechnicianID)

	// Another org's job and technician ids are not found.
	_, err := b.store.Job(b.ctx, b.other.ID, j.ID)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.Assign(b.ctx, b.actor, b.now, b.other.ID, j.ID, theirs.ID, 0)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.other.ID, j.ID, field.StatusDone, 0)
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.UpdateJob(b.ctx, b.actor, b.now, b.other.ID, j.ID, jobInput("Hijack"))
	require.Equal(t, apperr.NotFound, apperr.Code(err))
	_, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, theirs.ID, 0)
	require.Contains(t, fieldsOf(t, err), "technician_id")
	in := jobInput("Cross")
	in.TechnicianRef = "T9"
	_, err = b.store.CreateJob(b.ctx, b.actor, b.now, b.acme.ID, in)
	require.Contains(t, fieldsOf(t, err), "technician_ref")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobs WHERE org_id = $1`, b.acme.ID), "nothing saved")

	j, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, ana.ID, 0)
	require.NoError(t, err)
	require.Equal(t, ana.ID, j.TechnicianID)
	require.Equal(t, "Ana", j.TechnicianName)
	require.Equal(t, "T1", j.TechnicianRef)

	// Done records when; leaving done clears it; done again records anew.
	j, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, field.StatusDone, 0)
	require.NoError(t, err)
	require.NotNil(t, j.CompletedAt)
	first := *j.CompletedAt
	j, err = b.store.UpdateJob(b.ctx, b.actor, b.now, b.acme.ID, j.ID, j.Input())
	require.NoError(t, err)
	require.True(t, first.Equal(*j.CompletedAt), "an edit of a done job keeps its completion time")
	j, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, field.StatusOnHold, 0)
	require.NoError(t, err)
	require.Nil(t, j.CompletedAt)
	_, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, "bogus", 0)
	require.Contains(t, fieldsOf(t, err), "status")
	_, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, "", 0)
	require.Contains(t, fieldsOf(t, err), "status")

	j, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, 0, 0)
	require.NoError(t, err)
	require.Zero(t, j.TechnicianID)

	// A deactivated technician gets no new job, by id or reference; one
	// they had keeps them and can still change.
	j, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, ana.ID, 0)
	require.NoError(t, err)
	_, err = b.store.SetTechnicianActive(b.ctx, b.actor, b.acme.ID, ana.ID, false)
	require.NoError(t, err)
	j, err = b.store.SetStatus(b.ctx, b.actor, b.now, b.acme.ID, j.ID, field.StatusInProgress, 0)
	require.NoError(t, err)
	require.Equal(t, ana.ID, j.TechnicianID)
	j, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, 0, 0)
	require.NoError(t, err)
	_, err = b.store.Assign(b.ctx, b.actor, b.now, b.acme.ID, j.ID, ana.ID, 0)
	require.Contains(t, fieldsOf(t, err), "technician_id")
	in = j.Input()
	in.TechnicianID, in.TechnicianRef, in.ExternalRef, in.Version = 0, ana.ExternalRef, "J-ana", 0
	_, _, err = field.UpsertJobByRef(b.ctx, b.store.DB, b.actor, b.now, b.acme.ID, in)
	require.Contains(t, fieldsOf(t, err), "technician_ref")
}

func TestListJobsFiltersAndPages(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "")
	day := time.Date(2026, 3, 9, 5, 0, 0, 0, time.UTC) // a day's bounds, as the caller computes them
	for i := range 5 {
		in := jobInput(fmt.Sprintf("C%d", i))
		in.ArrivalStart = day.Add(time.Duration(i) * time.Hour)
		in.ArrivalEnd = in.ArrivalStart.Add(time.Hour)
		if i%2 == 0 {
			in.TechnicianID = ana.ID
		}
		if i == 4 {
			in.Status = field.StatusDone
		}
		b.job(t, b.acme.ID, in)
	}
	// Outside the day, and in another org.
	before := jobInput("Yesterday")
	before.ArrivalStart, before.ArrivalEnd = day.Add(-3*time.Hour), day.Add(-2*time.Hour)
	b.job(t, b.acme.ID, before)
	b.job(t, b.other.ID, field.JobInput{Customer: "Theirs", ArrivalStart: day, ArrivalEnd: day})

	customers := func(p field.JobPage) []string {
		var out []string
		for _, j := range p.Jobs {
			out = append(out, j.Customer)
		}
		return out
	}
	f := field.JobFilter{From: day, To: day.Add(24 * time.Hour)}
	p, err := b.store.ListJobs(b.ctx, b.acme.ID, f)
	require.NoError(t, err)
	require.Equal(t, []string{"C0", "C1", "C2", "C3", "C4"}, customers(p))
	require.False(t, p.More)

	f.Limit = 2
	p, err = b.store.ListJobs(b.ctx, b.acme.ID, f)
	require.NoError(t, err)
	require.Equal(t, []string{"C0", "C1"}, customers(p))
	require.True(t, p.More)
	f.Offset = 4
	p, err = b.store.ListJobs(b.ctx, b.acme.ID, f)
	require.NoError(t, err)
	require.Equal(t, []string{"C4"}, customers(p))
	require.False(t, p.More)

	p, err = b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{From: day, To: day.Add(24 * time.Hour), TechnicianID: ana.ID})
	require.NoError(t, err)
	require.Equal(t, []string{"C0", "C2", "C4"}, customers(p))
	p, err = b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{From: day, To: day.Add(24 * time.Hour), Unassigned: true})
	require.NoError(t, err)
	require.Equal(t, []string{"C1", "C3"}, customers(p))
	p, err = b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{Status: field.StatusDone})
	require.NoError(t, err)
	require.Equal(t, []string{"C4"}, customers(p))
	p, err = b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{OverdueAt: day})
	require.NoError(t, err)
	require.Equal(t, []string{"Yesterday"}, customers(p))
	_, err = b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{Status: "nope"})
	require.Contains(t, fieldsOf(t, err), "status")

	p, err = b.store.ListJobs(b.ctx, b.acme.ID, field.JobFilter{Limit: 1 << 30})
	require.NoError(t, err)
	require.Len(t, p.Jobs, 6, "a huge limit is capped, not an error")
}

func TestUpsertByRefInsideCallersTransaction(t *testing.T) {
	b := setup(t)
	ctx := b.ctx
	var techCreated, jobCreated bool
	var tech field.Technician
	var job field.Job
	err := pgx.BeginFunc(ctx, b.store.DB, func(tx pgx.Tx) error {
		var err error
		tech, techCreated, err = field.UpsertTechnicianByRef(ctx, tx, b.actor, b.acme.ID,
			field.TechnicianInput{Name: "Ana", ExternalRef: "T1", Active: true})
		if err != nil {
			return err
		}
		in := jobInput("Smith")
		in.ExternalRef, in.TechnicianRef = "J1", "T1"
		job, jobCreated, err = field.UpsertJobByRef(ctx, tx, b.actor, b.now, b.acme.ID, in)
		return err
	})
	require.NoError(t, err)
	require.True(t, techCreated)
	require.True(t, jobCreated)
	require.Equal(t, tech.ID, job.TechnicianID)

	// The same again changes nothing, updated_at included.
	in := jobInput("Smith")
	in.ExternalRef, in.TechnicianRef = "J1", "T1"
	again, created, err := field.UpsertJobByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, in)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, job.ID, again.ID)
	require.True(t, job.UpdatedAt.Equal(again.UpdatedAt))
	auditBefore := b.count(t, `SELECT count(*) FROM audit_log`)
	_, created, err = field.UpsertTechnicianByRef(ctx, b.store.DB, b.actor, b.acme.ID, field.TechnicianInput{Name: "Ana", ExternalRef: "T1", Active: true})
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, auditBefore, b.count(t, `SELECT count(*) FROM audit_log`), "no change, no audit entry")

	// A change updates.
	in.Status = field.StatusDone
	updated, created, err := field.UpsertJobByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, in)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, field.StatusDone, updated.Status)
	require.NotNil(t, updated.CompletedAt)

	// A rolled-back caller's transaction leaves nothing behind.
	err = pgx.BeginFunc(ctx, b.store.DB, func(tx pgx.Tx) error {
		if _, _, err := field.UpsertTechnicianByRef(ctx, tx, b.actor, b.acme.ID, field.TechnicianInput{Name: "Temp", ExternalRef: "T2"}); err != nil {
			return err
		}
		return errors.New("caller gives up")
	})
	require.Error(t, err)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM technicians WHERE external_ref = 'T2'`))

	// Another org's technician reference is unknown here; its own refs are its own.
	in = jobInput("Cross")
	in.ExternalRef, in.TechnicianRef = "J2", "T9"
	b.tech(t, b.other.ID, "Theirs", "T9")
	_, _, err = field.UpsertJobByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, in)
	require.Contains(t, fieldsOf(t, err), "technician_ref")
	_, created, err = field.UpsertJobByRef(ctx, b.store.DB, b.actor, b.now, b.other.ID, func() field.JobInput {
		in := jobInput("Theirs")
		in.ExternalRef = "J1"
		return in
	}())
	require.NoError(t, err)
	require.True(t, created, "the same ref in another org is another job")

	_, _, err = field.UpsertJobByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, jobInput("No ref"))
	require.Contains(t, fieldsOf(t, err), "external_ref")
}

func TestBatchUpsertIsAllOrNothingAndIdempotent(t *testing.T) {
	b := setup(t)
	ctx := b.ctx
	techs := []field.TechnicianInput{{Name: "Ana", ExternalRef: "T1", Active: true}, {Name: "Bob", ExternalRef: "T2", Active: true}}
	res, err := field.UpsertTechniciansByRef(ctx, b.store.DB, b.actor, b.acme.ID, techs)
	require.NoError(t, err)
	require.Equal(t, 2, res.Created)

	jobs := func() []field.JobInput {
		var out []field.JobInput
		for i := range 300 {
			in := jobInput(fmt.Sprintf("Customer %d", i))
			in.ExternalRef = fmt.Sprintf("J%d", i)
			in.TechnicianRef = []string{"", "T1", "T2"}[i%3]
			out = append(out, in)
		}
		return out
	}
	res, err = field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, jobs())
	require.NoError(t, err)
	require.Equal(t, field.BatchResult{Outcomes: res.Outcomes, Created: 300}, res)
	require.Equal(t, 300, b.count(t, `SELECT count(*) FROM jobs WHERE org_id = $1`, b.acme.ID))
	require.Equal(t, 100, b.count(t, `SELECT count(*) FROM jobs j JOIN technicians t ON t.id = j.technician_id WHERE t.external_ref = 'T1'`))

	var stamp time.Time
	require.NoError(t, b.store.DB.QueryRow(ctx, `SELECT max(updated_at) FROM jobs`).Scan(&stamp))
	res, err = field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, jobs())
	require.NoError(t, err)
	require.Equal(t, 300, res.Unchanged, "re-importing changes nothing")
	var after time.Time
	require.NoError(t, b.store.DB.QueryRow(ctx, `SELECT max(updated_at) FROM jobs`).Scan(&after))
	require.True(t, stamp.Equal(after))

	changed := jobs()
	changed[7].Status = field.StatusDone
	changed = append(changed, func() field.JobInput { in := jobInput("New"); in.ExternalRef = "J-new"; return in }())
	res, err = field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, changed)
	require.NoError(t, err)
	require.Equal(t, []int{1, 1, 299}, []int{res.Created, res.Updated, res.Unchanged})
	require.Equal(t, field.Updated, res.Outcomes[7])
	require.Equal(t, field.Created, res.Outcomes[300])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobs WHERE external_ref = 'J7' AND completed_at IS NOT NULL`))

	// The last row bad: nothing saved, every problem named by row and field.
	bad := jobs()
	for i := range bad {
		bad[i].Customer += " (edited)"
	}
	bad[299].ArrivalEnd = bad[299].ArrivalStart.Add(-time.Hour)
	bad[298].TechnicianRef = "T-unknown"
	bad[297].ExternalRef = "J0"
	bad[296].Status = "later"
	_, err = field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.acme.ID, bad)
	var be *field.BatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, apperr.Invalid, apperr.Code(err))
	require.Equal(t, []field.RowError{
		{Row: 296, Field: "status", Problem: field.Problem{Code: field.CodeStatusUnknown,
			Message: "must be one of scheduled, in_progress, on_hold, done, cancelled"}},
		{Row: 297, Field: "external_ref", Problem: field.Problem{Code: field.CodeRefRepeated, Value: "J0", Other: 0,
			Message: `"J0" is also used by row 0`}},
		{Row: 298, Field: "technician_ref", Problem: field.Problem{Code: field.CodeTechnicianUnknown, Value: "T-unknown",
			Message: `no technician of this org has the reference "T-unknown"`}},
		{Row: 299, Field: "arrival_end", Problem: field.Problem{Code: field.CodeWindowReversed,
			Message: "must not be before the start of the window"}},
	}, be.Rows)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM jobs WHERE customer LIKE '%(edited)'`))

	// Another org's batch with the same refs is its own; our technicians' refs are not its.
	_, err = field.UpsertJobsByRef(ctx, b.store.DB, b.actor, b.now, b.other.ID, jobs()[:3])
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Rows, 2, "T1 and T2 are acme's")
}

// Lists and the board show an org's technicians on one page of at most
// MaxTechnicians; past that, the board showed the jobs of the ones left
// off as unassigned. So no way in adds one more: the form, the API's
// upsert and the CSV batch refuse it, while updates still go through.
func TestAnOrgHasAtMostMaxTechnicians(t *testing.T) {
	b := setup(t)
	ins := make([]field.TechnicianInput, field.MaxTechnicians)
	for i := range ins {
		ins[i] = field.TechnicianInput{Name: fmt.Sprint("Tech ", i), Active: true, ExternalRef: fmt.Sprint("T-", i)}
	}
	err := pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, err := field.UpsertTechniciansByRef(b.ctx, tx, b.actor, b.acme.ID, ins)
		return err
	})
	require.NoError(t, err)

	_, err = b.store.CreateTechnician(b.ctx, b.actor, b.acme.ID, field.TechnicianInput{Name: "One more", Active: true})
	require.Equal(t, apperr.Invalid, apperr.Code(err), "%v", err)
	err = pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, _, err := field.UpsertTechnicianByRef(b.ctx, tx, b.actor, b.acme.ID, field.TechnicianInput{Name: "One more", ExternalRef: "T-new"})
		return err
	})
	require.Equal(t, apperr.Invalid, apperr.Code(err), "%v", err)
	err = pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, err := field.UpsertTechniciansByRef(b.ctx, tx, b.actor, b.acme.ID, append(ins[:2:2], field.TechnicianInput{Name: "New", ExternalRef: "T-new"}))
		return err
	})
	require.Equal(t, apperr.Invalid, apperr.Code(err), "%v", err)
	require.Equal(t, field.MaxTechnicians, b.count(t, `SELECT count(*) FROM technicians WHERE org_id = $1`, b.acme.ID))

	// Updates, and another org, are unaffected.
	err = pgx.BeginFunc(b.ctx, b.store.DB, func(tx pgx.Tx) error {
		_, _, err := field.UpsertTechnicianByRef(b.ctx, tx, b.actor, b.acme.ID, field.TechnicianInput{Name: "Renamed", ExternalRef: "T-1", Active: true})
		if err != nil {
			return err
		}
		_, err = field.UpsertTechniciansByRef(b.ctx, tx, b.actor, b.acme.ID, []field.TechnicianInput{{Name: "Renamed too", ExternalRef: "T-2"}})
		return err
	})
	require.NoError(t, err)
	b.tech(t, b.other.ID, "Globex tech", "")
}

// A job is deleted within its org only, at the version read (0: any),
// audited; its tombstone is left for the feed, and the changes an update
// already told a technician outlive it (migrations/00051).
func TestDeleteJobStaysInItsOrgChecksItsVersionAndKeepsHistory(t *testing.T) {
	b := setup(t)
	ana := b.tech(t, b.acme.ID, "Ana", "T1")
	in := jobInput("Smith")
	in.ExternalRef, in.TechnicianID = "J-1", ana.ID
	j := b.job(t, b.acme.ID, in)
	_, err := b.store.DB.Exec(b.ctx, `INSERT INTO ff_job_changes (org_id, technician_id, briefing_date, job_id, was_on, is_on, after, created_at)
		VALUES ($1, $2, '2026-03-09', $3, true, true, '{}', now())`, b.acme.ID, ana.ID, j.ID)
	require.NoError(t, err)

	err = b.store.DeleteJob(b.ctx, b.actor, b.now, b.other.ID, j.ID, 0)
	require.Equal(t, apperr.NotFound, apperr.Code(err), "another org's job is not found")
	err = b.store.DeleteJob(b.ctx, b.actor, b.now, b.acme.ID, j.ID, j.Version+1)
	require.Equal(t, apperr.Stale, apperr.Code(err))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobs WHERE id = $1`, j.ID), "nothing deleted")

	require.NoError(t, b.store.DeleteJob(b.ctx, b.actor, b.now, b.acme.ID, j.ID, j.Version))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM jobs WHERE id = $1`, j.ID))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'field.job.delete' AND target = $2`,
		b.acme.ID, fmt.Sprintf("job:%d", j.ID)))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM field_tombstones WHERE org_id = $1 AND kind = 'job' AND id = $2 AND external_ref = 'J-1'`,
		b.acme.ID, j.ID))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM ff_job_changes WHERE job_id = $1`, j.ID), "the update's history stays")

	err = b.store.DeleteJob(b.ctx, b.actor, b.now, b.acme.ID, j.ID, 0)
	require.Equal(t, apperr.NotFound, apperr.Code(err), "a deleted job is not found")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM technicians WHERE id = $1`, ana.ID), "the technician stays")
}
