// fieldbrief — small progressive enhancements; pages work without it.
// Loaded with `defer` under CSP script-src 'self': no inline script, no eval.
(function () {
  "use strict";

  // The browser's time zone, for the settings of an org that has none saved
  // yet (docs/timezone-picker.md, "A new org's zone"): a first-party cookie
  // the server validates before use.
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone) {
      document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; SameSite=Lax" +
        (location.protocol === "https:" ? "; Secure" : "");
    }
  } catch (e) { /* no zone to offer */ }

  // Controls that only make sense with JavaScript are rendered hidden.
  function reveal(root) {
    root.querySelectorAll("[data-js-only]").forEach(function (el) { el.hidden = false; });
  }

  // Tell htmx (and the preview) that a field changed from script.
  function changed(input) {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  document.addEventListener("click", function (ev) {
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

  // A test send answers "nothing to send yet" (409) or "too many tests"
  // (429) with the block that says so: show it beside the button like any
  // other outcome, rather than dropping it as htmx does with 4xx answers.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var status = ev.detail.xhr.status;
    if ((status === 409 || status === 429) && ev.detail.elt.closest && ev.detail.elt.closest("#test-sends")) {
      ev.detail.shouldSwap = true;
      ev.detail.isError = false;
    }
  });

  // An aborted request is our own doing (a newer search replaced it, a zone
  // was picked, the page is being left), not a failure, but htmx 2 reports
  // it through its error path, which writes "htmx:sendAbort" and
  // "htmx:afterRequest" to console.error. htmx has no setting for this, so
  // while htmx handles an abort (its handler aborts the request
  // synchronously, between our capturing listener on document and our
  // listener on window), and once the page is being left, htmx's own
  // messages are not written to the console. Every other error still is.
  var quietHTMX = false;
  var consoleError = console.error;
  console.error = function (msg) {
    if (quietHTMX && typeof msg === "string" && msg.indexOf("htmx:") === 0) return;
    return consoleError.apply(console, arguments);
  };
  document.addEventListener("htmx:abort", function () { quietHTMX = true; }, true);
  window.addEventListener("htmx:abort", function () { quietHTMX = false; });
  window.addEventListener("pagehide", function () { quietHTMX = true; });
  window.addEventListener("pageshow", function () { quietHTMX = false; });

  function init() {
    reveal(document);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
