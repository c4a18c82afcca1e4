package schedule_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func weekdays(t testing.TB, zoneName, hhmm string) schedule.Schedule {
	s := daily(t, zoneName, hhmm)
	s.Days = schedule.DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
	return s
}

func generatedOn(dates ...schedule.Date) func(schedule.Date) bool {
	return func(d schedule.Date) bool {
		for _, g := range dates {
			if g == d {
				return true
			}
		}
		return false
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	paused := weekdays(t, "America/New_York", "08:00")
	paused.Enabled = false
	tests := []struct {
		name      string
		now       string
		s         schedule.Schedule
		generated func(schedule.Date) bool
		reason    schedule.Reason
		date      string
		fireAt    string // "" for zero
	}{
		{"paused", "2026-03-09T13:00:00Z", paused, never, schedule.ReasonPaused, "2026-03-09", ""},
		{"paused beats already generated", "2026-03-09T13:00:00Z", paused, func(schedule.Date) bool { return true },
			schedule.ReasonPaused, "2026-03-09", ""},
		{"day off", "2026-03-07T15:00:00Z", weekdays(t, "America/New_York", "08:00"), never,
			schedule.ReasonDayOff, "2026-03-07", ""},
		{"already generated", "2026-03-09T13:00:00Z", weekdays(t, "America/New_York", "08:00"), generatedOn(date(t, "2026-03-09")),
			schedule.ReasonAlreadyGenerated, "2026-03-09", "2026-03-09T12:00:00Z"},
		{"already generated on a day off", "2026-03-07T15:00:00Z", weekdays(t, "America/New_York", "08:00"), generatedOn(date(t, "2026-03-07")),
			schedule.ReasonAlreadyGenerated, "2026-03-07", "2026-03-07T13:00:00Z"},
		{"yesterday's briefing does not count", "2026-03-09T13:00:00Z", weekdays(t, "America/New_York", "08:00"), generatedOn(date(t, "2026-03-08")),
			schedule.ReasonDue, "2026-03-09", "2026-03-09T12:00:00Z"},
		{"not yet", "2026-03-09T11:59:59Z", weekdays(t, "America/New_York", "08:00"), never,
			schedule.ReasonNotYet, "2026-03-09", "2026-03-09T12:00:00Z"},
		{"due on the minute", "2026-03-09T12:00:00Z", weekdays(t, "America/New_York", "08:00"), nil,
			schedule.ReasonDue, "2026-03-09", "2026-03-09T12:00:00Z"},
		{"catch-up late the same local day, after UTC midnight", "2026-03-10T03:59:00Z", weekdays(t, "America/New_York", "08:00"), never,
			schedule.ReasonDue, "2026-03-09", "2026-03-09T12:00:00Z"},
		{"the local date is not the UTC date", "2026-03-09T20:00:00Z", weekdays(t, "Pacific/Kiritimati", "08:00"), never,
			schedule.ReasonDue, "2026-03-10", "2026-03-09T18:00:00Z"},
		{"local date is a day off although the UTC date is not", "2026-03-06T22:00:00Z", weekdays(t, "Pacific/Kiritimati", "08:00"), never,
			schedule.ReasonDayOff, "2026-03-07", ""},

		// New York spring forward: 02:30 does not exist and fires at 03:00 EDT.
		{"gap: not yet before it ends", "2026-03-08T06:59:00Z", daily(t, "America/New_York", "02:30"), never,
			schedule.ReasonNotYet, "2026-03-08", "2026-03-08T07:00:00Z"},
		{"gap: due when it ends", "2026-03-08T07:00:00Z", daily(t, "America/New_York", "02:30"), never,
			schedule.ReasonDue, "2026-03-08", "2026-03-08T07:00:00Z"},
		// New York fall back: 01:30 happens twice and fires at the first.
		{"overlap: not yet", "2026-11-01T05:29:00Z", daily(t, "America/New_York", "01:30"), never,
			schedule.ReasonNotYet, "2026-11-01", "2026-11-01T05:30:00Z"},
		{"overlap: due at the first", "2026-11-01T05:30:00Z", daily(t, "America/New_York", "01:30"), never,
			schedule.ReasonDue, "2026-11-01", "2026-11-01T05:30:00Z"},
		{"overlap: not again at the second", "2026-11-01T06:30:00Z", daily(t, "America/New_York", "01:30"), generatedOn(date(t, "2026-11-01")),
			schedule.ReasonAlreadyGenerated, "2026-11-01", "2026-11-01T05:30:00Z"},

		{"Berlin", "2026-10-25T00:30:00Z", daily(t, "Europe/Berlin", "02:30"), never,
			schedule.ReasonDue, "2026-10-25", "2026-10-25T00:30:00Z"},
		{"Lord Howe gap", "2026-10-03T15:29:00Z", daily(t, "Australia/Lord_Howe", "02:15"), never,
			schedule.ReasonNotYet, "2026-10-04", "2026-10-03T15:30:00Z"},
		{"Lord Howe gap ends", "2026-10-03T15:30:00Z", daily(t, "Australia/Lord_Howe", "02:15"), never,
			schedule.ReasonDue, "2026-10-04", "2026-10-03T15:30:00Z"},
		{"Santiago spring forward at midnight", "2026-09-06T04:00:00Z", daily(t, "America/Santiago", "00:30"), never,
			schedule.ReasonDue, "2026-09-06", "2026-09-06T04:00:00Z"},
		{"Santiago fall back at midnight, first 23:30", "2026-04-05T02:30:00Z", daily(t, "America/Santiago", "23:30"), never,
			schedule.ReasonDue, "2026-04-04", "2026-04-05T02:30:00Z"},
		{"Santiago fall back at midnight, second 23:30", "2026-04-05T03:30:00Z", daily(t, "America/Santiago", "23:30"), generatedOn(date(t, "2026-04-04")),
			schedule.ReasonAlreadyGenerated, "2026-04-04", "2026-04-05T02:30:00Z"},
		// Havana's 2026-03-08 begins at 01:00: a 00:30 schedule is due from its first instant.
		{"Havana: the last minute before the gap is the day before", "2026-03-08T04:59:00Z", daily(t, "America/Havana", "00:30"), never,
			schedule.ReasonDue, "2026-03-07", "2026-03-07T05:30:00Z"},
		{"Havana: spring forward at midnight", "2026-03-08T05:00:00Z", daily(t, "America/Havana", "00:30"), generatedOn(date(t, "2026-03-07")),
			schedule.ReasonDue, "2026-03-08", "2026-03-08T05:00:00Z"},
		{"Kolkata", "2026-03-09T02:30:00Z", weekdays(t, "Asia/Kolkata", "08:00"), never,
			schedule.ReasonDue, "2026-03-09", "2026-03-09T02:30:00Z"},
		{"Kathmandu not yet", "2026-03-09T02:14:00Z", weekdays(t, "Asia/Kathmandu", "08:00"), never,
			schedule.ReasonNotYet, "2026-03-09", "2026-03-09T02:15:00Z"},
		{"Chatham", "2026-03-08T18:15:00Z", weekdays(t, "Pacific/Chatham", "08:00"), never,
			schedule.ReasonDue, "2026-03-09", "2026-03-08T18:15:00Z"},
		// Apia jumped from the end of 2011-12-29 (-10) to 2011-12-31 (+14).
		{"Apia before the skipped day", "2011-12-30T09:59:00Z", daily(t, "Pacific/Apia", "08:00"), generatedOn(date(t, "2011-12-29")),
			schedule.ReasonAlreadyGenerated, "2011-12-29", "2011-12-29T18:00:00Z"},
		{"Apia after the skipped day", "2011-12-30T10:00:00Z", daily(t, "Pacific/Apia", "08:00"), generatedOn(date(t, "2011-12-29")),
			schedule.ReasonNotYet, "2011-12-31", "2011-12-30T18:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := instant(t, tt.now)
			got := schedule.Decide(now, tt.s, tt.generated)
			require.Equal(t, tt.reason, got.Reason)
			require.Equal(t, tt.reason == schedule.ReasonDue, got.Due())
			require.Equal(t, tt.date, got.Date.String())
			if tt.fireAt == "" {
				require.True(t, got.FireAt.IsZero(), "FireAt = %v", got.FireAt)
			} else {
				require.Equal(t, instant(t, tt.fireAt), got.FireAt.UTC())
			}
		})
	}
}

func TestDecideAsksAboutTheLocalDate(t *testing.T) {
	t.Parallel()
	var asked []schedule.Date
	schedule.Decide(instant(t, "2026-03-10T03:30:00Z"), daily(t, "America/New_York", "08:00"), func(d schedule.Date) bool {
		asked = append(asked, d)
		return false
	})
	require.Equal(t, []schedule.Date{date(t, "2026-03-09")}, asked)
}

func TestDecideWithoutZone(t *testing.T) {
	t.Parallel()
	got := schedule.Decide(instant(t, "2026-03-10T03:30:00Z"), schedule.Schedule{Enabled: true, Days: schedule.AllDays()}, never)
	require.Equal(t, schedule.ReasonInvalidConfig, got.Reason)
	require.False(t, got.Due())
}

// TestParseAndDecide is the tick's path from a stored document to a
// decision: a document that does not validate never reaches Decide.
func TestParseAndDecide(t *testing.T) {
	t.Parallel()
	now := instant(t, "2026-03-09T12:00:00Z")
	tests := []struct {
		name, raw string
		reason    schedule.Reason // ReasonInvalidConfig: ParseConfig fails
	}{
		{"valid", `{"briefing":{"timezone":"US/Eastern","schedule_local_time":"08:00","days":["mon"]}}`, schedule.ReasonDue},
		{"valid, not yet", `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:01"}}`, schedule.ReasonNotYet},
		{"valid, paused", `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","enabled":false}}`, schedule.ReasonPaused},
		{"valid, day off", `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["tue"]}}`, schedule.ReasonDayOff},
		{"bad zone", `{"briefing":{"timezone":"Mars/Base","schedule_local_time":"08:00"}}`, schedule.ReasonInvalidConfig},
		{"malformed JSON", `{"briefing":{"timezone":"America/New_York",`, schedule.ReasonInvalidConfig},
		{"missing key", `{"briefing":{"timezone":"America/New_York"}}`, schedule.ReasonInvalidConfig},
		{"missing briefing", `{}`, schedule.ReasonInvalidConfig},
		{"unknown key", `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","cron":"* * * * *"}}`, schedule.ReasonInvalidConfig},
		{"bad time", `{"briefing":{"timezone":"America/New_York","schedule_local_time":"24:00"}}`, schedule.ReasonInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, s, err := schedule.ParseConfig([]byte(tt.raw))
			if tt.reason == schedule.ReasonInvalidConfig {
				var verr *schedule.ValidationError
				require.ErrorAs(t, err, &verr)
				require.Equal(t, schedule.Schedule{}, s)
				return
			}
			require.NoError(t, err)
			got := schedule.Decide(now, s, never)
			require.Equal(t, tt.reason, got.Reason)
			require.Equal(t, "2026-03-09", got.Date.String())
		})
	}
}

func BenchmarkDecide(b *testing.B) {
	s := weekdays(b, "America/New_York", "08:00")
	now := instant(b, "2026-03-09T13:00:00Z")
	for b.Loop() {
		schedule.Decide(now, s, never)
	}
}

func BenchmarkParseAndDecide(b *testing.B) {
	raw := []byte(`{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00","days":["mon","tue","wed","thu","fri"]}}`)
	now := instant(b, "2026-03-09T13:00:00Z")
	for b.Loop() {
		_, s, err := schedule.ParseConfig(raw)
		if err != nil {
			b.Fatal(err)
		}
		schedule.Decide(now, s, never)
	}
}
