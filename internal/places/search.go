package places

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"fieldbrief/internal/schedule"
)

const (
	// MaxQuery is how much of the typed text is searched, in characters:
	// longer than any place or zone name.
	MaxQuery = 64
	// MaxResults bounds one answer, whatever limit the caller asks for.
	MaxResults = 25
)

// Result is one zone found, named by the place that matched best.
type Result struct {
	Zone   string // canonical IANA name, what the form stores
	City   string // "New York"
	Region string // "New York, United States of America"
	Offset string // the zone's UTC offset at now: "UTC−05:00"
	Local  string // its wall clock at now: "08:04"
}

// How well a query matches, best first (docs/timezone-picker.md, "Ranking").
const (
	rankCanonical = iota // the zone's own name: "UTC", "Europe/Berlin"
	rankAlias            // a name of aliases.tsv in full: "Bombay", "Eastern Time"
	rankExact            // the whole name, code, abbreviation or offset
	rankPrefix           // the beginning of a name; an acronym ("NYC"); a US state code
	rankWord             // the beginning of a later word ("york" in "New York")
	rankSubstring        // anywhere inside a name, from three characters
	rankTypo             // one letter wrong, missing, extra or swapped, when nothing above matched
	noMatch
)

type hit struct {
	rank    int
	foreign bool // matched by a name of another language only
	pop     int64
	place   int // index in index.places, or one of the two below
	key     int // the place's key matched, -1 for none
}

const (
	byZoneName = -1 // the zone's name matched: show the zone's own city
	byZoneData = -2 // its abbreviation or offset matched: show its biggest place
)

// better reports whether h names its zone better than o: a closer match,
// in the reader's language, then a place over the zone itself (the link
// America/Montreal finds Toronto's zone, but the place typed is Montréal),
// then the larger population.
func (h hit) better(o hit) bool {
	return cmp.Or(cmp.Compare(h.rank, o.rank), compareBool(h.foreign, o.foreign),
		compareBool(h.place < 0, o.place < 0), cmp.Compare(o.pop, h.pop)) < 0
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// preferred is the population that puts a zone first among its equals:
// the zone a clock's name stands for in the reader's region.
const preferred = int64(1) << 62

// regionBoost weighs a place named in full in the reader's country
// against more populous ones elsewhere (ten times their population), not
// enough to outweigh a capital: "Paris" stays France's to an American.
const regionBoost = 10

// Search returns at most limit zones (MaxResults if limit is out of range)
// matching query, best first: by how well they match, then names in the
// reader's language before others, then by the population of the place
// that matched (its reader's region's weighing more), a zone appearing once
// under its best place, named in the reader's language. Offsets are
// compared, and shown, as they are at now.
func Search(query string, r Reader, now time.Time, limit int) []Result {
	found := search(query, r, now, limit)
	out := make([]Result, len(found))
	for i, f := range found {
		out[i] = f.Result
	}
	return out
}

// scored is a result with how well it matched.
type scored struct {
	Result
	rank int
}

func search(query string, reader Reader, now time.Time, limit int) []scored {
	if limit <= 0 || limit > MaxResults {
		limit = MaxResults
	}
	query = Bound(query)
	q := normalize(query)
	if q == "" {
		return nil
	}
	ix := load()
	lang := langOf(reader.Lang)
	best := make(map[int]hit) // zone index -> its best hit
	offer := func(zone int, h hit) {
		if b, ok := best[zone]; !ok || h.better(b) {
			best[zone] = h
		}
	}
	zonePop := func(zi int) int64 {
		if top := ix.zones[zi].top; top >= 0 {
			return ix.places[top].pop
		}
		return 0
	}
	placePop := func(p place, rank int) int64 { // a whole name only: "lon" is London's before Los Angeles' to an American too
		if rank <= rankExact && reader.Region != "" && ix.countries[p.country].code == reader.Region {
			return p.pop * regionBoost
		}
		return p.pop
	}

	// Places and zones by their names; with the words of zone names left
	// out ("heure de Paris"), a rank lower.
	byNames := func(q string, worse int) {
		countries := ix.rankCountries(q, lang)
		for i, p := range ix.places {
			if r, k, foreign := p.rank(q, lang, countries); r != noMatch {
				offer(p.zone, hit{rank: r + worse, foreign: foreign, pop: placePop(p, r+worse), place: i, key: k})
			}
		}
	}
	byNames(q, 0)
	stripped := ix.withoutZoneWords(q)
	if stripped != "" {
		byNames(stripped, 1)
	}
	// German written without umlauts ("Muenchen", "Mitteleuropaeische
	// Zeit"): read with them, a rank lower.
	umlauts := withUmlauts(q)
	if umlauts != "" {
		byNames(umlauts, 1)
		if s := ix.withoutZoneWords(umlauts); s != "" {
			byNames(s, 1)
		}
	}

	aliased := map[int]bool{} // clocks an alias of aliases.tsv names in full: its zone stands
	for _, a := range ix.aliases {
		if r := rankName(a.key, q); r != noMatch {
			zone := a.zone
			if r == rankExact {
				r = rankAlias
				if c := ix.zones[a.zone].clock; c >= 0 {
					aliased[c] = true
					// A clock's alias stands for the clock's zone in the
					// reader's region when its own is abroad: "CET" is
					// Madrid's to a Spanish reader, Paris's to others.
					if z, ok := ix.clocks[c].regional[reader.Region]; ok && ix.zoneCountry(a.zone) != reader.Region {
						zone = z
						offer(a.zone, hit{rank: rankExact, pop: zonePop(a.zone), place: byZoneName, key: -1})
					}
				}
			}
			offer(zone, hit{rank: r, pop: zonePop(zone), place: byZoneName, key: -1})
		}
	}
	// The clocks' names in the four languages: a long name in full stands
	// for its zone in the reader's region ("hora central": Chicago, in
	// Mexico Mexico City), as an alias does; the clock's other zones follow.
	// A short name ("MEZ") is an abbreviation: its zones, the region's first.
	byClocks := func(q string, worse int) {
		for ci, c := range ix.clocks {
			r, foreign := noMatch, false
			for _, k := range c.long {
				if kr := rankName(k.norm, q); kr < r || kr == r && foreign && k.langs&lang != 0 {
					r, foreign = kr, k.langs&lang == 0
				}
			}
			short := false
			for _, k := range c.short {
				if k.norm == q && (r > rankExact || foreign && k.langs&lang != 0) {
					r, foreign, short = rankExact, k.langs&lang == 0, true
				}
			}
			if r == noMatch {
				continue
			}
			own := c.zoneFor(reader.Region)
			if _, regional := c.regional[reader.Region]; r != rankExact || short && !regional {
				own = -1 // "IST" is India's, Israel's and Ireland's: by population
			}
			for _, zi := range c.members {
				h := hit{rank: min(r+worse, rankTypo), foreign: foreign, pop: zonePop(zi), place: byZoneData, key: -1}
				if zi == own {
					h.pop = preferred
					if r == rankExact && !short && !aliased[ci] {
						h.rank = rankAlias + worse
					}
				}
				offer(zi, h)
			}
		}
	}
	byClocks(q, 0)
	if umlauts != "" {
		byClocks(umlauts, 1)
	}
	abbr := abbreviation(query)
	offset, isOffset := parseOffset(query)
	if secs, ok := etcOffset(query); ok {
		offset, isOffset = secs, true
	}
	// "CET" is a zone of its own too, but who types it means the clock
	// that Paris and Berlin keep: an abbreviation puts no zone name first.
	abbrKnown := false
	for zi, z := range ix.zones {
		byAbbr := abbr != "" && slices.Contains(z.abbrs, abbr)
		if byAbbr || (isOffset && offsetAt(z.name, now) == offset) {
			offer(zi, hit{rank: rankExact, pop: zonePop(zi), place: byZoneData, key: -1})
		}
		abbrKnown = abbrKnown || byAbbr
	}
	for zi, z := range ix.zones {
		r, foreign := z.rank(q, lang)
		if r == rankCanonical && abbrKnown {
			r = rankExact
		}
		if r != noMatch {
			offer(zi, hit{rank: r, foreign: foreign, pop: zonePop(zi), place: byZoneName, key: -1})
		}
		if stripped != "" {
			if r, foreign := z.rank(stripped, lang); r != noMatch {
				offer(zi, hit{rank: r + 1, foreign: foreign, pop: zonePop(zi), place: byZoneName, key: -1})
			}
		}
	}

	// One typo still finds a place: when no name matched better than
	// inside it, names one edit away from the query count (bounded: only
	// names within a letter of its length, from four letters).
	// With the words of zone names left out, the rest may have the typo
	// ("heure de Pariss").
	if !anyBetter(best, rankSubstring) {
		for _, q := range []string{q, stripped} {
			if len(q) < 4 {
				continue
			}
			for i, p := range ix.places {
				for ki, k := range p.keys {
					if WithinOneEdit(k.norm, q) {
						offer(p.zone, hit{rank: rankTypo, foreign: k.langs != 0 && k.langs&lang == 0, pop: placePop(p, rankTypo), place: i, key: ki})
					}
				}
			}
			for zi, z := range ix.zones {
				for _, c := range z.cities {
					if WithinOneEdit(c, q) {
						offer(zi, hit{rank: rankTypo, pop: zonePop(zi), place: byZoneName, key: -1})
					}
				}
			}
		}
	}

	order := make([]int, 0, len(best))
	for zi := range best {
		if !ix.zones[zi].raw {
			order = append(order, zi)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		ha, hb := best[a], best[b]
		return cmp.Or(cmp.Compare(ha.rank, hb.rank), compareBool(ha.foreign, hb.foreign), cmp.Compare(hb.pop, ha.pop),
			cmp.Compare(ix.zones[a].name, ix.zones[b].name))
	})
	var out []scored
	for _, zi := range order {
		if len(out) == limit {
			break
		}
		z := ix.zones[zi]
		loaded, err := schedule.LoadZone(z.name)
		if err != nil {
			continue // in the table but not in the embedded rules: nothing to offer
		}
		res := Result{Zone: loaded.Name, City: z.shownCity(lang), Region: z.country}
		if ci, ok := ix.countryByName[z.country]; ok {
			res.Region = ix.countries[ci].shown(lang)
		}
		h := best[zi]
		if h.place == byZoneData {
			h.place = z.top
		}
		if h.place >= 0 {
			p := ix.places[h.place]
			res.City, res.Region = p.label(h.key, lang), join(p.province, ix.countries[p.country].shown(lang))
		}
		res.Offset, res.Local = schedule.ZoneLabel(loaded, now)
		out = append(out, scored{Result: res, rank: best[zi].rank})
	}
	return out
}

// anyBetter reports whether some hit ranks before rank.
func anyBetter(best map[int]hit, rank int) bool {
	for _, h := range best {
		if h.rank < rank {
			return true
		}
	}
	return false
}

// withinOneEdit reports whether a and b differ by at most one letter
// inserted, deleted, replaced, or two neighbours swapped (optimal string
// alignment distance <= 1), in O(len) without allocating: the search's
// typo rule, which the data's generator applies too.
func WithinOneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true // equal, or one letter added at the end
	}
	if len(a) == len(b) {
		if a[i+1:] == b[i+1:] { // replaced
			return true
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swapped
	}
	return a[i:] == b[i+1:] // one letter inserted
}

// etcOffset reads tz's "Etc/GMT+5" (five hours behind UTC: tz's sign is
// POSIX's, the other way round) as the offset it names.
func etcOffset(query string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(query)), "etc/gmt")
	if !ok {
		return 0, false
	}
	if rest == "" || rest == "0" {
		return 0, true
	}
	h, err := strconv.Atoi(rest)
	if err != nil || h < -14 || h > 12 || (rest[0] != '+' && rest[0] != '-') {
		return 0, false
	}
	return -h * 3600, true
}

// Bound trims a query's spaces and cuts it to MaxQuery characters of valid
// UTF-8, before any other work is done on it.
func Bound(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 4*MaxQuery {
		s = s[:4*MaxQuery]
	}
	s = strings.ToValidUTF8(s, "")
	if utf8.RuneCountInString(s) > MaxQuery {
		s = string([]rune(s)[:MaxQuery])
	}
	return s
}

// rank is how well q matches the place: the rank, the key matched (-1
// for its country, province, acronym or state code) and whether only a
// name of another language than lang matched. countries is
// rankCountries' answer for q.
func (p place) rank(q string, lang langSet, countries []countryMatch) (int, int, bool) {
	r, key, foreign := noMatch, -1, false
	for i, k := range p.keys {
		kr := rankName(k.norm, q)
		if kr == rankSubstring && k.other {
			continue // GeoNames' other names in full or by a word only: "koln" is not in "Stjokolna"
		}
		kf := k.langs != 0 && k.langs&lang == 0
		if kr < r || kr == r && foreign && !kf {
			r, key, foreign = kr, i, kf
		}
	}
	c := countries[p.country]
	switch {
	case c.rank == rankExact || q == p.provinceN:
		if r > rankExact || foreign {
			r, key, foreign = rankExact, -1, c.foreign && q != p.provinceN
		}
	case q == p.acronym || q == p.state:
		if r > rankPrefix || r == rankPrefix && key >= 0 && p.keys[key].other {
			r, key, foreign = rankPrefix, -1, false
		}
	case c.rank == rankSubstring || len(q) >= 3 && strings.HasPrefix(p.provinceN, q):
		if r > rankSubstring {
			r, key, foreign = rankSubstring, -1, c.foreign
		}
	}
	return r, key, foreign
}

// countryMatch is how well a query matches a country's names: in full
// (rankExact) or their beginning (rankSubstring), from three letters.
type countryMatch struct {
	rank    int
	foreign bool
}

func (ix *index) rankCountries(q string, lang langSet) []countryMatch {
	out := make([]countryMatch, len(ix.countries))
	for i, c := range ix.countries {
		m := countryMatch{rank: noMatch}
		for _, k := range c.keys {
			r := noMatch
			switch {
			case k.norm == q:
				r = rankExact
			case len(q) >= 3 && strings.HasPrefix(k.norm, q):
				r = rankSubstring
			}
			if f := k.langs&lang == 0; r < m.rank || r == m.rank && m.foreign && !f {
				m = countryMatch{rank: r, foreign: f}
			}
		}
		out[i] = m
	}
	return out
}

func (z zoneEntry) rank(q string, lang langSet) (int, bool) {
	if z.names[0] == q {
		return rankCanonical, false
	}
	r, foreign := noMatch, false
	for i := range z.names {
		r = min(r, rankName(z.names[i], q), rankName(z.cities[i], q))
	}
	for _, k := range z.local {
		if kr := rankName(k.norm, q); kr < r || kr == r && foreign && k.langs&lang != 0 {
			r, foreign = kr, k.langs&lang == 0
		}
	}
	return r, foreign
}

// shownCity is the zone's city in lang ("Mexiko-Stadt"), shown when no
// place names the zone.
func (z zoneEntry) shownCity(lang langSet) string {
	for _, k := range z.local {
		if k.langs&lang != 0 {
			return k.shown
		}
	}
	return z.city
}

// rankName ranks a query against one normalized name; zone names count
// "/" as a word break, so "new" finds "america/new york" by a word. One
// scan of the name's occurrences of q decides prefix, word and substring.
func rankName(name, q string) int {
	if name == q {
		return rankExact
	}
	i := strings.Index(name, q)
	switch {
	case i < 0:
		return noMatch
	case i == 0:
		return rankPrefix
	}
	for {
		if name[i-1] == ' ' || name[i-1] == '/' {
			return rankWord
		}
		j := strings.Index(name[i+1:], q)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if len(q) >= 3 {
		return rankSubstring
	}
	return noMatch
}

// abbreviation is the query as a zone abbreviation ("ist" → "IST"), or ""
// when it cannot be one.
func abbreviation(query string) string {
	a := strings.TrimSpace(query)
	if len(a) < 2 || len(a) > 5 {
		return ""
	}
	for _, r := range a {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return ""
		}
	}
	return strings.ToUpper(a)
}

// offsetQuery is an offset as people write it: "UTC+1", "utc-3", "GMT+8",
// "+05:30", "+0530", "UTC" alone, read without spaces and case.
var offsetQuery = regexp.MustCompile(`^(?:utc|gmt)?(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$`)

// parseOffset returns the offset in seconds east of UTC that query names.
func parseOffset(query string) (int, bool) {
	q := strings.ToLower(strings.ReplaceAll(strings.Join(strings.Fields(query), ""), "−", "-"))
	m := offsetQuery.FindStringSubmatch(q)
	if m == nil || (m[1] == "" && q != "utc" && q != "gmt") {
		return 0, false
	}
	if m[1] == "" {
		return 0, true
	}
	h, _ := strconv.Atoi(m[2])
	mins := 0
	if m[3] != "" {
		mins, _ = strconv.Atoi(m[3])
	}
	if h > 14 || mins > 59 {
		return 0, false
	}
	secs := h*3600 + mins*60
	if m[1] == "-" {
		secs = -secs
	}
	return secs, true
}

// offsetAt is the zone's UTC offset at now, in seconds; a zone that does
// not load gets one no offset equals.
func offsetAt(name string, now time.Time) int {
	z, err := schedule.LoadZone(name)
	if err != nil {
		return 1
	}
	_, secs := now.In(z.Loc).Zone()
	return secs
}

// stripMarks folds accents: "São Paulo" → "Sao Paulo". Names and queries
// are folded alike, so they need not be recomposed.
func stripMarks(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(s))
}

// letters the decomposition above leaves alone.
var foldLetters = strings.NewReplacer("ß", "ss", "ø", "o", "đ", "d", "ł", "l", "æ", "ae", "œ", "oe", "ı", "i")

// Normalize is a name or query as the search compares them (normalize);
// the generator dedupes names.tsv with it.
func Normalize(s string) string { return normalize(s) }

// normalize lowercases, folds accents, reads "_", "-", "," and "." as
// spaces (zone and city spellings differ there), drops control characters
// and apostrophes, and collapses spaces.
// zoneCountry is the country code of a zone's largest place ("" if none).
func (ix *index) zoneCountry(zi int) string {
	if top := ix.zones[zi].top; top >= 0 {
		return ix.countries[ix.places[top].country].code
	}
	return ""
}

// withUmlauts reads a normalized query written the German way without
// umlauts, "ae", "oe" and "ue" for ä, ö and ü, as the folded letters
// ("muenchen" → "munchen"); "" when it has none (docs/timezone-picker.md,
// "The reader's language and region").
func withUmlauts(q string) string {
	r := umlautPairs.Replace(q)
	if r == q {
		return ""
	}
	return r
}

var umlautPairs = strings.NewReplacer("ae", "a", "oe", "o", "ue", "u")

func normalize(s string) string {
	s = strings.ToLower(s)
	s = stripMarks(s)
	s = foldLetters.Replace(s)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == ',' || r == '.' || r == '-':
			return ' '
		case r == '\'' || r == '’' || unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
