package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/flags"
)

const killSwitch = "fieldforce.briefing"

// The kill switch says what it will do before it is confirmed (with and
// without JavaScript), and a notice says what it did; a per-org override
// shows what an inherit resolves to.
func TestStaffKillSwitchWithImpact(t *testing.T) {
	e := newEnv(t)
	e.seed()
	s := e.newSession("staff")
	s.login(staff)

	s.open("/staff/flags")
	impact := "#impact-" + cssEscape(killSwitch)
	s.waitText(impact, "Turns off fieldforce.briefing for 2 orgs; no org has an override on.")
	s.waitText("#org-globex", "inherit → global on")

	// An override on for globex, through the row's own form (htmx).
	s.setValue("#state-globex", "on")
	s.click(`#org-globex button[type="submit"]`)
	s.waitText("#org-globex", "Saved")
	s.open("/staff/flags")
	s.waitText(impact, "Turns off fieldforce.briefing for 2 orgs; 1 has an override on.")

	// Without JavaScript the page says the same: it is rendered by the server.
	s.do("turn JavaScript off", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	s.open("/staff/flags")
	s.waitText(impact, "1 has an override on.")
	s.do("turn JavaScript on", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		return err
	}))
	s.open("/staff/flags")

	// Confirm: reason, the box, the key typed by hand.
	form := "#flag-" + cssEscape(killSwitch)
	s.typeInto(form+` textarea[name="reason"]`, "incident 42: mail provider down")
	s.click(form + ` input[name="understood"]`)
	s.typeInto(form+` input[name="confirm"]`, killSwitch)
	s.submit(form + ` button[type="submit"]`)
	s.waitText("#flag-notice", "Turned off fieldforce.briefing for every org.")
	s.waitText(form, "off", "Turns on fieldforce.briefing for 2 orgs.")
	s.waitText("#org-acme", "inherit → global off")
	if on, err := e.store.Flags.Enabled(e.ctx, e.orgB.ID, killSwitch); err != nil || on {
		t.Errorf("the kill switch beats globex's override on: effective %v (%v)", on, err)
	}
}

// The audit log filtered by actor and action, the filters kept in the
// address (a reload keeps them), and the CSV export of exactly that set.
func TestStaffAuditFilterAndExport(t *testing.T) {
	e := newEnv(t)
	e.seed()
	ctx := e.ctx
	by := audit.Actor{Email: staff.Email}
	e.must("an override", e.store.Flags.SetOrg(ctx, by, e.orgA.ID, killSwitch, flags.Off, "customer asked =1+1"))
	e.must("another", e.store.Flags.SetOrg(ctx, by, e.orgB.ID, killSwitch, flags.On, "pilot"))

	s := e.newSession("staff")
	s.login(staff)
	s.open("/staff/audit")
	s.waitText("table.audit", "flag.org.set", "fieldforce.config.update")

	s.typeInto("#actor", "STAFF@")
	s.setValue("#action", "flag.org.set")
	s.typeInto("#q", "CUSTOMER")
	s.submit(`form.filters button[type="submit"]`)
	rows := s.waitText("table.audit tbody", "customer asked")
	if strings.Contains(rows, "pilot") || strings.Contains(rows, "fieldforce.config.update") {
		t.Errorf("the filters let other entries through:\n%s", rows)
	}
	s.do("reload", chromedp.Reload())
	s.waitText("table.audit tbody", "customer asked")
	if v := s.value("#q"); v != "CUSTOMER" {
		t.Errorf("after a reload the search box says %q", v)
	}
	if v := s.value("#action"); v != "flag.org.set" {
		t.Errorf("after a reload the action filter is %q", v)
	}

	// The export link carries the filters; fetch what it downloads.
	ctx, cancel := s.step()
	defer cancel()
	csv, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('a[href^="/staff/audit/export.csv"]').href)
		.then(r => r.text().then(t => r.headers.get("Content-Type") + "\n" + t))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch the export: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 3 || lines[0] != "text/csv; charset=utf-8" || !strings.HasPrefix(lines[1], "id,at_utc,actor,org,action,target,reason,old_value,new_value") {
		t.Fatalf("the export is not the header and one row of CSV:\n%s", csv)
	}
	if !strings.Contains(lines[2], "staff@fieldbrief.test,acme,flag.org.set,fieldforce.briefing,customer asked =1+1,") {
		t.Errorf("the exported row is not the filtered entry: %s", lines[2])
	}
}

// An htmx request aborted on the way (a newer search replacing it, a zone
// picked) writes nothing to the console; a real error still would.
func TestAbortedHTMXRequestLogsNoError(t *testing.T) {
	e := newEnv(t)
	e.seed()
	s := e.newSession("staff")
	s.login(staff)
	s.open("/staff/flags")
	s.waitText("#org-acme", "inherit")
	s.do("send a row's form and abort it at once", chromedp.Evaluate[chromedp.Void](`(() => {
		window.abortsSeen = 0;
		document.body.addEventListener("htmx:sendAbort", () => window.abortsSeen++);
		const form = document.querySelector("#org-acme form");
		htmx.trigger(form, "submit");
		htmx.trigger(form, "htmx:abort");
	})()`))
	// A second request, finished, to know the first one's events are over.
	s.setValue("#state-globex", "off")
	s.click(`#org-globex button[type="submit"]`)
	s.waitText("#org-globex", "Saved")
	// The step did what it says: the first request was sent and aborted
	// (not dropped before it left), so its events are the ones checked.
	s.waitJS("the first request's abort", `window.abortsSeen === 1`)
	if errs := s.consoleErrors(); len(errs) > 0 {
		t.Errorf("the aborted request wrote to the console:\n%s", strings.Join(errs, "\n"))
	}
	// The check itself works: an error that is not an abort is still written.
	s.do("log an error", chromedp.Evaluate[chromedp.Void](`console.error("htmx:responseError for the test")`))
	s.waitJS("the console to get it", `true`)
	s.waitTextWhere("body", func(string) bool { return len(s.consoleErrors()) == 1 }, "see one console error")
	s.mu.Lock()
	s.console = nil // the test's own error: not a failure of the page
	s.mu.Unlock()
}

// consoleErrors is every console error so far that is not a failed
// network request (a 403 or 422 the browser reports on its own).
func (s *session) consoleErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.console {
		if m.Type == chromedp.ConsoleError && m.Source != "network" {
			out = append(out, fmt.Sprintf("%s:%d: %s", m.URL, m.Line+1, m.Text))
		}
	}
	return out
}

// cssEscape escapes the dots of an id for a CSS selector.
func cssEscape(id string) string { return strings.ReplaceAll(id, ".", `\.`) }
