package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The schedule form and the JSON editor show one model: a change in the
// form shows in the JSON, a valid edit of the JSON shows in the form, and
// after saving and reloading both show what was saved.
func TestScheduleFormAndJSONStayInSync(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitText(previewBox, "Europe/Berlin", "7:00\u202fAM")

	// Form → JSON: the time typed in the form shows in the document.
	admin.typeInto(timeInput, "09:15")
	admin.waitJS("the JSON editor to show the form's time",
		`document.querySelector(`+jsString(jsonEditor)+`).value.includes('"schedule_local_time": "09:15"')`)
	if doc := admin.value(jsonEditor); !strings.Contains(doc, `"Europe/Berlin"`) {
		t.Errorf("the JSON editor should hold the whole document the form describes; it says:\n%s", doc)
	}

	// JSON → form: days edited in the document tick the form's boxes.
	var doc map[string]map[string]any
	e.must("read the JSON editor", json.Unmarshal([]byte(admin.value(jsonEditor)), &doc))
	doc["briefing"]["days"] = []string{"sat", "sun"}
	edited, err := json.MarshalIndent(doc, "", "  ")
	e.must("write the edited document", err)
	admin.setValue(jsonEditor, string(edited))
	admin.waitJS("the form's days to follow the JSON", `(() => {
		const on = Array.from(document.querySelectorAll('#schedule-form input[name="days"]:checked'), (b) => b.value);
		return on.join(",") === "sat,sun";
	})()`)
	admin.waitText(previewBox, "Sat", "9:15\u202fAM")
	// acme is en-US: the form shows the document's 09:15 on its clock.
	if got := admin.value(timeInput); got != "9:15 AM" {
		t.Errorf("the form's time is %q after the JSON edit, want 9:15 AM", got)
	}
	admin.screenshot("settings-form-json-sync")

	// Save the form: after the reload both show the saved value.
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d, want 200 after the redirect:\n%s", status, admin.text("main"))
	}
	for _, when := range []string{"after saving", "after a reload"} {
		if when == "after a reload" {
			admin.open(settingsPath)
		}
		admin.waitText(previewBox, "9:15\u202fAM")
		if got := admin.value(timeInput); got != "9:15 AM" {
			t.Errorf("%s the time input says %q, want 9:15 AM", when, got)
		}
		days, err := eval[[]string](admin, `Array.from(document.querySelectorAll('#schedule-form input[name="days"]:checked'), (b) => b.value)`)
		e.must("read the ticked days", err)
		if !slices.Equal(days, []string{"sat", "sun"}) {
			t.Errorf("%s the ticked days are %v, want [sat sun]", when, days)
		}
		saved := admin.value(jsonEditor)
		if !containsAll(saved, `"09:15"`, `"sat"`, `"sun"`) || strings.Contains(saved, `"mon"`) {
			t.Errorf("%s the JSON editor should show the saved document; it says:\n%s", when, saved)
		}
	}
	cfg, err := e.store.Tenants.Fieldforce(e.ctx, e.orgA.ID)
	e.must("read the saved config", err)
	if b := cfg.Config.Briefing; b.ScheduleLocalTime != "09:15" || !slices.Equal(b.Days, []string{"sat", "sun"}) {
		t.Errorf("stored %s %v, want 09:15 [sat sun]", b.ScheduleLocalTime, b.Days)
	}
}

// An invalid time replaces the preview with an error in plain words, in
// the preview region, not the runs of the time typed before; fixing it
// brings the runs back.
func TestInvalidTimeShowsInlinePreviewError(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitText(previewBox, "Europe/Berlin", "7:00\u202fAM")
	if !admin.exists(previewBox + ` table[data-preview="runs"]`) {
		t.Fatal("the preview should list the runs of the saved schedule")
	}

	admin.typeInto(timeInput, "25:00")
	msg := admin.waitText(previewBox, "Choose a time between 00:00 and 23:59")
	if admin.exists(previewBox + ` table`) {
		t.Errorf("the runs of the earlier time are still shown beside the error:\n%s", msg)
	}
	if s := admin.text("#preview-summary"); !strings.HasPrefix(s, "No preview:") {
		t.Errorf("the live summary should say there is no preview; it says %q", s)
	}
	admin.screenshot("settings-invalid-time")

	admin.typeInto(timeInput, "08:30")
	admin.waitText(previewBox+` table[data-preview="runs"]`, "8:30\u202fAM")
	if strings.Contains(admin.text(previewBox), "Choose a time") {
		t.Errorf("the error stayed after the time was fixed:\n%s", admin.text(previewBox))
	}
	if s := admin.text("#preview-summary"); !strings.HasPrefix(s, "Next run: ") || !strings.Contains(s, "8:30\u202fAM") {
		t.Errorf("the live summary should name the next run at 08:30; it says %q", s)
	}
}
