// Command gen writes data.go, the CLDR data internal/locale formats with
// (docs/i18n.md, "Formats"), from the npm CLDR JSON packages unpacked on
// disk: cldr-core (week data, metazone ranges), cldr-dates-full (calendar
// patterns, day and month names, day periods, zone names), cldr-numbers-full
// (grouping and decimal symbols) and cldr-bcp47 (zone aliases, so that
// Asia/Kolkata finds CLDR's Asia/Calcutta).
//
// Every pattern the package formats with is checked here against the
// pattern letters internal/locale's interpreter knows: a CLDR release that
// brings a new letter fails generation, not a page.
//
// scripts/locale-data.sh fetches the packages with npm and runs this; it is
// what `go generate ./internal/locale/...` and `make generate` call.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// supported are the locales fieldbrief offers; the first of each language
// is the one a bare language tag ("de") resolves to.
var supported = []string{
	"en-US", "en-GB", "en-CA", "en-AU", "en-NZ", "en-IE",
	"de-DE", "de-AT", "de-CH",
	"es-ES", "es-US", "es-MX",
	"fr-FR", "fr-CA", "fr-BE", "fr-CH",
}

// letters are the pattern letters internal/locale's interpreter formats,
// with the widths it knows for each.
var letters = map[byte][]int{
	'y': {1, 2, 4}, 'M': {1, 2, 3, 4}, 'L': {1, 2, 3, 4}, 'd': {1, 2},
	'E': {1, 2, 3, 4}, 'c': {3, 4}, 'h': {1, 2}, 'H': {1, 2}, 'm': {1, 2}, 'a': {1},
}

func main() {
	core := flag.String("core", "", "unpacked cldr-core")
	dates := flag.String("dates", "", "unpacked cldr-dates-full")
	numbers := flag.String("numbers", "", "unpacked cldr-numbers-full")
	bcp47 := flag.String("bcp47", "", "unpacked cldr-bcp47")
	sources := flag.String("sources", "", "the packages and versions, recorded in the header")
	out := flag.String("o", "data.go", "output file")
	flag.Parse()
	if *core == "" || *dates == "" || *numbers == "" || *bcp47 == "" {
		log.Fatal("usage: gen -core DIR -dates DIR -numbers DIR -bcp47 DIR [-sources TEXT] [-o data.go]")
	}
	src, err := run(*core, *dates, *numbers, *bcp47, *sources)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

type names struct {
	Abbreviated map[string]string `json:"abbreviated"`
	Narrow      map[string]string `json:"narrow"`
	Short       map[string]string `json:"short"`
	Wide        map[string]string `json:"wide"`
}

type gregorian struct {
	Months      struct{ Format names } `json:"months"`
	Days        struct{ Format names } `json:"days"`
	DayPeriods  map[string]names       `json:"dayPeriods"`
	DateFormats map[string]string      `json:"dateFormats"`
	TimeFormats map[string]string      `json:"timeFormats"`
	DateTime    struct {
		Available map[string]string          `json:"availableFormats"`
		Intervals map[string]json.RawMessage `json:"intervalFormats"`
	} `json:"dateTimeFormats"`
}

type zoneNames struct {
	RegionFormat   string                     `json:"regionFormat"`
	FallbackFormat string                     `json:"fallbackFormat"`
	Zone           map[string]json.RawMessage `json:"zone"`
	Metazone       map[string]struct {
		Long map[string]string `json:"long"`
	} `json:"metazone"`
}

// zoneEntry is a leaf of timeZoneNames' zone tree.
type zoneEntry struct {
	Type         string            `json:"_type"`
	ExemplarCity string            `json:"exemplarCity"`
	Long         map[string]string `json:"long"`
}

// locale is what data.go holds for one locale.
type locale struct {
	tag, cldr                 string
	firstDay                  time.Weekday
	timeShort, mmmEd, ymmmEd  string
	mmmd, full                string
	days                      [4][7]string // abbreviated, wide, short, narrow
	months                    [2][12]string
	interval                  [3][2]string // by greatest difference: day period, hour, minute; split in two
	intervalFallback          string
	hourWords                 []string // literal words of the locale's hour patterns ("Uhr", "h")
	am, pm                    string
	markers                   []string // every am and pm spelling, am first then pm, separated by ""
	decimal, group, minus     string
	minGroup, primary, second int
	regionFormat, fallbackFmt string
	metazones                 map[string][2]string // generic, standard
	cities                    map[string]string
	zoneLong                  map[string]string
}

func run(coreDir, datesDir, numbersDir, bcp47Dir, sources string) ([]byte, error) {
	var week struct {
		Supplemental struct {
			WeekData struct {
				FirstDay map[string]string `json:"firstDay"`
			} `json:"weekData"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(coreDir, "supplemental/weekData.json"), &week); err != nil {
		return nil, err
	}
	dayIndex := map[string]time.Weekday{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}
	dayKeys := []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

	var locs []*locale
	for _, tag := range supported {
		lang, region, _ := strings.Cut(tag, "-")
		l := &locale{tag: tag, cldr: tag}
		if _, err := os.Stat(filepath.Join(datesDir, "main", tag)); err != nil {
			l.cldr = lang // CLDR's default content: en-US is en
		}
		fd, ok := week.Supplemental.WeekData.FirstDay[region]
		if !ok {
			fd = week.Supplemental.WeekData.FirstDay["001"]
		}
		l.firstDay = dayIndex[fd]

		var cal struct {
			Main map[string]struct {
				Dates struct {
					Calendars struct{ Gregorian gregorian } `json:"calendars"`
				} `json:"dates"`
			} `json:"main"`
		}
		if err := readJSON(filepath.Join(datesDir, "main", l.cldr, "ca-gregorian.json"), &cal); err != nil {
			return nil, err
		}
		g := cal.Main[l.cldr].Dates.Calendars.Gregorian
		l.timeShort = g.TimeFormats["short"]
		l.full = g.DateFormats["full"]
		l.mmmEd = g.DateTime.Available["MMMEd"]
		l.ymmmEd = g.DateTime.Available["yMMMEd"]
		l.mmmd = g.DateTime.Available["MMMd"]
		for _, p := range []string{l.timeShort, l.full, l.mmmEd, l.ymmmEd, l.mmmd} {
			if err := checkPattern(p); err != nil {
				return nil, fmt.Errorf("%s: %w", tag, err)
			}
		}
		if err := intervals(l, g); err != nil {
			return nil, fmt.Errorf("%s: %w", tag, err)
		}
		for _, p := range []string{l.timeShort, g.DateTime.Available["H"], g.DateTime.Available["h"], g.DateTime.Available["Hm"]} {
			for _, w := range literals(p) {
				l.hourWords = appendNew(l.hourWords, w)
			}
		}
		for i, w := range []map[string]string{g.Days.Format.Abbreviated, g.Days.Format.Wide, g.Days.Format.Short, g.Days.Format.Narrow} {
			for d, k := range dayKeys {
				if l.days[i][d] = w[k]; w[k] == "" {
					return nil, fmt.Errorf("%s: no day name %s", tag, k)
				}
			}
		}
		for i, w := range []map[string]string{g.Months.Format.Abbreviated, g.Months.Format.Wide} {
			for m := range 12 {
				k := strconv.Itoa(m + 1)
				if l.months[i][m] = w[k]; w[k] == "" {
					return nil, fmt.Errorf("%s: no month name %s", tag, k)
				}
			}
		}
		format := g.DayPeriods["format"]
		l.am, l.pm = format.Abbreviated["am"], format.Abbreviated["pm"]
		if l.am == "" || l.pm == "" {
			return nil, fmt.Errorf("%s: no AM/PM markers", tag)
		}
		var ams, pms []string
		for _, ctx := range []string{"format", "stand-alone"} {
			n := g.DayPeriods[ctx]
			for _, w := range []map[string]string{n.Abbreviated, n.Wide, n.Narrow} {
				ams = appendNew(ams, w["am"])
				pms = appendNew(pms, w["pm"])
			}
		}
		l.markers = append(append(ams, ""), pms...)

		var num struct {
			Main map[string]struct {
				Numbers map[string]json.RawMessage `json:"numbers"`
			} `json:"main"`
		}
		if err := readJSON(filepath.Join(numbersDir, "main", l.cldr, "numbers.json"), &num); err != nil {
			return nil, err
		}
		nums := num.Main[l.cldr].Numbers
		var system, minGroup string
		var symbols map[string]string
		var decimals map[string]json.RawMessage
		for k, dst := range map[string]any{"defaultNumberingSystem": &system, "minimumGroupingDigits": &minGroup,
			"symbols-numberSystem-latn": &symbols, "decimalFormats-numberSystem-latn": &decimals} {
			if err := json.Unmarshal(nums[k], dst); err != nil {
				return nil, fmt.Errorf("%s: numbers %s: %w", tag, k, err)
			}
		}
		if system != "latn" {
			return nil, fmt.Errorf("%s: numbering system %q, not latn", tag, system)
		}
		var standard string
		if err := json.Unmarshal(decimals["standard"], &standard); err != nil {
			return nil, fmt.Errorf("%s: decimal pattern: %w", tag, err)
		}
		l.decimal, l.group, l.minus = symbols["decimal"], symbols["group"], symbols["minusSign"]
		l.minGroup, _ = strconv.Atoi(minGroup)
		var err error
		if l.primary, l.second, err = grouping(standard); err != nil {
			return nil, fmt.Errorf("%s: %w", tag, err)
		}

		var tzn struct {
			Main map[string]struct {
				Dates struct {
					TimeZoneNames zoneNames `json:"timeZoneNames"`
				} `json:"dates"`
			} `json:"main"`
		}
		if err := readJSON(filepath.Join(datesDir, "main", l.cldr, "timeZoneNames.json"), &tzn); err != nil {
			return nil, err
		}
		zn := tzn.Main[l.cldr].Dates.TimeZoneNames
		l.regionFormat, l.fallbackFmt = zn.RegionFormat, zn.FallbackFormat
		l.metazones = map[string][2]string{}
		for id, mz := range zn.Metazone {
			if mz.Long["generic"] != "" || mz.Long["standard"] != "" {
				l.metazones[id] = [2]string{mz.Long["generic"], mz.Long["standard"]}
			}
		}
		l.cities, l.zoneLong = map[string]string{}, map[string]string{}
		if err := walkZones("", zn.Zone, func(id string, z zoneEntry) {
			if z.ExemplarCity != "" && z.ExemplarCity != cityFromID(id) {
				l.cities[id] = z.ExemplarCity
			}
			if z.Long["standard"] != "" {
				l.zoneLong[id] = z.Long["standard"]
			}
		}); err != nil {
			return nil, fmt.Errorf("%s: %w", tag, err)
		}
		locs = append(locs, l)
	}

	ranges, err := metazoneRanges(coreDir)
	if err != nil {
		return nil, err
	}
	aliases, err := zoneAliases(bcp47Dir)
	if err != nil {
		return nil, err
	}
	return emit(locs, ranges, aliases, sources)
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// checkPattern refuses a pattern with a letter or width the interpreter in
// internal/locale does not format.
func checkPattern(p string) error {
	if p == "" {
		return fmt.Errorf("empty pattern")
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(p[i+1:], '\'')
			if j < 0 {
				return fmt.Errorf("pattern %q: unterminated quote", p)
			}
			i += j + 2
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			n := 1
			for i+n < len(p) && p[i+n] == c {
				n++
			}
			if !slices.Contains(letters[c], n) {
				return fmt.Errorf("pattern %q: %q ×%d is not interpreted by internal/locale", p, c, n)
			}
			i += n
		default:
			i++
		}
	}
	return nil
}

// intervals reads the CLDR interval formats for a time range in the
// locale's clock (skeleton hm or Hm) and splits each at the first repeated
// field, as TR35 says: "h:mm – h:mm a" is "h:mm – " for the start and
// "h:mm a" for the end.
func intervals(l *locale, g gregorian) error {
	skeleton, keys := "Hm", [3]string{"H", "H", "m"}
	if hasLetter(l.timeShort, 'h') {
		skeleton, keys = "hm", [3]string{"a", "h", "m"}
	}
	var formats map[string]string
	if err := json.Unmarshal(g.DateTime.Intervals[skeleton], &formats); err != nil {
		return fmt.Errorf("interval formats %s: %w", skeleton, err)
	}
	if err := json.Unmarshal(g.DateTime.Intervals["intervalFormatFallback"], &l.intervalFallback); err != nil {
		return fmt.Errorf("interval fallback: %w", err)
	}
	for i, k := range keys {
		p := formats[k]
		first, second, err := splitInterval(p)
		if err != nil {
			return err
		}
		for _, half := range []string{first, second} {
			if err := checkPattern(half); err != nil {
				return err
			}
		}
		l.interval[i] = [2]string{first, second}
	}
	return nil
}

func splitInterval(p string) (string, string, error) {
	seen := map[byte]bool{}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(p[i+1:], '\'')
			if j < 0 {
				return "", "", fmt.Errorf("interval %q: unterminated quote", p)
			}
			i += j + 2
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if seen[c] {
				return p[:i], p[i:], nil
			}
			seen[c] = true
			for i < len(p) && p[i] == c {
				i++
			}
		default:
			i++
		}
	}
	return "", "", fmt.Errorf("interval %q: no repeated field", p)
}

// hasLetter says whether pattern field letter c is in p, outside quotes.
func hasLetter(p string, c byte) bool {
	parts := strings.Split(p, "'")
	for i := 0; i < len(parts); i += 2 {
		if strings.IndexByte(parts[i], c) >= 0 {
			return true
		}
	}
	return false
}

// literals are a pattern's quoted words, lower case: "HH 'Uhr'" → "uhr".
func literals(p string) []string {
	var out []string
	parts := strings.Split(p, "'")
	for i := 1; i < len(parts); i += 2 {
		if w := strings.ToLower(strings.TrimSpace(parts[i])); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// grouping reads the group sizes of a decimal pattern: "#,##0.###" is 3
// and 3, "#,##,##0.###" (en-IN) is 3 and 2.
func grouping(pattern string) (primary, secondary int, err error) {
	integer, _, _ := strings.Cut(pattern, ".")
	parts := strings.Split(integer, ",")
	switch len(parts) {
	case 2:
		return len(parts[1]), len(parts[1]), nil
	case 3:
		return len(parts[2]), len(parts[1]), nil
	}
	return 0, 0, fmt.Errorf("decimal pattern %q: unexpected grouping", pattern)
}

func walkZones(prefix string, tree map[string]json.RawMessage, f func(string, zoneEntry)) error {
	for k, raw := range tree {
		id := k
		if prefix != "" {
			id = prefix + "/" + k
		}
		var e zoneEntry
		if err := json.Unmarshal(raw, &e); err == nil && e.Type == "zone" {
			f(id, e)
			continue
		}
		var sub map[string]json.RawMessage
		if err := json.Unmarshal(raw, &sub); err != nil {
			return fmt.Errorf("zone %s: %w", id, err)
		}
		if err := walkZones(id, sub, f); err != nil {
			return err
		}
	}
	return nil
}

// cityFromID is the exemplar city CLDR derives when it lists none:
// the id's last part with spaces for underscores. internal/locale derives
// it the same way, so data.go leaves those out.
func cityFromID(id string) string {
	return strings.ReplaceAll(id[strings.LastIndexByte(id, '/')+1:], "_", " ")
}

type span struct {
	mz       string
	from, to int64 // Unix seconds; 0: open
}

// cutoff drops metazone periods that ended before it: fieldbrief formats
// the present and the near past.
var cutoff = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

func metazoneRanges(coreDir string) (map[string][]span, error) {
	var doc struct {
		Supplemental struct {
			MetaZones struct {
				Info struct {
					Timezone map[string]json.RawMessage `json:"timezone"`
				} `json:"metazoneInfo"`
			} `json:"metaZones"`
		} `json:"supplemental"`
	}
	if err := readJSON(filepath.Join(coreDir, "supplemental/metaZones.json"), &doc); err != nil {
		return nil, err
	}
	out := map[string][]span{}
	var walk func(prefix string, tree map[string]json.RawMessage) error
	walk = func(prefix string, tree map[string]json.RawMessage) error {
		for k, raw := range tree {
			id := k
			if prefix != "" {
				id = prefix + "/" + k
			}
			var uses []struct {
				Uses struct {
					MZ   string `json:"_mzone"`
					From string `json:"_from"`
					To   string `json:"_to"`
				} `json:"usesMetazone"`
			}
			if err := json.Unmarshal(raw, &uses); err == nil {
				for _, u := range uses {
					s := span{mz: u.Uses.MZ}
					var err error
					if s.from, err = stamp(u.Uses.From); err != nil {
						return fmt.Errorf("metazone of %s: %w", id, err)
					}
					if s.to, err = stamp(u.Uses.To); err != nil {
						return fmt.Errorf("metazone of %s: %w", id, err)
					}
					if s.to != 0 && s.to < cutoff {
						continue
					}
					out[id] = append(out[id], s)
				}
				continue
			}
			var sub map[string]json.RawMessage
			if err := json.Unmarshal(raw, &sub); err != nil {
				return fmt.Errorf("metazone of %s: %w", id, err)
			}
			if err := walk(id, sub); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk("", doc.Supplemental.MetaZones.Info.Timezone)
}

func stamp(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		return 0, err
	}
	return t.Unix(), nil
}

// zoneAliases maps every IANA name CLDR knows for a zone to CLDR's own key
// for it, where they differ (Asia/Kolkata → Asia/Calcutta, US/Central →
// America/Chicago).
func zoneAliases(bcp47Dir string) (map[string]string, error) {
	var doc struct {
		Keyword struct {
			U struct {
				TZ map[string]json.RawMessage `json:"tz"`
			} `json:"u"`
		} `json:"keyword"`
	}
	if err := readJSON(filepath.Join(bcp47Dir, "bcp47/timezone.json"), &doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, raw := range doc.Keyword.U.TZ {
		var e struct {
			Alias string `json:"_alias"`
			IANA  string `json:"_iana"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Alias == "" {
			continue
		}
		names := strings.Fields(e.Alias)
		for _, n := range append(names[1:], e.IANA) {
			if n != "" && n != names[0] {
				out[n] = names[0]
			}
		}
	}
	return out, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func emit(locs []*locale, ranges map[string][]span, aliases map[string]string, sources string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/locale/gen from %s; DO NOT EDIT.\n", sources)
	b.WriteString("// Unicode CLDR data, Unicode License v3: see NOTICE.\n\npackage locale\n\n")
	base := map[string]*locale{}
	for _, l := range locs {
		lang, _, _ := strings.Cut(l.tag, "-")
		if base[lang] == nil {
			base[lang] = l
		}
	}
	b.WriteString("var generated = []*data{\n")
	for _, l := range locs {
		lang, _, _ := strings.Cut(l.tag, "-")
		fmt.Fprintf(&b, "{tag: %q, firstDay: %d,\n", l.tag, l.firstDay)
		fmt.Fprintf(&b, "timeShort: %q, mmmEd: %q, ymmmEd: %q, mmmd: %q, full: %q,\n", l.timeShort, l.mmmEd, l.ymmmEd, l.mmmd, l.full)
		fmt.Fprintf(&b, "days: [4][7]string{%s},\n", joinRows(l.days[:]))
		fmt.Fprintf(&b, "months: [2][12]string{%s},\n", joinMonths(l.months[:]))
		fmt.Fprintf(&b, "interval: [3][2]string{{%q, %q}, {%q, %q}, {%q, %q}}, intervalFallback: %q, hourWords: %#v,\n",
			l.interval[0][0], l.interval[0][1], l.interval[1][0], l.interval[1][1], l.interval[2][0], l.interval[2][1],
			l.intervalFallback, l.hourWords)
		fmt.Fprintf(&b, "am: %q, pm: %q, markers: %#v,\n", l.am, l.pm, l.markers)
		fmt.Fprintf(&b, "decimal: %q, group: %q, minus: %q, minGroup: %d, primary: %d, secondary: %d,\n",
			l.decimal, l.group, l.minus, l.minGroup, l.primary, l.second)
		fmt.Fprintf(&b, "regionFormat: %q, fallbackFormat: %q,\n", l.regionFormat, l.fallbackFmt)
		// Zone names: the language's first locale holds them all; the
		// others only where they differ from it.
		ref := base[lang]
		// A key the language's first locale has and this one lacks is
		// written with the zero value, which internal/locale reads as
		// "none" (for cities: derived from the id).
		writeMap(&b, "metazones", l.metazones, ref.metazones, l == ref,
			func(v [2]string) string { return fmt.Sprintf("{%q, %q}", v[0], v[1]) })
		writeMap(&b, "cities", l.cities, ref.cities, l == ref, strconv.Quote)
		writeMap(&b, "zoneLong", l.zoneLong, ref.zoneLong, l == ref, strconv.Quote)
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n// metazoneSpans: each CLDR zone's metazones over time (Unix seconds, 0 open).\nvar metazoneSpans = map[string][]span{\n")
	for _, id := range sortedKeys(ranges) {
		fmt.Fprintf(&b, "%q: {", id)
		for _, s := range ranges[id] {
			fmt.Fprintf(&b, "{%q, %d, %d},", s.mz, s.from, s.to)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n// zoneAliases: IANA names to CLDR's key for the same zone.\nvar zoneAliases = map[string]string{\n")
	for _, k := range sortedKeys(aliases) {
		fmt.Fprintf(&b, "%q: %q,\n", k, aliases[k])
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format data.go: %w", err)
	}
	return src, nil
}

// writeMap writes m's entries, or with isRef false only those that differ
// from ref.
func writeMap[V comparable](b *bytes.Buffer, field string, m, ref map[string]V, isRef bool, val func(V) string) {
	keys := map[string]bool{}
	for k := range m {
		keys[k] = true
	}
	if !isRef {
		for k := range ref {
			keys[k] = true
		}
	}
	var rows []string
	for _, k := range sortedKeys(keys) {
		if isRef || m[k] != ref[k] {
			rows = append(rows, fmt.Sprintf("%q: %s,\n", k, val(m[k])))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "%s: map[string]%s{\n%s},\n", field, typeName[V](), strings.Join(rows, ""))
}

func typeName[V any]() string {
	var v V
	if _, ok := any(v).([2]string); ok {
		return "[2]string"
	}
	return "string"
}

func joinRows(rows [][7]string) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%#v", r[:])[len("[]string"):])
	}
	return strings.Join(parts, ", ")
}

func joinMonths(rows [][12]string) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%#v", r[:])[len("[]string"):])
	}
	return strings.Join(parts, ", ")
}
