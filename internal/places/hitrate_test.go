package places_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/places"
)

func reader(tag string) places.Reader {
	lang, region, _ := strings.Cut(tag, "-")
	return places.Reader{Lang: lang, Region: region}
}

// What admins type in their own language finds the zone they mean first
// (testdata/queries.tsv: 30 queries each in German, Spanish, French and
// English). A query marked "miss" is one the picker still gets wrong: it
// is asserted to miss, so that fixing it updates the list and the hit rate
// in docs/timezone-picker.md. `go test -run TestSearchInTheReadersLanguage
// -v` prints the hit rate per language.
func TestSearchInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/queries.tsv")
	require.NoError(t, err)
	hits, all := map[string]int{}, map[string]int{}
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if strings.HasPrefix(f[0], "#") {
			continue
		}
		require.GreaterOrEqual(t, len(f), 3, "%q", line)
		lang := reader(f[0]).Lang
		all[lang]++
		got := places.Search(f[1], reader(f[0]), winter, 3)
		hit := len(got) > 0 && got[0].Zone == f[2]
		if hit {
			hits[lang]++
		}
		if len(f) > 3 && strings.HasPrefix(f[3], "miss") {
			require.False(t, hit, "%s %q now finds %s: drop its miss mark", f[0], f[1], f[2])
			continue
		}
		require.True(t, hit, "%s %q: want %s first, got %v", f[0], f[1], f[2], got)
	}
	for _, l := range []string{"de", "es", "fr", "en"} {
		require.GreaterOrEqual(t, all[l], 20, l)
		t.Logf("%s: %d of %d (%.0f%%)", l, hits[l], all[l], 100*float64(hits[l])/float64(all[l]))
	}
}

// Results name the place in the reader's language, and the country too.
func TestSearchLabelsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	de, es, fr, en := places.Reader{Lang: "de", Region: "DE"}, places.Reader{Lang: "es", Region: "ES"}, places.Reader{Lang: "fr", Region: "FR"}, places.Reader{Lang: "en", Region: "US"}
	for _, tc := range []struct {
		query        string
		r            places.Reader
		zone, city   string
		regionSuffix string
	}{
		{"München", de, "Europe/Berlin", "München", "Bayern, Deutschland"},
		{"Munchen", de, "Europe/Berlin", "München", "Deutschland"},
		{"Munich", de, "Europe/Berlin", "München", "Deutschland"}, // typed in English, named in German
		{"Munich", en, "Europe/Berlin", "Munich", "Germany"},
		{"Cologne", de, "Europe/Berlin", "Köln", "Nordrhein-Westfalen, Deutschland"},
		{"Mailand", de, "Europe/Rome", "Mailand", "Italien"},
		{"Mexiko-Stadt", de, "America/Mexico_City", "Mexiko-Stadt", "Mexiko"},
		{"Mexico City", es, "America/Mexico_City", "Ciudad de México", "México"},
		{"Londres", es, "Europe/London", "Londres", "Reino Unido"},
		{"Nueva York", es, "America/New_York", "Nueva York", "Estados Unidos"},
		{"Montréal", fr, "America/Toronto", "Montréal", "Canada"},
		{"Montreal", fr, "America/Toronto", "Montréal", "Canada"},
		{"Montréal", en, "America/Toronto", "Montréal", "Canada"},
		{"Genf", de, "Europe/Zurich", "Genf", "Schweiz"},
		{"Deutschland", de, "Europe/Berlin", "Berlin", "Deutschland"},
		{"EEUU", es, "America/New_York", "Nueva York", "Estados Unidos"}, // CLDR's "EE. UU." run together
	} {
		got := places.Search(tc.query, tc.r, winter, 1)
		require.NotEmpty(t, got, "%s %q", tc.r.Lang, tc.query)
		require.Equal(t, tc.zone, got[0].Zone, "%s %q", tc.r.Lang, tc.query)
		require.Equal(t, tc.city, got[0].City, "%s %q", tc.r.Lang, tc.query)
		require.True(t, strings.HasSuffix(got[0].Region, tc.regionSuffix), "%s %q: region %q", tc.r.Lang, tc.query, got[0].Region)
	}
}

// A clock's name stands for its zone in the reader's region: "hora
// central" is Chicago's in Spain and Mexico City's in Mexico; "MEZ" lists
// Berlin first in Germany, Vienna in Austria; "BST" is London's to a
// British reader. A place named in full weighs more in the reader's
// country, not enough to outweigh a capital ("Paris").
func TestSearchFollowsTheReadersRegion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query string
		r     places.Reader
		zone  string
	}{
		{"hora central", places.Reader{Lang: "es", Region: "ES"}, "America/Chicago"},
		{"hora central", places.Reader{Lang: "es", Region: "MX"}, "America/Mexico_City"},
		{"MEZ", places.Reader{Lang: "de", Region: "DE"}, "Europe/Berlin"},
		{"MEZ", places.Reader{Lang: "de", Region: "AT"}, "Europe/Vienna"},
		{"Mitteleuropäische Zeit", places.Reader{Lang: "de", Region: "CH"}, "Europe/Zurich"},
		{"heure d’Europe centrale", places.Reader{Lang: "fr", Region: "BE"}, "Europe/Brussels"},
		{"BST", places.Reader{Lang: "en", Region: "GB"}, "Europe/London"},
		{"Cambridge", places.Reader{Lang: "en", Region: "GB"}, "Europe/London"},
		{"Paris", places.Reader{Lang: "en", Region: "US"}, "Europe/Paris"},
		{"lon", places.Reader{Lang: "en", Region: "US"}, "Europe/London"},
		// An alias of a clock is the clock's zone in the reader's region
		// when its own zone is abroad.
		{"CET", places.Reader{Lang: "es", Region: "ES"}, "Europe/Madrid"},
		{"CET", places.Reader{Lang: "de", Region: "DE"}, "Europe/Berlin"},
		{"CET", places.Reader{Lang: "en", Region: "US"}, "Europe/Paris"},
		{"Eastern Time", places.Reader{Lang: "en", Region: "CA"}, "America/Toronto"},
		{"Alaska Time", places.Reader{Lang: "en", Region: "US"}, "America/Anchorage"},
	} {
		got := places.Search(tc.query, tc.r, winter, 3)
		require.NotEmpty(t, got, "%v %q", tc.r, tc.query)
		require.Equal(t, tc.zone, got[0].Zone, "%v %q: %v", tc.r, tc.query, zones(got))
	}
}

// Text typed and never picked is taken only when it stands for one zone
// by a whole name, or alone by its beginning: a lone near match ("Tucsn"
// for Tucson, the way "München" once found only North Korea's Munchon) is
// offered as the one choice, never taken.
func TestResolveNeverTakesALoneWeakMatch(t *testing.T) {
	t.Parallel()
	de := places.Reader{Lang: "de", Region: "DE"}
	for q, want := range map[string]string{
		"München": "Europe/Berlin", "Munchen": "Europe/Berlin", "Mitteleuropäische Zeit": "Europe/Berlin",
		"Mailand": "Europe/Rome", "Mexiko-Stadt": "America/Mexico_City", "Denv": "America/Denver",
		// Written without umlauts, as on a keyboard without them.
		"Muenchen": "Europe/Berlin", "Koeln": "Europe/Berlin", "Mitteleuropaeische Zeit": "Europe/Berlin",
	} {
		zone, choices := places.Resolve(q, de, winter)
		require.Equal(t, want, zone, q)
		require.Empty(t, choices, q)
	}
	for _, q := range []string{"Tucsn", "Albuquerqe", "Shenzen"} {
		zone, choices := places.Resolve(q, de, winter)
		require.Empty(t, zone, "%q is a near match only", q)
		require.Len(t, choices, 1, q)
	}
	// The typo pass reads a query without its zone words too; still a near match.
	zone, choices := places.Resolve("heure de Pariss", places.Reader{Lang: "fr", Region: "FR"}, winter)
	require.Empty(t, zone, "a typo is a near match, even after zone words")
	require.Len(t, choices, 1)
	require.Equal(t, "Europe/Paris", choices[0].Zone)
	zone, choices = places.Resolve("MEZ", de, winter)
	require.Empty(t, zone, "an abbreviation many zones keep is a choice")
	require.Equal(t, "Europe/Berlin", choices[0].Zone, "its region's zone first")
}
