package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
)

// A quick change on the day board made from a card older than the job
// (someone else assigned it meanwhile) is refused with 409, and htmx swaps
// that answer in (views/layout.templ's htmx config): the board as it is
// now, the notice naming both technicians above it; nothing saved
// (docs/versions.md, "Forms").
func TestBoardStaleQuickChangeShowsTheLatest(t *testing.T) {
	e := newEnv(t)
	e.seed()
	st := &field.Store{DB: e.db}
	ana, err := st.CreateTechnician(e.ctx, audit.System, e.orgA.ID, field.TechnicianInput{Name: "Ana Lima", Active: true})
	e.must("add Ana", err)
	bo, err := st.CreateTechnician(e.ctx, audit.System, e.orgA.ID, field.TechnicianInput{Name: "Bo Berg", Active: true})
	e.must("add Bo", err)
	berlin, err := time.LoadLocation("Europe/Berlin")
	e.must("load Berlin", err)
	now := time.Now().In(berlin)
	start := time.Date(now.Year(), now.Month(), now.Day(), 10, 0, 0, 0, berlin)
	j, err := st.CreateJob(e.ctx, audit.System, time.Now(), e.orgA.ID, field.JobInput{Customer: "Stale Bakery", ArrivalStart: start, ArrivalEnd: start.Add(2 * time.Hour)})
	e.must("add a job", err)

	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(boardPath)
	admin.waitText(unassignedCol, "Stale Bakery")

	// Meanwhile, someone else gives the job to Ana.
	_, err = st.Assign(e.ctx, audit.System, time.Now(), e.orgA.ID, j.ID, ana.ID, 0)
	e.must("assign Ana", err)

	admin.moveInDialog(unassignedCol+` article.blk`, bo.ID)
	admin.waitText(`#board #stale-notice`, "Someone else changed this", "Ana Lima", "Bo Berg", "Reload the latest")
	admin.waitText(fmt.Sprintf(`#board .tl-row[data-technician="%d"]`, ana.ID), "Stale Bakery")
	admin.waitTextWhere(unassignedCol, func(s string) bool { return !strings.Contains(s, "Stale Bakery") }, "no longer list Stale Bakery")
	if p := admin.path(); p != boardPath {
		t.Errorf("the refused change left the board for %s; htmx should answer in place", p)
	}
	admin.screenshot("board-stale")
	got, err := st.Job(e.ctx, e.orgA.ID, j.ID)
	e.must("read the job", err)
	if got.TechnicianID != ana.ID {
		t.Fatalf("the stale change was saved: the job is with technician %d, want Ana (%d)", got.TechnicianID, ana.ID)
	}
}
