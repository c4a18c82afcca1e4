package schedule_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	d, err := schedule.ParseDate("2026-03-08")
	require.NoError(t, err)
	require.Equal(t, schedule.Date{Year: 2026, Month: time.March, Day: 8}, d)
	require.Equal(t, "2026-03-08", d.String())

	for _, bad := range []string{"", "2026-3-8", "2026-03-8", "2026-02-30", "2026-13-01", "26-03-08",
		"2026/03/08", "2026-03-08T00:00:00Z", " 2026-03-08", "2026-03-08 ", "+2026-03-08"} {
		_, err := schedule.ParseDate(bad)
		require.Error(t, err, "%q", bad)
	}
}

func TestDateArithmetic(t *testing.T) {
	t.Parallel()
	d := schedule.Date{Year: 2028, Month: time.February, Day: 28}
	require.Equal(t, "2028-02-29", d.AddDays(1).String())
	require.Equal(t, "2028-03-01", d.AddDays(2).String())
	require.Equal(t, "2027-12-31", schedule.Date{Year: 2028, Month: time.January, Day: 1}.AddDays(-1).String())
	require.Equal(t, time.Tuesday, d.AddDays(1).Weekday())
	require.Equal(t, time.Date(2028, 2, 28, 0, 0, 0, 0, time.UTC), d.Time())

	require.True(t, d.Before(d.AddDays(1)))
	require.False(t, d.Before(d))
	require.True(t, d.After(schedule.Date{Year: 2027, Month: time.December, Day: 31}))
	require.True(t, d.AddDays(31).After(d.AddDays(30)))
	require.True(t, schedule.Date{}.IsZero())
	require.False(t, d.IsZero())
}

func TestDateOfUsesTheWallClock(t *testing.T) {
	t.Parallel()
	ts := instant(t, "2026-03-10T03:30:00Z")
	require.Equal(t, "2026-03-10", schedule.DateOf(ts).String())
	require.Equal(t, "2026-03-09", schedule.DateOf(ts.In(zone(t, "America/New_York").Loc)).String())
	require.Equal(t, "2026-03-10", schedule.DateOf(ts.In(zone(t, "Pacific/Kiritimati").Loc)).String())
}
