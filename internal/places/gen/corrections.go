package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// corrections is corrections.tsv: the zone fixes applied to the city data
// and the cross-country cities reviewed and kept (docs/timezone-picker.md,
// "Corrections").
type corrections struct {
	regions []regionRule
	cities  map[[3]string]cityFix // country, province, city
	keeps   map[[3]string]string  // country, province, city -> the zone kept
	used    map[string]bool       // lines applied or matched, by "kind:line"
}

type regionRule struct {
	line              int
	country, province string // province "*": any; a US state code matches too
	from, to          string // from "*": any zone
	except            []string
}

type cityFix struct {
	line     int
	from, to string
}

// cityRef is a city as the checks see it, its zone already canonical.
type cityRef struct {
	country, province, state, name, zone string
}

func (c cityRef) key() [3]string { return [3]string{c.country, c.province, c.name} }

// loadCorrections reads the file; canonical maps a zone name to the one
// schedule stores, "" when it is unknown (an error here: a rule must name
// real zones).
func loadCorrections(path string, canonical func(string) string) (*corrections, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &corrections{cities: map[[3]string]cityFix{}, keeps: map[[3]string]string{}, used: map[string]bool{}}
	zone := func(n int, name string) (string, error) {
		if name == "*" {
			return name, nil
		}
		if z := canonical(name); z != "" {
			return z, nil
		}
		return "", fmt.Errorf("%s:%d: unknown zone %q", filepath.Base(path), n, name)
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		want := map[string]int{"region": 7, "city": 7, "keep": 6}[fs[0]]
		if want == 0 || len(fs) != want {
			return nil, fmt.Errorf("%s:%d: want %d tab-separated columns for %q, got %d", filepath.Base(path), n, want, fs[0], len(fs))
		}
		switch fs[0] {
		case "region":
			from, err := zone(n, fs[3])
			if err != nil {
				return nil, err
			}
			to, err := zone(n, fs[4])
			if err != nil {
				return nil, err
			}
			r := regionRule{line: n, country: fs[1], province: fs[2], from: from, to: to}
			if fs[5] != "" {
				r.except = strings.Split(fs[5], "|")
			}
			c.regions = append(c.regions, r)
		case "city":
			from, err := zone(n, fs[4])
			if err != nil {
				return nil, err
			}
			to, err := zone(n, fs[5])
			if err != nil {
				return nil, err
			}
			c.cities[[3]string{fs[1], fs[2], fs[3]}] = cityFix{line: n, from: from, to: to}
		case "keep":
			z, err := zone(n, fs[4])
			if err != nil {
				return nil, err
			}
			c.keeps[[3]string{fs[1], fs[2], fs[3]}] = z
		}
	}
	return c, sc.Err()
}

// correct returns the zone a city belongs in: a city fix, else the first
// region rule that covers it, else its own.
func (c *corrections) correct(city cityRef) string {
	if fix, ok := c.cities[city.key()]; ok && fix.from == city.zone {
		c.used[fmt.Sprintf("city:%d", fix.line)] = true
		return fix.to
	}
	for _, r := range c.regions {
		if r.covers(city) {
			c.used[fmt.Sprintf("region:%d", r.line)] = true
			return r.to
		}
	}
	return city.zone
}

func (r regionRule) covers(c cityRef) bool {
	if r.country != c.country || (r.province != "*" && r.province != c.province && r.province != c.state) {
		return false
	}
	if r.from != "*" && r.from != c.zone {
		return false
	}
	return !slices.Contains(r.except, c.name) && !slices.Contains(r.except, c.province)
}

// suspect says why a city's (corrected) zone looks wrong, "" when it does
// not or when it was reviewed and kept: its zone is not one of its
// country's, or its name is a zone's own city in its country but it is on
// another zone.
func (c *corrections) suspect(city cityRef, countries map[string]map[string]bool, ownCity map[[2]string]string) string {
	if k := city.key(); c.keeps[k] == city.zone {
		c.used["keep:"+strings.Join(k[:], "/")] = true
		return ""
	}
	if !countries[city.zone][city.country] {
		return fmt.Sprintf("%s is a zone of %s, not of %q", city.zone, strings.Join(sortedKeys(countries[city.zone]), ","), city.country)
	}
	if own := ownCity[[2]string{city.country, city.name}]; own != "" && own != city.zone {
		return fmt.Sprintf("%s is the city of zone %s", city.name, own)
	}
	return ""
}

// unused lists the lines that changed or kept no city: stale entries,
// which the generator refuses so that the file stays the list of what it does.
func (c *corrections) unused() []string {
	var out []string
	for _, r := range c.regions {
		if !c.used[fmt.Sprintf("region:%d", r.line)] {
			out = append(out, fmt.Sprintf("line %d (region %s %s)", r.line, r.country, r.province))
		}
	}
	for k, fix := range c.cities {
		if !c.used[fmt.Sprintf("city:%d", fix.line)] {
			out = append(out, fmt.Sprintf("line %d (city %s)", fix.line, k[2]))
		}
	}
	for k := range c.keeps {
		if !c.used["keep:"+strings.Join(k[:], "/")] {
			out = append(out, fmt.Sprintf("keep %s", k[2]))
		}
	}
	slices.Sort(out)
	return out
}

// readCountries maps each canonical zone to the countries zone1970.tab and
// zone.tab give it, and each country's zone city (zone.tab's, by country
// and city name) to its zone.
func readCountries(dir string, canonical func(string) string, cityOf func(string) string) (map[string]map[string]bool, map[[2]string]string, error) {
	countries := map[string]map[string]bool{}
	ownCity := map[[2]string]string{}
	for _, file := range []string{"zone1970.tab", "zone.tab"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, nil, err
		}
		for line := range strings.Lines(string(data)) {
			fs := strings.Split(strings.TrimRight(line, "\n"), "\t")
			if len(fs) < 3 || strings.HasPrefix(fs[0], "#") {
				continue
			}
			z := canonical(fs[2])
			if z == "" {
				continue
			}
			if countries[z] == nil {
				countries[z] = map[string]bool{}
			}
			for _, cc := range strings.Split(fs[0], ",") {
				countries[z][cc] = true
			}
			if file == "zone.tab" {
				ownCity[[2]string{fs[0], cityOf(fs[2])}] = z
			}
		}
	}
	return countries, ownCity, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
