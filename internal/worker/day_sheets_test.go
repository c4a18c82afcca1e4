package worker

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/transport/transporttest"
)

// TestDaySheetsAreWork (docs/delivery.md, "Stopping day sheets"): a
// technician's day sheet carries no one-click unsubscribe (no
// List-Unsubscribe header, no link), the dispatchers' briefing keeps it
// (RFC 8058); a technician who asked not to receive day sheets is not
// mailed, and their delivery is recorded as skipped with when they asked,
// for the office to see; an address suppressed by the dispatchers' list
// does not silently stop a technician's day sheet.
func TestDaySheetsAreWork(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("sheets", deliveryConfig("Etc/UTC", "07:00", []string{"dispatch@sheets.test"}, true, ""))
	ana := f.techWithEmail(org, "Ana", "ana@sheets.test")
	ben := f.techWithEmail(org, "Ben", "ben@sheets.test")
	cy := f.techWithEmail(org, "Cy", "cy@sheets.test")
	for _, tech := range []int64{ana, ben, cy} {
		f.Job(org, tech, "Customer", utc("2026-03-10T09:00:00Z"), utc("2026-03-10T10:00:00Z"), "scheduled")
	}
	_, err := f.DB.Exec(f.Ctx, `UPDATE technicians SET day_sheets_stopped_at = '2026-03-09T16:30:00Z' WHERE id = $1`, ben)
	require.NoError(t, err)
	// Cy once clicked an unsubscribe link as a dispatcher recipient would:
	// that stops the dispatchers' briefing to the address, not his day.
	_, err = f.DB.Exec(f.Ctx, `INSERT INTO email_suppressions (org_id, email) VALUES ($1, 'cy@sheets.test')`, org)
	require.NoError(t, err)

	f.runOnceWith(f.deliveringWorker(sink.URL, nil), utc("2026-03-10T07:00:00Z"))
	require.Equal(t, map[string]string{"dispatch@sheets.test": "sent/1", "ana@sheets.test": "sent/1", "ben@sheets.test": "skipped/0",
		"cy@sheets.test": "sent/1"}, f.deliveryStates(org))
	var code, detail string
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT last_code, last_detail FROM ff_deliveries WHERE org_id = $1 AND technician_id = $2`,
		org, ben).Scan(&code, &detail))
	require.Equal(t, delivery.SkippedStopped, code)
	require.Equal(t, "2026-03-09T16:30:00Z", detail)

	msgs := sink.Messages()
	require.Equal(t, 3, len(msgs))
	for _, m := range msgs {
		parsed, err := m.Parse()
		require.NoError(t, err)
		text, html, err := m.Bodies()
		require.NoError(t, err)
		to := strings.Join(m.To, ",")
		if to == "dispatch@sheets.test" {
			require.Contains(t, parsed.Header.Get("List-Unsubscribe"), "https://app.fieldbrief.test/unsubscribe?t=")
			require.Equal(t, "List-Unsubscribe=One-Click", parsed.Header.Get("List-Unsubscribe-Post"))
			require.Contains(t, html, "/unsubscribe?t=")
			continue
		}
		require.Empty(t, parsed.Header.Get("List-Unsubscribe"), to)
		require.Empty(t, parsed.Header.Get("List-Unsubscribe-Post"), to)
		require.NotContains(t, text+html, "unsubscribe", to)
		// How they ask to stop: on their day page (views/mail tests the
		// link; this date's links are over on the real clock), never here.
		require.Contains(t, text, "Don't want it by email? Tell your office", to)
		require.Contains(t, html, "data-stop-day-sheets", to)
	}
}
