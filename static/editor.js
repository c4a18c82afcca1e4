// fieldbrief — the schedule editor: one model behind the form and the JSON
// editor (docs/web.md, "The schedule editor"). The server builds
// both from the same document; this only carries its answers across.
// Without JavaScript every save re-renders both from that one document.
(function () {
  "use strict";

  function editor() { return document.getElementById("config_json"); }

  // The form's preview answer carries the whole document the form
  // describes: the JSON editor shows it, unless the admin is typing there.
  document.addEventListener("config-document", function (ev) {
    var text = editor();
    if (!text || document.activeElement === text) return;
    text.value = ev.detail.value;
    text.setAttribute("aria-invalid", "false");
    var errors = document.getElementById("config_json-error");
    if (errors) errors.replaceChildren();
  });

  // The JSON editor's answer for a valid document carries the form's
  // values by input name. Setting them fires no event, so the form does not
  // answer back by rewriting the text being typed.
  document.addEventListener("config-form", function (ev) {
    var form = document.getElementById("schedule-form");
    if (!form) return;
    var values = ev.detail;
    Object.keys(values).forEach(function (name) {
      if (name === "elt") return; // htmx's own detail member
      var value = values[name];
      // The zone picker (static/picker.js) owns the zone: its visible search
      // text and the hidden value change together through its zone-set event.
      var picker = document.getElementById("timezone");
      if (name === "timezone" && picker && picker.dataset.combobox) {
        var held = document.getElementById("timezone-value");
        if (!held || held.value !== value) {
          picker.dispatchEvent(new CustomEvent("zone-set", { detail: { zone: value } }));
        }
        return;
      }
      form.querySelectorAll('[name="' + name + '"]').forEach(function (el) {
        if (el.type === "checkbox") {
          el.checked = Array.isArray(value) ? value.indexOf(el.value) >= 0 : value === true;
        } else {
          el.value = value;
        }
      });
    });
    var text = editor();
    if (text) text.setAttribute("aria-invalid", "false");
  });

  // An answer with problems marks the editor invalid.
  document.addEventListener("htmx:afterSwap", function (ev) {
    var text = editor();
    if (!text || ev.detail.elt !== text) return;
    var errors = document.getElementById("config_json-error");
    text.setAttribute("aria-invalid", errors && errors.querySelector("li") ? "true" : "false");
  });
})();
