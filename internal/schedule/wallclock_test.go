package schedule_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestParseLocalDateTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		zone, in string
		wantUTC  string // "" = an error
		overlap  bool   // a note about the first occurrence
		gapFrom  string // for gaps: the jump, wall clock
		gapTo    string
	}{
		// New York, spring forward 2026-03-08 02:00 EST → 03:00 EDT.
		{"America/New_York", "2026-03-08T01:59", "2026-03-08T06:59:00Z", false, "", ""},
		{"America/New_York", "2026-03-08T02:00", "", false, "02:00 EST", "03:00 EDT"},
		{"America/New_York", "2026-03-08T02:30", "", false, "02:00 EST", "03:00 EDT"},
		{"America/New_York", "2026-03-08T02:59", "", false, "02:00 EST", "03:00 EDT"},
		{"America/New_York", "2026-03-08T03:00", "2026-03-08T07:00:00Z", false, "", ""},
		{"America/New_York", "2026-03-08T00:00", "2026-03-08T05:00:00Z", false, "", ""},
		{"America/New_York", "2026-03-08T23:59", "2026-03-09T03:59:00Z", false, "", ""},
		// New York, fall back 2026-11-01 02:00 EDT → 01:00 EST: 01:00–01:59 twice.
		{"America/New_York", "2026-11-01T00:59", "2026-11-01T04:59:00Z", false, "", ""},
		{"America/New_York", "2026-11-01T01:00", "2026-11-01T05:00:00Z", true, "", ""},
		{"America/New_York", "2026-11-01T01:30", "2026-11-01T05:30:00Z", true, "", ""},
		{"America/New_York", "2026-11-01T01:59", "2026-11-01T05:59:00Z", true, "", ""},
		{"America/New_York", "2026-11-01T02:00", "2026-11-01T07:00:00Z", false, "", ""},
		// Berlin, spring forward 2026-03-29 02:00 CET → 03:00 CEST.
		{"Europe/Berlin", "2026-03-29T01:59", "2026-03-29T00:59:00Z", false, "", ""},
		{"Europe/Berlin", "2026-03-29T02:00", "", false, "02:00 CET", "03:00 CEST"},
		{"Europe/Berlin", "2026-03-29T02:30", "", false, "02:00 CET", "03:00 CEST"},
		{"Europe/Berlin", "2026-03-29T03:00", "2026-03-29T01:00:00Z", false, "", ""},
		// Berlin, fall back 2026-10-25 03:00 CEST → 02:00 CET: 02:00–02:59 twice.
		{"Europe/Berlin", "2026-10-25T01:59", "2026-10-24T23:59:00Z", false, "", ""},
		{"Europe/Berlin", "2026-10-25T02:00", "2026-10-25T00:00:00Z", true, "", ""},
		{"Europe/Berlin", "2026-10-25T02:30", "2026-10-25T00:30:00Z", true, "", ""},
		{"Europe/Berlin", "2026-10-25T03:00", "2026-10-25T02:00:00Z", false, "", ""},
		// Half-hour zones: St John's (−03:30/−02:30) and Lord Howe (a 30-minute shift).
		{"America/St_Johns", "2026-03-08T02:30", "", false, "02:00 NST", "03:00 NDT"},
		{"America/St_Johns", "2026-03-08T08:00", "2026-03-08T10:30:00Z", false, "", ""},
		{"America/St_Johns", "2026-11-01T01:30", "2026-11-01T04:00:00Z", true, "", ""},
		{"Australia/Lord_Howe", "2026-10-04T02:15", "", false, "02:00 UTC+10:30", "02:30 UTC+11:00"},
		{"Australia/Lord_Howe", "2026-04-05T01:45", "2026-04-04T14:45:00Z", true, "", ""},
		{"Asia/Kolkata", "2026-03-08T08:00", "2026-03-08T02:30:00Z", false, "", ""},
		{"Australia/Adelaide", "2026-10-04T02:30", "", false, "02:00 ACST", "03:00 ACDT"},
		// Midnight transitions, and a whole missing day.
		{"America/Havana", "2026-03-08T00:30", "", false, "00:00 CST", "01:00 CDT"},
		{"America/Santiago", "2026-09-06T00:00", "", false, "00:00 UTC-04:00", "01:00 UTC-03:00"},
		{"Pacific/Apia", "2011-12-30T08:00", "", false, "2011-12-30 00:00 UTC-10:00", "2011-12-31 00:00 UTC+14:00"},
		// With an offset or Z: taken as it is, whatever the zone.
		{"America/New_York", "2026-03-08T02:30-05:00", "2026-03-08T07:30:00Z", false, "", ""},
		{"Europe/Berlin", "2026-03-29T02:30Z", "2026-03-29T02:30:00Z", false, "", ""},
		{"Europe/Berlin", "2026-10-25T02:30:00+01:00", "2026-10-25T01:30:00Z", false, "", ""},
		// Malformed.
		{"Etc/UTC", "2026-03-08 08:00", "", false, "", ""},
		{"Etc/UTC", "2026-03-08T25:00", "", false, "", ""},
		{"Etc/UTC", "2026-03-08T08:60", "", false, "", ""},
		{"Etc/UTC", "2026-02-30T08:00", "", false, "", ""},
		{"Etc/UTC", "2026-03-08", "", false, "", ""},
		{"Etc/UTC", "", "", false, "", ""},
		{"Etc/UTC", "2026-03-08T08:00+25:00", "", false, "", ""},
		{"Etc/UTC", "2026-03-08T8:00", "", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.zone+"/"+tt.in, func(t *testing.T) {
			t.Parallel()
			z := zone(t, tt.zone)
			got, note, err := schedule.ParseLocalDateTime(z.Loc, tt.in)
			if tt.wantUTC == "" {
				require.Error(t, err)
				var gap *schedule.GapError
				if tt.gapFrom == "" {
					require.False(t, errors.As(err, &gap), "not a gap: %v", err)
					return
				}
				require.ErrorAs(t, err, &gap)
				require.Equal(t, tt.zone, gap.Zone)
				require.Contains(t, err.Error(), tt.zone)
				layout := "15:04"
				if len(tt.gapFrom) > 16 {
					layout = "2006-01-02 15:04"
				}
				require.Equal(t, tt.gapFrom, gap.From.Format(layout)+" "+schedule.ZoneAbbr(gap.From))
				require.Equal(t, tt.gapTo, gap.To.Format(layout)+" "+schedule.ZoneAbbr(gap.To))
				return
			}
			require.NoError(t, err)
			require.Equal(t, instant(t, tt.wantUTC), got.UTC())
			if tt.overlap {
				require.Contains(t, note, "happens twice in "+tt.zone)
				require.Contains(t, note, "the first")
			} else {
				require.Empty(t, note)
			}
		})
	}
}

func TestGapErrorNamesZoneAndGap(t *testing.T) {
	t.Parallel()
	_, _, err := schedule.ParseLocalDateTime(zone(t, "America/New_York").Loc, "2026-03-08T02:30")
	require.EqualError(t, err, "2026-03-08 02:30 does not exist in America/New_York: clocks jump from 02:00 to 03:00 (EST to EDT) that day")
	_, note, err := schedule.ParseLocalDateTime(zone(t, "Europe/Berlin").Loc, "2026-10-25T02:30")
	require.NoError(t, err)
	require.Equal(t, "2026-10-25 02:30 happens twice in Europe/Berlin (clocks go back that night); the first, 02:30 CEST (UTC+02:00), is used, not the second, 02:30 CET (UTC+01:00)", note)
}

// Every minute of the transition days in New York and Berlin: a reading is
// either a gap error or an instant whose wall clock reads what was typed,
// and the first of them when there are two.
func TestLocalDateTimeEveryMinuteOfTransitionDays(t *testing.T) {
	t.Parallel()
	days := map[string][]string{
		"America/New_York": {"2026-03-08", "2026-11-01"},
		"Europe/Berlin":    {"2026-03-29", "2026-10-25"},
		"America/St_Johns": {"2026-03-08", "2026-11-01"},
	}
	for name, dates := range days {
		loc := zone(t, name).Loc
		for _, ds := range dates {
			d := date(t, ds)
			gaps, twice := 0, 0
			for m := range 24 * 60 {
				at := schedule.LocalTime{Hour: m / 60, Minute: m % 60}
				got, note, err := schedule.LocalDateTime(loc, d, at)
				if err != nil {
					var gap *schedule.GapError
					require.ErrorAs(t, err, &gap)
					gaps++
					continue
				}
				require.Equal(t, d, schedule.DateOf(got), "%s %s %s", name, ds, at)
				require.Equal(t, at, schedule.LocalTime{Hour: got.Hour(), Minute: got.Minute()})
				if note != "" {
					twice++
					// The first: an hour earlier reads a different wall time.
					require.True(t, got.Add(-time.Hour).In(loc).Hour() != got.Hour() || got.Add(-time.Hour).In(loc).Minute() != got.Minute())
					require.Equal(t, got.Add(time.Hour).In(loc).Format("15:04"), got.Format("15:04"), "the same wall time an hour later")
				}
			}
			require.Equal(t, 60, gaps+twice, "%s %s: one hour missing or doubled", name, ds)
		}
	}
}

func TestDayBounds(t *testing.T) {
	t.Parallel()
	ny := zone(t, "America/New_York").Loc
	start, end := schedule.DayBounds(ny, date(t, "2026-03-08"))
	require.Equal(t, 23*time.Hour, end.Sub(start))
	start, end = schedule.DayBounds(ny, date(t, "2026-11-01"))
	require.Equal(t, 25*time.Hour, end.Sub(start))
	require.Equal(t, instant(t, "2026-11-01T04:00:00Z"), start.UTC())
	// Havana's 2026-03-08 has no midnight: it starts at 01:00.
	start, _ = schedule.DayBounds(zone(t, "America/Havana").Loc, date(t, "2026-03-08"))
	require.Equal(t, "01:00", start.Format("15:04"))
}
