package web

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/briefing"
)

// insertAudit writes an audit entry at a chosen instant, as the changes of
// the past would have (audit_log is append-only: inserting is allowed).
// orgID 0 is a platform-wide entry.
func insertAudit(t testing.TB, f *fixture, orgID int64, action, target, old, new string, at time.Time) {
	t.Helper()
	var org, oldV, newV any
	if orgID != 0 {
		org = orgID
	}
	if old != "" {
		oldV = old
	}
	if new != "" {
		newV = new
	}
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO audit_log (at, actor_email, org_id, action, target, old_value, new_value, reason)
		VALUES ($1, 'history@acme.test', $2, $3, $4, $5::jsonb, $6::jsonb, '')`, at, org, action, target, oldV, newV)
	require.NoError(t, err)
}

// insertSentDelivery records a briefing as delivered to one address.
func insertSentDelivery(t testing.TB, f *fixture, orgID, briefingID int64, audience string) {
	t.Helper()
	_, err := f.db.Exec(context.Background(), `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, due_at, sent_at)
		VALUES ($1, $2, 1, 'email', $3, 'dispatch@acme.test', $4, 'sent', now(), now())`,
		orgID, briefingID, audience, fmt.Sprintf("k-%d-%s", briefingID, audience))
	require.NoError(t, err)
}

const (
	nyPaused  = `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["mon","tue","wed","thu","fri"],"enabled":false}}`
	nyTueFri  = `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["tue","wed","thu","fri"]}}`
	nyInvalid = `{"briefing":{"timezone":"America/New_York","schedule_local_time":"8h"}}`
)

// Each past day of the calendar says what happened then, from the audit
// log's changes to the config and the flag, not from today's settings
// (which are the plain weekday schedule, running, flag on, throughout).
func TestBriefingCalendarReasonsFromHistory(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays) // today's settings; its audit entry is after the test clock
	utc := func(day, hour int) time.Time { return time.Date(2026, 2, day, hour, 0, 0, 0, time.UTC) }
	a := f.orgA.ID
	// Runs are at 08:00 in New York, 13:00 UTC.
	insertAudit(t, f, a, "fieldforce.config.update", "fieldforce", "", nyPaused, utc(19, 12))       // first saved, paused
	insertAudit(t, f, a, "fieldforce.config.update", "fieldforce", nyPaused, nyTueFri, utc(23, 10)) // resumed, Mondays off: before Monday's run
	insertAudit(t, f, a, "flag.org.set", flagKey, `{"state":"inherit"}`, `{"state":"off"}`, utc(24, 0))
	insertAudit(t, f, a, "flag.org.set", flagKey, `{"state":"off"}`, `{"state":"inherit"}`, utc(26, 0))
	insertAudit(t, f, 0, "flag.global.set", flagKey, `{"enabled":true}`, `{"enabled":false}`, utc(26, 15)) // after Thursday's run
	insertAudit(t, f, 0, "flag.global.set", flagKey, `{"enabled":false}`, `{"enabled":true}`, utc(26, 20))
	insertAudit(t, f, 0, "flag.global.set", flagKey, `{"enabled":true}`, `{"enabled":false}`, utc(27, 12)) // over Friday's run
	insertAudit(t, f, 0, "flag.global.set", flagKey, `{"enabled":false}`, `{"enabled":true}`, utc(27, 14))
	insertAudit(t, f, a, "fieldforce.config.update", "fieldforce", nyTueFri, nyInvalid, utc(28, 0)) // as an older release could
	insertAudit(t, f, a, "fieldforce.config.update", "fieldforce", nyInvalid, nyWeekdays, time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC))
	// Another org's history never counts for acme.
	insertAudit(t, f, f.orgB.ID, "flag.org.set", flagKey, `{"state":"off"}`, `{"state":"inherit"}`, time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC))
	insertBriefing(t, f, a, briefingRow{Date: "2026-02-21", Trigger: "manual"})
	delivered := insertBriefing(t, f, a, briefingRow{Date: "2026-03-03"})
	insertSentDelivery(t, f, a, delivered, "dispatcher")
	tested := insertBriefing(t, f, a, briefingRow{Date: "2026-02-26", Status: "failed"})
	insertSentDelivery(t, f, a, tested, "test") // a test send is not a delivery

	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)) // Wed 09:00 in New York
	rows, doc := listRows(t, f.as(&f.adminA), briefingsPath)
	for date, want := range map[string]struct{ reason, words string }{
		"2026-02-18": {"not_configured", "no schedule was saved yet"},
		"2026-02-19": {"paused", "paused"},
		"2026-02-20": {"paused", "paused"},
		"2026-02-21": {"ready", "ready"},
		"2026-02-22": {"paused", "paused"},
		"2026-02-23": {"day_off", "not a scheduled day"},
		"2026-02-24": {"flag_off", "switched off by the platform"},
		"2026-02-25": {"flag_off", "switched off by the platform"},
		"2026-02-26": {"failed", "failed"},
		"2026-02-27": {"flag_off", "switched off by the platform"},
		"2026-02-28": {"invalid_config", "the settings were invalid"},
		"2026-03-01": {"invalid_config", "the settings were invalid"},
		"2026-03-02": {"invalid_config", "the settings were invalid"},
		"2026-03-03": {"delivered", "ready, delivered"},
		"2026-03-04": {"due", "due now"},
	} {
		row := rows[date]
		require.NotNil(t, row, date)
		require.Equal(t, want.reason, row.attr("data-reason"), date)
		require.Contains(t, row.text(), want.words, date)
	}
	require.Contains(t, doc.find(tagIs("caption")).text(), "in force that day")
}

// The calendar is paginated by its newest date, bounded to two weeks a
// page; its links survive a reload and stop at the org's creation.
func TestBriefingCalendarPages(t *testing.T) {
	t.Parallel()
	f := setupCreated(t, time.Date(2026, 1, 20, 12, 0, 0, 0, time.UTC))
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-02-10"})
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-02-09"}) // globex's
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	member := f.as(&f.memberA)

	rows, doc := listRows(t, member, briefingsPath)
	require.Len(t, rows, 15)
	require.Nil(t, doc.find(hasClass("pager-newer")), "the latest page has no newer one")
	older := doc.find(hasClass("pager-older")).attr("href")
	require.Equal(t, briefingsPath+"?to=2026-02-17", older)

	rows, doc = listRows(t, member, older)
	require.Len(t, rows, 15, "bounded rows per page")
	require.NotNil(t, rows["2026-02-17"])
	require.NotNil(t, rows["2026-02-03"])
	require.Equal(t, "ready", rows["2026-02-10"].attr("data-status"))
	require.Equal(t, "missed", rows["2026-02-09"].attr("data-reason"), "globex's briefing is not acme's")
	require.Contains(t, doc.find(tagIs("h2")).text(), "Tue, Feb 3, 2026 to Tue, Feb 17, 2026")
	require.Equal(t, briefingsPath, doc.find(hasClass("pager-newer")).attr("href"), "two weeks on is today's page")
	older = doc.find(hasClass("pager-older")).attr("href")
	require.Equal(t, briefingsPath+"?to=2026-02-02", older)

	rows, doc = listRows(t, member, older)
	require.Equal(t, "before_setup", rows["2026-01-19"].attr("data-reason"))
	require.Nil(t, doc.find(hasClass("pager-older")), "no page before the org existed")
	require.Equal(t, briefingsPath+"?to=2026-02-17", doc.find(hasClass("pager-newer")).attr("href"))

	// A date after today is today's page; a malformed one is no page.
	rows, _ = listRows(t, member, briefingsPath+"?to=2027-01-01")
	require.NotNil(t, rows["2026-03-04"])
	require.Len(t, rows, 15)
	require.Equal(t, http.StatusNotFound, member.get(briefingsPath+"?to=March").Code)
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get(briefingsPath+"?to=2026-02-17").Code)
}

// A briefing's page leads to the adjacent days and, when one has no
// briefing, to the nearest briefing that way; another org's dates are 404.
func TestBriefingPagePrevNextNearest(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	for _, d := range []string{"2026-02-20", "2026-02-25", "2026-02-26"} {
		insertBriefing(t, f, f.orgA.ID, briefingRow{Date: d, Content: contentSnapshot()})
	}
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-02-24", Content: contentSnapshot()})
	insertBriefing(t, f, f.orgB.ID, briefingRow{Date: "2026-02-27", Content: contentSnapshot()})
	insertAudit(t, f, f.orgA.ID, "flag.org.set", flagKey, `{"state":"inherit"}`, `{"state":"off"}`, time.Date(2026, 2, 24, 0, 0, 0, 0, time.UTC))
	insertAudit(t, f, f.orgA.ID, "flag.org.set", flagKey, `{"state":"off"}`, `{"state":"inherit"}`, time.Date(2026, 2, 25, 0, 0, 0, 0, time.UTC))
	setClock(f, time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC))
	nav := func(c *client, date string) *htmlNode {
		t.Helper()
		r := c.get(briefingsPath + "/" + date)
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		return parseDoc(t, r.Body).find(hasClass("day-nav"))
	}
	member := f.as(&f.memberA)

	n := nav(member, "2026-02-25")
	prev := n.find(hasClass("day-prev"))
	require.Equal(t, "2026-02-24", prev.attr("data-date"))
	require.Contains(t, prev.text(), "switched off by the platform", "the reason of that day, not today's")
	require.Equal(t, briefingsPath+"/2026-02-20", n.find(hasClass("day-nearest-prev")).attr("href"), "globex's 02-24 is not acme's")
	require.Equal(t, briefingsPath+"/2026-02-26", n.find(hasClass("day-next")).attr("href"))
	require.Nil(t, n.find(hasClass("day-nearest-next")), "the next day has one")

	n = nav(member, "2026-02-26")
	next := n.find(hasClass("day-next"))
	require.Equal(t, "2026-02-27", next.attr("data-date"))
	require.Contains(t, next.text(), "missed")
	require.Nil(t, n.find(hasClass("day-nearest-next")), "no later briefing of acme's")

	require.Equal(t, http.StatusNotFound, member.get(briefingsPath+"/2026-02-24").Code, "globex's date")
	require.Equal(t, http.StatusNotFound, f.as(&f.memberB).get(briefingsPath+"/2026-02-25").Code)
	require.Equal(t, http.StatusNotFound, member.get("/orgs/globex/briefings/2026-02-24").Code, "not a member")
}

// Every reason has its code and its words.
func TestBriefingDayReasonsAreAllWorded(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for r := briefing.DayGenerated; r <= briefing.DayLate; r++ {
		code := r.String()
		require.NotEqual(t, "unknown", code, "reason %d has no code", r)
		require.False(t, seen[code], "code %s is used twice", code)
		seen[code] = true
		require.NotEmpty(t, dayReasonWords[r], "reason %s has no words", code)
	}
	require.Equal(t, "unknown", briefing.DayReason(0).String())
}
