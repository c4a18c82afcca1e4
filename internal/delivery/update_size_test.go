package delivery

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/field"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/updates"
)

// longestChanges are n job changes on a technician's day, every field at
// the longest field validation allows, of characters that grow the most
// once escaped and encoded (c), and every field changed.
func longestChanges(t *testing.T, n int, c string) updateContent {
	t.Helper()
	zone, err := schedule.LoadZone("America/Chicago")
	require.NoError(t, err)
	day := schedule.Date{Year: 2026, Month: 3, Day: 10}
	start := time.Date(2026, 3, 10, 9, 0, 0, 0, zone.Loc)
	long := func(max int, last string) string { return strings.Repeat(c, max-1) + last }
	state := func(id int64, last string, at time.Time) updates.JobState {
		return updates.JobState{ID: id, ExternalRef: long(field.MaxExternalRef, last), TechnicianID: 1,
			Technician: long(field.MaxName, last), TechnicianRef: long(field.MaxExternalRef, last),
			Customer: long(field.MaxCustomer, last), CustomerPhone: strings.Repeat(last, field.MaxPhone),
			Address: long(field.MaxAddress, last), Start: at, End: at.Add(time.Hour),
			JobType: long(field.MaxJobType, last), Notes: long(field.MaxNotes, last), Status: "scheduled"}
	}
	u := updateContent{OrgName: long(field.MaxName, "o"), Slug: "acme", Date: day, Zone: zone, UpdateID: 7, TechnicianID: 1}
	for i := range n {
		id := int64(i + 1)
		at := start.Add(time.Duration(i) * time.Minute)
		before, after := state(id, "1", at), state(id, "2", at.Add(time.Hour))
		after.Status, after.Emergency = "on_hold", true
		u.Rows = append(u.Rows, updates.Row{ID: id, JobID: id, TechnicianID: 1, Date: day, WasOn: true, IsOn: true,
			Before: &before, After: after})
	}
	return u
}

// TestUpdateEmailUnderMaxBytes: an update of 60 jobs whose every field
// is as long as allowed is sent under MaxEmailBytes as the SMTP
// server counts it, listing fewer jobs and counting the rest; a small
// update lists every job.
func TestUpdateEmailUnderMaxBytes(t *testing.T) {
	t.Parallel()
	s := &Sender{From: "Fieldbrief <briefings@fieldbrief.example>", BaseURL: "https://app.example.com", Now: func() time.Time { return time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC) }}
	d := deliveryRow{ID: 3, OrgID: 1, Key: "upd_test", Recipient: "ana@example.com", Channel: ChannelEmail, Audience: AudienceTechnician}
	ex := extras{unsubscribeURL: "https://app.example.com/unsubscribe?token=" + strings.Repeat("u", 120),
		dayURL: "https://app.example.com/t/" + strings.Repeat("d", 43)}
	for _, c := range []string{"😀", "&", "é"} {
		m, err := s.updateMessage(context.Background(), i18n.English, d, longestChanges(t, 60, c), ex)
		require.NoError(t, err, c)
		size, err := transport.Size(m)
		require.NoError(t, err)
		require.LessOrEqual(t, size, int64(MaxEmailBytes), "%q: %d bytes", c, size)
		require.Contains(t, m.Text, "jobs changed on your day", c)
		require.Regexp(t, `And \d+ more: open your day`, m.Text, c)
		require.Contains(t, m.HTML, "/t/"+strings.Repeat("d", 43), "the day link stays")
	}

	m, err := s.updateMessage(context.Background(), i18n.English, d, longestChanges(t, 3, "a"), ex)
	require.NoError(t, err)
	require.Contains(t, m.Text, "3 jobs changed on your day.")
	require.NotContains(t, m.Text, "more: open your day")
}

// TestUpdateWebhookUnderMaxBytes: a briefing.updated event of 60 changes
// whose every field is as long as allowed stays under
// maxUpdatePayloadBytes, listing fewer changes and counting the rest in
// more; a small one lists them all.
func TestUpdateWebhookUnderMaxBytes(t *testing.T) {
	t.Parallel()
	s := &Sender{BaseURL: "https://app.example.com", Now: func() time.Time { return time.Unix(1_773_000_000, 0) }}
	for _, c := range []string{"<", "😀", "\u2028"} {
		payload, err := s.updatePayload(longestChanges(t, 60, c))
		require.NoError(t, err, c)
		require.LessOrEqual(t, len(payload), maxUpdatePayloadBytes, "%q: %d bytes", c, len(payload))
		var ev UpdateEvent
		require.NoError(t, json.Unmarshal(payload, &ev))
		require.NotEmpty(t, ev.Data.Changes, c)
		require.Equal(t, 60, len(ev.Data.Changes)+ev.Data.More, c)
	}

	payload, err := s.updatePayload(longestChanges(t, 3, "a"))
	require.NoError(t, err)
	var ev UpdateEvent
	require.NoError(t, json.Unmarshal(payload, &ev))
	require.Len(t, ev.Data.Changes, 3)
	require.Zero(t, ev.Data.More)
}
