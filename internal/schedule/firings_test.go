package schedule_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// runLine is a Firing in one readable line: date, local wall clock, UTC, offset, note.
func runLine(r schedule.Firing) string {
	line := r.Date.String() + " " + r.Local.Format("15:04") + " " + r.UTC.Format("2006-01-02T15:04Z") + " " + r.Offset
	if r.Note != schedule.DSTNone {
		line += " " + string(r.Note)
	}
	return line
}

func runLines(runs []schedule.Firing) []string {
	lines := make([]string, len(runs))
	for i, r := range runs {
		lines[i] = runLine(r)
	}
	return lines
}

func TestNextFirings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		from string
		s    schedule.Schedule
		n    int
		want []string
	}{
		{"New York spring forward", "2026-03-07T00:00:00Z", daily(t, "America/New_York", "02:30"), 3, []string{
			"2026-03-07 02:30 2026-03-07T07:30Z UTC−05:00",
			"2026-03-08 03:00 2026-03-08T07:00Z UTC−04:00 gap",
			"2026-03-09 02:30 2026-03-09T06:30Z UTC−04:00",
		}},
		{"New York fall back", "2026-10-31T12:00:00Z", daily(t, "America/New_York", "01:30"), 2, []string{
			"2026-11-01 01:30 2026-11-01T05:30Z UTC−04:00 overlap",
			"2026-11-02 01:30 2026-11-02T06:30Z UTC−05:00",
		}},
		{"today's run already passed", "2026-03-09T12:00:01Z", weekdays(t, "America/New_York", "08:00"), 2, []string{
			"2026-03-10 08:00 2026-03-10T12:00Z UTC−04:00",
			"2026-03-11 08:00 2026-03-11T12:00Z UTC−04:00",
		}},
		{"a run exactly at from is included", "2026-03-09T12:00:00Z", weekdays(t, "America/New_York", "08:00"), 1, []string{
			"2026-03-09 08:00 2026-03-09T12:00Z UTC−04:00",
		}},
		{"weekdays skip the weekend", "2026-03-06T13:00:01Z", weekdays(t, "America/New_York", "08:00"), 2, []string{
			"2026-03-09 08:00 2026-03-09T12:00Z UTC−04:00",
			"2026-03-10 08:00 2026-03-10T12:00Z UTC−04:00",
		}},
		{"Lord Howe 30-minute shift", "2026-10-03T00:00:00Z", daily(t, "Australia/Lord_Howe", "02:15"), 2, []string{
			"2026-10-04 02:30 2026-10-03T15:30Z UTC+11:00 gap",
			"2026-10-05 02:15 2026-10-04T15:15Z UTC+11:00",
		}},
		{"Santiago fall back Saturday", "2026-04-04T12:00:00Z", daily(t, "America/Santiago", "23:30"), 2, []string{
			"2026-04-04 23:30 2026-04-05T02:30Z UTC−03:00 overlap",
			"2026-04-05 23:30 2026-04-06T03:30Z UTC−04:00",
		}},
		{"Santiago spring forward Sunday", "2026-09-05T12:00:00Z", daily(t, "America/Santiago", "00:30"), 2, []string{
			"2026-09-06 01:00 2026-09-06T04:00Z UTC−03:00 gap",
			"2026-09-07 00:30 2026-09-07T03:30Z UTC−03:00",
		}},
		{"Chatham", "2026-09-26T00:00:00Z", daily(t, "Pacific/Chatham", "03:00"), 2, []string{
			"2026-09-27 03:45 2026-09-26T14:00Z UTC+13:45 gap",
			"2026-09-28 03:00 2026-09-27T13:15Z UTC+13:45",
		}},
		{"Kathmandu", "2026-06-01T00:00:00Z", daily(t, "Asia/Kathmandu", "08:00"), 1, []string{
			"2026-06-01 08:00 2026-06-01T02:15Z UTC+05:45",
		}},
		{"Apia skips 2011-12-30", "2011-12-29T10:00:00Z", daily(t, "Pacific/Apia", "08:00"), 3, []string{
			"2011-12-29 08:00 2011-12-29T18:00Z UTC−10:00",
			"2011-12-31 08:00 2011-12-30T18:00Z UTC+14:00",
			"2012-01-01 08:00 2011-12-31T18:00Z UTC+14:00",
		}},
		{"Apia at midnight skips 2011-12-30 too", "2011-12-29T10:00:00Z", daily(t, "Pacific/Apia", "00:00"), 3, []string{
			"2011-12-29 00:00 2011-12-29T10:00Z UTC−10:00",
			"2011-12-31 00:00 2011-12-30T10:00Z UTC+14:00",
			"2012-01-01 00:00 2011-12-31T10:00Z UTC+14:00",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs := schedule.NextFirings(instant(t, tt.from), tt.s, tt.n)
			require.Equal(t, tt.want, runLines(runs))
			for _, r := range runs {
				require.Equal(t, tt.s.At, r.Scheduled)
				require.Equal(t, tt.s.Zone.Loc, r.Local.Location())
				require.Equal(t, time.UTC, r.UTC.Location())
				require.True(t, r.Local.Equal(r.UTC))
			}
		})
	}
}

func TestNextFiringsAgreesWithDecide(t *testing.T) {
	t.Parallel()
	s := weekdays(t, "America/New_York", "02:30")
	for _, r := range schedule.NextFirings(instant(t, "2026-03-01T00:00:00Z"), s, 20) {
		before := schedule.Decide(r.UTC.Add(-time.Second), s, never)
		at := schedule.Decide(r.UTC, s, never)
		require.Equal(t, schedule.ReasonNotYet, before.Reason, runLine(r))
		require.Equal(t, schedule.ReasonDue, at.Reason, runLine(r))
		require.Equal(t, r.Date, at.Date)
		require.True(t, r.UTC.Equal(at.FireAt), runLine(r))
	}
}

func TestNextFiringsIgnoresEnabled(t *testing.T) {
	t.Parallel()
	s := daily(t, "Europe/Berlin", "08:00")
	s.Enabled = false
	require.Len(t, schedule.NextFirings(instant(t, "2026-01-01T00:00:00Z"), s, 5), 5)
}

func TestNextFiringsWithNothingToRun(t *testing.T) {
	t.Parallel()
	from := instant(t, "2026-01-01T00:00:00Z")
	s := daily(t, "Europe/Berlin", "08:00")
	require.Nil(t, schedule.NextFirings(from, s, 0))
	s.Days = 0
	require.Nil(t, schedule.NextFirings(from, s, 3))
	require.Nil(t, schedule.NextFirings(from, schedule.Schedule{At: s.At, Days: schedule.AllDays()}, 3))
}

func TestDSTWarnings(t *testing.T) {
	t.Parallel()
	from := instant(t, "2026-01-01T05:00:00Z") // midnight in New York
	require.Equal(t, []string{
		"2026-03-08 03:00 2026-03-08T07:00Z UTC−04:00 gap",
		"2027-03-14 03:00 2027-03-14T07:00Z UTC−04:00 gap",
	}, runLines(schedule.DSTWarnings(from, daily(t, "America/New_York", "02:30"), 730)))
	require.Equal(t, []string{
		"2026-11-01 01:30 2026-11-01T05:30Z UTC−04:00 overlap",
	}, runLines(schedule.DSTWarnings(from, daily(t, "America/New_York", "01:30"), 365)))
	require.Empty(t, schedule.DSTWarnings(from, daily(t, "America/New_York", "08:00"), 365))
	require.Empty(t, schedule.DSTWarnings(from, daily(t, "America/New_York", "02:30"), 66), "2026-03-08 is the 67th day")
	require.Len(t, schedule.DSTWarnings(from, daily(t, "America/New_York", "02:30"), 67), 1)
	require.Empty(t, schedule.DSTWarnings(from, weekdays(t, "America/New_York", "02:30"), 365), "2026-03-08 is a Sunday")
}
