package schedule_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestFireTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		zone, date, at string
		wantUTC        string
		wantLocal      string // wall clock and offset in the zone
		note           schedule.DSTNote
	}{
		// New York: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
		{"America/New_York", "2026-03-08", "01:59", "2026-03-08T06:59:00Z", "2026-03-08 01:59 -05:00", schedule.DSTNone},
		{"America/New_York", "2026-03-08", "02:00", "2026-03-08T07:00:00Z", "2026-03-08 03:00 -04:00", schedule.DSTGap},
		{"America/New_York", "2026-03-08", "02:30", "2026-03-08T07:00:00Z", "2026-03-08 03:00 -04:00", schedule.DSTGap},
		{"America/New_York", "2026-03-08", "02:59", "2026-03-08T07:00:00Z", "2026-03-08 03:00 -04:00", schedule.DSTGap},
		{"America/New_York", "2026-03-08", "03:00", "2026-03-08T07:00:00Z", "2026-03-08 03:00 -04:00", schedule.DSTNone},
		{"America/New_York", "2026-11-01", "00:59", "2026-11-01T04:59:00Z", "2026-11-01 00:59 -04:00", schedule.DSTNone},
		{"America/New_York", "2026-11-01", "01:00", "2026-11-01T05:00:00Z", "2026-11-01 01:00 -04:00", schedule.DSTOverlap},
		{"America/New_York", "2026-11-01", "01:30", "2026-11-01T05:30:00Z", "2026-11-01 01:30 -04:00", schedule.DSTOverlap},
		{"America/New_York", "2026-11-01", "01:59", "2026-11-01T05:59:00Z", "2026-11-01 01:59 -04:00", schedule.DSTOverlap},
		{"America/New_York", "2026-11-01", "02:00", "2026-11-01T07:00:00Z", "2026-11-01 02:00 -05:00", schedule.DSTNone},
		{"America/New_York", "2026-07-01", "08:00", "2026-07-01T12:00:00Z", "2026-07-01 08:00 -04:00", schedule.DSTNone},
		{"America/New_York", "2027-03-14", "02:30", "2027-03-14T07:00:00Z", "2027-03-14 03:00 -04:00", schedule.DSTGap},
		// Berlin: 2026-03-29 02:00 → 03:00; 2026-10-25 03:00 → 02:00.
		{"Europe/Berlin", "2026-01-15", "08:00", "2026-01-15T07:00:00Z", "2026-01-15 08:00 +01:00", schedule.DSTNone},
		{"Europe/Berlin", "2026-03-29", "02:30", "2026-03-29T01:00:00Z", "2026-03-29 03:00 +02:00", schedule.DSTGap},
		{"Europe/Berlin", "2026-10-25", "02:30", "2026-10-25T00:30:00Z", "2026-10-25 02:30 +02:00", schedule.DSTOverlap},
		{"Europe/Berlin", "2026-10-25", "03:00", "2026-10-25T02:00:00Z", "2026-10-25 03:00 +01:00", schedule.DSTNone},
		// Lord Howe shifts by 30 minutes: 2026-10-04 02:00 → 02:30; 2026-04-05 02:00 → 01:30.
		{"Australia/Lord_Howe", "2026-10-04", "02:00", "2026-10-03T15:30:00Z", "2026-10-04 02:30 +11:00", schedule.DSTGap},
		{"Australia/Lord_Howe", "2026-10-04", "02:15", "2026-10-03T15:30:00Z", "2026-10-04 02:30 +11:00", schedule.DSTGap},
		{"Australia/Lord_Howe", "2026-10-04", "02:30", "2026-10-03T15:30:00Z", "2026-10-04 02:30 +11:00", schedule.DSTNone},
		{"Australia/Lord_Howe", "2026-04-05", "01:29", "2026-04-04T14:29:00Z", "2026-04-05 01:29 +11:00", schedule.DSTNone},
		{"Australia/Lord_Howe", "2026-04-05", "01:45", "2026-04-04T14:45:00Z", "2026-04-05 01:45 +11:00", schedule.DSTOverlap},
		{"Australia/Lord_Howe", "2026-04-05", "02:00", "2026-04-04T15:30:00Z", "2026-04-05 02:00 +10:30", schedule.DSTNone},
		// Santiago changes at midnight: 2026-09-06 00:00 → 01:00; Saturday 2026-04-04 24:00 → 23:00.
		{"America/Santiago", "2026-09-05", "23:59", "2026-09-06T03:59:00Z", "2026-09-05 23:59 -04:00", schedule.DSTNone},
		{"America/Santiago", "2026-09-06", "00:00", "2026-09-06T04:00:00Z", "2026-09-06 01:00 -03:00", schedule.DSTGap},
		{"America/Santiago", "2026-09-06", "00:30", "2026-09-06T04:00:00Z", "2026-09-06 01:00 -03:00", schedule.DSTGap},
		{"America/Santiago", "2026-09-06", "01:00", "2026-09-06T04:00:00Z", "2026-09-06 01:00 -03:00", schedule.DSTNone},
		{"America/Santiago", "2026-04-04", "22:59", "2026-04-05T01:59:00Z", "2026-04-04 22:59 -03:00", schedule.DSTNone},
		{"America/Santiago", "2026-04-04", "23:30", "2026-04-05T02:30:00Z", "2026-04-04 23:30 -03:00", schedule.DSTOverlap},
		{"America/Santiago", "2026-04-05", "00:00", "2026-04-05T04:00:00Z", "2026-04-05 00:00 -04:00", schedule.DSTNone},
		// Havana changes at midnight too: 2026-03-08 00:00 → 01:00; 2026-11-01 01:00 → 00:00.
		{"America/Havana", "2026-03-08", "00:30", "2026-03-08T05:00:00Z", "2026-03-08 01:00 -04:00", schedule.DSTGap},
		{"America/Havana", "2026-11-01", "00:00", "2026-11-01T04:00:00Z", "2026-11-01 00:00 -04:00", schedule.DSTOverlap},
		{"America/Havana", "2026-11-01", "00:30", "2026-11-01T04:30:00Z", "2026-11-01 00:30 -04:00", schedule.DSTOverlap},
		{"America/Havana", "2026-11-01", "01:00", "2026-11-01T06:00:00Z", "2026-11-01 01:00 -05:00", schedule.DSTNone},
		// Half-hour and 45-minute offsets.
		{"Asia/Kolkata", "2026-03-08", "08:00", "2026-03-08T02:30:00Z", "2026-03-08 08:00 +05:30", schedule.DSTNone},
		{"Asia/Kolkata", "2026-03-08", "00:00", "2026-03-07T18:30:00Z", "2026-03-08 00:00 +05:30", schedule.DSTNone},
		{"Asia/Kathmandu", "2026-06-01", "08:00", "2026-06-01T02:15:00Z", "2026-06-01 08:00 +05:45", schedule.DSTNone},
		{"Asia/Kathmandu", "2026-06-01", "05:44", "2026-05-31T23:59:00Z", "2026-06-01 05:44 +05:45", schedule.DSTNone},
		// Chatham: +12:45 / +13:45; 2026-09-27 02:45 → 03:45; 2026-04-05 03:45 → 02:45.
		{"Pacific/Chatham", "2026-01-10", "08:00", "2026-01-09T18:15:00Z", "2026-01-10 08:00 +13:45", schedule.DSTNone},
		{"Pacific/Chatham", "2026-09-27", "02:45", "2026-09-26T14:00:00Z", "2026-09-27 03:45 +13:45", schedule.DSTGap},
		{"Pacific/Chatham", "2026-09-27", "03:00", "2026-09-26T14:00:00Z", "2026-09-27 03:45 +13:45", schedule.DSTGap},
		{"Pacific/Chatham", "2026-04-05", "03:00", "2026-04-04T13:15:00Z", "2026-04-05 03:00 +13:45", schedule.DSTOverlap},
		{"Pacific/Chatham", "2026-04-05", "03:45", "2026-04-04T15:00:00Z", "2026-04-05 03:45 +12:45", schedule.DSTNone},
		// Apia skipped 2011-12-30 entirely: the "gap" ends on the 31st.
		{"Pacific/Apia", "2011-12-29", "08:00", "2011-12-29T18:00:00Z", "2011-12-29 08:00 -10:00", schedule.DSTNone},
		{"Pacific/Apia", "2011-12-30", "08:00", "2011-12-30T10:00:00Z", "2011-12-31 00:00 +14:00", schedule.DSTGap},
		{"Pacific/Apia", "2011-12-31", "08:00", "2011-12-30T18:00:00Z", "2011-12-31 08:00 +14:00", schedule.DSTNone},
		// No transitions at all.
		{"Etc/UTC", "2026-03-08", "08:00", "2026-03-08T08:00:00Z", "2026-03-08 08:00 +00:00", schedule.DSTNone},
		{"Etc/GMT-14", "2026-03-08", "00:00", "2026-03-07T10:00:00Z", "2026-03-08 00:00 +14:00", schedule.DSTNone},
	}
	for _, tt := range tests {
		t.Run(tt.zone+"/"+tt.date+"/"+tt.at, func(t *testing.T) {
			t.Parallel()
			z := zone(t, tt.zone)
			got, note := schedule.FireTime(z.Loc, date(t, tt.date), clock(t, tt.at))
			require.Equal(t, instant(t, tt.wantUTC), got.UTC())
			require.Equal(t, tt.wantLocal, got.In(z.Loc).Format("2006-01-02 15:04 -07:00"))
			require.Equal(t, tt.note, note)
		})
	}
}
