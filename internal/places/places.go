// Package places finds time zones by what people type into the picker:
// a city ("Dallas", "são paulo"), an acronym ("NYC"), a US state code
// ("ny"), a country, an abbreviation ("IST", "PDT"), an offset ("UTC+1",
// "+05:30") or a zone name ("America/New"), in German, Spanish, French or
// English ("München", "Nueva York", "MEZ", "heure de Paris"), and names
// what it finds in the reader's language. The cities come from a dataset
// (places.tsv, and names.tsv for their names in four languages; generated,
// see docs/timezone-picker.md), the zones from internal/schedule, which
// also loads every zone a result shows.
//
// The search is ours rather than a fuzzy-matching library's: the ranking is
// the product (exact, prefix, word, substring, then population; one result
// per zone; offsets as of now), and over 7,400 names a linear scan answers
// in a few milliseconds (docs/timezone-picker.md, "Figures").
package places

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"

	"fieldbrief/internal/schedule"
)

//go:generate ../../scripts/places-data.sh

//go:embed places.tsv
var data string

//go:embed aliases.tsv
var aliasData string

//go:embed names.tsv
var namesData string

// place is a city of the dataset, or a main city tzdb names for its zone.
type place struct {
	zone      int    // index in index.zones
	name      string // as shown: "São Paulo"
	province  string // as shown: "São Paulo"
	keys      []key  // its names: its own first, then in the four languages and GeoNames' others
	acronym   string // "nyc" for New York City; "" for one-word names
	state     string // normalized US state code: "ny"
	provinceN string // normalized
	country   int    // index in index.countries
	pop       int64
}

// key is a name as searched ("munchen") and as shown ("München"), with the
// languages that write it so (none: the place's own name in the city data,
// or one of GeoNames' other names, whose language the data does not say).
type key struct {
	norm, shown string
	langs       langSet
	other       bool // one of GeoNames' other names
}

// zoneEntry is a canonical zone of internal/schedule.
type zoneEntry struct {
	name    string   // canonical: "America/New_York"
	names   []string // normalized name and aliases: "america/new york", "us/eastern"
	cities  []string // normalized last parts of those: "new york", "eastern"
	abbrs   []string // upper case: "EST", "EDT"
	top     int      // its most populous place, -1 if none
	city    string   // shown when no place names it: "New York"
	country string   // shown likewise: "United States"
	raw     bool     // a name no one lives under ("PST8PDT", "Etc/GMT+5"): never listed
	local   []key    // its city in the four languages (CLDR): "Mexiko-Stadt"
	clock   int      // the CLDR metazone it keeps now (index in index.clocks), -1 if none
}

// alias is a line of aliases.tsv: a name people use for a zone.
type alias struct {
	key  string // normalized: "eastern time"
	zone int
}

type index struct {
	zones         []zoneEntry
	places        []place
	aliases       []alias
	countries     []country
	countryByName map[string]int
	clocks        []clock
	words         map[string]bool // the words zone names are made of: "heure", "hora", "zeit", "time"
}

var load = sync.OnceValue(func() *index { return parse(data, aliasData, namesData) })

// raw reports whether a canonical zone is one of tz's names for a rule or
// an offset rather than a place: "PST8PDT", "EST", "CET", "Etc/GMT+5". They
// stay valid to store (orgs may have saved them), but the picker lists the
// places that keep their clock instead (docs/timezone-picker.md, "Raw zone
// names").
func raw(name string) bool {
	return name != "UTC" && (!strings.Contains(name, "/") || strings.HasPrefix(name, "Etc/"))
}

// parse reads places.tsv (its format is in its header) onto schedule's zone
// table. A zone of the file that schedule does not know is skipped: the
// generator maps names through schedule, so that happens only when the tz
// release changes before the file is regenerated.
func parse(text, aliasText, namesText string) *index {
	ix := &index{}
	byName := map[string]int{}
	for _, z := range schedule.Zones() {
		e := zoneEntry{name: z.Name, top: -1, city: z.City, country: z.Country, raw: raw(z.Name), clock: -1}
		for _, n := range append([]string{z.Name}, z.Aliases...) {
			e.names = append(e.names, normalize(n))
			e.cities = append(e.cities, normalize(n[strings.LastIndex(n, "/")+1:]))
		}
		byName[z.Name] = len(ix.zones)
		ix.zones = append(ix.zones, e)
	}
	countries := ix.parseCountries(namesText)
	ix.countryByName = countries
	current := -1
	mains := map[int][]string{} // added once every zone's own cities are in
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		switch {
		case f[0] == "Z" && len(f) == 4:
			zi, ok := byName[f[1]]
			if !ok {
				current = -1
				continue
			}
			current = zi
			if f[2] != "" {
				ix.zones[zi].abbrs = strings.Split(strings.ToUpper(f[2]), ",")
			}
			if f[3] != "" {
				mains[zi] = strings.Split(f[3], "|")
			}
		case f[0] == "" && len(f) == 7 && current >= 0:
			pop, _ := strconv.ParseInt(f[6], 10, 64)
			ix.add(place{
				zone: current, name: f[1], province: f[3],
				keys:  keys(f[1], f[2]),
				state: normalize(f[4]), provinceN: normalize(f[3]), country: ix.countryIndex(countries, f[5]),
				pop: pop,
			})
		}
	}
	ix.addMainCities(mains, countries)
	ix.parseNames(namesText, byName)
	for line := range strings.Lines(aliasText) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if zi, ok := byName[f[1]]; ok { // a zone the tz release no longer has: TestAliases says which
			ix.aliases = append(ix.aliases, alias{key: normalize(f[0]), zone: zi})
		}
	}
	return ix
}

func (ix *index) add(p place) {
	if words := strings.Fields(p.keys[0].norm); len(words) > 1 {
		var b strings.Builder
		for _, w := range words {
			b.WriteString(w[:1])
		}
		p.acronym = b.String()
	}
	z := &ix.zones[p.zone]
	if z.top < 0 || ix.places[z.top].pop < p.pop {
		z.top = len(ix.places)
	}
	ix.places = append(ix.places, p)
}

// addMainCities adds tzdb's main cities of zones the city dataset lacks
// ("New York City", "Brooklyn"), with no population of their own.
func (ix *index) addMainCities(mains map[int][]string, countries map[string]int) {
	have := map[int]map[string]bool{}
	for _, p := range ix.places {
		if have[p.zone] == nil {
			have[p.zone] = map[string]bool{}
		}
		for _, k := range p.keys {
			have[p.zone][k.norm] = true
		}
	}
	for zi := range ix.zones {
		z := ix.zones[zi]
		for _, n := range mains[zi] {
			if k := normalize(n); k != "" && !have[zi][k] {
				ix.add(place{zone: zi, name: n, keys: []key{{norm: k, shown: n}}, country: ix.countryIndex(countries, z.country)})
			}
		}
	}
}

func keys(name, ascii string) []key {
	k := []key{{norm: normalize(name), shown: name}}
	if a := normalize(ascii); a != "" && a != k[0].norm {
		k = append(k, key{norm: a, shown: name})
	}
	return k
}

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" && (len(out) == 0 || out[len(out)-1] != p) {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}
