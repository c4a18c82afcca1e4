package places_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/places"
	"fieldbrief/internal/schedule"
)

// winter and summer are instants on either side of northern DST.
var (
	winter = time.Date(2026, 1, 15, 13, 4, 0, 0, time.UTC)
	summer = time.Date(2026, 7, 15, 13, 4, 0, 0, time.UTC)
)

func zones(rs []places.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Zone
	}
	return out
}

// What people type for a zone (docs/timezone-picker.md), with the order of the results asserted: want
// is the beginning of the answer, in order.
func TestSearchFindsWhatPeopleType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query string
		now   time.Time
		want  []string
		city  string // the place the first result is named by
	}{
		{"Dallas", winter, []string{"America/Chicago"}, "Dallas"},
		{"dallas", winter, []string{"America/Chicago"}, "Dallas"},
		{"Boston", winter, []string{"America/New_York"}, "Boston"},
		{"Mumbai", winter, []string{"Asia/Kolkata"}, "Mumbai"},
		{"Munich", winter, []string{"Europe/Berlin"}, "Munich"},
		{"Köln", winter, []string{"Europe/Berlin"}, "Köln"}, // tzdb's main city
		{"koln", winter, []string{"Europe/Berlin"}, "Köln"},
		{"New York", winter, []string{"America/New_York"}, "New York"},
		{"new y", winter, []string{"America/New_York"}, "New York"},
		{"NYC", winter, []string{"America/New_York"}, "New York City"},
		{"nyc", winter, []string{"America/New_York"}, "New York City"},
		{"ny", winter, []string{"America/New_York"}, "New York"},
		{"la", winter, []string{"America/Los_Angeles"}, "Los Angeles"},
		{"sf", winter, []string{"America/Los_Angeles"}, "San Francisco"},
		{"lon", winter, []string{"Europe/London", "America/Los_Angeles", "America/Sao_Paulo"}, "London"},
		{"london", winter, []string{"Europe/London", "America/Toronto"}, "London"},
		{"são paulo", winter, []string{"America/Sao_Paulo"}, "Sao Paulo"},
		{"sao paulo", winter, []string{"America/Sao_Paulo"}, "Sao Paulo"},
		{"SAO PAULO", winter, []string{"America/Sao_Paulo"}, "Sao Paulo"},
		{"IST", winter, []string{"Asia/Kolkata", "Asia/Jerusalem", "Europe/Dublin"}, "Mumbai"},
		{"PST", winter, []string{"America/Los_Angeles", "Asia/Manila", "America/Tijuana"}, "Los Angeles"},
		{"PDT", winter, []string{"America/Los_Angeles", "America/Tijuana", "America/Vancouver"}, "Los Angeles"},
		{"pdt", summer, []string{"America/Los_Angeles", "America/Tijuana", "America/Vancouver"}, "Los Angeles"},
		{"CET", winter, []string{"Europe/Paris", "Europe/Madrid", "Europe/Berlin"}, "Paris"},
		{"UTC+1", winter, []string{"Africa/Kinshasa", "Europe/Paris", "Africa/Lagos"}, "Kinshasa"},
		{"UTC+1", summer, []string{"Europe/London", "Africa/Kinshasa", "Africa/Lagos"}, "London"}, // BST
		{"+05:30", winter, []string{"Asia/Kolkata", "Asia/Colombo"}, "Mumbai"},
		{"+0530", winter, []string{"Asia/Kolkata", "Asia/Colombo"}, "Mumbai"},
		{"utc-3", winter, []string{"America/Sao_Paulo", "America/Argentina/Buenos_Aires"}, "Sao Paulo"},
		{"utc−3", winter, []string{"America/Sao_Paulo", "America/Argentina/Buenos_Aires"}, "Sao Paulo"}, // true minus
		{"GMT+8", winter, []string{"Asia/Shanghai", "Asia/Manila", "Asia/Hong_Kong"}, "Shanghai"},
		{"utc-5", winter, []string{"America/New_York"}, "New York"},
		{"utc-5", summer, []string{"America/Lima", "America/Bogota", "America/Chicago"}, "Lima"}, // New York is at −4 in July
		{"utc", winter, []string{"UTC", "Europe/London"}, "UTC"},
		{"berlin", winter, []string{"Europe/Berlin"}, "Berlin"},
		{"America/New", winter, []string{"America/New_York"}, "New York"},
		{"america/new_york", winter, []string{"America/New_York"}, "New York"},
		{"US/Eastern", winter, []string{"America/New_York"}, "New York"},
		{"calcutta", winter, []string{"Asia/Kolkata"}, "Kolkata"},
		{"Kolk", winter, []string{"Asia/Kolkata"}, "Kolkata"},
		{"india", winter, []string{"Asia/Kolkata"}, "Mumbai"},
		{"New_York", winter, []string{"America/New_York"}, "New York"},
		{"new", winter, []string{"America/New_York"}, "New York"},
		{"germany", winter, []string{"Europe/Berlin"}, "Berlin"},
		{"katmandu", winter, []string{"Asia/Kathmandu"}, ""},
		{"texas", winter, []string{"America/Chicago", "America/Denver"}, "Houston"},
	} {
		got := places.Search(tc.query, places.Reader{}, tc.now, 10)
		require.GreaterOrEqual(t, len(got), len(tc.want), "%q: %v", tc.query, zones(got))
		require.Equal(t, tc.want, zones(got)[:len(tc.want)], "%q at %s", tc.query, tc.now)
		if tc.city != "" {
			require.Equal(t, tc.city, got[0].City, "%q", tc.query)
		}
	}
}

// "lon": London first, Longyearbyen found but well after it.
func TestSearchRanksByMatchThenPopulation(t *testing.T) {
	t.Parallel()
	got := zones(places.Search("lon", places.Reader{}, winter, places.MaxResults))
	london, longyearbyen := -1, -1
	for i, z := range got {
		switch z {
		case "Europe/London":
			london = i
		case "Arctic/Longyearbyen", "Europe/Berlin": // Longyearbyen's zone is a link in some tz builds
			longyearbyen = i
		}
	}
	require.Equal(t, 0, london, "%v", got)
	require.Greater(t, longyearbyen, london, "%v", got)

	// An exact name beats a more populous prefix: "Paris" is Paris, not
	// Parisian suburbs elsewhere; a prefix beats a word inside a name.
	require.Equal(t, "Europe/Paris", places.Search("paris", places.Reader{}, winter, 1)[0].Zone)
	york := places.Search("york", places.Reader{}, winter, places.MaxResults)
	require.Equal(t, "Europe/London", york[0].Zone, "York (England) exactly, before New York by a word: %v", zones(york))
	require.Contains(t, zones(york), "America/New_York")
}

// A zone appears once, named by its best place, with its offset and wall
// clock at the instant asked for.
func TestSearchResultsAreZonesWithTheirTime(t *testing.T) {
	t.Parallel()
	got := places.Search("new york", places.Reader{}, winter, places.MaxResults)
	seen := map[string]bool{}
	for _, r := range got {
		require.False(t, seen[r.Zone], "zone %s listed twice in %v", r.Zone, zones(got))
		seen[r.Zone] = true
		z, err := schedule.LoadZone(r.Zone)
		require.NoError(t, err)
		require.Equal(t, z.Name, r.Zone, "canonical names only")
	}
	ny := got[0]
	require.Equal(t, places.Result{Zone: "America/New_York", City: "New York",
		Region: "New York, United States", Offset: "UTC−05:00", Local: "08:04"}, ny)
	summerNY := places.Search("new york", places.Reader{}, summer, 1)[0]
	require.Equal(t, "UTC−04:00", summerNY.Offset)
	require.Equal(t, "09:04", summerNY.Local)
}

func TestSearchBoundsItsAnswer(t *testing.T) {
	t.Parallel()
	require.Len(t, places.Search("a", places.Reader{}, winter, 3), 3)
	require.Len(t, places.Search("a", places.Reader{}, winter, 0), places.MaxResults, "0 means the most there is")
	require.Len(t, places.Search("a", places.Reader{}, winter, 1000), places.MaxResults)
	require.Len(t, places.Search("CET", places.Reader{}, winter, places.MaxResults), places.MaxResults, "all CET zones up to the bound")
}

// Odd input finds nothing or something, never panics, and costs no more
// than a query of MaxQuery characters.
func TestSearchOddInput(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"", " ", "\t\n", "\x00", "new\x00york", "\xff\xfe", "%", "/", "+", "-", "utc+", "utc+99", "+14:99",
		"שלום", "القاهرة", "\u202eyork", "😀", "'", "_", "...",
		strings.Repeat("a", 10<<10), strings.Repeat("é", 5<<10), strings.Repeat("\x00", 10<<10),
		strings.Repeat("new york ", 2000),
	} {
		got := places.Search(q, places.Reader{}, winter, places.MaxResults)
		require.LessOrEqual(t, len(got), places.MaxResults, "%.40q", q)
		for _, r := range got {
			require.True(t, utf8.ValidString(r.City+r.Region), "%.40q", q)
		}
	}
	require.Empty(t, places.Search("", places.Reader{}, winter, 10))
	require.Empty(t, places.Search(" \t", places.Reader{}, winter, 10))
	require.Empty(t, places.Search("\x00", places.Reader{}, winter, 10))
	require.Empty(t, places.Search("zzzzqx", places.Reader{}, winter, 10))
	require.Empty(t, places.Search("utc+99", places.Reader{}, winter, 10))
	// NUL is dropped, not a separator: "new\x00york" reads "newyork",
	// which the typo pass finds (one space missing).
	require.Equal(t, "America/New_York", places.Search("new\x00york", places.Reader{}, winter, 1)[0].Zone)
	// The query is cut at MaxQuery characters: a long one finds what its
	// beginning finds.
	long := "Sao Paulo" + strings.Repeat(" ", places.MaxQuery) + "zzzz"
	require.Equal(t, "America/Sao_Paulo", places.Search(long, places.Reader{}, winter, 1)[0].Zone)
	// Spaces around it do not count towards that.
	require.Equal(t, "Europe/Paris", places.Search(strings.Repeat(" ", 200)+"Paris ", places.Reader{}, winter, 1)[0].Zone)
}

// Every canonical zone is found first by its own name, except tz's raw
// names ("CET", "PST8PDT", "Etc/GMT+5"), which are never listed: they find
// the places that keep that clock.
func TestEveryZoneIsFoundByName(t *testing.T) {
	t.Parallel()
	raw := 0
	for _, z := range schedule.Zones() {
		got := places.Search(z.Name, places.Reader{}, winter, 1)
		if z.Name != "UTC" && (!strings.Contains(z.Name, "/") || strings.HasPrefix(z.Name, "Etc/")) {
			raw++ // Etc/GMT+12 finds nothing: no one lives at UTC-12
			require.True(t, len(got) == 0 || got[0].Zone != z.Name, "%s is listed", z.Name)
			continue
		}
		require.NotEmpty(t, got, z.Name)
		require.Equal(t, z.Name, got[0].Zone)
	}
	require.Greater(t, raw, 20, "the raw names are hidden")
}

// tz's raw names are never results, whatever the query; typed, they find
// the zones that keep their clock. (Saving one typed exactly still works:
// internal/schedule accepts every tz name.)
func TestSearchHidesRawZoneNames(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"PST", "PDT", "EST", "CET", "MST", "HST", "EET", "WET", "gmt", "utc+1", "utc-5", "etc", "GMT+5", "pst8", "est5edt", "a", "e"} {
		for _, r := range places.Search(q, places.Reader{}, winter, places.MaxResults) {
			require.True(t, r.Zone == "UTC" || (strings.Contains(r.Zone, "/") && !strings.HasPrefix(r.Zone, "Etc/")), "%q lists %s", q, r.Zone)
		}
	}
	for q, want := range map[string]string{
		"PST8PDT": "America/Los_Angeles", "EST5EDT": "America/New_York", "CST6CDT": "America/Chicago", "MST7MDT": "America/Denver",
		"Etc/GMT+5": "America/New_York", // five hours behind UTC: POSIX's sign
		"Etc/GMT-1": "Africa/Kinshasa",
	} {
		got := places.Search(q, places.Reader{}, winter, 3)
		require.NotEmpty(t, got, q)
		require.Equal(t, want, got[0].Zone, "%q: %v", q, zones(got))
	}
}

// Old and colloquial names find their zone, first; every line of
// aliases.tsv names a zone the tz release has and lists it first.
func TestSearchAliases(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"Bombay": "Asia/Kolkata", "Calcutta": "Asia/Kolkata", "Saigon": "Asia/Ho_Chi_Minh", "Peking": "Asia/Shanghai",
		"Eastern Time": "America/New_York", "eastern": "America/New_York", "Central": "America/Chicago",
		"Pacific Time": "America/Los_Angeles", "Mountain Time": "America/Denver", "GMT": "Europe/London", "CET": "Europe/Paris",
		"pacific t": "America/Los_Angeles", // a prefix of an alias
	} {
		got := places.Search(q, places.Reader{}, winter, 3)
		require.NotEmpty(t, got, q)
		require.Equal(t, want, got[0].Zone, "%q: %v", q, zones(got))
	}
	lines := places.AliasLines()
	require.Greater(t, len(lines), 40)
	for _, l := range lines {
		got := places.Search(l[0], places.Reader{}, winter, 1)
		require.NotEmpty(t, got, "alias %q (zone %s) does not load", l[0], l[1])
		require.Equal(t, l[1], got[0].Zone, "alias %q", l[0])
	}
}

// One typo still finds the place; a typo is tried only when nothing
// matched better, so it never pushes out a real match.
func TestSearchTypos(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"chicgo": "America/Chicago", "berln": "Europe/Berlin", "Chciago": "America/Chicago", // swapped
		"denverr": "America/Denver", "vancover": "America/Vancouver", "sydny": "Australia/Sydney", "lodnon": "Europe/London",
	} {
		got := places.Search(q, places.Reader{}, winter, 3)
		require.NotEmpty(t, got, q)
		require.Equal(t, want, got[0].Zone, "%q: %v", q, zones(got))
	}
	require.Empty(t, places.Search("chcgoo", places.Reader{}, winter, 3), "two edits are too many")
	require.Empty(t, places.Search("xqz", places.Reader{}, winter, 3), "short text is not guessed at")
}

// "EST" lists New York first and no zone whose clocks are not EST: tzdb
// gave Winnipeg "EST"; the generator checks abbreviations against the
// zones' own rules.
func TestSearchESTOrder(t *testing.T) {
	t.Parallel()
	got := zones(places.Search("EST", places.Reader{}, winter, places.MaxResults))
	require.Equal(t, "America/New_York", got[0])
	require.NotContains(t, got, "America/Winnipeg")
	require.Contains(t, zones(places.Search("CST", places.Reader{}, winter, places.MaxResults)), "America/Winnipeg")
	require.Contains(t, zones(places.Search("PST", places.Reader{}, winter, places.MaxResults)), "America/Vancouver")
}

// A city the data had on the wrong clock is on its own (gen/corrections.tsv).
func TestSearchCorrectedCities(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"Winslow": "America/Phoenix", "Lhasa": "Asia/Shanghai", "Zhanjiang": "Asia/Shanghai",
		"Punta Arenas": "America/Punta_Arenas", "Cobija": "America/La_Paz",
	} {
		got := places.Search(q, places.Reader{}, winter, 1)
		require.NotEmpty(t, got, q)
		require.Equal(t, want, got[0].Zone, q)
	}
}

// Text typed and not picked is taken when one zone matches it best and
// alone; otherwise the choices are offered, bounded.
func TestResolve(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"Denver": "America/Denver", "denver": "America/Denver", "Eastern Time": "America/New_York", "Bombay": "Asia/Kolkata",
		"Europe/Berlin": "Europe/Berlin", "US/Eastern": "America/New_York", "Central": "America/Chicago", "Denv": "America/Denver",
		"Winslow": "America/Phoenix", "UTC": "UTC",
	} {
		zone, choices := places.Resolve(q, places.Reader{}, winter)
		require.Equal(t, want, zone, q)
		require.Empty(t, choices, q)
	}
	zone, choices := places.Resolve("Springfield", places.Reader{}, winter)
	require.Empty(t, zone)
	require.Equal(t, []string{"America/New_York", "America/Chicago", "America/Los_Angeles"}, zones(choices))
	require.Equal(t, "Springfield", choices[0].City)
	zone, choices = places.Resolve("EST", places.Reader{}, winter)
	require.Empty(t, zone, "an abbreviation many zones use is a choice")
	require.Len(t, choices, places.MaxChoices)
	zone, choices = places.Resolve("zzzzqx", places.Reader{}, winter)
	require.Empty(t, zone)
	require.Empty(t, choices)
}

func FuzzSearch(f *testing.F) {
	for _, s := range []string{"nyc", "são paulo", "+05:30", "utc-3", "America/New", "\x00", "שלום", "heure de", "MEZ", "hora de de"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, r := range []places.Reader{{}, {Lang: "de", Region: "DE"}, {Lang: "fr", Region: "CA"}} {
			got := places.Search(q, r, winter, 5)
			if len(got) > 5 {
				t.Fatalf("%d results", len(got))
			}
			for _, res := range got {
				if _, err := schedule.LoadZone(res.Zone); err != nil {
					t.Fatalf("result %q does not load: %v", res.Zone, err)
				}
			}
		}
	})
}

func BenchmarkSearch(b *testing.B) {
	places.Search("warm up", places.Reader{}, winter, 1)                                // the index is built on first use
	for _, q := range []string{"lon", "new york", "CET", "utc+1", "chicgo", "zzzzqx"} { // the last two: the typo pass
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				places.Search(q, places.Reader{}, winter, 12)
			}
		})
	}
}
