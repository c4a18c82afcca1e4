package schedule_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestParseLocalTime(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]schedule.LocalTime{
		"00:00": {0, 0}, "08:00": {8, 0}, "23:59": {23, 59}, "07:05": {7, 5},
	} {
		got, err := schedule.ParseLocalTime(s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
		require.Equal(t, s, got.String())
	}
	for _, bad := range []string{"", "25:00", "24:00", "23:60", "7:5", "7:05", "08:00:00", "08-00", "0800",
		" 8:00", "08:0a", "+8:00", "-1:00", "８:00", "08:00 "} {
		_, err := schedule.ParseLocalTime(bad)
		require.Error(t, err, "%q", bad)
	}
}

func TestDaySet(t *testing.T) {
	t.Parallel()
	weekend := schedule.DaysOf(time.Sunday, time.Saturday)
	require.True(t, weekend.Has(time.Saturday))
	require.True(t, weekend.Has(time.Sunday))
	require.False(t, weekend.Has(time.Monday))
	require.Equal(t, []string{"sat", "sun"}, weekend.Names())
	require.Equal(t, []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}, schedule.AllDays().Names())
	require.Empty(t, schedule.DaySet(0).Names())
	for d := time.Sunday; d <= time.Saturday; d++ {
		require.True(t, schedule.AllDays().Has(d))
		name := schedule.DaysOf(d).Names()[0]
		parsed, err := schedule.ParseDayName(name)
		require.NoError(t, err)
		require.Equal(t, d, parsed)
	}
	for _, bad := range []string{"", "Mon", "MON", "monday", "mo", " mon"} {
		_, err := schedule.ParseDayName(bad)
		require.Error(t, err, "%q", bad)
	}
}
