package schedule

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:generate go run ./gen

// Zone is a loaded IANA time zone under its canonical name, the name stored
// in configs whatever alias the admin typed.
type Zone struct {
	Name string
	Loc  *time.Location
}

// ZoneInfo describes a canonical zone for the picker.
type ZoneInfo struct {
	Name        string
	City        string
	CountryCode string // ISO 3166 alpha-2, "" for zones like UTC
	Country     string
	Comment     string // zone.tab's hint for countries with several zones, e.g. "Eastern (most areas)"
	Aliases     []string
}

// zoneNames maps every accepted spelling, lowercased, to its canonical name.
var zoneNames = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 2*len(zoneTable))
	for _, z := range zoneTable {
		m[strings.ToLower(z.Name)] = z.Name
		for _, a := range z.Aliases {
			m[strings.ToLower(a)] = z.Name
		}
	}
	return m
})

func checkZoneName(name string) error {
	switch {
	case name == "":
		return errors.New("time zone is required")
	case strings.EqualFold(name, "Local"):
		return fmt.Errorf("time zone %q depends on the server; choose a named zone", name)
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") ||
		strings.Contains(name, "..") || strings.Contains(name, `\`):
		return fmt.Errorf("invalid time zone name %q", name)
	}
	return nil
}

// Zones returns all canonical zones, sorted by name.
func Zones() []ZoneInfo {
	zones := make([]ZoneInfo, len(zoneTable))
	for i, z := range zoneTable {
		zones[i] = z.clone()
	}
	return zones
}

// clone keeps callers from editing the shared table through Aliases.
func (z ZoneInfo) clone() ZoneInfo {
	z.Aliases = slices.Clone(z.Aliases)
	return z
}

// Search ranks, best first: whole names, then beginnings of names, then
// anything containing the query. "india" finds Kolkata before Indianapolis,
// "new" finds New York before New Zealand.
const (
	rankExact = iota
	rankCountry
	rankCityPrefix
	rankCountryPrefix
	rankWordPrefix
	rankNamePrefix
	rankSubstring
	noMatch
)

// searchKey is a zone's searchable text, normalized once.
type searchKey struct {
	cities  []string // the city and the cities of its aliases
	names   []string // the zone name and its aliases
	country string
}

var searchKeys = sync.OnceValue(func() []searchKey {
	keys := make([]searchKey, len(zoneTable))
	for i, z := range zoneTable {
		k := searchKey{country: normalize(z.Country)}
		for _, name := range append([]string{z.Name}, z.Aliases...) {
			k.names = append(k.names, normalize(name))
			k.cities = append(k.cities, normalize(cityOf(name)))
		}
		keys[i] = k
	}
	return keys
})

// SearchZones finds zones by city, zone name, alias or country,
// case-insensitively and ignoring accents and underscores; best matches first,
// at most limit (all if limit <= 0). An empty query finds nothing.
func SearchZones(query string, limit int) []ZoneInfo {
	q := normalize(query)
	if q == "" {
		return nil
	}
	type hit struct{ rank, index int }
	var hits []hit
	for i, k := range searchKeys() {
		if r := k.rank(q); r != noMatch {
			hits = append(hits, hit{r, i})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.index, b.index))
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]ZoneInfo, len(hits))
	for i, h := range hits {
		out[i] = zoneTable[h.index].clone()
	}
	return out
}

func (k searchKey) rank(q string) int {
	switch {
	case slices.Contains(k.cities, q) || slices.Contains(k.names, q):
		return rankExact
	case k.country == q:
		return rankCountry
	case slices.ContainsFunc(k.cities, hasPrefix(q)):
		return rankCityPrefix
	case strings.HasPrefix(k.country, q):
		return rankCountryPrefix
	case slices.ContainsFunc(k.cities, hasWordPrefix(q)):
		return rankWordPrefix
	case slices.ContainsFunc(k.names, hasPrefix(q)):
		return rankNamePrefix
	case slices.ContainsFunc(k.names, contains(q)) || strings.Contains(k.country, q):
		return rankSubstring
	}
	return noMatch
}

func hasPrefix(q string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, q) }
}

func hasWordPrefix(q string) func(string) bool {
	return func(s string) bool { return strings.Contains(" "+s, " "+q) }
}

func contains(q string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, q) }
}

// cityOf is the place part of a zone name: "America/Argentina/Buenos_Aires" -> "Buenos_Aires".
func cityOf(name string) string {
	return name[strings.LastIndex(name, "/")+1:]
}

// foldAccents covers the accented letters people type in city and country
// names ("São Paulo", "Curaçao", "Réunion"); tz names themselves are ASCII.
var foldAccents = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ã", "a", "ä", "a", "å", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i",
	"ó", "o", "ò", "o", "ô", "o", "õ", "o", "ö", "o",
	"ú", "u", "ù", "u", "û", "u", "ü", "u",
	"ç", "c", "ñ", "n", "ý", "y",
)

// normalize lowercases, folds accents, treats "_" as a space and collapses spaces.
func normalize(s string) string {
	s = foldAccents.Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), " ")
}

// ZoneLabel describes z at now for the picker: its UTC offset ("UTC−05:00")
// and its wall clock ("08:04").
func ZoneLabel(z Zone, now time.Time) (offset string, local string) {
	t := now.In(z.Loc)
	return offsetLabel(t), t.Format("15:04")
}

// offsetLabel formats t's UTC offset with a true minus sign, as typeset
// offsets are ("UTC−05:00", "UTC+05:45").
func offsetLabel(t time.Time) string {
	_, secs := t.Zone()
	sign := "+"
	if secs < 0 {
		sign, secs = "−", -secs
	}
	return fmt.Sprintf("UTC%s%02d:%02d", sign, secs/3600, secs/60%60)
}
