package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/views"
	"fieldbrief/views/mail"
)

// TestPageAndEmailShowTheSameContent: the briefing page and the dispatcher's
// email list the same jobs in the same order (action items, routes,
// cancelled), since both render View's model.
func TestPageAndEmailShowTheSameContent(t *testing.T) {
	t.Parallel()
	zone, err := schedule.LoadZone("America/New_York")
	require.NoError(t, err)
	at := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, zone.Loc) }
	job := func(id int64, d, h int, status, tech string) snapshot.JobLine {
		window := fmt.Sprintf("%02d:00–%02d:00", h, h+1)
		if d != 8 { // the briefing's day; others carry their date
			window = fmt.Sprintf("2026-03-%02d %s", d, window)
		}
		return snapshot.JobLine{ID: id, Customer: "Customer " + string(rune('A'+id)), Address: "1 Elm St & 2nd", Status: status, Technician: tech,
			ArrivalStart: at(d, h), ArrivalEnd: at(d, h+1), Window: window}
	}
	// 2026-03-08 is the spring-forward day in New York: EST then EDT.
	emerg := job(1, 8, 7, "scheduled", "Al")
	emerg.Emergency, emerg.CustomerPhone = true, "+1 212 555 0100"
	s := snapshot.Snapshot{Date: "2026-03-08", Timezone: zone.Name, DayStart: at(8, 0), DayEnd: at(9, 0),
		Technicians: []snapshot.TechnicianDay{
			{ID: 1, Name: "Al", Jobs: []snapshot.JobLine{emerg, job(2, 8, 9, "scheduled", "Al"), job(3, 8, 10, "cancelled", "Al")}},
			{ID: 2, Name: "Bea", Jobs: []snapshot.JobLine{job(4, 8, 12, "in_progress", "Bea")}},
		},
		Unassigned: []snapshot.JobLine{job(5, 8, 13, "scheduled", "")},
		Overdue:    []snapshot.JobLine{of(2, job(6, 6, 9, "on_hold", "Bea")), of(1, job(8, 7, 9, "scheduled", "Al"))},
		OnHold:     []snapshot.JobLine{job(6, 6, 9, "on_hold", "Bea"), job(7, 12, 9, "on_hold", "Al")},
	}
	v := snapshot.View(s, zone.Loc)
	require.Equal(t, "EST/EDT", v.Zone)
	require.Equal(t, "EDT", v.Routes[0].Jobs[0].Zone, "after the change")
	require.Equal(t, "EST", v.ActionItems.Overdue[0].Zone, "two days before")

	var page bytes.Buffer
	require.NoError(t, views.Briefing(views.BriefingPage{Date: s.Date, Content: &v}).Render(context.Background(), &page))
	c := content{OrgName: "Acme", Slug: "acme", Date: schedule.Date{Year: 2026, Month: 3, Day: 8}, Zone: zone, Snapshot: s}
	var email bytes.Buffer
	require.NoError(t, mail.HTML(emailModel(i18n.English, c, deliveryRow{Audience: AudienceDispatcher}, "https://x.test/b")).Render(context.Background(), &email))

	// emergency, overdue, unassigned; Al's route, Bea's; cancelled. Job 7,
	// on hold for the 12th, is no item of the 8th: on hold counts a job
	// whose window has begun by the day's end (docs/briefing-content.md, the table of sections).
	want := []string{"1", "6", "8", "5", "1", "2", "4", "3"}
	require.Equal(t, want, dataJobs(t, page.String()))
	require.Equal(t, want, dataJobs(t, email.String()))
	require.Contains(t, email.String(), "7:00\u2009–\u20098:00\u202fAM EDT", "the org's clock (en-US)")
	require.Contains(t, email.String(), "Fri, Mar 6 9:00\u2009–\u200910:00\u202fAM EST", "another day's window has its date")
	var de bytes.Buffer
	require.NoError(t, mail.HTML(emailModel(i18n.New("de", "de-DE"), c, deliveryRow{Audience: AudienceDispatcher}, "https://x.test/b")).Render(context.Background(), &de))
	require.Equal(t, want, dataJobs(t, de.String()))
	require.Contains(t, de.String(), "07:00–08:00 Uhr UTC−4", "a German reader: the offset, not the English letters (docs/i18n.md, \"Zone abbreviations\")")
	require.Contains(t, de.String(), "Fr., 6. März 09:00–10:00 Uhr UTC−5")
	require.Contains(t, de.String(), "Acme · Briefing für So., 8. März")
	require.Contains(t, email.String(), `href="https://www.google.com/maps/search/?api=1&amp;query=1+Elm+St+%26+2nd"`)
	require.Contains(t, page.String(), `href="https://www.google.com/maps/search/?api=1&amp;query=1+Elm+St+%26+2nd"`)
	require.Contains(t, email.String(), `href="tel:+12125550100"`)
	require.Contains(t, page.String(), `href="tel:+12125550100"`)

	// A technician's email is their own day only: their route, then their
	// overdue jobs (the dispatcher's list holds everyone's).
	var own bytes.Buffer
	m := emailModel(i18n.English, c, deliveryRow{Audience: AudienceTechnician, TechnicianID: 2}, "https://x.test/b")
	require.NoError(t, mail.HTML(m).Render(context.Background(), &own))
	require.Equal(t, []string{"4", "6"}, dataJobs(t, own.String()))
	require.Equal(t, "Your day, Sun, Mar 8: 1 job, 12:00\u202fPM at 1 Elm St & 2nd · 1 overdue", m.Subject())
	require.NotContains(t, mail.Text(m), "Customer A", "another technician's job")

	// Al's: two visits (the cancelled one apart), one overdue.
	m = emailModel(i18n.English, c, deliveryRow{Audience: AudienceTechnician, TechnicianID: 1}, "https://x.test/b")
	require.Equal(t, "Your day, Sun, Mar 8: 2 jobs, first 7:00\u202fAM at 1 Elm St & 2nd · 1 overdue · 1 cancelled", m.Subject())
}

// of marks a job as technician id's.
func of(id int64, j snapshot.JobLine) snapshot.JobLine {
	j.TechnicianID = id
	return j
}

func TestFirstVisit(t *testing.T) {
	t.Parallel()
	loc, err := schedule.LoadZone("America/Chicago")
	require.NoError(t, err)
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, loc.Loc)
	for _, c := range []struct {
		j    snapshot.JobLine
		want string
	}{
		{snapshot.JobLine{ArrivalStart: at.UTC(), Address: "500 W 2nd St, Austin, TX 78701", Customer: "Ana"}, "8:00\u202fAM at 500 W 2nd St"},
		{snapshot.JobLine{ArrivalStart: at, Address: "  ", Customer: "Dogwood  Bakery\n"}, "8:00\u202fAM at Dogwood Bakery"},
		{snapshot.JobLine{Window: "09:30–10:00", Address: "1 Elm St"}, "09:30 at 1 Elm St"},
		{snapshot.JobLine{ArrivalStart: at, Address: strings.Repeat("ü", 70)}, "8:00\u202fAM at " + strings.Repeat("ü", 59) + "…"},
	} {
		require.Equal(t, c.want, firstVisit(i18n.English, c.j, loc.Loc))
	}
	// In the reader's language and clock (docs/i18n.md).
	j := snapshot.JobLine{ArrivalStart: at.UTC(), Address: "500 W 2nd St, Austin, TX 78701"}
	require.Equal(t, "um 08:00, 500 W 2nd St", firstVisit(i18n.New("de", "de-DE"), j, loc.Loc))
	require.Equal(t, "a las 8:00\u202fa.m. en 500 W 2nd St", firstVisit(i18n.New("es", "es-US"), j, loc.Loc))
}

// dataJobs lists the data-job attributes of a document, in order.
func dataJobs(t *testing.T, doc string) []string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	require.NoError(t, err)
	var out []string
	for n := range root.Descendants() {
		for _, a := range n.Attr {
			if a.Key == "data-job" {
				out = append(out, a.Val)
			}
		}
	}
	return out
}

// TestDeliveryKey: a delivery's key names its briefing, revision, channel
// and recipient, whatever the address's case, so every retry and re-send of
// it carries the same Message-ID or webhook-id.
func TestDeliveryKey(t *testing.T) {
	t.Parallel()
	key := deliveryKey(7, 1, ChannelEmail, "Greylisted@ACME.test")
	require.Equal(t, key, deliveryKey(7, 1, ChannelEmail, "greylisted@acme.test"))
	require.True(t, strings.HasPrefix(key, "msg_"))
	for _, other := range []string{deliveryKey(8, 1, ChannelEmail, "greylisted@acme.test"), deliveryKey(7, 2, ChannelEmail, "greylisted@acme.test"),
		deliveryKey(7, 1, ChannelWebhook, "greylisted@acme.test"), deliveryKey(7, 1, ChannelEmail, "other@acme.test")} {
		require.NotEqual(t, key, other)
	}
}

// TestTechnicianEmailOfOldRevision: a revision stored before technicians
// carried their own overdue jobs still renders: a technician's are picked
// from the org's overdue list; a new one's come from their own list, with
// its count.
func TestTechnicianEmailOfOldRevision(t *testing.T) {
	t.Parallel()
	zone, err := schedule.LoadZone("America/Chicago")
	require.NoError(t, err)
	c := content{OrgName: "Acme", Slug: "acme", Date: schedule.Date{Year: 2026, Month: 11, Day: 26}, Zone: zone}
	old := `{"date": "2026-11-26", "timezone": "America/Chicago",
		"technicians": [{"id": 7, "name": "Ana", "jobs": [{"id": 1, "customer": "Dogwood", "window": "08:00–09:00", "status": "scheduled"}]}],
		"overdue": [{"id": 2, "customer": "Ana's old job", "technician_id": 7, "window": "2026-11-24 09:00–10:00", "status": "scheduled"},
		            {"id": 3, "customer": "Ben's old job", "technician_id": 8, "window": "2026-11-24 09:00–10:00", "status": "on_hold"}]}`
	require.NoError(t, json.Unmarshal([]byte(old), &c.Snapshot))
	d := deliveryRow{Audience: AudienceTechnician, TechnicianID: 7}
	m := emailModel(i18n.English, c, d, "https://app.test/orgs/acme/briefings/2026-11-26")
	require.Len(t, m.Own.Overdue, 1)
	require.Equal(t, "Ana's old job", m.Own.Overdue[0].Customer)
	require.Zero(t, m.Own.MoreOverdue)

	c.Snapshot.OwnOverdue = true
	c.Snapshot.Technicians[0].Overdue = []snapshot.JobLine{{ID: 4, Customer: "Ana's own", TechnicianID: 7, Status: "scheduled"}}
	c.Snapshot.Technicians[0].MoreOverdue = 9
	m = emailModel(i18n.English, c, d, "https://app.test/orgs/acme/briefings/2026-11-26")
	require.Equal(t, "Ana's own", m.Own.Overdue[0].Customer)
	require.Len(t, m.Own.Overdue, 1, "the org's list is not read for a new revision")
	require.Equal(t, 9, m.Own.MoreOverdue)
	require.Contains(t, m.Subject(), "· 10 overdue")
}
