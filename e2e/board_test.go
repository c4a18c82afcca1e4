package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// boardRow is the timeline row of a technician (0: unassigned).
func boardRow(techID int64) string {
	return fmt.Sprintf(`#board .tl-row[data-technician="%d"]`, techID)
}

// moveInDialog moves the block blk (a selector) to technician techID with
// the keyboard: focus its Move action, Enter, choose in the dialog, then
// Enter on the confirming button.
func (s *session) moveInDialog(blk string, techID int64) {
	s.t.Helper()
	s.do("focus Move of "+blk, chromedp.WaitVisible(chromedp.CSS(blk+` .mv`)), chromedp.Focus(chromedp.CSS(blk+` .mv`)))
	s.do("press Enter on Move", chromedp.KeyEvent(kb.Enter))
	s.waitJS("the Move dialog is open", `document.getElementById("move-dialog").open`)
	s.setValue(`#move-tech`, fmt.Sprint(techID))
	s.do("focus the confirming button", chromedp.Focus(chromedp.CSS(`#move-confirm`)))
	s.do("press Enter on confirm", chromedp.KeyEvent(kb.Enter))
}

// dragTo drags the block of job id onto technician techID's row with a
// real mouse (pointer events from Chromium's input), straight down or up:
// the same hours, another row.
func (s *session) dragTo(jobID, techID int64) {
	s.t.Helper()
	from, to := s.centers(fmt.Sprintf(`#board .blk[data-job="%d"]`, jobID), fmt.Sprintf(`#board .tl-row[data-technician="%d"] .tl-track`, techID))
	s.pointerDrag(fmt.Sprintf("drag job %d to technician %d", jobID, techID), from, [2]float64{from[0], to[1]})
}

// centers scrolls the window so that the elements a and b are both in it
// (the point between them in its middle) and returns their centres in the
// window's coordinates.
func (s *session) centers(a, b string) ([2]float64, [2]float64) {
	s.t.Helper()
	xy, err := eval[[]float64](s, `(() => {
		const ea = document.querySelector(`+jsString(a)+`), eb = document.querySelector(`+jsString(b)+`);
		const mid = () => { const ra = ea.getBoundingClientRect(), rb = eb.getBoundingClientRect();
			return [ra, rb, (ra.top + ra.bottom + rb.top + rb.bottom) / 4]; };
		let [ra, rb, m] = mid();
		window.scrollBy(0, m - window.innerHeight / 2);
		[ra, rb] = mid();
		return [ra.left + ra.width / 2, ra.top + ra.height / 2, rb.left + rb.width / 2, rb.top + rb.height / 2];
	})()`)
	if err != nil || len(xy) != 4 {
		s.t.Fatalf("%s: find %s and %s: %v", s.name, a, b, err)
	}
	return [2]float64{xy[0], xy[1]}, [2]float64{xy[2], xy[3]}
}

// pointerDrag presses the left button at from, moves in steps to to and
// releases it: what a mouse does, through Chromium's input.
func (s *session) pointerDrag(what string, from, to [2]float64) {
	s.t.Helper()
	held := func(p *input.DispatchMouseEventParams) { p.Button, p.Buttons = input.MouseButtonLeft, 1 }
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, from[0], from[1]),
		chromedp.MouseEvent(chromedp.MousePressed, from[0], from[1], held, chromedp.ClickCount(1))}
	for i := 1; i <= 5; i++ {
		f := float64(i) / 5
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, from[0]+(to[0]-from[0])*f, from[1]+(to[1]-from[1])*f, held))
	}
	steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, to[0], to[1], held, chromedp.ClickCount(1)))
	s.do(what, steps...)
}

// jobState is every job of an org: its technician and version, by id.
func (e *env) jobState(orgID int64) map[int64][2]int64 {
	e.t.Helper()
	rows, err := e.db.Query(e.ctx, `SELECT id, coalesce(technician_id, 0), version FROM jobs WHERE org_id = $1`, orgID)
	e.must("read the jobs", err)
	defer rows.Close()
	out := map[int64][2]int64{}
	for rows.Next() {
		var id, tech, version int64
		e.must("scan a job", rows.Scan(&id, &tech, &version))
		out[id] = [2]int64{tech, version}
	}
	e.must("read the jobs", rows.Err())
	return out
}

// changedJobs are the ids whose technician or version differ.
func changedJobs(before, after map[int64][2]int64) []int64 {
	var out []int64
	for id, a := range after {
		if before[id] != a {
			out = append(out, id)
		}
	}
	return out
}

// requireOneMove waits until job id is with techID, then requires that it
// is the only job of the org that changed since before.
func (e *env) requireOneMove(what string, before map[int64][2]int64, id, techID int64) map[int64][2]int64 {
	e.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		after := e.jobState(e.orgA.ID)
		if after[id][0] == techID {
			if ch := changedJobs(before, after); len(ch) != 1 || ch[0] != id {
				e.t.Fatalf("%s changed jobs %v, want only %d", what, ch, id)
			}
			return after
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: job %d is with %d, want %d", what, id, after[id][0], techID)
		}
		time.Sleep(pollEvery)
	}
}

// The day board (docs/field-data.md, "The day board"): a busy day (11 technicians, 60 jobs, 13 overdue) on the
// timeline. The overlap and late flags show; a drag, a keyboard move (no
// change on arrow keys alone) and a plain-form move each change exactly
// one job; a move from a stale board is refused (409) and the board shown
// is the latest; the overdue section is folded, unfolded on request and
// remembered. Screenshots at 390, 1280 and 1920 px.
func TestBoardBusyDay(t *testing.T) {
	e := newEnv(t)
	e.seed()
	// The board at 14:00 in Berlin today, whatever the hour the test runs
	// at: a late job needs a window that ended today.
	loc := berlin(t)
	today := schedule.DateOf(time.Now().In(loc))
	two, _ := schedule.FireTime(loc, today, schedule.LocalTime{Hour: 14})
	now := e.setClock(two)
	dayStart, _ := schedule.DayBounds(loc, today)
	st := &field.Store{DB: e.db}
	var techs []int64
	for i := range 11 {
		tc, err := st.CreateTechnician(e.ctx, audit.System, e.orgA.ID, field.TechnicianInput{Name: fmt.Sprintf("Tech %02d", i+1), Active: true})
		e.must("add a technician", err)
		techs = append(techs, tc.ID)
	}
	at := func(h, m int) time.Time {
		v, _ := schedule.FireTime(loc, today, schedule.LocalTime{Hour: h, Minute: m})
		return v
	}
	job := func(customer string, start, end time.Time, tech int64) field.Job {
		j, err := st.CreateJob(e.ctx, audit.System, now, e.orgA.ID, field.JobInput{Customer: customer, Address: "Hauptstraße 1, Berlin",
			ArrivalStart: start, ArrivalEnd: end, TechnicianID: tech})
		e.must("add "+customer, err)
		return j
	}
	// 60 jobs of the day: Tech 01 has two 08:00–10:00 visits (overlap);
	// a visit whose window ended a minute ago is still scheduled (late);
	// the others spread over the day, five of them unassigned.
	job("Overlap Alpha", at(8, 0), at(10, 0), techs[0])
	job("Overlap Beta", at(8, 0), at(10, 0), techs[0])
	lateStart := now.Add(-2 * time.Hour)
	if lateStart.Before(dayStart) {
		lateStart = dayStart
	}
	job("Late Lena", lateStart, now.Add(-time.Minute), techs[1])
	late := 1 // Late Lena, and the others whose window has ended by now
	for _, h := range []int{8} {
		if !at(h+2, 0).After(now) {
			late += 2 // the overlapping pair
		}
	}
	var unassigned []field.Job
	for i := range 57 {
		tech := techs[2+i%9]
		h := 6 + (i/9)*2 // two hours each, one after another: no overlaps of their own
		if i%12 == 11 {
			tech = 0
		}
		j := job(fmt.Sprintf("Customer %02d", i), at(h, 0), at(h+2, 0), tech)
		if !at(h+2, 0).After(now) {
			late++
		}
		if tech == 0 {
			unassigned = append(unassigned, j)
		}
	}
	// 13 overdue jobs from earlier days.
	for i := range 13 {
		d := today.AddDays(-1 - i%3)
		start, _ := schedule.FireTime(loc, d, schedule.LocalTime{Hour: 9})
		_, err := st.CreateJob(e.ctx, audit.System, now, e.orgA.ID, field.JobInput{Customer: fmt.Sprintf("Overdue %02d", i),
			ArrivalStart: start, ArrivalEnd: start.Add(time.Hour), TechnicianID: techs[i%11]})
		e.must("add an overdue job", err)
	}

	admin := e.newSession("admin")
	admin.login(adminA)
	admin.do("1280 px", chromedp.EmulateViewport(1280, 900))
	admin.open(boardPath)
	admin.waitText(boardRow(techs[0]), "Overlap Alpha", "Overlap Beta", "overlaps")
	admin.waitText(boardRow(techs[1])+` .blk.f-late`, "Late Lena", "late")
	counts := admin.text(`#board-counts`)
	for _, want := range []string{"Overlapping: 2", fmt.Sprintf("Late: %d", late), "Unassigned: 4", "Overdue: 13"} {
		if !slices.Contains(strings.Split(counts, "\n"), want) {
			t.Errorf("the counts say %q, want %q in them", counts, want)
		}
	}
	if admin.exists(`#overdue[open]`) {
		t.Errorf("the overdue section is open before anyone asked")
	}
	for _, w := range []int64{1280, 1920} {
		admin.do(fmt.Sprintf("%d px", w), chromedp.EmulateViewport(w, 1000))
		width, err := eval[float64](admin, `document.querySelector("#board .timeline").getBoundingClientRect().width`)
		e.must("measure the timeline", err)
		if width < float64(w)-100 {
			t.Errorf("at %d px the timeline is %.0f px wide: it should take the screen's width", w, width)
		}
		admin.screenshot(fmt.Sprintf("board-busy-%d", w))
	}
	admin.do("1280 px", chromedp.EmulateViewport(1280, 900))

	// The drags: a window tall enough to hold the rows a block is
	// dragged between (a real mouse drags within the window).
	admin.do("1280 px, tall", chromedp.EmulateViewport(1280, 2400))
	// A drag: an unassigned job onto Tech 03's row.
	before := e.jobState(e.orgA.ID)
	admin.dragTo(unassigned[0].ID, techs[2])
	admin.waitText(boardRow(techs[2]), unassigned[0].Customer)
	before = e.requireOneMove("the drag", before, unassigned[0].ID, techs[2])

	// The keyboard: arrow keys on the dialog's menu change nothing; only
	// the confirming button does.
	blk := fmt.Sprintf(`#board .blk[data-job="%d"]`, unassigned[1].ID)
	admin.do("focus Move", chromedp.Focus(chromedp.CSS(blk+` .mv`)))
	admin.do("press Enter on Move", chromedp.KeyEvent(kb.Enter))
	admin.waitJS("the Move dialog is open", `document.getElementById("move-dialog").open`)
	admin.do("arrow keys on the technician menu", chromedp.Focus(chromedp.CSS(`#move-tech`)),
		chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
	time.Sleep(time.Second)
	if ch := changedJobs(before, e.jobState(e.orgA.ID)); len(ch) > 0 {
		t.Fatalf("arrow keys on the menu changed jobs %v", ch)
	}
	// Escape closes the menu's list (if the arrows opened it), then the
	// dialog: nothing sent.
	admin.do("press Escape twice", chromedp.KeyEvent(kb.Escape), chromedp.KeyEvent(kb.Escape))
	admin.waitJS("the Move dialog is closed", `!document.getElementById("move-dialog").open`)
	time.Sleep(500 * time.Millisecond)
	if ch := changedJobs(before, e.jobState(e.orgA.ID)); len(ch) > 0 {
		t.Fatalf("closing the dialog changed jobs %v", ch)
	}
	// Then the move: Enter on Move, choose, Enter on confirm.
	admin.moveInDialog(blk, techs[4])
	admin.waitText(boardRow(techs[4]), unassigned[1].Customer)
	before = e.requireOneMove("the keyboard move", before, unassigned[1].ID, techs[4])

	// A plain form (the Move action without JavaScript).
	admin.open(fmt.Sprintf("%s?date=%s&move=%d", boardPath, today, unassigned[2].ID))
	admin.setValue(`#move-plain-tech`, fmt.Sprint(techs[5]))
	if status := admin.submit(`#move-plain button[type="submit"]`); status != 200 {
		t.Fatalf("the plain move answered %d after the redirect", status)
	}
	admin.waitText(`main .notice[role="status"]`, "Job moved")
	admin.waitText(boardRow(techs[5]), unassigned[2].Customer)
	e.requireOneMove("the plain-form move", before, unassigned[2].ID, techs[5])

	// A stale board: someone else assigns a job; dragging it from the
	// board as it was is refused (409) and the board shows the latest.
	_, err := st.Assign(e.ctx, audit.System, now, e.orgA.ID, unassigned[3].ID, techs[6], 0)
	e.must("assign behind the board's back", err)
	before = e.jobState(e.orgA.ID)
	admin.dragTo(unassigned[3].ID, techs[7])
	admin.waitText(`#board #stale-notice`, "Someone else changed this", "Tech 07", "Tech 08")
	admin.waitText(boardRow(techs[6]), unassigned[3].Customer)
	if ch := changedJobs(before, e.jobState(e.orgA.ID)); len(ch) > 0 {
		t.Fatalf("the stale drag changed jobs %v", ch)
	}
	admin.screenshot("board-busy-stale")

	// The overdue section: unfolded on request, still unfolded on the
	// next visit this session.
	admin.open(boardPath)
	admin.click(`#overdue > summary`)
	admin.waitJS("the overdue section is open", `document.getElementById("overdue").open`)
	// The toggle event (which remembers it) comes a moment after.
	admin.waitJS("the unfolded section is remembered", `document.cookie.includes("board_overdue=open")`)
	admin.open(boardPath)
	admin.waitText(`#overdue`, "Overdue 00")
	if !admin.exists(`#overdue[open]`) {
		t.Errorf("the overdue section folded again on the next visit")
	}

	// At 390 px: a list per technician, every block with its Move action,
	// nothing wider than the screen.
	admin.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	admin.open(boardPath)
	admin.waitText(boardRow(techs[0]), "Overlap Alpha")
	wide, err := eval[int](admin, `document.documentElement.scrollWidth - window.innerWidth`)
	e.must("measure the page", err)
	if wide > 0 {
		t.Errorf("the board is %d px wider than a 390 px screen", wide)
	}
	hidden, err := eval[int](admin, `[...document.querySelectorAll("#board .blk .mv")].filter(a => a.getBoundingClientRect().width === 0).length`)
	e.must("find hidden Move actions", err)
	if hidden > 0 {
		t.Errorf("%d blocks lost their Move action at 390 px", hidden)
	}
	admin.screenshot("board-busy-390")
}
