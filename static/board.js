// The day board (views/board.templ, docs/field-data.md "The day board"):
//  - Move: a block's Move link opens the one dialog with that job filled
//    in (its technician and its start); the change is sent only when its
//    confirming button is pressed (never on a select's change, so arrow
//    keys on a focused select change nothing), and only what was changed.
//    Focus comes back to the moved block. Without JavaScript the same link
//    opens the plain forms.
//  - Dragging, with a mouse or a pen (pointer events): a block dropped on
//    another technician's row is given to them, moved along the hours its
//    window starts that many quarter hours earlier or later (the same
//    length, kept within the timeline's day). Touch screens use Move (the
//    board says so at a phone's width).
//  - Undo: a move's notice offers to undo it for undoSeconds; the undo is
//    the move back, checked against the version the move made.
//  - Short blocks: a block too narrow for a piece of its text hides that
//    piece whole (never cut mid-word), says everything in its tooltip, and
//    shows it all on hover or focus.
//  - The overdue section remembers, for the browser session, whether it
//    was unfolded (a session cookie the server reads).
// Every change goes through htmx.ajax to the same endpoints as the plain
// forms; the answer replaces #board. The CSRF token comes from the
// forms' _csrf field (and the body's hx-headers).
(function () {
  "use strict";
  var undoSeconds = 30;
  var drag = null;     // the block being dragged: {blk, x, y, moved}
  var focusJob = null; // the job whose block gets the focus after the next swap
  var undoTimer = null;

  function board() { return document.getElementById("board"); }
  function dialog() { return document.getElementById("move-dialog"); }
  function csrf() {
    var f = document.querySelector('#move-dialog input[name="_csrf"]');
    return f ? f.value : "";
  }

  function send(path, values, focus) {
    var b = board();
    if (!b || !window.htmx) return;
    values._csrf = csrf();
    values.date = b.dataset.date;
    focusJob = focus || null;
    window.htmx.ajax("POST", b.dataset.base + path, { target: "#board", swap: "outerHTML", values: values });
  }

  function openMove(blk) {
    var d = dialog();
    if (!d) return false;
    d.dataset.job = blk.dataset.job;
    var name = blk.querySelector(".c");
    document.getElementById("move-job").textContent = name ? name.textContent : "";
    d.querySelectorAll('input[name="version"]').forEach(function (i) { i.value = blk.dataset.version; });
    var tech = document.getElementById("move-tech");
    tech.value = blk.dataset.tech === "0" ? "" : blk.dataset.tech;
    d.dataset.tech = tech.value;
    var start = document.getElementById("move-start");
    start.value = blk.dataset.start || "";
    d.dataset.start = start.value;
    document.getElementById("status-status").value = blk.dataset.status;
    d.showModal();
    tech.focus();
    return true;
  }

  document.addEventListener("click", function (ev) {
    if (drag && drag.moved) { // the click that ends a drag opens nothing
      ev.preventDefault();
      drag = null;
      return;
    }
    var mv = ev.target.closest && ev.target.closest("#board .blk .mv");
    if (mv && openMove(mv.closest(".blk"))) {
      ev.preventDefault();
      return;
    }
    if (ev.target.id === "move-cancel") dialog().close();
  }, true);

  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (f.id === "board-undo") {
      ev.preventDefault();
      var values = {};
      new FormData(f).forEach(function (v, k) { values[k] = v; });
      send(f.getAttribute("action").replace(board().dataset.base, ""), values, f.dataset.job);
      return;
    }
    if (f.id !== "move-form" && f.id !== "status-form") return;
    ev.preventDefault();
    var d = dialog();
    var job = d.dataset.job;
    var values = { version: f.querySelector('input[name="version"]').value };
    if (f.id === "move-form") {
      var tech = document.getElementById("move-tech").value, start = document.getElementById("move-start").value;
      if (tech !== d.dataset.tech) values.technician_id = tech;
      if (start && start !== d.dataset.start) values.start = start;
      d.close();
      if (!("technician_id" in values) && !("start" in values)) { // nothing changed: nothing sent
        focusBlock(job);
        return;
      }
    } else {
      values.status = document.getElementById("status-status").value;
      d.close();
    }
    send("/jobs/" + job + "/" + f.dataset.action, values, job);
  });

  function focusBlock(job) {
    var mv = document.querySelector('#board .blk[data-job="' + job + '"] .mv');
    if (mv) mv.focus();
  }

  // Dragging with pointer events: a block onto another row and/or along
  // the hours. A press that does not move is a click (its links work).
  function lines(blk) {
    var from = /\bgs-(\d+)/.exec(blk.className), to = /\bge-(\d+)/.exec(blk.className);
    return from && to ? [+from[1], +to[1]] : null;
  }
  function rowAt(x, y) {
    var el = document.elementFromPoint(x, y);
    var t = el && el.closest && el.closest("#board .tl-row .tl-track");
    return t ? t.closest(".tl-row") : null;
  }
  // shiftOf is the drag's move along the hours in quarter hours, kept so
  // that the block stays on the timeline.
  function shiftOf(blk, dx) {
    var track = blk.closest(".tl-track"), tl = blk.closest(".timeline"), at = lines(blk);
    if (!track || !tl || !at) return 0;
    var slots = +tl.dataset.slots, width = track.getBoundingClientRect().width / slots;
    var q = Math.round(dx / width);
    return Math.max(1 - at[0], Math.min(slots + 1 - at[1], q));
  }
  function wide() { return !window.matchMedia("(max-width: 40rem)").matches; }

  document.addEventListener("pointerdown", function (ev) {
    if (ev.pointerType === "touch" || ev.button !== 0 || !wide()) return;
    var blk = ev.target.closest && ev.target.closest("#board .tl-track .blk[data-version]");
    if (!blk) return;
    drag = { blk: blk, x: ev.clientX, y: ev.clientY, sy: window.scrollY, moved: false };
  });
  document.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    // Near the window's top or bottom edge the page scrolls, so a far row
    // can be reached; the block follows the pointer on the page.
    if (drag.moved && ev.clientY < 48) window.scrollBy(0, -24);
    if (drag.moved && ev.clientY > window.innerHeight - 48) window.scrollBy(0, 24);
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y + window.scrollY - drag.sy;
    if (!drag.moved && Math.abs(dx) < 5 && Math.abs(dy) < 5) return;
    if (!drag.moved) {
      drag.moved = true;
      drag.blk.classList.add("dragging");
    }
    ev.preventDefault();
    drag.blk.style.transform = "translate(" + dx + "px, " + dy + "px)"; // CSSOM: allowed by the CSP
    document.querySelectorAll("#board .tl-track.drop").forEach(function (t) { t.classList.remove("drop"); });
    var row = rowAt(ev.clientX, ev.clientY);
    if (row) row.querySelector(".tl-track").classList.add("drop");
  });
  function endDrag(ev, cancelled) {
    if (!drag) return;
    var d = drag, blk = d.blk;
    blk.classList.remove("dragging");
    blk.style.transform = "";
    document.querySelectorAll("#board .tl-track.drop").forEach(function (t) { t.classList.remove("drop"); });
    if (!d.moved || cancelled) {
      drag = null;
      return;
    }
    // drag stays set until the click that follows the release (if any) is swallowed.
    setTimeout(function () { if (drag === d) drag = null; }, 0);
    var row = rowAt(ev.clientX, ev.clientY);
    if (!row) return;
    var values = { version: blk.dataset.version };
    var tech = row.dataset.technician, from = blk.closest(".tl-row").dataset.technician;
    if (tech !== from) values.technician_id = tech === "0" ? "" : tech;
    var shift = shiftOf(blk, ev.clientX - d.x);
    if (shift !== 0) values.shift = String(shift * 15);
    if (!("technician_id" in values) && !("shift" in values)) return;
    send("/jobs/" + blk.dataset.job + "/move", values, blk.dataset.job);
  }
  document.addEventListener("pointerup", function (ev) { endDrag(ev, false); });
  document.addEventListener("pointercancel", function (ev) { endDrag(ev, true); });

  // Short blocks: each piece of a block's text is shown whole or not at
  // all (.nofit: visually hidden, still read and focused), the block then
  // says everything in its tooltip (.part). Measured in one pass, then
  // written, so a board of 500 blocks lays out once.
  function fit() {
    var blocks = document.querySelectorAll("#board .tl-track .blk");
    blocks.forEach(function (b) {
      b.classList.remove("part", "end");
      b.querySelectorAll(".nofit").forEach(function (e) { e.classList.remove("nofit"); });
    });
    var b = board();
    if (b) b.dataset.fitted = "1";
    if (!wide()) return;
    var hide = [];
    blocks.forEach(function (b) {
      var s = getComputedStyle(b);
      var room = b.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      var kids = Array.prototype.filter.call(b.children, function (k) {
        return k.offsetWidth > room + 0.5 || k.scrollWidth > k.clientWidth + 0.5;
      });
      if (!kids.length) return;
      // One in the track's right half opens leftwards, so it stays on the page.
      var t = b.parentNode.getBoundingClientRect(), r = b.getBoundingClientRect();
      hide.push([b, kids, r.left + r.width / 2 > t.left + t.width / 2]);
    });
    hide.forEach(function (h) {
      var b = h[0];
      b.classList.add("part");
      if (h[2]) b.classList.add("end");
      b.title = Array.prototype.map.call(b.children, function (k) { return k.textContent.trim(); })
        .filter(function (t) { return t; }).join(" · ");
      h[1].forEach(function (k) { k.classList.add("nofit"); });
    });
  }
  var fitQueued = false;
  function fitSoon() {
    if (fitQueued) return;
    fitQueued = true;
    requestAnimationFrame(function () { fitQueued = false; fit(); });
  }
  window.addEventListener("resize", fitSoon);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(fitSoon);

  // After a swap: fit the new board, focus the moved block (at the swap,
  // and again once htmx has settled), and take the undo away after its
  // time.
  function focusMoved() {
    if (focusJob) focusBlock(focusJob);
  }
  document.addEventListener("htmx:afterSwap", function () {
    fit();
    focusMoved();
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!board()) return;
    fit();
    focusMoved();
    focusJob = null;
    clearTimeout(undoTimer);
    var undo = document.getElementById("board-undo");
    if (undo) undoTimer = setTimeout(function () { undo.remove(); }, undoSeconds * 1000);
  });

  // The overdue section: remembered for the session; opened when the
  // briefing links to it (#overdue).
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (d.id !== "overdue" || !board()) return;
    document.cookie = "board_overdue=" + (d.open ? "open" : "closed") + "; path=" + location.pathname + "; SameSite=Lax";
  }, true);
  function openOverdueFromLink() {
    var d = document.getElementById("overdue");
    if (d && location.hash === "#overdue") d.open = true;
  }
  document.addEventListener("DOMContentLoaded", function () {
    openOverdueFromLink();
    fit();
  });
  window.addEventListener("hashchange", openOverdueFromLink);
})();
