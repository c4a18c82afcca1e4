package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/delivery"
	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport/transporttest"
)

// TestOverdueBriefingBounded: an org with 50,000 overdue jobs gets its
// briefing through the real generation task and SMTP: the stored revision
// and every email are under 1 MiB (they were 50 MB and 55 MB), the overdue
// section lists 50 jobs and says how many more, with a link to the board
// (docs/briefing-content.md, "Bounds").
func TestOverdueBriefingBounded(t *testing.T) {
	f := setup(t)
	sink := transporttest.NewSMTPServer(t)
	org := f.Org("big", deliveryConfig("America/Chicago", "06:30", []string{"dispatch@big.test"}, true, ""))
	al := f.techWithEmail(org, "Al", "al@big.test")
	bea := f.techWithEmail(org, "Bea", "bea@big.test")
	f.Job(org, al, "Al's visit today", utc("2026-03-10T14:00:00Z"), utc("2026-03-10T15:00:00Z"), "scheduled")
	// Chicago's day starts at 05:00 UTC (CDT).
	require.NoError(t, testutil.InsertOverdueJobs(f.Ctx, f.DB, org, []int64{al, bea}, 50000, utc("2026-03-10T05:00:00Z")))

	now := utc("2026-03-10T11:31:00Z")
	res := f.runOnceWith(f.deliveringWorker(sink.URL, func() time.Time { return now }), now)
	require.Equal(t, 1, res.Tick.Enqueued)
	require.Empty(t, res.Pending)

	var revision int
	require.NoError(t, f.DB.QueryRow(f.Ctx, `SELECT octet_length(content::text) FROM ff_briefing_revisions WHERE org_id = $1`, org).Scan(&revision))
	require.LessOrEqual(t, revision, snapshot.MaxBytes)
	t.Logf("revision: %d bytes", revision)

	msgs := sink.Messages()
	require.Equal(t, 2, len(msgs), "the dispatcher and Al (a visit today); Bea has overdue jobs only: no visit, no email")
	var text, html, alText string
	for _, m := range msgs {
		require.LessOrEqual(t, len(m.Raw), delivery.MaxEmailBytes, "to %v", m.To)
		t.Logf("email to %v: %d bytes", m.To, len(m.Raw))
		var err error
		switch m.To[0] {
		case "dispatch@big.test":
			text, html, err = m.Bodies()
		case "al@big.test":
			alText, _, err = m.Bodies()
		}
		require.NoError(t, err)
	}
	// Al's own 25,000: 50 listed, the rest counted and linked to his day.
	require.Contains(t, alText, "OVERDUE (25,000)")
	require.Contains(t, alText, "and 24,950 more: https://app.fieldbrief.test/t/")
	require.Equal(t, 50, strings.Count(alText, "Water heater repair"))
	// 50,000 overdue, of which 515 (every 97th) are emergencies.
	require.Contains(t, text, "Overdue (49,485)")
	require.Contains(t, text, "and 49,435 more: https://app.fieldbrief.test/orgs/big/board?date=2026-03-10#overdue")
	require.Contains(t, html, `href="https://app.fieldbrief.test/orgs/big/board?date=2026-03-10#overdue"`)
	require.Contains(t, text, "Emergencies (515)")
	require.Contains(t, text, "and 465 more")
	require.Equal(t, 50+50, strings.Count(text, "Water heater repair"), "50 emergencies, 50 overdue")
	require.Equal(t, 1, strings.Count(text, "Al's visit today street"), "in Al's route")
	require.NotContains(t, text, "shortened")
}
