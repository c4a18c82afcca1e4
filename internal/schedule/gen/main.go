// Command gen writes zones_gen.go: the canonical IANA time zone names with
// their aliases, cities and countries, read from the tz source files that ship
// with the system's tzdata package; and zoneinfo.zip: the compiled rules
// (TZif) of those zones from the same directory, which the binaries embed
// and decide with (docs/scheduling.md, "Zone rules"). Names, rules and the
// recorded version therefore come from one tz release.
//
// A name is canonical when it is a Zone line of tzdata.zi or listed in
// zone.tab, so a zone.tab name that the tz build happens to implement as a
// link (Europe/Amsterdam in non-backzone builds) keeps its own identity.
// Every other link (US/Eastern, Asia/Calcutta, UTC) becomes an alias of the
// zone its link chain ends at.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// notPlaces are Zone lines that name no place anyone lives in.
var notPlaces = map[string]string{
	"Factory": "tz's placeholder for \"zone not yet configured\"",
}

type zone struct {
	name, countryCode, country, comment string
	aliases                             []string
}

// preferredNames overrides tz's choice of canonical name where everyone
// writes the alias: tz's zone is Etc/UTC with UTC as a backward link, but an
// admin (or a script) who saves "UTC" expects to read "UTC" back.
var preferredNames = map[string]string{"Etc/UTC": "UTC"}

func main() {
	dir := flag.String("zoneinfo", "/usr/share/zoneinfo", "directory holding tzdata.zi, zone.tab, iso3166.tab and the compiled zone files")
	out := flag.String("o", "zones_gen.go", "output file")
	zipOut := flag.String("zip", "zoneinfo.zip", "output file for the embedded zone rules")
	flag.Parse()
	if err := run(*dir, *out, *zipOut); err != nil {
		log.Fatal(err)
	}
}

func run(dir, out, zipOut string) error {
	src, err := readTZData(filepath.Join(dir, "tzdata.zi"))
	if err != nil {
		return err
	}
	if src.version == "" {
		return fmt.Errorf("%s: no \"# version\" line: the embedded rules would not say which release they are", filepath.Join(dir, "tzdata.zi"))
	}
	countries, err := readTable(filepath.Join(dir, "iso3166.tab"), 2)
	if err != nil {
		return err
	}
	tab, err := readTable(filepath.Join(dir, "zone.tab"), 3)
	if err != nil {
		return err
	}
	zones := map[string]*zone{}
	rules := map[string][]byte{} // canonical name as tz spells it -> TZif
	var dropped []string
	addZone := func(name string) {
		if _, seen := zones[name]; seen || notPlaces[name] != "" {
			return
		}
		data, err := loadable(dir, name)
		if err != nil {
			dropped = append(dropped, fmt.Sprintf("%s: %v", name, err))
			return
		}
		zones[name] = &zone{name: name}
		rules[name] = data
	}
	for _, name := range src.zones {
		addZone(name)
	}
	for _, row := range tab {
		addZone(row[2])
		if z := zones[row[2]]; z != nil {
			z.countryCode, z.country = row[0], countryName(countries, row[0])
			if len(row) > 3 {
				z.comment = row[3]
			}
		}
	}
	for link := range src.links {
		if _, canonical := zones[link]; canonical || notPlaces[link] != "" {
			continue
		}
		target, ok := resolve(link, src.links, zones)
		if !ok {
			dropped = append(dropped, fmt.Sprintf("%s: link to a dropped zone", link))
			continue
		}
		zones[target].aliases = append(zones[target].aliases, link)
	}
	for from, to := range preferredNames {
		z := zones[from]
		if z == nil {
			return fmt.Errorf("preferred name %s: no zone %s", to, from)
		}
		delete(zones, from)
		rules[to] = rules[from]
		delete(rules, from)
		z.aliases = append(slices.DeleteFunc(z.aliases, func(a string) bool { return a == to }), from)
		slices.Sort(z.aliases)
		z.name = to
		zones[to] = z
	}
	if err := checkCaseCollisions(zones); err != nil {
		return err
	}
	code, err := render(src.version, zones, dropped)
	if err != nil {
		return err
	}
	archive, err := zipRules(rules)
	if err != nil {
		return err
	}
	if err := os.WriteFile(zipOut, archive, 0o644); err != nil {
		return err
	}
	return os.WriteFile(out, code, 0o644)
}

// zipRules packs the zone files, sorted by name and without modification
// times, so that the same release always gives the same bytes.
func zipRules(rules map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(rules))
	for name := range rules {
		names = append(names, name)
	}
	slices.Sort(names)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(rules[name]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type tzdata struct {
	version string
	zones   []string
	links   map[string]string // link name -> target
}

// readTZData reads the compact zic input: "Z NAME ..." zone lines and
// "L TARGET LINK" link lines.
func readTZData(path string) (tzdata, error) {
	f, err := os.Open(path)
	if err != nil {
		return tzdata{}, err
	}
	defer f.Close()
	src := tzdata{links: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 3 && fields[0] == "#" && fields[1] == "version":
			src.version = fields[2]
		case len(fields) >= 2 && fields[0] == "Z":
			src.zones = append(src.zones, fields[1])
		case len(fields) == 3 && fields[0] == "L":
			src.links[fields[2]] = fields[1]
		}
	}
	if err := sc.Err(); err != nil {
		return tzdata{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(src.zones) == 0 {
		return tzdata{}, fmt.Errorf("%s: no Zone lines", path)
	}
	return src, nil
}

// readTable reads a tab-separated tz table, skipping comments; rows have at
// least minCols columns.
func readTable(path string, minCols int) ([][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row := strings.Split(line, "\t")
		if len(row) < minCols {
			return nil, fmt.Errorf("%s:%d: want %d columns, got %d", path, i+1, minCols, len(row))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func countryName(iso3166 [][]string, code string) string {
	for _, row := range iso3166 {
		if row[0] == code {
			return row[1]
		}
	}
	return ""
}

// loadable returns the compiled rules of name from dir, or why they cannot
// be used: time.LoadLocationFromTZData, which the app loads them with, must
// accept them.
func loadable(dir, name string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, err
	}
	if _, err := time.LoadLocationFromTZData(name, data); err != nil {
		return nil, err
	}
	return data, nil
}

// resolve follows a link chain to the canonical zone it ends at.
func resolve(link string, links map[string]string, zones map[string]*zone) (string, bool) {
	name := link
	for range len(links) {
		if _, ok := zones[name]; ok {
			return name, true
		}
		next, ok := links[name]
		if !ok {
			return "", false
		}
		name = next
	}
	return "", false // a cycle
}

// checkCaseCollisions guards the case-insensitive lookup in LoadZone.
func checkCaseCollisions(zones map[string]*zone) error {
	owner := map[string]string{}
	for _, z := range zones {
		for _, name := range append([]string{z.name}, z.aliases...) {
			key := strings.ToLower(name)
			if other, ok := owner[key]; ok {
				return fmt.Errorf("names %q and %q differ only in case", name, other)
			}
			owner[key] = name
		}
	}
	return nil
}

func render(version string, zones map[string]*zone, dropped []string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by \"go run ./gen\"; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package schedule\n\n")
	fmt.Fprintf(&b, "// tzdataVersion is the tz release of zoneTable and of the embedded rules (zoneinfo.zip).\n")
	fmt.Fprintf(&b, "const tzdataVersion = %q\n\n", version)
	fmt.Fprintf(&b, "// zoneTable lists every canonical zone of tz %s, sorted by name.\n", version)
	if len(dropped) > 0 {
		slices.Sort(dropped)
		b.WriteString("//\n// Dropped because their rules cannot be loaded:\n")
		for _, d := range dropped {
			fmt.Fprintf(&b, "//   - %s\n", d)
		}
	}
	names := make([]string, 0, len(zones))
	for name := range zones {
		names = append(names, name)
	}
	slices.Sort(names)
	b.WriteString("var zoneTable = []ZoneInfo{\n")
	for _, name := range names {
		z := zones[name]
		slices.Sort(z.aliases)
		fmt.Fprintf(&b, "{Name: %q, City: %q", z.name, city(z.name))
		if z.countryCode != "" {
			fmt.Fprintf(&b, ", CountryCode: %q, Country: %q", z.countryCode, z.country)
		}
		if z.comment != "" {
			fmt.Fprintf(&b, ", Comment: %q", z.comment)
		}
		if len(z.aliases) > 0 {
			fmt.Fprintf(&b, ", Aliases: %#v", z.aliases)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// city is the human part of a zone name: "America/Argentina/Buenos_Aires" -> "Buenos Aires".
func city(name string) string {
	return strings.ReplaceAll(name[strings.LastIndex(name, "/")+1:], "_", " ")
}
