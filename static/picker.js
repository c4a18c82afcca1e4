// fieldbrief — the time zone picker: a WAI-ARIA 1.2 combobox with a listbox
// popup, over the plain "timezone" text field of views/picker.templ
// (docs/timezone-picker.md). Without this file the field is a text input
// that the server validates on save.
//
// With it, the text is the search (sent to the zones endpoint as q) and a
// hidden field named timezone carries the zone: it changes only when an
// option is picked (click, Enter on the highlighted one, "Use my time
// zone") or the text is exactly a zone the list offers. Enter never submits
// a half-typed zone. Loaded with `defer` under CSP script-src 'self'.
//
// Written here rather than vendored: the combobox libraries we looked for
// bring their own fetching and rendering, while ours is htmx's; this is the
// APG pattern's keyboard and ARIA state over a server-rendered listbox, in
// about 200 lines with no build step.
(function () {
  "use strict";

  function setup() {
    var input = document.getElementById("timezone");
    var list = document.getElementById("zone-results");
    if (!input || !list || input.dataset.combobox) return;
    input.dataset.combobox = "on";
    var status = document.getElementById("zone-status");
    var chooseNote = document.getElementById("zone-choose");
    var offer = document.getElementById("browser-zone");
    // What the picker says is the page's, in the reader's language: the
    // template puts the catalog's messages on the field's wrapper
    // (data-msg-*), "{zone}" and "{n}" marking where the values go.
    var box = input.closest("[data-zone-picker]");
    function msg(key, values) {
      var text = (box && box.dataset["msg" + key]) || "";
      Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
      return text;
    }

    var field = document.createElement("input");
    field.type = "hidden";
    field.name = "timezone";
    field.id = "timezone-value";
    field.value = input.value;
    input.name = "q";
    input.after(field);

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);

    var active = -1;           // index of the highlighted option, -1 for none
    var settled = input.value; // text no list is wanted for (a picked zone)

    function options() {
      return Array.prototype.slice.call(list.querySelectorAll('[role="option"][data-zone]'));
    }
    function isOpen() { return input.getAttribute("aria-expanded") === "true"; }

    function announce(text) { if (status) status.textContent = text; }

    function open() {
      if (list.children.length === 0) return;
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }

    function close() {
      highlight(-1);
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
    }

    function highlight(i) {
      var opts = options();
      opts.forEach(function (o) { o.setAttribute("aria-selected", "false"); });
      active = i >= 0 && i < opts.length ? i : -1;
      if (active < 0) {
        input.removeAttribute("aria-activedescendant");
        return;
      }
      opts[active].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", opts[active].id);
      opts[active].scrollIntoView({ block: "nearest" });
    }

    // The list is wanted only while the admin is searching: once a zone is
    // picked for the text in the input, searches scheduled for it are not
    // sent and answers on their way are dropped when they arrive. (They are
    // not aborted: htmx reports an aborted request as an error in the
    // console; the input's hx-sync queues rather than aborts for the same
    // reason.)
    function settle() {
      settled = input.value;
      close();
      list.replaceChildren();
    }

    // Set the form's zone; the form's preview listens for zone-picked.
    function commit(zone) {
      if (field.value === zone) return;
      field.value = zone;
      field.dispatchEvent(new Event("change", { bubbles: true }));
      input.dispatchEvent(new CustomEvent("zone-picked", { bubbles: true }));
      updateOffer();
    }

    // Text the list has answers for but no one zone stands for (a near
    // match only, or several places): nothing is taken; the field says
    // "choose one" and the list stays open (docs/timezone-picker.md,
    // "Typed, not picked").
    function askToChoose() {
      var answered = list.dataset.for === input.value.trim() && options().length > 0;
      if (input.value === field.value || !answered) { close(); return; }
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      if (chooseNote) { chooseNote.textContent = msg("PickOne"); chooseNote.hidden = false; }
      announce(msg("PickOne"));
    }
    function stopAsking() { if (chooseNote) chooseNote.hidden = true; }

    function pick(zone) {
      stopAsking();
      input.value = zone;
      settle();
      commit(zone);
      announce(msg("Chosen", { zone: zone }));
    }

    // Typing a zone exactly as an option names it counts as picking it.
    function exactOption() {
      var typed = input.value.trim().toLowerCase();
      return options().filter(function (o) { return o.dataset.zone.toLowerCase() === typed; })[0];
    }

    // The one zone the typed text stands for ("Denver", "Eastern Time"),
    // which the server marks data-unique: taken on blur and on save, as the
    // server takes it on save (docs/timezone-picker.md, "Typed, not picked").
    function uniqueOption() {
      if (input.value === field.value || list.dataset.for !== input.value.trim()) return null; // no answer for this text yet
      return list.querySelector('[role="option"][data-zone][data-unique]');
    }

    // The browser's zone is offered, never applied.
    function updateOffer() {
      if (!offer) return;
      var zone = "";
      try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
      offer.dataset.zone = zone;
      offer.textContent = msg("Offer", { zone: zone });
      offer.hidden = zone === "" || zone === field.value;
    }

    // A keypress follows its keydown; an Enter the keydown handled must not
    // go on to submit the form through it (some input methods and drivers
    // send the keypress however the keydown ended).
    var enterHandled = false;
    input.addEventListener("keypress", function (ev) {
      if (ev.key === "Enter" && enterHandled) ev.preventDefault();
    });
    input.addEventListener("keyup", function (ev) {
      if (ev.key === "Enter") enterHandled = false;
    });

    input.addEventListener("keydown", function (ev) {
      enterHandled = false;
      var opts = options();
      var n = opts.length;
      switch (ev.key) {
        case "ArrowDown":
          if (n === 0) return;
          ev.preventDefault();
          if (!isOpen()) { open(); if (!ev.altKey) highlight(active < 0 ? 0 : active); return; }
          highlight(active < 0 ? 0 : (active + 1) % n);
          return;
        case "ArrowUp":
          if (n === 0) return;
          ev.preventDefault();
          if (!isOpen()) open();
          highlight(active <= 0 ? n - 1 : active - 1);
          return;
        case "Home":
        case "End":
          if (!isOpen() || active < 0) return; // the caret moves in the text
          ev.preventDefault();
          highlight(ev.key === "Home" ? 0 : n - 1);
          return;
        case "Enter":
          if (isOpen() && active >= 0) {
            ev.preventDefault();
            enterHandled = true;
            pick(opts[active].dataset.zone);
            return;
          }
          if (input.value === field.value) return; // the picked zone: Enter submits as usual
          ev.preventDefault(); // never submit a half-typed zone
          enterHandled = true;
          var exact = exactOption();
          if (exact) { pick(exact.dataset.zone); return; }
          open();
          announce(n > 0 ? msg("Choose") : msg("Type"));
          return;
        case "Escape":
          if (isOpen()) { ev.preventDefault(); close(); return; }
          if (input.value !== field.value) { // the second Escape: back to the zone in the form
            ev.preventDefault();
            input.value = field.value;
            settle();
            announce(msg("Kept", { zone: field.value }));
          }
          return;
        case "Tab":
          close();
          return;
      }
    });

    input.addEventListener("input", function () {
      settled = null;
      stopAsking();
      highlight(-1);
    });
    input.addEventListener("blur", function () {
      var unique = uniqueOption();
      if (unique) pick(unique.dataset.zone); else askToChoose();
    });
    input.addEventListener("zone-set", function (ev) { // for other scripts that set the zone
      if (ev.detail && ev.detail.zone) pick(ev.detail.zone);
    });

    // A click on an option picks it; pressing the mouse does not take the
    // focus from the input (which would close the list first).
    list.addEventListener("mousedown", function (ev) { ev.preventDefault(); });
    list.addEventListener("click", function (ev) {
      var option = ev.target.closest('[role="option"][data-zone]');
      if (option) { pick(option.dataset.zone); input.focus(); }
    });
    if (offer) offer.addEventListener("click", function () {
      if (offer.dataset.zone) pick(offer.dataset.zone);
    });

    // Saving with text that was never picked sends that text, so the server
    // says beside the field what is wrong with it, rather than the old zone
    // being saved under a field that shows something else.
    if (input.form) input.form.addEventListener("submit", function () {
      var typed = input.value.trim();
      var exact = exactOption() || uniqueOption();
      if (exact) commit(exact.dataset.zone);
      else if (typed !== field.value) field.value = typed;
    });

    document.addEventListener("htmx:beforeRequest", function (ev) {
      if (ev.detail.elt === input && settled !== null && settled === input.value) ev.preventDefault();
    });
    document.addEventListener("htmx:beforeSwap", function (ev) {
      if (ev.detail.target !== list) return;
      var query = null;
      try { query = new URL(ev.detail.xhr.responseURL).searchParams.get("q"); } catch (e) { query = null; }
      if ((settled !== null && settled === input.value) || (query !== null && query.trim() !== input.value.trim())) {
        ev.detail.shouldSwap = false;
      }
    });
    document.addEventListener("htmx:afterSwap", function (ev) {
      if (ev.detail.target !== list) return;
      list.dataset.for = input.value.trim(); // answers for other text were dropped before the swap
      active = -1;
      input.removeAttribute("aria-activedescendant");
      var n = options().length;
      announce(n === 0 ? msg("None") : msg(n === 1 ? "One" : "Many", { n: String(n) }));
      var exact = exactOption();
      if (exact && exact.dataset.zone === input.value.trim()) commit(exact.dataset.zone);
      if (document.activeElement !== input) { // the answer came after the blur
        var unique = uniqueOption();
        if (unique) pick(unique.dataset.zone); else askToChoose();
        return;
      }
      open();
    });

    updateOffer();
    browserDefault();

    // An org with no zone saved whose page the server filled with UTC, not
    // knowing the browser's zone yet (static/app.js sends it from the next
    // page on): the browser's zone is filled in, if the server knows it, and
    // shown as chosen. The admin still saves.
    function browserDefault() {
      if (input.dataset.zoneDefault !== "browser" || !window.fetch) return;
      var zone = "";
      try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
      if (zone === "" || zone === field.value) return;
      var kept = field.value;
      fetch(input.getAttribute("hx-get") + "?q=" + encodeURIComponent(zone), { credentials: "same-origin", headers: { "HX-Request": "true" } })
        .then(function (r) { return r.ok ? r.text() : ""; })
        .then(function (html) {
          var t = document.createElement("template");
          t.innerHTML = html;
          var found = Array.prototype.filter.call(t.content.querySelectorAll("[data-zone]"), function (o) {
            return o.dataset.zone === zone || o.hasAttribute("data-unique");
          })[0];
          if (!found || field.value !== kept || input.value !== kept) return; // unknown, or the admin got there first
          pick(found.dataset.zone);
          announce(msg("Browser", { zone: found.dataset.zone }));
        })
        .catch(function () { /* the field keeps UTC; the offer button stays */ });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
})();
