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
