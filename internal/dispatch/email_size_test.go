package dispatch

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/views/mail"
)

// TestEmailUnderMaxBytes: a day whose email would be megabytes (120
// technicians with 50 jobs each, notes on every job) is sent shortened,
// under MaxEmailBytes as the SMTP server counts it, saying so and keeping
// its counts; a small day's email is not touched.
func TestEmailUnderMaxBytes(t *testing.T) {
	t.Parallel()
	zone, err := schedule.LoadZone("America/Chicago")
	require.NoError(t, err)
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, zone.Loc)
	snap := func(techs, jobs int) snapshot.Snapshot {
		s := snapshot.Snapshot{Date: "2026-03-10", Timezone: zone.Name, DayStart: day, DayEnd: day.AddDate(0, 0, 1)}
		id := int64(0)
		for i := range techs {
			td := snapshot.TechnicianDay{ID: int64(i + 1), Name: fmt.Sprintf("Technician %d", i+1)}
			for k := range jobs {
				id++
				start := day.Add(time.Duration(7*60+k*5) * time.Minute)
				td.Jobs = append(td.Jobs, snapshot.JobLine{ID: id, Customer: fmt.Sprintf("Customer %d", id),
					Address: fmt.Sprintf("%d W 2nd St, Austin, TX 78701", id), ArrivalStart: start, ArrivalEnd: start.Add(time.Hour),
					Window: start.Format("15:04") + "–" + start.Add(time.Hour).Format("15:04"), Status: "scheduled",
					CustomerPhone: "+1 512 555 0100", JobType: "Water heater", Notes: strings.Repeat("Gate code 1234. ", 12)})
			}
			s.Technicians = append(s.Technicians, td)
		}
		return s
	}
	send := func(s snapshot.Snapshot) (delivery.Message, mail.BriefingEmail) {
		c := content{OrgName: "Big Plumbing", Slug: "big", Date: schedule.Date{Year: 2026, Month: 3, Day: 10}, Zone: zone,
			Snapshot: s, OrgURL: "https://app.test/orgs/big"}
		m := emailModel(c, deliveryRow{Audience: AudienceDispatcher}, "https://app.test/orgs/big/briefings/2026-03-10")
		msg, err := fitEmail(context.Background(), m, func(text, html string) delivery.Message {
			return delivery.Message{From: "fb@app.test", To: "dispatch@big.test", Subject: "Briefing", Text: text, HTML: html,
				MessageID: "fb.1@app.test", UnsubscribeURL: "https://app.test/u"}
		})
		require.NoError(t, err)
		return msg, m
	}

	msg, m := send(snap(120, 50))
	size, err := delivery.Size(msg)
	require.NoError(t, err)
	require.LessOrEqual(t, size, int64(MaxEmailBytes))
	require.Greater(t, size, int64(MaxEmailBytes/2), "shortened no more than it had to be")
	require.Contains(t, msg.Text, "shortened to stay under 1 MB")
	require.Contains(t, msg.HTML, `data-section="shortened"`)
	require.Contains(t, msg.Text, "6000 jobs", "the summary counts every job")
	require.Len(t, m.Routes, 120)
	require.Contains(t, msg.Text, "https://app.test/orgs/big/jobs?date=2026-03-10&technician=120", "the last route links the rest")

	msg, _ = send(snap(2, 3))
	require.NotContains(t, msg.Text, "shortened")
	require.NotContains(t, msg.Text, "more")
	require.Equal(t, 6, strings.Count(msg.Text, "Water heater"), "every job")
}
