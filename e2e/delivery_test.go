package e2e

import (
	"strings"
	"testing"

	"fieldbrief/internal/locale"
)

// Selectors of the settings page's delivery parts (views/settings.templ,
// views/deliveries.templ).
const (
	recipientsInput = `#delivery_email_to`
	testEmailButton = `#test-email-button`
	testEmailResult = `#test-email-result`
	deliveryLog     = `#delivery-log`
)

// An admin adds a recipient, saves, sends a test to themself with htmx and
// sees the outcome beside the button and the send in the delivery log.
func TestAdminSendsATestToThemself(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := e.generateBriefing(e.orgA)
	admin := e.newSession("admin")
	admin.login(adminA)

	admin.open(settingsPath)
	admin.typeInto(recipientsInput, "dispatch@acme.test")
	if status := admin.submit(saveSchedule); status != 200 {
		t.Fatalf("saving the recipients answered %d, want 200 after the redirect:\n%s", status, admin.text("main"))
	}
	admin.waitText(`main .notice[role="status"]`)
	if got := admin.value(recipientsInput); got != "dispatch@acme.test" {
		t.Errorf("after saving, the recipients say %q, want dispatch@acme.test", got)
	}
	if got := admin.text(deliveryLog); !strings.Contains(got, "Nothing sent yet") {
		t.Errorf("before any send the delivery log should be empty; it says:\n%s", got)
	}

	admin.watchHTMX()
	admin.click(testEmailButton)
	result := admin.waitText(testEmailResult, adminA.Email)
	if strings.Contains(result, "Failed") {
		t.Errorf("the test send failed: %s", result)
	}
	if p := admin.path(); p != settingsPath {
		t.Errorf("the test send left the page for %s; htmx should answer in place", p)
	}
	row := admin.waitText(deliveryLog+` tr[data-audience="test"]`, adminA.Email, "Test", "Sent")
	// The briefing's own date: the org's local date, which is not the UTC
	// date for an hour or more of every day, as the en-US org writes it.
	if !strings.Contains(row, locale.Nearest("en-US").Date(b.Date.Time())) {
		t.Errorf("the log's row should name the briefing's date; it says:\n%s", row)
	}
	admin.screenshot("settings-test-sent")

	var rcpt string
	e.must("read the outbox", e.db.QueryRow(e.ctx, `SELECT rcpt FROM mail_outbox WHERE org_id = $1`, e.orgA.ID).Scan(&rcpt))
	if rcpt != adminA.Email {
		t.Errorf("the test went to %q, want the admin's own %q", rcpt, adminA.Email)
	}

	// No mail server here: the admin reads what was kept, without staff rights.
	if status := admin.follow(testEmailResult + "-read"); status != 200 {
		t.Fatalf("reading the test email answered %d:\n%s", status, admin.text("main"))
	}
	if got := admin.text("main h2#message-title"); !strings.Contains(got, "[Test]") {
		t.Errorf("the kept test email's subject is %q, want it marked [Test]", got)
	}
	if got := admin.text("main pre.mail-text"); !strings.Contains(got, "Open the briefing") {
		t.Errorf("the kept test email's text part reads:\n%s", got)
	}
	if !admin.exists(`main iframe.mail-html[sandbox]`) {
		t.Errorf("the HTML part should be framed, sandboxed")
	}
	admin.screenshot("settings-test-read")
}
