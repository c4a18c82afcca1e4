package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/briefing"
	"fieldbrief/internal/config"
	"fieldbrief/internal/snapshot"
)

// readyBriefing stores acme's ready briefing of 2026-03-03 with revision 1,
// something a test send can send.
func readyBriefing(t *testing.T, f *fixture, orgID int64) int64 {
	t.Helper()
	return insertBriefing(t, f, orgID, briefingRow{Date: "2026-03-03", Content: &snapshot.Snapshot{Date: "2026-03-03", Timezone: "America/New_York"}})
}

// insertFailedDelivery stores a scheduled email that failed for good after
// one attempt answered 550, and returns its id.
func insertFailedDelivery(t *testing.T, f *fixture, orgID, briefingID int64, to string) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	err := f.db.QueryRow(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, attempts,
		                           last_code, last_detail, due_at)
		VALUES ($1, $2, 1, 'email', 'dispatcher', $3, 'msg_' || $3, 'failed', 1, '550', 'mailbox unavailable',
		        '2026-03-03 13:00Z') RETURNING id`, orgID, briefingID, to).Scan(&id)
	require.NoError(t, err)
	_, err = f.db.Exec(ctx, `
		INSERT INTO ff_delivery_attempts (org_id, delivery_id, attempted_at, outcome, code, detail, duration_ms, worker)
		VALUES ($1, $2, '2026-03-03 13:00:05Z', 'failed', '550', 'mailbox unavailable', 120, 'worker-7')`, orgID, id)
	require.NoError(t, err)
	return id
}

const (
	testEmailPath   = settingsPath + "/test-email"
	testWebhookPath = settingsPath + "/test-webhook"
)

// TestTestEmailGoesToTheOutboxAndTheLog: "send a test to me" sends a fresh
// look at today (a new revision of today's briefing, not the newest
// stored one, and no scheduled firing), kept in the outbox when no mail
// server is configured, where the org's admin reads it without staff
// rights; another org's admin gets a 404 for it, a member a 403.
func TestTestEmailGoesToTheOutboxAndTheLog(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	readyBriefing(t, f, f.orgA.ID)
	// Today (Wed 4 Mar, 10:00 in New York) has a job the stored briefing of the 3rd does not.
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO jobs (org_id, customer, address, arrival_start, arrival_end)
		VALUES ($1, 'Fresh Customer', '500 W 2nd St', '2026-03-04T16:00:00Z', '2026-03-04T17:00:00Z')`, f.orgA.ID)
	require.NoError(t, err)
	admin := f.as(&f.adminA)

	// Without JavaScript: the settings page, with the outcome beside the button.
	r := admin.post(testEmailPath, nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	doc := parseDoc(t, r.Body)
	res := doc.byID("test-email-result")
	require.NotNil(t, res, r.Body)
	require.Equal(t, "sent", res.attr("data-outcome"))
	require.Contains(t, res.text(), f.adminA.Email)
	require.Contains(t, res.text(), "outbox")

	var rcpt, subject, text string
	require.NoError(t, f.db.QueryRow(context.Background(),
		`SELECT rcpt, subject, text_body FROM mail_outbox WHERE org_id = $1`, f.orgA.ID).Scan(&rcpt, &subject, &text))
	require.Equal(t, f.adminA.Email, rcpt)
	require.Contains(t, subject, "[Test]")
	require.Contains(t, subject, "Wed, Mar 4", "today's briefing")
	require.Contains(t, text, "Fresh Customer", "as the data is now")
	var revision int
	var scheduled bool
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT revision, scheduled_at IS NOT NULL FROM ff_briefings
		 WHERE org_id = $1 AND briefing_date = '2026-03-04'`, f.orgA.ID).Scan(&revision, &scheduled))
	require.Equal(t, 1, revision)
	require.False(t, scheduled, "a look: the day's scheduled run still fires")

	// The admin reads what was sent, without the staff console.
	read := doc.byID("test-email-result-read")
	require.NotNil(t, read, r.Body)
	link := read.attr("href")
	msg := admin.get(link)
	require.Equal(t, http.StatusOK, msg.Code, msg.Body)
	require.Contains(t, msg.Body, "Fresh Customer")
	require.Contains(t, msg.Body, link+"/html")
	frame := admin.get(link + "/html")
	require.Equal(t, http.StatusOK, frame.Code)
	require.Contains(t, frame.Header.Get("Content-Security-Policy"), "sandbox")
	require.Contains(t, frame.Body, "Fresh Customer")
	// Another org's admin, even through their own org's address, and a member: no.
	other := strings.Replace(link, "/orgs/acme/", "/orgs/globex/", 1)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).get(other).Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).get(other+"/html").Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).get(link).Code)
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).get(link).Code)
	require.Equal(t, http.StatusNotFound, admin.get(settingsPath+"/tests/999999").Code)

	log := doc.byID("delivery-log")
	require.NotNil(t, log)
	rows := log.findAll(attrIs("data-audience", "test"))
	require.Len(t, rows, 1)
	require.Contains(t, rows[0].text(), f.adminA.Email)
	require.Contains(t, rows[0].text(), "Sent")
	require.Contains(t, rows[0].text(), "Wed, Mar 4")

	// With htmx: the block alone, and the log out of band with both sends.
	r = admin.htmx().post(testEmailPath, nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.NotContains(t, r.Body, "<html")
	doc = parseDoc(t, r.Body)
	require.NotNil(t, doc.byID("test-email-result"))
	log = doc.byID("delivery-log")
	require.NotNil(t, log)
	require.Equal(t, "true", log.attr("hx-swap-oob"))
	require.Len(t, log.findAll(attrIs("data-audience", "test")), 2)
}

func TestTestSendRefusals(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	admin := f.as(&f.adminA)

	// No schedule yet: nothing to make a look of; 422 and the reason beside the button.
	for _, c := range []*client{f.as(&f.adminB), f.as(&f.adminB).htmx()} {
		r := c.post("/orgs/globex/settings/fieldforce/test-email", nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
		res := parseDoc(t, r.Body).byID("test-email-result")
		require.NotNil(t, res, r.Body)
		require.Contains(t, res.text(), "Set the briefing time zone")
	}

	// No webhook saved: 422 and the reason beside its button, nothing recorded.
	for _, c := range []*client{admin, admin.htmx()} {
		r := c.post(testWebhookPath, nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
		res := parseDoc(t, r.Body).byID("test-webhook-result")
		require.NotNil(t, res, r.Body)
		require.Contains(t, res.text(), "No webhook URL is saved")
	}
	var n int
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT count(*) FROM ff_deliveries`).Scan(&n))
	require.Zero(t, n)

	// Tests are a check, not a mailer: each is a briefing generated on
	// request, and past the hourly allowance it is a 429 with Retry-After
	// and the wait in words beside the button; nothing more is sent.
	for i := range briefing.MaxRequestsPerHour {
		require.Equal(t, http.StatusOK, admin.post(testEmailPath, nil).Code, "test %d", i+1)
		f.advance(time.Minute)
	}
	f.advance(53 * time.Minute) // the first was 59 minutes ago
	r := admin.htmx().post(testEmailPath, nil)
	require.Equal(t, http.StatusTooManyRequests, r.Code, r.Body)
	require.Equal(t, "60", r.Header.Get("Retry-After"))
	res := parseDoc(t, r.Body).byID("test-email-result")
	require.NotNil(t, res, r.Body)
	require.Contains(t, res.text(), "You can send a test again in 1 minute.")
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT count(*) FROM mail_outbox`).Scan(&n))
	require.Equal(t, briefing.MaxRequestsPerHour, n)
	f.advance(time.Minute)
	require.Equal(t, http.StatusOK, admin.post(testEmailPath, nil).Code, "an hour after the first")
}

func TestTestSendAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	readyBriefing(t, f, f.orgA.ID)
	for _, path := range []string{testEmailPath, testWebhookPath} {
		require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(path, nil).Code, "member: %s", path)
		require.Equal(t, http.StatusForbidden, f.as(&f.adminA).postNoCSRF(path, nil).Code, "no CSRF: %s", path)
		require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(path, nil).Code, "other org's admin: %s", path)
	}
	var n int
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT count(*) FROM ff_deliveries`).Scan(&n))
	require.Zero(t, n, "a refused request sent nothing")
}

func TestResend(t *testing.T) {
	t.Parallel()
	f := setup(t)
	idA := insertFailedDelivery(t, f, f.orgA.ID, readyBriefing(t, f, f.orgA.ID), "ops@acme.test")
	idB := insertFailedDelivery(t, f, f.orgB.ID, readyBriefing(t, f, f.orgB.ID), "ops@globex.test")
	resend := func(id int64) string {
		return briefingsPath + "/2026-03-03/deliveries/" + strconv.FormatInt(id, 10) + "/resend"
	}
	admin := f.as(&f.adminA)
	state := func(id int64) (s string) {
		require.NoError(t, f.db.QueryRow(context.Background(), `SELECT state FROM ff_deliveries WHERE id = $1`, id).Scan(&s))
		return s
	}
	jobs := func() (n int) {
		require.NoError(t, f.db.QueryRow(context.Background(), `SELECT count(*) FROM river_job`).Scan(&n))
		return n
	}

	// Another org's delivery is not there; nor is a member allowed.
	require.Equal(t, http.StatusNotFound, admin.post(resend(idB), nil).Code)
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(resend(idA), nil).Code)
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(resend(idA), nil).Code)
	require.Equal(t, "failed", state(idB))
	require.Equal(t, "failed", state(idA))
	require.Zero(t, jobs())

	r := admin.post(resend(idA), nil)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, briefingsPath+"/2026-03-03?notice=resending", r.Header.Get("Location"))
	require.Equal(t, "pending", state(idA))
	require.Equal(t, 1, jobs())
	page := admin.get(r.Header.Get("Location"))
	require.Contains(t, page.Body, notices["resending"])

	// Pending now: not sent again.
	require.Equal(t, http.StatusConflict, admin.post(resend(idA), nil).Code)
	require.Equal(t, 1, jobs())
}

func TestBriefingPageDeliveries(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := insertFailedDelivery(t, f, f.orgA.ID, readyBriefing(t, f, f.orgA.ID), "ops@acme.test")
	path := briefingsPath + "/2026-03-03"

	r := f.as(&f.adminA).get(path)
	require.Equal(t, http.StatusOK, r.Code)
	row := parseDoc(t, r.Body).find(attrIs("data-delivery-id", strconv.FormatInt(id, 10)))
	require.NotNil(t, row, r.Body)
	text := row.text()
	for _, want := range []string{"ops@acme.test", "Failed", "550", "mailbox unavailable", "worker-7", "8:00", "AM EST"} {
		require.Contains(t, text, want, "admin sees %q", want)
	}
	form := row.find(func(n *html.Node) bool { v, ok := hasAttr(n, "action"); return ok && strings.HasSuffix(v, "/resend") })
	require.NotNil(t, form, "admins get Send again on a failed delivery")

	r = f.as(&f.memberA).get(path)
	require.Equal(t, http.StatusOK, r.Code)
	row = parseDoc(t, r.Body).find(attrIs("data-delivery-id", strconv.FormatInt(id, 10)))
	require.NotNil(t, row, r.Body)
	text = row.text()
	require.Contains(t, text, "ops@acme.test")
	require.Contains(t, text, "Failed")
	for _, hidden := range []string{"550", "mailbox unavailable", "worker-7"} {
		require.NotContains(t, r.Body, hidden, "members do not see %q", hidden)
	}
	require.NotContains(t, r.Body, "/resend")
	// How many tries it took and how long each one ran is for
	// the people who can act on it; members get the state in words.
	require.NotContains(t, text, "attempt", "members see no attempt count")
	require.Nil(t, row.find(func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "details" }),
		"members get no attempt history")
}

// A test webhook reaches the saved URL and says what it answered: a 2xx is
// sent, a 410 failed with its status, beside the button.
func TestTestWebhookShowsTheAnswer(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.AllowPrivateWebhooks = true })
	var status, calls atomic.Int32
	status.Store(http.StatusNoContent)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	t.Cleanup(hook.Close)
	forceConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00"},"delivery":{"webhook":{"url":"`+hook.URL+`/in"}}}`)
	readyBriefing(t, f, f.orgA.ID)
	admin := f.as(&f.adminA).htmx()

	r := admin.post(testWebhookPath, nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	res := parseDoc(t, r.Body).byID("test-webhook-result")
	require.NotNil(t, res, r.Body)
	require.Equal(t, "sent", res.attr("data-outcome"))
	require.Contains(t, res.text(), "Sent to "+hook.URL+"/in")

	status.Store(http.StatusGone)
	r = admin.post(testWebhookPath, nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	res = parseDoc(t, r.Body).byID("test-webhook-result")
	require.NotNil(t, res, r.Body)
	require.Equal(t, "failed", res.attr("data-outcome"))
	require.Contains(t, res.text(), "Failed: 410")
	require.EqualValues(t, 2, calls.Load(), "one call per test, no retry")
}
