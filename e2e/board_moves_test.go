package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
)

// shownCountsJS compares the counts above the board with the blocks it
// shows, counted as a reader counts them (docs/field-data.md, "The day
// board"): "" when they agree, else what differs.
const shownCountsJS = `(() => {
	const open = b => !["done", "cancelled"].includes(b.dataset.status);
	const all = [...document.querySelectorAll("#board .blk")];
	const shown = {
		emergencies: all.filter(b => open(b) && b.classList.contains("is-emergency")).length,
		overdue: document.querySelectorAll("#overdue .blk").length,
		unassigned: [...document.querySelectorAll('#board .tl-row[data-technician="0"] .blk')].filter(open).length,
		"on-hold": all.filter(b => b.dataset.status === "on_hold").length,
	};
	const out = [];
	for (const [flag, n] of Object.entries(shown)) {
		const chip = document.querySelector('#board-counts li[data-flag="' + flag + '"]');
		if (!chip || +chip.dataset.count !== n) out.push(flag + ": chip " + (chip && chip.dataset.count) + ", blocks " + n);
	}
	return out.join("; ");
})()`

// clippedJS lists the board's text cut inside its block: a piece wider
// than it shows (scrollWidth > clientWidth) or running past its block's
// edge. Pieces a short block hides whole (.nofit) are not shown; such a
// block must say everything in its tooltip.
// settledJS is true when htmx has no request, swap or settling under way
// (the board's script moves the focus when a swap settles).
const settledJS = `!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`

const clippedJS = `(() => {
	const out = [];
	for (const b of document.querySelectorAll("#board .blk")) {
		const r = b.getBoundingClientRect();
		if (b.scrollWidth > b.clientWidth + 1) out.push(b.dataset.job + ": block " + b.scrollWidth + " > " + b.clientWidth);
		for (const k of b.children) {
			if (k.classList.contains("nofit") && !b.matches(":hover, :focus-within")) continue;
			const kr = k.getBoundingClientRect();
			if (k.scrollWidth > k.clientWidth + 1 && getComputedStyle(k).display !== "inline")
				out.push(b.dataset.job + ": " + k.className + " " + k.scrollWidth + " > " + k.clientWidth);
			if (kr.right > r.right + 1 || kr.left < r.left - 1) out.push(b.dataset.job + ": " + k.className + " runs past its block");
		}
		if (b.classList.contains("part") && !b.title.includes(b.querySelector(".c").textContent.trim()))
			out.push(b.dataset.job + ": no tooltip");
	}
	return out.join("; ");
})()`

// The board counts what it shows, moves work along the hours and back, in
// each language at 1280 and 390 px, with one browser session
// (docs/field-data.md, "The day board"): the chips equal the blocks (an
// unassigned emergency is unassigned and an emergency); a drag along the
// hours with a real mouse moves the window (the same length) and the
// notice's Undo puts it back; a keyboard move with a new start in the Move
// dialog leaves the focus on the moved block; short blocks show no word
// cut; at 390 px the board says how to move work by touch.
func TestBoardMovesInEveryLanguage(t *testing.T) {
	e := newEnv(t)
	e.seed()
	cat := readCatalogs(t)
	loc := berlin(t)
	today := schedule.DateOf(time.Now().In(loc))
	seven, _ := schedule.FireTime(loc, today, schedule.LocalTime{Hour: 7})
	now := e.setClock(seven)
	at := func(h, m int) time.Time {
		v, _ := schedule.FireTime(loc, today, schedule.LocalTime{Hour: h, Minute: m})
		return v
	}
	st := &field.Store{DB: e.db}
	tech := func(name string) int64 {
		tc, err := st.CreateTechnician(e.ctx, audit.System, e.orgA.ID, field.TechnicianInput{Name: name, Active: true})
		e.must("add "+name, err)
		return tc.ID
	}
	ana, bo := tech("Ana Lima"), tech("Bo Berg")
	job := func(customer string, start, end time.Time, techID int64, emergency bool) field.Job {
		j, err := st.CreateJob(e.ctx, audit.System, now, e.orgA.ID, field.JobInput{Customer: customer, Address: "Hauptstraße 1, Berlin",
			ArrivalStart: start, ArrivalEnd: end, TechnicianID: techID, Emergency: emergency})
		e.must("add "+customer, err)
		return j
	}
	job("Rohrbruch Müller", at(8, 0), at(9, 0), 0, true) // the customer's case: unassigned and an emergency
	service := job("Wartung Schmidt", at(10, 0), at(12, 0), ana, false)
	short := job("Kundendienstzentrale Lindenhof", at(13, 0), at(13, 15), ana, false)
	job("Außendienstprüfung Krause", at(14, 0), at(14, 30), bo, false)
	window := func(id int64) [2]time.Time {
		j, err := st.Job(e.ctx, e.orgA.ID, id)
		e.must("read a job", err)
		return [2]time.Time{j.ArrivalStart, j.ArrivalEnd}
	}
	waitWindow := func(what string, id int64, want [2]time.Time) {
		deadline := time.Now().Add(stepTimeout)
		for got := window(id); !got[0].Equal(want[0]) || !got[1].Equal(want[1]); got = window(id) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: job %d is %v, want %v", what, id, got, want)
			}
			time.Sleep(pollEvery)
		}
	}
	serviceAt := window(service.ID)
	shortAt := window(short.ID)
	hour := [2]time.Time{serviceAt[0].Add(time.Hour), serviceAt[1].Add(time.Hour)}

	s := e.newSession("admin")
	s.login(adminA)
	for _, lang := range []string{"en", "de", "es", "fr"} {
		w := func(id string) string { return cat.words(t, lang, id) }
		s.do(lang+" at 1280 px", chromedp.EmulateViewport(1280, 900))
		s.open("/profile")
		s.setValue("#language", lang)
		s.submit("#save-language")
		s.open(boardPath)
		s.waitText(`#board`, "Rohrbruch Müller", "Wartung Schmidt")
		if diff, err := eval[string](s, shownCountsJS); err != nil || diff != "" {
			t.Errorf("%s at 1280 px: the counts are not the blocks: %s %v", lang, diff, err)
		}
		if n, _ := eval[int](s, `+document.querySelector('#board-counts li[data-flag="unassigned"]').dataset.count`); n != 1 {
			t.Errorf("%s: the unassigned emergency is not counted as unassigned (%d)", lang, n)
		}
		s.waitJS("short blocks are fitted", `document.getElementById("board").dataset.fitted && document.querySelectorAll("#board .blk.part").length >= 1`)
		if clipped, err := eval[string](s, clippedJS); err != nil || clipped != "" {
			t.Errorf("%s at 1280 px: text cut inside blocks: %s %v", lang, clipped, err)
		}
		// A short block shows everything when its link has the focus.
		sel := fmt.Sprintf(`#board .blk[data-job="%d"]`, short.ID)
		s.do("focus the short block", chromedp.Focus(chromedp.CSS(sel+` .c`)))
		if shown, _ := eval[bool](s, `document.querySelector(`+jsString(sel+` .c`)+`).getBoundingClientRect().width > 20`); !shown {
			t.Errorf("%s: the focused short block does not show its customer", lang)
		}
		if clipped, _ := eval[string](s, clippedJS); clipped != "" {
			t.Errorf("%s: the focused short block cuts its text: %s", lang, clipped)
		}
		if wide, _ := eval[int](s, `document.documentElement.scrollWidth - window.innerWidth`); wide > 0 {
			t.Errorf("%s: the focused short block makes the page %d px wider than the window", lang, wide)
		}
		if !s.exists(`#board-drag-hint`) || s.visible(`#board-touch-hint`) {
			t.Errorf("%s at 1280 px: the drag hint, not the touch one, should show", lang)
		}

		// A drag one hour later with a real mouse, then Undo in its notice
		// (the short block closed first: open, it makes its row taller).
		s.do("unfocus the short block", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
		blk := fmt.Sprintf(`#board .blk[data-job="%d"]`, service.ID)
		from, _ := s.centers(blk, blk)
		slot, err := eval[float64](s, `document.querySelector('#board .tl-row[data-technician="0"] .tl-track').getBoundingClientRect().width / +document.querySelector("#board .timeline").dataset.slots`)
		e.must("measure a quarter hour", err)
		s.pointerDrag("drag Wartung Schmidt an hour later", from, [2]float64{from[0] + 4*slot, from[1]})
		waitWindow(lang+": the drag", service.ID, hour)
		s.waitText(`#board-notice`, w("fieldnotice.moved"), w("board.tl.undo"))
		s.waitJS("htmx has settled", settledJS)
		s.click(`#board-undo-button`)
		waitWindow(lang+": the undo", service.ID, serviceAt)
		s.waitText(`#board-notice`, w("fieldnotice.move_undone"))
		s.waitJS("htmx has settled", settledJS)
		s.waitJS("the board is fitted", `document.getElementById("board").dataset.fitted`)
		if clipped, _ := eval[string](s, clippedJS); clipped != "" {
			t.Errorf("%s: after the undo, text cut inside blocks: %s", lang, clipped)
		}

		// The keyboard: Move, a new start, confirm; the focus is back on
		// the moved block. Then Undo with the keyboard.
		s.do("focus Move of the short block", chromedp.Focus(chromedp.CSS(sel+` .mv`)))
		s.do("press Enter on Move", chromedp.KeyEvent(kb.Enter))
		s.waitJS("the Move dialog is open", `document.getElementById("move-dialog").open`)
		s.setValue(`#move-start`, "16:00")
		s.do("focus the confirming button", chromedp.Focus(chromedp.CSS(`#move-confirm`)))
		s.do("press Enter on confirm", chromedp.KeyEvent(kb.Enter))
		waitWindow(lang+": the keyboard move", short.ID, [2]time.Time{at(16, 0), at(16, 15)})
		s.waitJS("the focus is on the moved block", fmt.Sprintf(`(document.activeElement && document.activeElement.closest(".blk") || {dataset: {}}).dataset.job === "%d"`, short.ID))
		if lang == "en" {
			s.screenshot("board-moves-undo-1280")
		}
		s.waitJS("htmx has settled", settledJS)
		s.do("focus Undo", chromedp.Focus(chromedp.CSS(`#board-undo-button`)))
		s.do("press Enter on Undo", chromedp.KeyEvent(kb.Enter))
		waitWindow(lang+": the keyboard undo", short.ID, shortAt)
		if err := s.waitFocusOn(short.ID); err != "" {
			t.Fatalf("%s: after the keyboard undo the focus is not on the block put back but on %s", lang, err)
		}
		s.do("unfocus", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
		s.screenshot("board-moves-" + lang + "-1280")

		// At 390 px: a list, the touch hint, the same counts, nothing cut.
		s.do(lang+" at 390 px", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		s.open(boardPath)
		s.waitText(`#board-touch-hint`, w("board.tl.touch_hint"))
		if !s.visible(`#board-touch-hint`) || s.visible(`#board-drag-hint`) {
			t.Errorf("%s at 390 px: the touch hint should show, not the drag one", lang)
		}
		if diff, err := eval[string](s, shownCountsJS); err != nil || diff != "" {
			t.Errorf("%s at 390 px: the counts are not the blocks: %s %v", lang, diff, err)
		}
		s.waitJS("the board is fitted", `document.getElementById("board").dataset.fitted`)
		if clipped, err := eval[string](s, clippedJS); err != nil || clipped != "" {
			t.Errorf("%s at 390 px: text cut inside blocks: %s %v", lang, clipped, err)
		}
		if wide, _ := eval[int](s, `document.documentElement.scrollWidth - window.innerWidth`); wide > 0 {
			t.Errorf("%s: the board is %d px wider than a 390 px screen", lang, wide)
		}
		s.screenshot("board-moves-" + lang + "-390")
	}
}

// waitFocusOn waits until the focus is in the block of job id; "" when it
// is, else (after the step's time) where the focus is.
func (s *session) waitFocusOn(id int64) string {
	s.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		at, err := eval[string](s, fmt.Sprintf(`(() => { const a = document.activeElement;
			if (a && a.closest(".blk") && a.closest(".blk").dataset.job === "%d") return "";
			return a ? a.outerHTML.slice(0, 160) : "nothing"; })()`, id))
		if err == nil && at == "" {
			return ""
		}
		if time.Now().After(deadline) {
			return at
		}
		time.Sleep(pollEvery)
	}
}

// visible reports whether sel is shown (laid out with a size).
func (s *session) visible(sel string) bool {
	s.t.Helper()
	v, err := eval[bool](s, `(() => { const el = document.querySelector(`+jsString(sel)+`); return !!el && el.getClientRects().length > 0; })()`)
	if err != nil {
		s.t.Fatalf("%s: look for %s: %v", s.name, sel, err)
	}
	return v
}
