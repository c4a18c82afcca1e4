package worker

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/daylinks"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

// dayLinkRE finds a day link in an email's text part.
var dayLinkRE = regexp.MustCompile(`https://app\.fieldbrief\.test/t/([A-Za-z0-9_-]{43})\b`)

func dayLinkOf(t *testing.T, text string) string {
	t.Helper()
	m := dayLinkRE.FindStringSubmatch(text)
	require.NotNil(t, m, "no day link in:\n%s", text)
	return m[1]
}

// TestTechnicianEmailIsTheirDay: each technician's email is about them
// (subject, their own overdue job) and carries a day link that opens
// their day only; the dispatcher's has none; no token is kept in clear.
func TestTechnicianEmailIsTheirDay(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("austin", deliveryConfig("America/Chicago", "06:30", []string{"dispatch@austin.test"}, true, ""))
	ana := f.techWithEmail(org, "Ana", "ana@austin.test")
	ben := f.techWithEmail(org, "Ben", "ben@austin.test")
	// Thu 26 Nov 2026 in Austin (CST, UTC−6).
	first := f.Job(org, ana, "Dogwood Bakery", utc("2026-11-26T14:00:00Z"), utc("2026-11-26T16:00:00Z"), "scheduled")
	_, err := f.DB.Exec(f.Ctx, `UPDATE jobs SET address = '500 W 2nd St, Austin, TX 78701', notes = E'Gate 4411\nDog in yard' WHERE id = $1`, first)
	require.NoError(t, err)
	f.Job(org, ana, "Elm Clinic", utc("2026-11-26T17:00:00Z"), utc("2026-11-26T18:00:00Z"), "scheduled")
	f.Job(org, ana, "Fir Farm", utc("2026-11-26T20:00:00Z"), utc("2026-11-26T21:00:00Z"), "in_progress")
	f.Job(org, ana, "Stuck Stables", utc("2026-11-24T15:00:00Z"), utc("2026-11-24T16:00:00Z"), "scheduled") // overdue
	f.Job(org, ben, "Ben's customer", utc("2026-11-26T15:00:00Z"), utc("2026-11-26T16:00:00Z"), "scheduled")
	f.Job(org, ben, "Ben's old job", utc("2026-11-25T15:00:00Z"), utc("2026-11-25T16:00:00Z"), "on_hold") // overdue

	now := utc("2026-11-26T12:30:00Z") // 06:30 CST
	f.runOnceWith(f.deliveringWorker(sink.URL, func() time.Time { return now }), now)
	byTo := map[string]transporttest.Received{}
	for _, m := range sink.Messages() {
		byTo[strings.Join(m.To, ",")] = m
	}
	require.Len(t, byTo, 3)

	parsed, err := byTo["ana@austin.test"].Parse()
	require.NoError(t, err)
	require.Equal(t, "Your day, Thu, Nov 26: 3 jobs, first 8:00\u202fAM at 500 W 2nd St · 1 overdue", decodeHeader(t, parsed.Header.Get("Subject")))
	text, html, err := byTo["ana@austin.test"].Bodies()
	require.NoError(t, err)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	require.Contains(t, text, "OVERDUE (1)\n\n- Tue, Nov 24 9:00\u2009–\u200910:00\u202fAM CST  Stuck Stables\n")
	require.Contains(t, text, "  Gate 4411\n  Dog in yard\n")
	require.NotContains(t, text, "Ben's")
	require.NotContains(t, text, "ROUTES")
	require.Contains(t, html, "Your day, Thu, Nov 26: 3 jobs, first 8:00\u202fAM at 500 W 2nd St · 1 overdue</div>", "the preheader")
	anaToken := dayLinkOf(t, text)
	require.Contains(t, html, "/t/"+anaToken)

	benText, _, err := byTo["ben@austin.test"].Bodies()
	require.NoError(t, err)
	require.Contains(t, benText, "Ben's old job")
	require.NotContains(t, benText, "Stuck Stables")
	benToken := dayLinkOf(t, benText)

	links := &daylinks.Store{DB: f.DB}
	l, err := links.Open(f.Ctx, anaToken, now)
	require.NoError(t, err)
	require.Equal(t, []any{org, ana, "2026-11-26", "America/Chicago"}, []any{l.OrgID, l.TechnicianID, l.Date.String(), l.Zone})
	require.Equal(t, utc("2026-11-28T06:00:00Z"), l.ExpiresAt.UTC(), "the end of Fri 27 Nov in Austin")
	l, err = links.Open(f.Ctx, benToken, now)
	require.NoError(t, err)
	require.Equal(t, ben, l.TechnicianID)

	dispatchText, _, err := byTo["dispatch@austin.test"].Bodies()
	require.NoError(t, err)
	require.NotContains(t, dispatchText, "/t/", "the dispatcher's email carries no technician's link")

	// Neither token is anywhere in the database in clear.
	for _, tok := range []string{anaToken, benToken} {
		require.Zero(t, f.Count(`
			SELECT (SELECT count(*) FROM ff_deliveries WHERE position($1 in last_detail || recipient || key) > 0)
			     + (SELECT count(*) FROM ff_delivery_attempts WHERE position($1 in detail) > 0)
			     + (SELECT count(*) FROM river_job WHERE position($1 in args::text || coalesce(errors::text, '')) > 0)
			     + (SELECT count(*) FROM audit_log WHERE position($1 in coalesce(old_value::text, '') || coalesce(new_value::text, '')) > 0)`, tok))
	}
}

// TestTechnicianRetryKeepsMessageID: a retried technician email keeps its
// Message-ID; its retry mints a link of its own (the first attempt's token
// was kept nowhere), and the link in the email that arrived opens.
func TestTechnicianRetryKeepsMessageID(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	sink.Script(451, 250)
	org := f.Org("acme", deliveryConfig("Etc/UTC", "07:00", nil, true, ""))
	ana := f.techWithEmail(org, "Ana", "ana@acme.test")
	f.Job(org, ana, "Dogwood Bakery", utc("2026-11-26T09:00:00Z"), utc("2026-11-26T10:00:00Z"), "scheduled")
	now := utc("2026-11-26T07:00:00Z")
	w := f.deliveringWorker(sink.URL, func() time.Time { return now })
	require.NoError(t, w.Start(f.Ctx))
	t.Cleanup(func() { _ = w.Stop(context.WithoutCancel(t.Context())) })
	f.tick(now)

	require.Eventually(t, func() bool { return f.deliveryStates(org)["ana@acme.test"] == "sent/2" },
		settle, 50*time.Millisecond, "states: %v", f.deliveryStates(org))
	msgs := sink.Messages()
	require.Len(t, msgs, 1)
	require.Equal(t, []string{"retry 451", "sent "}, f.attemptList(org))
	var key string
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT key FROM ff_deliveries WHERE org_id = $1`, org).Scan(&key))
	want, err := transport.MessageIDFor(key, "briefings@fieldbrief.test")
	require.NoError(t, err)
	parsed, err := msgs[0].Parse()
	require.NoError(t, err)
	require.Equal(t, "<"+want+">", parsed.Header.Get("Message-Id"))

	text, _, err := msgs[0].Bodies()
	require.NoError(t, err)
	l, err := (&daylinks.Store{DB: f.DB}).Open(f.Ctx, dayLinkOf(t, text), now)
	require.NoError(t, err)
	require.Equal(t, ana, l.TechnicianID)
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM technician_day_links WHERE org_id = $1`, org), "one per attempt")
}

// TestTechnicianOwnOverdue: a technician's email lists their own overdue
// jobs even when the org's overdue list (50 of 260) holds none of them:
// 50 of Ana's 60, then "and 10 more" pointing to her day link, never to
// a page that needs an account; Ben's email has his own, not Ana's.
func TestTechnicianOwnOverdue(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("austin", deliveryConfig("America/Chicago", "06:30", nil, true, ""))
	ana := f.techWithEmail(org, "Ana", "ana@austin.test")
	ben := f.techWithEmail(org, "Ben", "ben@austin.test")
	cy := f.techWithEmail(org, "Cy", "cy@austin.test")
	// Thu 26 Nov 2026 in Austin (CST, UTC−6) starts at 06:00 UTC.
	dayStart := utc("2026-11-26T06:00:00Z")
	f.Job(org, ana, "Ana's visit today", utc("2026-11-26T14:00:00Z"), utc("2026-11-26T15:00:00Z"), "scheduled")
	f.Job(org, ben, "Ben's visit today", utc("2026-11-26T15:00:00Z"), utc("2026-11-26T16:00:00Z"), "scheduled")
	// 200 overdue jobs of Ben's and Cy's, up to a year old; Ana's 60 are the
	// last 60 days': the org's overdue list (its oldest 50) has none of hers.
	require.NoError(t, testutil.InsertOverdueJobs(f.Ctx, f.DB, org, []int64{ben, cy}, 200, dayStart))
	_, err := f.DB.Exec(f.Ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, arrival_start, arrival_end, status)
		SELECT $1, $2, 'Ana overdue ' || k, $3::timestamptz - k * interval '1 day' + interval '3 hours',
		       $3::timestamptz - k * interval '1 day' + interval '4 hours', 'scheduled'
		  FROM generate_series(1, 60) k`, org, ana, dayStart)
	require.NoError(t, err)

	now := utc("2026-11-26T12:30:00Z") // 06:30 CST
	f.runOnceWith(f.deliveringWorker(sink.URL, func() time.Time { return now }), now)
	byTo := map[string]transporttest.Received{}
	for _, m := range sink.Messages() {
		byTo[strings.Join(m.To, ",")] = m
	}
	require.Contains(t, byTo, "ana@austin.test")
	parsed, err := byTo["ana@austin.test"].Parse()
	require.NoError(t, err)
	require.Equal(t, "Your day, Thu, Nov 26: 1 job, 8:00\u202fAM at Ana's visit today street · 60 overdue", decodeHeader(t, parsed.Header.Get("Subject")))
	text, html, err := byTo["ana@austin.test"].Bodies()
	require.NoError(t, err)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	token := dayLinkOf(t, text)
	link := "https://app.fieldbrief.test/t/" + token
	require.Contains(t, text, "OVERDUE (60)\n\n- Sun, Sep 27 4:00\u2009–\u20095:00\u202fAM CDT  Ana overdue 60\n", "her oldest first")
	require.Len(t, regexp.MustCompile(`(?m)^- \w{3}, \w{3} \d+ `).FindAllString(text, -1), 50, "50 of her overdue jobs listed (the visit's window has no date)")
	require.Equal(t, 50, strings.Count(text, "Ana overdue "))
	require.Contains(t, text, "and 10 more: "+link+"\n")
	require.NotContains(t, text, "Customer ", "no one else's overdue job")
	require.NotContains(t, text, "/orgs/", "no page that needs an account")
	require.Contains(t, html, `href="`+link+`"`)
	require.Regexp(t, `and 10 more\s*— <a [^>]*href="`+regexp.QuoteMeta(link)+`"`, html)
	require.NotContains(t, html, "/orgs/")

	benText, _, err := byTo["ben@austin.test"].Bodies()
	require.NoError(t, err)
	require.Contains(t, benText, "OVERDUE (100)")
	require.NotContains(t, benText, "Ana overdue")
	require.Contains(t, benText, "and 50 more: https://app.fieldbrief.test/t/")
	require.NotContains(t, byTo, "cy@austin.test", "overdue jobs only: no visit, no email")
}
