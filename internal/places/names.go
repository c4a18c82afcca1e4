package places

import (
	"slices"
	"strings"
)

// Reader is who searches: names in their language are matched first and
// shown, and their region's places and zones come first among equals
// (docs/timezone-picker.md, "The reader's language and region"). The zero
// Reader reads English and prefers no region.
type Reader struct {
	Lang   string // "de", "en", "es", "fr"; anything else reads as English
	Region string // "DE", "MX": the reader's country, "" for none
}

// langSet is a set of the four languages names.tsv tags names with.
type langSet uint8

func langOf(code string) langSet {
	switch code {
	case "de":
		return 1
	case "es":
		return 4
	case "fr":
		return 8
	}
	return 2 // en, and what the picker does not speak
}

func langsOf(list string) langSet {
	var s langSet
	for _, l := range strings.Split(list, ",") {
		s |= langOf(l)
	}
	return s
}

const english langSet = 2

// country is a country as places.tsv names it (in English) with its names
// in the four languages ("Deutschland", "Alemania", "Allemagne").
type country struct {
	name string // "Germany"
	code string // "DE"
	keys []key  // its English name first
}

// shown is the country's name in lang.
func (c country) shown(lang langSet) string {
	for _, k := range c.keys[1:] {
		if k.langs&lang != 0 {
			return k.shown
		}
	}
	return c.name
}

// clock is a CLDR metazone ("Europe_Central") or a zone's own clock name
// ("British Summer Time"): the zones keeping it now and its names.
type clock struct {
	members  []int          // zone indexes
	golden   int            // the zone that stands for it in the world
	regional map[string]int // and in a region: DE → Europe/Berlin
	long     []key          // "Mitteleuropäische Zeit", "hora del Pacífico"
	short    []key          // "MEZ", "MESZ": matched in full only
}

// zoneFor is the zone a clock's name stands for to a reader of region.
func (c clock) zoneFor(region string) int {
	if z, ok := c.regional[region]; ok {
		return z
	}
	return c.golden
}

// taggedKeys reads names.tsv's "de,fr:Genève|Genf" lists.
func taggedKeys(list string) []key {
	var out []key
	for _, n := range strings.Split(list, "|") {
		if n == "" {
			continue
		}
		k := key{other: true}
		if langs, name, ok := strings.Cut(n, ":"); ok {
			k = key{langs: langsOf(langs)}
			n = name
		}
		k.norm, k.shown = normalize(n), n
		if k.norm != "" {
			out = append(out, k)
		}
	}
	return out
}

// parseCountries reads names.tsv's countries, by their name in places.tsv.
func (ix *index) parseCountries(text string) map[string]int {
	byName := map[string]int{}
	for line := range strings.Lines(text) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if f[0] == "K" && len(f) == 4 {
			byName[f[1]] = len(ix.countries)
			keys := append([]key{{norm: normalize(f[1]), shown: f[1], langs: english}}, taggedKeys(f[3])...)
			ix.countries = append(ix.countries, country{name: f[1], code: f[2], keys: withInitialsJoined(keys)})
		}
	}
	return byName
}

// withInitialsJoined adds, for a short form written in doubled initials
// with dots or spaces (Spanish "EE. UU."), the initials run together, as
// people type them ("EEUU"); docs/timezone-picker.md, "The reader's
// language and region". Single initials are left alone: French "É.-U."
// would make "EU".
func withInitialsJoined(keys []key) []key {
	for _, k := range keys {
		words := strings.Fields(k.norm)
		if len(words) < 2 || slices.ContainsFunc(words, func(w string) bool { return len(w) != 2 }) {
			continue
		}
		j := k
		j.norm = strings.Join(words, "")
		if !slices.ContainsFunc(keys, func(o key) bool { return o.norm == j.norm }) {
			keys = append(keys, j)
		}
	}
	return keys
}

// countryIndex is the country of that name, added when names.tsv lacks it.
func (ix *index) countryIndex(byName map[string]int, name string) int {
	if i, ok := byName[name]; ok {
		return i
	}
	byName[name] = len(ix.countries)
	ix.countries = append(ix.countries, country{name: name, keys: []key{{norm: normalize(name), shown: name, langs: english}}})
	return byName[name]
}

// parseNames reads the rest of names.tsv (its format is in its header):
// the words of zone names, the clocks and their names, and the names of
// zones' cities and of places in the four languages.
func (ix *index) parseNames(text string, zoneByName map[string]int) {
	ix.words = map[string]bool{}
	clockByName := map[string]int{}
	placeByKey := map[string]int{}
	for i, p := range ix.places {
		placeByKey[ix.zones[p.zone].name+"\t"+p.name+"\t"+p.province] = i
	}
	zones := func(list string) []int {
		var out []int
		for _, n := range strings.Split(list, ",") {
			if zi, ok := zoneByName[n]; ok {
				out = append(out, zi)
			}
		}
		return out
	}
	for line := range strings.Lines(text) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		switch {
		case f[0] == "W" && len(f) == 3:
			for _, w := range strings.Fields(f[2]) {
				ix.words[w] = true
			}
		case f[0] == "M" && len(f) == 5:
			c := clock{members: zones(f[4]), golden: -1, regional: map[string]int{}}
			if g := zones(f[2]); len(g) == 1 {
				c.golden = g[0]
			}
			for _, r := range strings.Split(f[3], ",") {
				if cc, z, ok := strings.Cut(r, "="); ok {
					if g := zones(z); len(g) == 1 {
						c.regional[cc] = g[0]
					}
				}
			}
			if len(c.members) == 0 || c.golden < 0 {
				continue
			}
			clockByName[f[1]] = len(ix.clocks)
			for _, zi := range c.members {
				ix.zones[zi].clock = len(ix.clocks)
			}
			ix.clocks = append(ix.clocks, c)
		case f[0] == "N" && len(f) == 4:
			ci, ok := clockByName[f[1]]
			if !ok { // a zone's own name ("British Summer Time")
				zi, ok := zoneByName[f[1]]
				if !ok {
					continue
				}
				ci = len(ix.clocks)
				c := clock{members: []int{zi}, golden: zi, regional: map[string]int{}}
				if top := ix.zones[zi].top; top >= 0 { // "BST" is London's to a British reader
					c.regional[ix.countries[ix.places[top].country].code] = zi
				}
				ix.clocks = append(ix.clocks, c)
			}
			ix.clocks[ci].long = append(ix.clocks[ci].long, taggedKeys(f[2])...)
			ix.clocks[ci].short = append(ix.clocks[ci].short, taggedKeys(f[3])...)
		case f[0] == "E" && len(f) == 4:
			zi, ok := zoneByName[f[1]]
			if !ok {
				continue
			}
			local := taggedKeys(f[3])
			ix.zones[zi].local = local
			city := normalize(f[2])
			for i := range ix.places {
				if p := &ix.places[i]; p.zone == zi && p.keys[0].norm == city {
					p.keys = append(append([]key{p.keys[0]}, local...), p.keys[1:]...)
					break
				}
			}
		case f[0] == "P" && len(f) == 5:
			if pi, ok := placeByKey[f[1]+"\t"+f[2]+"\t"+f[3]]; ok {
				ix.places[pi].keys = append(ix.places[pi].keys, taggedKeys(f[4])...)
			}
		}
	}
}

// label is how a place is named to a reader of lang who found it by its
// key matched (-1: not by a name): by that name if it is the reader's
// language or one of GeoNames' others, whose language is not known (the
// reader typed it: "Mailand", "Genf"); else by the place's name in the
// reader's language (the city data's own names are English); else by its
// own name.
func (p place) label(matched int, lang langSet) string {
	if matched >= 0 && (p.keys[matched].langs&lang != 0 || p.keys[matched].other) {
		return p.keys[matched].shown
	}
	if lang != english { // the city data's own names are English
		for _, k := range p.keys {
			if k.langs&lang != 0 {
				return k.shown
			}
		}
	}
	return p.name
}

// withoutZoneWords is q without the words zone names are made of ("heure
// de Paris" → "paris"), or "" when it has none or nothing else.
func (ix *index) withoutZoneWords(q string) string {
	words := strings.Fields(q)
	kept := words[:0:0]
	for _, w := range words {
		if !ix.words[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == len(words) || len(kept) == 0 {
		return ""
	}
	return strings.Join(kept, " ")
}
