package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/snapshot"
)

// nastyAddress has everything an address must not break: an ampersand,
// quotes, a hash and markup.
const nastyAddress = `1 Elm St & 2nd Ave, "Unit #3" <script>alert(1)</script>`

// contentSnapshot is a day with one job in each action section, an
// emergency in a route, a cancelled job and a hostile address.
func contentSnapshot() *snapshot.Snapshot {
	at := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.FixedZone("EST", -5*3600)) }
	job := func(id int64, customer string, d, h int, status, tech string) snapshot.JobLine {
		return snapshot.JobLine{ID: id, Customer: customer, Address: customer + " HQ", Status: status, Technician: tech,
			ArrivalStart: at(d, h), ArrivalEnd: at(d, h+1), Window: at(d, h).Format("15:04") + "–" + at(d, h+1).Format("15:04")}
	}
	fire := job(1, "Fire Station", 3, 7, "scheduled", "Ada Lovelace")
	fire.Emergency, fire.JobType, fire.CustomerPhone = true, "Boiler repair", "+1 (555) 010-2030 ext. 4"
	fire.Address, fire.Notes = nastyAddress, `Ask for "Sam" <b>`
	initech := job(2, "Initech", 3, 9, "scheduled", "Ada Lovelace")
	gone := job(3, "Gone Ltd", 3, 10, "cancelled", "Ada Lovelace")
	stark := job(4, "Stark Industries", 3, 13, "on_hold", "")
	wayne := job(5, "Wayne Enterprises", 1, 9, "on_hold", "Bob Noyce")
	wayne.Window = "2026-03-01 09:00–10:00"
	return &snapshot.Snapshot{
		Date: "2026-03-03", Timezone: "America/New_York", DayStart: at(3, 0), DayEnd: at(4, 0),
		Technicians: []snapshot.TechnicianDay{
			{ID: 1, Name: "Ada Lovelace", Phone: "555-0100", Jobs: []snapshot.JobLine{fire, initech, gone}},
			{ID: 2, Name: "Bob Noyce"},
		},
		Unassigned: []snapshot.JobLine{stark},
		Overdue:    []snapshot.JobLine{wayne},
		OnHold:     []snapshot.JobLine{wayne, stark},
		Yesterday:  snapshot.DayCounts{Date: "2026-03-02", Scheduled: 5, Completed: 3},
		Totals:     snapshot.Totals{Technicians: 2, Jobs: 4, Unassigned: 1, Overdue: 1, OnHold: 2},
	}
}

func TestBriefingPageContent(t *testing.T) {
	t.Parallel()
	f := setup(t)
	insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: contentSnapshot()})
	r := f.as(&f.memberA).get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	body := r.Body
	doc := parseDoc(t, body)

	// The summary strip comes first, then the action items, then the routes.
	summary, actions, routes := strings.Index(body, `id="summary"`), strings.Index(body, `id="action-items"`), strings.Index(body, `id="routes"`)
	require.Positive(t, summary)
	require.Less(t, summary, actions)
	require.Less(t, actions, routes)
	counts := map[string]string{}
	for _, n := range doc.byID("summary").findAll(hasClass("summary-item")) {
		counts[n.attr("data-count")] = n.text()
	}
	require.Equal(t, map[string]string{
		"jobs": "3 jobs today", "technicians-out": "1 technician out", "emergencies": "1 emergency",
		"overdue": "1 overdue", "unassigned": "1 unassigned", "on-hold": "0 on hold",
	}, counts, "cancelled not counted; each job that needs action counted once")
	require.Contains(t, doc.byID("summary").text(), "1 cancelled (not in the count).")
	require.Contains(t, doc.byID("summary").text(), "Times in Eastern Time (New York) (EST). America/New_York", "the zone as people know it, the IANA id in small print")

	// Each job in one action section: Wayne is overdue, not on hold; Stark
	// unassigned, not on hold.
	section := func(id string) []string {
		var jobs []string
		for _, n := range doc.byID(id).findAll(hasClass("job")) {
			jobs = append(jobs, n.attr("data-job"))
		}
		return jobs
	}
	require.Equal(t, []string{"1"}, section("emergencies"))
	require.Equal(t, []string{"5"}, section("overdue"))
	require.Equal(t, []string{"4"}, section("unassigned"))
	require.Empty(t, section("on-hold"))
	require.Contains(t, doc.byID("on-hold").text(), "On hold (0)")
	require.Contains(t, doc.byID("unassigned").text(), "Stark Industries Stark Industries HQ none On hold")

	// Routes in arrival order, the cancelled job apart.
	techs := doc.findAll(hasClass("technician"))
	require.Len(t, techs, 2)
	require.Regexp(t, `^Ada Lovelace 555-0100 7:00 – 8:00 AM EST Fire Station .* 9:00 – 10:00 AM EST Initech Initech HQ Scheduled$`, techs[0].text())
	require.NotContains(t, techs[0].text(), "Gone Ltd")
	require.Contains(t, doc.byID("cancelled").text(), "Cancelled (1)")
	require.Contains(t, doc.byID("cancelled").text(), "Gone Ltd")

	// Links: the address as a map search, the phones as tel: links; the
	// hostile text is text, never markup.
	require.NotContains(t, body, "<script>alert")
	require.NotContains(t, body, "<b>")
	fire := techs[0].find(attrIs("data-job", "1"))
	require.NotNil(t, fire)
	addr := fire.find(hasClass("j-address"))
	require.Equal(t, "https://www.google.com/maps/search/?api=1&query=1+Elm+St+%26+2nd+Ave%2C+%22Unit+%233%22+%3Cscript%3Ealert%281%29%3C%2Fscript%3E",
		addr.attr("href"))
	require.Equal(t, nastyAddress, addr.text())
	require.Equal(t, "tel:+15550102030", fire.find(hasClass("j-phone")).attr("href"), "digits and a leading + only, the extension dropped")
	require.Equal(t, "tel:5550100", techs[0].find(hasClass("tel")).attr("href"))
	require.Contains(t, fire.text(), "Boiler repair")
	require.Contains(t, fire.text(), `Ask for "Sam" <b>`)
	require.Contains(t, fire.text(), "emergency")
}

// A snapshot stored before the briefing had a summary, action items and
// job flags still renders, with the sections derived from what it has.
func TestBriefingPageOldSnapshot(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := insertBriefing(t, f, f.orgA.ID, briefingRow{Date: "2026-03-03", Content: &snapshot.Snapshot{}})
	const old = `{"date":"2026-03-03","timezone":"America/New_York",
	 "day_start":"2026-03-03T00:00:00-05:00","day_end":"2026-03-04T00:00:00-05:00",
	 "generated_at":"2026-03-03T08:00:00-05:00",
	 "technicians":[{"id":1,"name":"Ada","phone":"555-0100","jobs":[
	   {"id":10,"customer":"Initech","address":"1 Main St","arrival_start":"2026-03-03T08:00:00-05:00",
	    "arrival_end":"2026-03-03T10:00:00-05:00","window":"08:00–10:00","status":"scheduled"},
	   {"id":11,"customer":"Gone","arrival_start":"2026-03-03T11:00:00-05:00",
	    "arrival_end":"2026-03-03T12:00:00-05:00","window":"11:00–12:00","status":"cancelled"}]}],
	 "unassigned":[{"id":12,"customer":"Stark","arrival_start":"2026-03-03T13:00:00-05:00",
	    "arrival_end":"2026-03-03T14:00:00-05:00","window":"13:00–14:00","status":"on_hold"}],
	 "overdue":[],
	 "on_hold":[{"id":12,"customer":"Stark","arrival_start":"2026-03-03T13:00:00-05:00",
	    "arrival_end":"2026-03-03T14:00:00-05:00","window":"13:00–14:00","status":"on_hold"}],
	 "yesterday":{"date":"2026-03-02","scheduled":2,"completed":1},
	 "totals":{"technicians":1,"jobs":3,"unassigned":1,"overdue":0,"on_hold":1}}`
	for _, q := range []string{`UPDATE ff_briefings SET content = $2 WHERE id = $1`, `UPDATE ff_briefing_revisions SET content = $2 WHERE briefing_id = $1`} {
		_, err := f.db.Exec(context.Background(), q, id, old)
		require.NoError(t, err)
	}
	r := f.as(&f.memberA).get(briefingsPath + "/2026-03-03")
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	doc := parseDoc(t, r.Body)
	require.Equal(t, "2 jobs today", doc.find(attrIs("data-count", "jobs")).text())
	require.Equal(t, "1 unassigned", doc.find(attrIs("data-count", "unassigned")).text())
	require.Equal(t, "0 on hold", doc.find(attrIs("data-count", "on-hold")).text(), "Stark is unassigned, not also on hold")
	require.Contains(t, doc.byID("cancelled").text(), "Gone")
	require.Contains(t, doc.find(hasClass("technician")).text(), "Ada 555-0100 8:00 – 10:00 AM EST Initech 1 Main St Scheduled", "the en-US org's clock")
	require.Contains(t, doc.find(attrIs("data-yesterday", "")).text(), "1 of 2 scheduled jobs completed")
}

// The page leads to the neighbouring dates: their briefings, or the
// reason the list gives for their having none.
func TestBriefingPageDayLinks(t *testing.T) {
	t.Parallel()
	f := setupCreated(t, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	saveConfig(t, f, f.orgA.ID, nyWeekdays)
	for _, d := range []string{"2026-03-02", "2026-03-03"} { // Mon, Tue
		insertBriefing(t, f, f.orgA.ID, briefingRow{Date: d, Content: contentSnapshot()})
	}
	nav := func(date string) (prev, next *htmlNode) {
		r := f.as(&f.memberA).get(briefingsPath + "/" + date)
		require.Equal(t, http.StatusOK, r.Code, r.Body)
		doc := parseDoc(t, r.Body)
		n := doc.find(hasClass("day-nav"))
		require.NotNil(t, n)
		return n.find(hasClass("day-prev")), n.find(hasClass("day-next"))
	}

	setClock(f, time.Date(2026, 3, 3, 15, 0, 0, 0, time.UTC)) // Tue 10:00 in New York
	prev, next := nav("2026-03-03")
	require.Equal(t, briefingsPath+"/2026-03-02", prev.attr("href"))
	require.Equal(t, "2026-03-04", next.attr("data-date"))
	require.Empty(t, next.attr("href"))
	require.Contains(t, next.text(), "not yet")

	prev, next = nav("2026-03-02")
	require.Equal(t, "2026-03-01", prev.attr("data-date"))
	require.Contains(t, prev.text(), "day off", "Sunday")
	require.Empty(t, prev.attr("href"))
	require.Equal(t, briefingsPath+"/2026-03-03", next.attr("href"))

	setClock(f, time.Date(2026, 3, 5, 15, 0, 0, 0, time.UTC)) // Thu
	_, next = nav("2026-03-03")
	require.Contains(t, next.text(), "missed")
}
