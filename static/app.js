// fieldbrief — small progressive enhancements; pages work without it.
// Loaded with `defer` under CSP script-src 'self': no inline script, no eval.
(function () {
  "use strict";

  // Controls that only make sense with JavaScript are rendered hidden.
  function reveal(root) {
    root.querySelectorAll("[data-js-only]").forEach(function (el) { el.hidden = false; });
  }

  // Tell htmx (and the preview) that a field changed from script.
  function changed(input) {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function zoneInput() { return document.getElementById("timezone"); }
  function zoneResults() { return document.getElementById("zone-results"); }
  function zoneOptions() {
    var results = zoneResults();
    return results ? Array.prototype.slice.call(results.querySelectorAll(".zone-option")) : [];
  }

  function closeResults() {
    var results = zoneResults();
    if (results) results.replaceChildren();
  }

  function chooseZone(name) {
    var input = zoneInput();
    if (!input) return;
    input.value = name;
    closeResults();
    input.focus();
    changed(input);
    offerBrowserZone();
  }

  // The browser's zone is offered, never applied: the admin clicks to use it,
  // and nothing is saved until the form is submitted.
  function offerBrowserZone() {
    var button = document.getElementById("browser-zone");
    var input = zoneInput();
    if (!button || !input) return;
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    button.dataset.zone = zone;
    button.textContent = "Use my zone: " + zone;
    button.hidden = zone === "" || zone === input.value;
  }

  document.addEventListener("click", function (ev) {
    var option = ev.target.closest(".zone-option");
    if (option) { chooseZone(option.dataset.zone); return; }

    if (ev.target.closest("#browser-zone")) {
      var zone = document.getElementById("browser-zone").dataset.zone;
      if (zone) chooseZone(zone);
      return;
    }

    var preset = ev.target.closest("[data-days]");
    if (preset) {
      var days = preset.dataset.days.split(",");
      var form = preset.closest("form");
      form.querySelectorAll('input[name="days"]').forEach(function (box) {
        box.checked = days.indexOf(box.value) >= 0;
      });
      changed(form.querySelector('input[name="days"]'));
    }
  });

  // Keyboard: ArrowDown from the input enters the results, arrows move
  // between them, Enter or Space chooses (they are buttons), Escape closes.
  // Tab moves through the buttons like any others.
  document.addEventListener("keydown", function (ev) {
    var input = zoneInput();
    if (!input) return;
    var options = zoneOptions();
    var inInput = ev.target === input;
    var index = options.indexOf(ev.target);
    if (!inInput && index < 0) return;

    if (ev.key === "Escape" && options.length > 0) {
      ev.preventDefault(); // also keeps a search input from clearing itself
      closeResults();
      input.focus();
    } else if (ev.key === "ArrowDown" && options.length > 0) {
      ev.preventDefault();
      options[inInput ? 0 : Math.min(index + 1, options.length - 1)].focus();
    } else if (ev.key === "ArrowUp" && index >= 0) {
      ev.preventDefault();
      (index === 0 ? input : options[index - 1]).focus();
    } else if (ev.key === "Enter" && inInput && options.length === 1) {
      // One match: Enter takes it instead of submitting a half-typed name.
      ev.preventDefault();
      chooseZone(options[0].dataset.zone);
    }
  });

  document.addEventListener("input", function (ev) {
    if (ev.target === zoneInput()) offerBrowserZone();
  });

  function init() {
    reveal(document);
    offerBrowserZone();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
