package schedule_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func zone(t testing.TB, name string) schedule.Zone {
	t.Helper()
	z, err := schedule.LoadZone(name)
	require.NoError(t, err)
	return z
}

func date(t testing.TB, s string) schedule.Date {
	t.Helper()
	d, err := schedule.ParseDate(s)
	require.NoError(t, err)
	return d
}

func clock(t testing.TB, s string) schedule.LocalTime {
	t.Helper()
	lt, err := schedule.ParseLocalTime(s)
	require.NoError(t, err)
	return lt
}

func instant(t testing.TB, rfc3339 string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, rfc3339)
	require.NoError(t, err)
	return ts
}

// daily is a schedule that runs every day at hhmm in zoneName.
func daily(t testing.TB, zoneName, hhmm string) schedule.Schedule {
	t.Helper()
	return schedule.Schedule{Zone: zone(t, zoneName), At: clock(t, hhmm), Days: schedule.AllDays(), Enabled: true}
}

func never(schedule.Date) bool { return false }
