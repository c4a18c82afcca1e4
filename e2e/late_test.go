package e2e

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/worker"
)

const (
	sendWithinInput = `#delivery_send_within`
	catchUpLine     = previewBox + ` [data-preview="catch-up"]`
)

// eveningZone is a fixed-offset zone in which it is between 20:00 and
// 21:59 now, so a 06:30 schedule has passed today by more than 13 h: the
// first setup of a schedule late in the day, wherever the test runs.
func eveningZone(now time.Time) string {
	h := 21 - now.UTC().Hour() // local = UTC + h
	if h > 14 {
		h -= 24
	}
	if h == 0 {
		return "Etc/GMT"
	}
	return fmt.Sprintf("Etc/GMT%+d", -h)
}

// The first save of a schedule late in the day: before saving, the preview
// says today's 06:30 has passed and today's briefing will be kept, not
// sent, and when the first one is sent; a longer send_within says it will
// be sent now. Saved, the worker's first tick makes the briefing and sends
// nothing, and its page says why (docs/guarantees.md, "Late briefings").
func TestLateSavePreviewSaysKeptNotSent(t *testing.T) {
	e := newEnv(t)
	e.seed()
	zone := eveningZone(time.Now())
	_, err := e.store.Tenants.SaveFieldforce(e.ctx, audit.System, e.orgA.ID, []byte(`{"briefing":{"timezone":"`+zone+`","schedule_local_time":"23:59"},"delivery":{"email":{"to":["dispatch@acme.test"]}}}`), tenants.AnyVersion)

	e.must("save acme's evening config", err)
	// Globex's seeded 06:30 in Chicago is due too when the test runs from
	// 12:30 UTC on: paused, the tick below fires acme's alone at any hour.
	_, err = e.store.Tenants.SaveFieldforce(e.ctx, audit.System, e.orgB.ID, []byte(strings.Replace(configB, `"enabled":true`, `"enabled":false`, 1)), tenants.AnyVersion)
	e.must("pause globex", err)
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitText(previewBox, "11:59\u202fPM")

	admin.typeInto(timeInput, "06:30")
	line := admin.waitText(catchUpLine, "Today's 6:30\u202fAM has passed: today's briefing will be kept, not sent; first sent: ")
	if _, first, _ := strings.Cut(line, "first sent: "); !strings.Contains(first, "6:30\u202fAM") {
		t.Errorf("the late-save line should name tomorrow's 06:30 as the first sent; it says %q", line)
	}
	if s := admin.text("#preview-summary"); !strings.HasPrefix(s, "Next run: now. Today's 6:30\u202fAM has passed: today's briefing will be kept, not sent") {
		t.Errorf("the live summary should say the same; it says %q", s)
	}
	admin.screenshot("settings-late-save")

	// Sent within a day: made and sent now.
	admin.setValue(sendWithinInput, "24h")
	admin.waitText(catchUpLine, "will be made and sent now")
	admin.setValue(sendWithinInput, "")
	admin.waitText(catchUpLine, "kept, not sent")

	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d, want 200 after the redirect:\n%s", status, admin.text("main"))
	}
	admin.waitText(catchUpLine, "kept, not sent")

	// The worker's first tick, at the database's clock.
	w := &worker.Worker{DB: e.db, Log: slog.New(slog.NewTextHandler(e.logs, nil))}
	res, err := w.RunOnce(e.ctx, time.Time{}, 30*time.Second)
	e.must("run a tick of the worker", err)
	if res.Tick.Enqueued != 1 {
		t.Fatalf("the tick fired %d briefings, want acme's of today", res.Tick.Enqueued)
	}
	var outbox int
	e.must("count the outbox", e.db.QueryRow(e.ctx, `SELECT count(*) FROM mail_outbox`).Scan(&outbox))
	if outbox != 0 {
		t.Errorf("%d emails were sent for a briefing 13 h late", outbox)
	}
	admin.open("/orgs/acme/briefings")
	admin.waitText(`tr[data-reason="late"]`, "ready; made ", "after 6:30\u202fAM — not sent")
	admin.click(`tr[data-reason="late"] th a`)
	admin.waitText(`li[data-delivery-state="skipped"]`, "Not sent", "dispatch@acme.test", "after 6:30\u202fAM — not sent")
	admin.screenshot("briefing-late-not-sent")
}

// What the JSON editor sets of delivery timing shows in the form, and a
// save of the form keeps it: send_within and updates are form fields too.
func TestFormKeepsDeliveryTimingFromJSON(t *testing.T) {
	e := newEnv(t)
	e.seed()
	admin := e.newSession("admin")
	admin.login(adminA)
	admin.open(settingsPath)
	admin.waitText(previewBox, "Europe/Berlin", "7:00\u202fAM")

	admin.setValue(jsonEditor, `{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:00","days":["mon","tue","wed","thu","fri"]},
  "delivery":{"email":{"to":["dispatch@acme.test"]},"send_within":"90m","updates":false}}`)
	admin.waitJS("the form to show the JSON's delivery timing", `document.querySelector(`+jsString(sendWithinInput)+`).value === "90m"
		&& !document.querySelector("#delivery_updates").checked`)
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d, want 200 after the redirect:\n%s", status, admin.text("main"))
	}
	cfg, err := e.store.Tenants.Fieldforce(e.ctx, e.orgA.ID)
	e.must("read the saved config", err)
	if d := cfg.Config.Delivery; d == nil || d.SendWithin != "1h30m" || d.UpdatesOn() {
		t.Fatalf("the form's save dropped the JSON's delivery timing: %+v", d)
	}

	// Ticking the box in the form shows in the JSON editor, and saves.
	admin.click("#delivery_updates")
	admin.waitJS("the JSON editor to leave updates out (on, the default)",
		`!document.querySelector(`+jsString(jsonEditor)+`).value.includes('"updates"')`)
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving answered %d, want 200 after the redirect:\n%s", status, admin.text("main"))
	}
	cfg, err = e.store.Tenants.Fieldforce(e.ctx, e.orgA.ID)
	e.must("read the saved config", err)
	if d := cfg.Config.Delivery; d == nil || d.SendWithin != "1h30m" || !d.UpdatesOn() {
		t.Fatalf("after ticking updates the saved delivery is %+v", d)
	}
}
