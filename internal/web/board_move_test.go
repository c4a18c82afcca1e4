package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
)

// docs/field-data.md, "The day board": the counts above the board are the
// blocks it shows. The customer's board said "Unassigned: 0" above an
// unassigned emergency; an inactive technician's job is unassigned too
// (field.Job.Unassigned); a done one needs nobody; an overdue emergency
// counts as overdue and as an emergency.
func TestBoardCountsMatchTheRows(t *testing.T) {
	ff := setupField(t)
	ctx := context.Background()
	gone, err := ff.st.CreateTechnician(ctx, audit.System, ff.orgA.ID, field.TechnicianInput{Name: "Gone Gil", Active: true})
	require.NoError(t, err)
	mk := func(customer string, start time.Time, tech int64, status string, emergency bool) {
		_, err := ff.st.CreateJob(ctx, audit.System, ff.clock.Now(), ff.orgA.ID, field.JobInput{Customer: customer,
			ArrivalStart: start, ArrivalEnd: start.Add(time.Hour), TechnicianID: tech, Status: status, Emergency: emergency})
		require.NoError(t, err)
	}
	day := func(h int) time.Time { return time.Date(2026, 3, 4, h+5, 0, 0, 0, time.UTC) } // EST
	mk("Burst Pipe", day(9), 0, "scheduled", true)                                        // unassigned and an emergency
	mk("Gil's Visit", day(10), gone.ID, "scheduled", false)                               // unassigned once Gil is inactive
	mk("Done Nobody", day(11), 0, "done", false)                                          // in the row, needs nobody
	mk("Ana Emergency", day(12), ff.ana.ID, "in_progress", true)
	mk("Ana Held", day(13), ff.ana.ID, "on_hold", false)
	mk("Old Leak", time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC), 0, "scheduled", true) // overdue emergency
	_, err = ff.st.SetTechnicianActive(ctx, audit.System, ff.orgA.ID, gone.ID, false)
	require.NoError(t, err)

	doc := parseDoc(t, ff.admin.get("/orgs/acme/board?date=2026-03-04").Body)
	counts := boardCounts(t, doc)
	require.Equal(t, map[string]int{"emergencies": 3, "overdue": 1, "unassigned": 2, "on-hold": 1}, map[string]int{
		"emergencies": counts["emergencies"], "overdue": counts["overdue"], "unassigned": counts["unassigned"], "on-hold": counts["on-hold"]})
	require.Equal(t, shownCounts(t, doc), counts)
	require.Contains(t, doc.byID("board-counts").text(), "Unassigned: 2")
}

// moveFixture is a job of 09:00–11:00 EST on 2026-03-04 with Ana, and
// how to post a move of it from the board with htmx.
type moveFixture struct {
	*fieldFixture
	job field.Job
}

func newMoveFixture(t *testing.T) moveFixture {
	ff := setupField(t)
	return moveFixture{ff, ff.job(ff.orgA.ID, "Corner Bakery", time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC), ff.ana.ID)}
}

func (m moveFixture) move(version int64, values url.Values) response {
	m.t.Helper()
	values.Set("version", fmt.Sprint(version))
	values.Set("date", "2026-03-04")
	return m.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/move", m.job.ID), values)
}

// window is the stored job's window in UTC, "14:00-16:00".
func (m moveFixture) window() string {
	j := m.storedJob(m.orgA.ID, m.job.ID)
	return j.ArrivalStart.UTC().Format("15:04") + "-" + j.ArrivalEnd.UTC().Format("15:04")
}

// undoValues are the fields of the Undo form in a move's answer.
func undoValues(t *testing.T, body string) url.Values {
	t.Helper()
	form := parseDoc(t, body).byID("board-undo")
	require.NotNil(t, form, "the move's notice offers an undo")
	out := url.Values{}
	for _, in := range form.findAll(tagIs("input")) {
		if name := in.attr("name"); name != "_csrf" {
			out.Set(name, in.attr("value"))
		}
	}
	return out
}

// A drag along the hours (shift) and the Move dialog's new start (start)
// move the window, keeping its length, with the version check; the
// notice's undo puts it back, and is refused once someone else changed
// the job since.
func TestBoardMoveAlongTimeAndUndo(t *testing.T) {
	m := newMoveFixture(t)
	v := m.job.Version

	// A drag one hour later.
	r := m.move(v, url.Values{"shift": {"60"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "15:00-17:00", m.window())
	require.Contains(t, parseDoc(t, r.Body).byID("board-notice").text(), "Job moved.")
	undo := undoValues(t, r.Body)
	require.Equal(t, fmt.Sprint(v+1), undo.Get("version"), "the undo carries the version the move made")
	require.Empty(t, undo["technician_id"], "the technician did not change")

	// The undo puts it back.
	r = m.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/move", m.job.ID), undo)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "14:00-16:00", m.window())
	require.Contains(t, parseDoc(t, r.Body).byID("board-notice").text(), "Move undone.")
	require.Nil(t, parseDoc(t, r.Body).byID("board-undo"), "an undo is not undone")

	// The dialog: a new start and another technician at once.
	bo, err := m.st.CreateTechnician(context.Background(), audit.System, m.orgA.ID, field.TechnicianInput{Name: "Bo Berg", Active: true})
	require.NoError(t, err)
	v = m.storedJob(m.orgA.ID, m.job.ID).Version
	r = m.move(v, url.Values{"start": {"13:30"}, "technician_id": {fmt.Sprint(bo.ID)}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "18:30-20:30", m.window())
	require.Equal(t, bo.ID, m.storedJob(m.orgA.ID, m.job.ID).TechnicianID)
	undo = undoValues(t, r.Body)
	require.Equal(t, fmt.Sprint(m.ana.ID), undo.Get("technician_id"))

	// Someone else changes the job: the undo is refused, nothing saved.
	_, err = m.st.SetStatus(context.Background(), audit.System, m.clock.Now(), m.orgA.ID, m.job.ID, field.StatusInProgress, 0)
	require.NoError(t, err)
	before := m.storedJob(m.orgA.ID, m.job.ID)
	r = m.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/move", m.job.ID), undo)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	stale := parseDoc(t, r.Body).byID("stale-notice")
	require.Contains(t, stale.text(), "Not undone: someone else changed this job after your move.")
	require.Contains(t, stale.text(), "Bo Berg")
	require.Equal(t, before, m.storedJob(m.orgA.ID, m.job.ID))

	// A move from a stale block is refused the same way.
	r = m.move(v, url.Values{"shift": {"15"}})
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.Contains(t, parseDoc(t, r.Body).byID("stale-notice").text(), "Someone else changed this")
	require.Equal(t, before, m.storedJob(m.orgA.ID, m.job.ID))
}

// The window stays within the board's day and keeps its length: a move
// that would leave the day, a time that is none, a time the clocks skip
// are 422 with the board, nothing saved; another org's job is not found;
// a member may not move.
func TestBoardMoveRefusals(t *testing.T) {
	m := newMoveFixture(t)
	v := m.job.Version
	for _, c := range []struct {
		values url.Values
		want   string
	}{
		{url.Values{"start": {"23:00"}}, "outside this day"},         // 23:00–01:00 ends the next day
		{url.Values{"shift": {"-600"}}, "outside this day"},          // 23:00 the day before
		{url.Values{"shift": {"840"}}, "outside this day"},           // 23:00–01:00
		{url.Values{"start": {"25:00"}}, "time of day"},              // no time
		{url.Values{"shift": {"soon"}}, "time of day"},               // no number
		{url.Values{"technician_id": {"x"}}, "not a technician"},     // no id
		{url.Values{"technician_id": {fmt.Sprint(m.theirs.ID)}}, ""}, // another org's technician
	} {
		r := m.move(v, c.values)
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, "%v: %s", c.values, r.Body)
		require.Contains(t, parseDoc(t, r.Body).byID("board-problem").text(), c.want, c.values)
		require.Equal(t, m.job, m.storedJob(m.orgA.ID, m.job.ID), c.values)
	}
	// The last quarter hours of the day are the day's: 22:00–24:00 fits.
	r := m.move(v, url.Values{"start": {"22:00"}})
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "03:00-05:00", m.window())

	// The day the clocks spring forward (New York, 2026-03-08): 02:30
	// does not exist, and the move says so.
	spring := m.job.ArrivalStart.AddDate(0, 0, 4)
	j, err := m.st.UpdateJob(context.Background(), audit.System, m.clock.Now(), m.orgA.ID, m.job.ID, func() field.JobInput {
		in := m.storedJob(m.orgA.ID, m.job.ID).Input()
		in.ArrivalStart, in.ArrivalEnd = spring, spring.Add(2*time.Hour)
		return in
	}())
	require.NoError(t, err)
	r = m.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/move", m.job.ID),
		url.Values{"start": {"02:30"}, "version": {fmt.Sprint(j.Version)}, "date": {"2026-03-08"}})
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	require.Contains(t, parseDoc(t, r.Body).byID("board-problem").text(), "2:30")
	require.Equal(t, j, m.storedJob(m.orgA.ID, m.job.ID))

	// Another org's job: 404, untouched; a member: 403.
	theirs := m.job2(m.orgB.ID)
	r = m.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/move", theirs.ID), url.Values{"shift": {"60"}, "version": {fmt.Sprint(theirs.Version)}})
	require.Equal(t, http.StatusNotFound, r.Code)
	require.Equal(t, theirs, m.storedJob(m.orgB.ID, theirs.ID))
	r = m.membr.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/move", m.job.ID), url.Values{"shift": {"60"}, "version": {fmt.Sprint(j.Version)}})
	require.Equal(t, http.StatusForbidden, r.Code)
	require.Equal(t, j, m.storedJob(m.orgA.ID, m.job.ID))
}

func (m moveFixture) job2(orgID int64) field.Job {
	return m.fieldFixture.job(orgID, "Globex customer", time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC), 0)
}
