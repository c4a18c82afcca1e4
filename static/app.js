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

  // The zone search's list is wanted only while the admin is searching: once
  // a zone is picked (or the list dismissed with Escape) for the value in
  // the input, answers still on their way for it are dropped, and a search
  // scheduled for it is not sent. Typing again starts a new search.
  function settle(input) {
    input.dataset.settled = input.value;
    if (window.htmx) window.htmx.trigger(input, "htmx:abort");
    closeResults();
  }

  function isSettled(input) {
    return input.dataset.settled !== undefined && input.dataset.settled === input.value;
  }

  // Picking a zone fills the input and asks the form for a fresh preview
  // (which also brings the zone's offset and time for the hint).
  function chooseZone(name, keepFocus) {
    var input = zoneInput();
    if (!input) return;
    input.value = name;
    settle(input);
    if (!keepFocus) input.focus();
    input.dispatchEvent(new CustomEvent("zone-picked", { bubbles: true }));
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
      settle(input);
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
    var input = zoneInput();
    if (ev.target !== input) return;
    delete input.dataset.settled;
    offerBrowserZone();
  });

  // Leaving the zone input with a full zone name typed (any case) counts as
  // picking the listed zone of that name; anything else stays a search.
  document.addEventListener("change", function (ev) {
    var input = zoneInput();
    if (ev.target !== input || isSettled(input)) return;
    var typed = input.value.trim().toLowerCase();
    var match = zoneOptions().filter(function (o) { return o.dataset.zone.toLowerCase() === typed; })[0];
    if (match) chooseZone(match.dataset.zone, true);
  });

  // No search for a value already picked (a keystroke's delayed search can
  // fire after the pick), and no stale list: an answer is shown only if it
  // is for what the input holds now and that value is still being searched.
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var input = zoneInput();
    if (input && ev.detail.elt === input && isSettled(input)) ev.preventDefault();
  });
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var input = zoneInput();
    if (!input || !ev.detail.target || ev.detail.target.id !== "zone-results") return;
    var query = null;
    try { query = new URL(ev.detail.xhr.responseURL).searchParams.get("timezone"); } catch (e) { query = null; }
    if (isSettled(input) || (query !== null && query !== input.value)) ev.detail.shouldSwap = false;
  });

  // Times are 24-hour HH:MM. Digits typed without the colon ("930",
  // "0930") or a single-digit hour ("9:30") are completed here, before the
  // preview reads the field; the server still validates strictly.
  document.addEventListener("change", function (ev) {
    if (!ev.target.matches || !ev.target.matches("#schedule_local_time")) return;
    var v = ev.target.value.trim();
    var m = /^(\d{1,2}):?(\d{2})$/.exec(v);
    if (m && v.length >= 3) ev.target.value = ("0" + m[1]).slice(-2) + ":" + m[2];
  }, true);

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
    offerBrowserZone();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
