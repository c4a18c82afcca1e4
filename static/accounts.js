// Accounts and people (docs/accounts.md).
//
// The org switcher (views/layout.templ, a <details>): Escape closes it and
// puts the focus back on its summary; a click elsewhere closes it too.
//
// Forms with data-confirm (removing a member, revoking an invite) ask
// first; without JavaScript they simply submit.
(function () {
  "use strict";
  function openSwitchers() {
    return document.querySelectorAll("details.switcher[open]");
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape") return;
    openSwitchers().forEach(function (d) {
      d.open = false;
      var summary = d.querySelector("summary");
      if (summary && d.contains(document.activeElement)) summary.focus();
    });
  });
  document.addEventListener("click", function (ev) {
    openSwitchers().forEach(function (d) {
      if (!d.contains(ev.target)) d.open = false;
    });
  });
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var question = form instanceof HTMLFormElement ? form.getAttribute("data-confirm") : null;
    if (question && !window.confirm(question)) ev.preventDefault();
  });
})();

// A secret's copy button (views/pwd.templ copyable). It is hidden in the
// markup, so without JavaScript the page offers only what works: the text,
// selectable whole. Here the button shows, copies with the Clipboard API
// and says "Copied" in its live region; where the browser refuses (no
// secure context, no permission) it selects the text instead and says how
// to copy it.
(function () {
  "use strict";
  function showButtons(root) {
    (root || document).querySelectorAll("button[data-copy][hidden]").forEach(function (b) {
      b.hidden = false;
    });
  }
  function say(button, key) {
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (!status) return;
    // Emptied first so saying the same words again is announced again.
    status.textContent = "";
    window.setTimeout(function () { status.textContent = button.getAttribute(key) || ""; }, 50);
  }
  function select(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  document.addEventListener("DOMContentLoaded", function () { showButtons(document); });
  // htmx swaps in a new token or a revealed secret.
  document.addEventListener("htmx:load", function (ev) { showButtons(ev.target); });
  document.addEventListener("click", function (ev) {
    var button = ev.target instanceof Element ? ev.target.closest("button[data-copy]") : null;
    if (!button) return;
    var code = document.getElementById(button.getAttribute("data-copy"));
    if (!code) return;
    var text = code.textContent;
    function fallback() {
      select(code);
      var copied = false;
      try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
      say(button, copied ? "data-copied" : "data-selected");
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { say(button, "data-copied"); }, fallback);
    } else {
      fallback();
    }
  });
})();
