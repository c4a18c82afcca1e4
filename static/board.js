// The day board (views/board.templ, docs/field-data.md "The day board"):
//  - Move: a block's Move link opens the one dialog with that job filled
//    in; the change is sent only when its confirming button is pressed
//    (never on a select's change, so arrow keys on a focused select change
//    nothing). Without JavaScript the same link opens the plain forms.
//  - Drag and drop: a block dropped on another technician's row is
//    assigned to them, with the block's version (a stale board answers
//    409 and the board shown is the latest).
//  - The overdue section remembers, for the browser session, whether it
//    was unfolded (a session cookie the server reads).
// Every change goes through htmx.ajax to the same endpoints as the plain
// forms; the answer replaces #board. The CSRF token comes from the
// forms' _csrf field (and the body's hx-headers).
(function () {
  "use strict";
  var dragged = null; // the block being dragged

  function board() { return document.getElementById("board"); }
  function dialog() { return document.getElementById("move-dialog"); }
  function csrf() {
    var f = document.querySelector('#move-dialog input[name="_csrf"]');
    return f ? f.value : "";
  }

  function send(path, values) {
    var b = board();
    if (!b || !window.htmx) return;
    values._csrf = csrf();
    values.date = b.dataset.date;
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
    document.getElementById("status-status").value = blk.dataset.status;
    d.showModal();
    tech.focus();
    return true;
  }

  document.addEventListener("click", function (ev) {
    var mv = ev.target.closest && ev.target.closest("#board .blk .mv");
    if (mv && openMove(mv.closest(".blk"))) {
      ev.preventDefault();
      return;
    }
    if (ev.target.id === "move-cancel") dialog().close();
  });

  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (f.id !== "move-form" && f.id !== "status-form") return;
    ev.preventDefault();
    var d = dialog();
    var values = { version: f.querySelector('input[name="version"]').value };
    if (f.id === "move-form") values.technician_id = document.getElementById("move-tech").value;
    else values.status = document.getElementById("status-status").value;
    d.close();
    send("/jobs/" + d.dataset.job + "/" + f.dataset.action, values);
  });

  // Drag and drop: a block onto another row's track.
  document.addEventListener("dragstart", function (ev) {
    var blk = ev.target.closest && ev.target.closest("#board .blk[draggable]");
    if (!blk) return;
    dragged = blk;
    blk.classList.add("dragging");
    if (ev.dataTransfer) {
      ev.dataTransfer.effectAllowed = "move";
      ev.dataTransfer.setData("text/plain", blk.dataset.job);
    }
  });
  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("dragging");
    dragged = null;
    document.querySelectorAll("#board .tl-track.drop").forEach(function (t) { t.classList.remove("drop"); });
  });
  function rowOf(ev) {
    var t = ev.target.closest && ev.target.closest("#board .tl-row .tl-track");
    return t ? t.closest(".tl-row") : null;
  }
  document.addEventListener("dragover", function (ev) {
    var row = rowOf(ev);
    if (!dragged || !row) return;
    ev.preventDefault();
    if (ev.dataTransfer) ev.dataTransfer.dropEffect = "move";
    row.querySelector(".tl-track").classList.add("drop");
  });
  document.addEventListener("dragleave", function (ev) {
    var row = rowOf(ev);
    if (row && !row.contains(ev.relatedTarget)) row.querySelector(".tl-track").classList.remove("drop");
  });
  document.addEventListener("drop", function (ev) {
    var row = rowOf(ev);
    if (!dragged || !row) return;
    ev.preventDefault();
    var blk = dragged, tech = row.dataset.technician;
    dragged = null;
    row.querySelector(".tl-track").classList.remove("drop");
    if (tech === blk.dataset.tech) return; // its own row: nothing to change
    send("/jobs/" + blk.dataset.job + "/assign", { technician_id: tech === "0" ? "" : tech, version: blk.dataset.version });
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
  document.addEventListener("DOMContentLoaded", openOverdueFromLink);
  window.addEventListener("hashchange", openOverdueFromLink);
})();
