package delivery

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
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
	send := func(s snapshot.Snapshot) (transport.Message, mail.BriefingEmail) {
		c := content{OrgName: "Big Plumbing", Slug: "big", Date: schedule.Date{Year: 2026, Month: 3, Day: 10}, Zone: zone,
			Snapshot: s, OrgURL: "https://app.test/orgs/big"}
		m := emailModel(i18n.English, c, deliveryRow{Audience: AudienceDispatcher}, "https://app.test/orgs/big/briefings/2026-03-10")
		msg, err := fitEmail(context.Background(), m, func(text, html string) transport.Message {
			return transport.Message{From: "fb@app.test", To: "dispatch@big.test", Subject: "Briefing", Text: text, HTML: html,
				MessageID: "fb.1@app.test", UnsubscribeURL: "https://app.test/u"}
		})
		require.NoError(t, err)
		return msg, m
	}

	msg, m := send(snap(120, 50))
	size, err := transport.Size(msg)
	require.NoError(t, err)
	require.LessOrEqual(t, size, int64(MaxEmailBytes))
	require.Greater(t, size, int64(MaxEmailBytes/2), "shortened no more than it had to be")
	require.Contains(t, msg.Text, "shortened to stay under 1 MB")
	require.Contains(t, msg.HTML, `data-section="shortened"`)
	require.Contains(t, msg.Text, "6,000 jobs", "the summary counts every job")
	require.Len(t, m.Routes, 120)
	require.Contains(t, msg.Text, "https://app.test/orgs/big/jobs?date=2026-03-10&technician=120", "the last route links the rest")

	msg, _ = send(snap(2, 3))
	require.NotContains(t, msg.Text, "shortened")
	require.NotContains(t, msg.Text, "more")
	require.Equal(t, 6, strings.Count(msg.Text, "Water heater"), "every job")
}

// TestTechnicianEmailUnderMaxBytes: a technician's day of 50 jobs and 50
// overdue ones, every field as long as field validation allows, of
// characters that grow the most once escaped and encoded, reaches the
// SMTP server at most MaxEmailBytes: shortened like a dispatcher's, each
// list counting what it leaves out and pointing to the day link, never
// failed for good.
func TestTechnicianEmailUnderMaxBytes(t *testing.T) {
	t.Parallel()
	sink := transporttest.NewSMTPServer(t)
	mailer, err := transport.NewMailer(sink.URL, nil)
	require.NoError(t, err)
	s := &Sender{Mailer: mailer, From: "Fieldbrief <briefings@fieldbrief.example>", BaseURL: "https://app.example.com"}
	zone, err := schedule.LoadZone("America/Chicago")
	require.NoError(t, err)
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, zone.Loc)
	dayURL := "https://app.example.com/t/" + strings.Repeat("d", 43)
	ex := extras{unsubscribeURL: "https://app.example.com/unsubscribe?t=" + strings.Repeat("u", 120), dayURL: dayURL}
	for i, ch := range []string{"😀", "&", "é"} {
		long := func(n int) string { return strings.Repeat(ch, n) }
		line := func(id int64, start time.Time) snapshot.JobLine {
			return snapshot.JobLine{ID: id, Customer: long(field.MaxCustomer), Address: long(field.MaxAddress),
				TechnicianID: 1, Technician: long(field.MaxName), ArrivalStart: start, ArrivalEnd: start.Add(time.Hour),
				Window: start.Format("15:04") + "–" + start.Add(time.Hour).Format("15:04"), Status: "scheduled",
				JobType: long(field.MaxJobType), Emergency: true, CustomerPhone: strings.Repeat("5", field.MaxPhone),
				Notes: long(field.MaxNotes), ExternalRef: long(field.MaxExternalRef)}
		}
		td := snapshot.TechnicianDay{ID: 1, Name: long(field.MaxName), Phone: strings.Repeat("5", field.MaxPhone)}
		for k := range 50 {
			td.Jobs = append(td.Jobs, line(int64(k+1), day.Add(time.Duration(7*60+k*5)*time.Minute)))
			td.Overdue = append(td.Overdue, line(int64(k+101), day.AddDate(0, 0, -k-1)))
		}
		snap := snapshot.Snapshot{Date: "2026-03-10", Timezone: zone.Name, DayStart: day, DayEnd: day.AddDate(0, 0, 1),
			Technicians: []snapshot.TechnicianDay{td}, OwnOverdue: true}
		cont := content{OrgName: long(field.MaxName), Slug: "big", Date: schedule.Date{Year: 2026, Month: 3, Day: 10}, Zone: zone, Snapshot: snap}
		d := deliveryRow{ID: int64(i + 1), OrgID: 1, Key: fmt.Sprintf("msg_%d", i), Recipient: fmt.Sprintf("ana%d@example.com", i),
			Channel: ChannelEmail, Audience: AudienceTechnician, TechnicianID: 1}
		require.NoError(t, s.sendEmail(context.Background(), d, cont, ex), "%q", ch)

		msgs := sink.Messages()
		require.Len(t, msgs, i+1)
		got := msgs[i]
		t.Logf("%q: %d bytes", ch, len(got.Raw))
		require.LessOrEqual(t, len(got.Raw), MaxEmailBytes, "%q", ch)
		require.Greater(t, len(got.Raw), MaxEmailBytes/4, "%q: shortened no more than it had to be", ch)
		text, html, err := got.Bodies()
		require.NoError(t, err)
		text = strings.ReplaceAll(text, "\r\n", "\n")
		require.Contains(t, text, "shortened to stay under 1 MB", ch)
		require.Contains(t, text, "Open your day for the rest.", ch)
		require.Contains(t, text, "YOUR JOBS (50)\n", ch)
		require.Contains(t, text, "OVERDUE (50)\n", ch)
		require.Regexp(t, `and \d+ more: `+regexp.QuoteMeta(dayURL)+`\n\nOVERDUE`, text, ch)
		require.Contains(t, html, `href="`+dayURL+`"`, ch)
		require.NotContains(t, text+html, "/orgs/", "%q: no page that needs an account", ch)
	}
}
