package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/transport"
)

// keepMail stores a message in the outbox, as the worker does without
// SMTP_URL, and returns its outbox id.
func (f *fixture) keepMail(m transport.Message) int64 {
	f.t.Helper()
	ctx := context.Background()
	require.NoError(f.t, transport.NewOutboxMailer(f.db).Send(ctx, m))
	var id int64
	require.NoError(f.t, f.db.QueryRow(ctx, `SELECT id FROM mail_outbox WHERE message_id = $1`, m.MessageID).Scan(&id))
	return id
}

func outboxMessage(n int, orgID int64) transport.Message {
	return transport.Message{
		From: "Fieldbrief <briefings@fieldbrief.test>", To: "ops@acme.test",
		Subject:   fmt.Sprintf("Acme · briefing %d", n),
		Text:      fmt.Sprintf("Text of briefing %d\n  indented line", n),
		HTML:      "<p style=\"color:#333\">briefing</p>",
		MessageID: fmt.Sprintf("fb.%d@fieldbrief.test", n), UnsubscribeURL: "https://app.fieldbrief.test/unsubscribe?t=abc",
		OrgID: orgID,
	}
}

func TestStaffOutboxAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.keepMail(outboxMessage(1, f.orgA.ID))
	paths := []string{"/staff/outbox", "/staff/outbox/" + strconv.FormatInt(id, 10), "/staff/outbox/" + strconv.FormatInt(id, 10) + "/html"}
	staff, admin, anon := f.as(&f.staff), f.as(&f.adminA), f.anon()
	for _, p := range paths {
		require.Equal(t, http.StatusOK, staff.get(p).Code, p)
		require.Equal(t, http.StatusForbidden, admin.get(p).Code, p)
		res := anon.get(p)
		require.Equal(t, http.StatusSeeOther, res.Code, p)
		require.Equal(t, signInTo(p), res.Header.Get("Location"), p)
	}

	// A message that is not there, or a number that is not one, is 404.
	for _, p := range []string{"/staff/outbox/999", "/staff/outbox/0", "/staff/outbox/-1", "/staff/outbox/abc",
		"/staff/outbox/99999999999999999999", "/staff/outbox/abc/html", "/staff/outbox/999/html"} {
		require.Equal(t, http.StatusNotFound, staff.get(p).Code, p)
	}
	noHTML := outboxMessage(2, 0)
	noHTML.HTML = ""
	bare := strconv.FormatInt(f.keepMail(noHTML), 10)
	require.Equal(t, http.StatusNotFound, staff.get("/staff/outbox/"+bare+"/html").Code)
	page := staff.get("/staff/outbox/" + bare)
	require.Equal(t, http.StatusOK, page.Code)
	require.Nil(t, parseDoc(t, page.Body).find(hasTag("iframe")), "no frame without an HTML part")
}

func TestStaffOutboxListPages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ids := make([]int64, outboxPageSize+5)
	for i := range ids {
		ids[i] = f.keepMail(outboxMessage(i, f.orgA.ID))
	}
	system := outboxMessage(len(ids), 0)
	system.Subject = "Welcome"
	ids = append(ids, f.keepMail(system))
	staff := f.as(&f.staff)

	first := staff.get("/staff/outbox")
	require.Equal(t, http.StatusOK, first.Code)
	doc := parseDoc(t, first.Body)
	rows := doc.find(hasTag("tbody")).findAll(hasTag("tr"))
	require.Len(t, rows, outboxPageSize)
	require.Equal(t, "Welcome", rows[0].find(hasTag("a")).text(), "newest first")
	require.Contains(t, rows[0].text(), "—", "system mail has no org")
	require.Contains(t, rows[1].text(), "acme")
	require.Contains(t, rows[1].text(), "ops@acme.test")
	require.Equal(t, "/staff/outbox/"+strconv.FormatInt(ids[len(ids)-2], 10), rows[1].find(hasTag("a")).attr("href"))
	older := doc.find(linkText("Older messages"))
	require.NotNil(t, older)
	require.Equal(t, "/staff/outbox?before="+strconv.FormatInt(ids[len(ids)-outboxPageSize], 10), older.attr("href"))
	require.Nil(t, doc.find(linkText("Newest")), "this is the newest page")

	second := staff.get(older.attr("href"))
	require.Equal(t, http.StatusOK, second.Code)
	doc = parseDoc(t, second.Body)
	require.Len(t, doc.find(hasTag("tbody")).findAll(hasTag("tr")), len(ids)-outboxPageSize)
	require.Nil(t, doc.find(linkText("Older messages")), "the last page")
	require.NotNil(t, doc.find(linkText("Newest")))

	for _, bad := range []string{"abc", "-3", "0", "1.5"} {
		require.Equal(t, http.StatusUnprocessableEntity, staff.get("/staff/outbox?before="+bad).Code, bad)
	}
	require.Contains(t, staff.get("/staff/flags").Body, `href="/staff/outbox"`, "the staff console links the outbox")
}

func TestStaffOutboxMessage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	m := outboxMessage(1, f.orgA.ID)
	m.Subject = "Acme <b>bold</b> · briefing"
	m.Text = "Line one\n<script>alert('text')</script>"
	m.HTML = `<p style="color:#333">Hi</p><script>alert('html')</script><img src="https://tracker.example/p.gif">`
	id := strconv.FormatInt(f.keepMail(m), 10)
	staff := f.as(&f.staff)

	page := staff.get("/staff/outbox/" + id)
	require.Equal(t, http.StatusOK, page.Code)
	require.NotContains(t, page.Body, "<script>alert", "no part of the message runs in our page")
	require.NotContains(t, page.Body, "<b>bold</b>")
	require.Empty(t, inline.FindAllString(page.Body, -1), "nothing our CSP would block")
	doc := parseDoc(t, page.Body)
	meta := doc.find(hasClass("meta")).text()
	for _, want := range []string{
		"From Fieldbrief <briefings@fieldbrief.test>", "To ops@acme.test", "Subject Acme <b>bold</b> · briefing",
		"Message-ID <fb.1@fieldbrief.test>", "List-Unsubscribe <https://app.fieldbrief.test/unsubscribe?t=abc>", "Org acme",
	} {
		require.Contains(t, meta, want)
	}
	require.Equal(t, m.Text, doc.find(hasTag("pre")).rawText(), "the text part, exactly")

	frame := doc.find(hasTag("iframe"))
	require.NotNil(t, frame)
	sandbox, ok := hasAttr(frame.n, "sandbox")
	require.True(t, ok, "the frame is sandboxed")
	require.Empty(t, sandbox, "with no exceptions: no scripts, no same origin")
	require.Equal(t, "/staff/outbox/"+id+"/html", frame.attr("src"))
	require.Empty(t, frame.attr("srcdoc"))

	part := staff.get("/staff/outbox/" + id + "/html")
	require.Equal(t, http.StatusOK, part.Code)
	require.Equal(t, m.HTML, part.Body, "served as stored")
	require.Equal(t, "text/html; charset=UTF-8", part.Header.Get("Content-Type"))
	require.Equal(t, outboxHTMLPolicy, part.Header.Get("Content-Security-Policy"))
	require.Contains(t, outboxHTMLPolicy, "sandbox;")
	require.Contains(t, outboxHTMLPolicy, "default-src 'none'")
	require.Equal(t, "nosniff", part.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "SAMEORIGIN", part.Header.Get("X-Frame-Options"))
	require.Equal(t, "no-store", part.Header.Get("Cache-Control"))
}

func hasTag(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

// linkText matches a link by its whole text.
func linkText(text string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == "a" && (&htmlNode{n}).text() == text }
}

// rawText is the element's text exactly as the browser has it, white
// space included.
func (h *htmlNode) rawText() string {
	var b strings.Builder
	for n := range h.n.Descendants() {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	}
	return b.String()
}
