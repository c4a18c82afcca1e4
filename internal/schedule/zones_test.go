package schedule_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestLoadZoneCanonicalizes(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"America/New_York": "America/New_York",
		"america/new_york": "America/New_York",
		"US/Eastern":       "America/New_York",
		"us/eastern":       "America/New_York",
		"Asia/Calcutta":    "Asia/Kolkata",
		"UTC":              "UTC", // tz's zone is Etc/UTC; we keep the name people write
		"Etc/UTC":          "UTC",
		"Zulu":             "UTC",
		"Europe/Amsterdam": "Europe/Amsterdam", // in zone.tab, so canonical even where tz links it
		"Asia/Kathmandu":   "Asia/Kathmandu",
		"Asia/Katmandu":    "Asia/Kathmandu",
	} {
		z, err := schedule.LoadZone(name)
		require.NoError(t, err, name)
		require.Equal(t, want, z.Name, name)
		require.Equal(t, want, z.Loc.String(), name)
	}
}

func TestLoadZoneCaches(t *testing.T) {
	t.Parallel()
	a := zone(t, "Europe/Berlin")
	b := zone(t, "europe/berlin")
	require.Same(t, a.Loc, b.Loc)
}

func TestLoadZoneRejects(t *testing.T) {
	t.Parallel()
	for name, msg := range map[string]string{
		"":                        "time zone is required",
		"Local":                   `time zone "Local" depends on the server; choose a named zone`,
		"local":                   `time zone "local" depends on the server; choose a named zone`,
		"../etc/passwd":           `invalid time zone name "../etc/passwd"`,
		"/usr/share/zoneinfo/UTC": `invalid time zone name "/usr/share/zoneinfo/UTC"`,
		"America/../UTC":          `invalid time zone name "America/../UTC"`,
		`America\New_York`:        `invalid time zone name "America\\New_York"`,
		".hidden":                 `invalid time zone name ".hidden"`,
		"Mars/Base":               `unknown time zone "Mars/Base"`,
		"America/New_York ":       `unknown time zone "America/New_York "`,
		"Factory":                 `unknown time zone "Factory"`,
		"posixrules":              `unknown time zone "posixrules"`,
		"EST5":                    `unknown time zone "EST5"`,
	} {
		_, err := schedule.LoadZone(name)
		require.EqualError(t, err, msg, "%q", name)
	}
}

func TestZones(t *testing.T) {
	t.Parallel()
	zones := schedule.Zones()
	require.Greater(t, len(zones), 400)
	require.True(t, slices.IsSortedFunc(zones, func(a, b schedule.ZoneInfo) int {
		return compareStrings(a.Name, b.Name)
	}))
	byName := map[string]schedule.ZoneInfo{}
	for _, z := range zones {
		byName[z.Name] = z
		loaded, err := schedule.LoadZone(z.Name)
		require.NoError(t, err, z.Name)
		require.Equal(t, z.Name, loaded.Name)
		for _, alias := range z.Aliases {
			loaded, err := schedule.LoadZone(alias)
			require.NoError(t, err, alias)
			require.Equal(t, z.Name, loaded.Name, alias)
		}
	}
	ny := byName["America/New_York"]
	require.Equal(t, "New York", ny.City)
	require.Equal(t, "US", ny.CountryCode)
	require.Equal(t, "United States", ny.Country)
	require.Contains(t, ny.Aliases, "US/Eastern")
	require.Contains(t, byName["UTC"].Aliases, "Etc/UTC")
	require.Equal(t, "Buenos Aires", byName["America/Argentina/Buenos_Aires"].City)

	zones[0].Name = "mutated"
	require.NotEqual(t, "mutated", schedule.Zones()[0].Name, "Zones must return a copy")
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestZoneLabel(t *testing.T) {
	t.Parallel()
	now := instant(t, "2026-01-15T13:04:00Z")
	for name, want := range map[string][2]string{
		"America/New_York": {"UTC−05:00", "08:04"},
		"Asia/Kolkata":     {"UTC+05:30", "18:34"},
		"Asia/Kathmandu":   {"UTC+05:45", "18:49"},
		"Pacific/Chatham":  {"UTC+13:45", "02:49"},
		"Etc/UTC":          {"UTC+00:00", "13:04"},
		"America/St_Johns": {"UTC−03:30", "09:34"},
	} {
		offset, local := schedule.ZoneLabel(zone(t, name), now)
		require.Equal(t, want, [2]string{offset, local}, name)
	}
}
