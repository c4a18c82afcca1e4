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
	rank  int
	pop   int64
	place int // index in index.places, or one of the two below
}

const (
	byZoneName = -1 // the zone's name matched: show the zone's own city
	byZoneData = -2 // its abbreviation or offset matched: show its biggest place
)

func (h hit) better(o hit) bool {
	return h.rank < o.rank || h.rank == o.rank && h.pop > o.pop
}

// Search returns at most limit zones (MaxResults if limit is out of range)
// matching query, best first: by how well they match, then by the
// population of the place that matched, a zone appearing once under its
// best place. Offsets are compared, and shown, as they are at now.
func Search(query string, now time.Time, limit int) []Result {
	found := search(query, now, limit)
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

func search(query string, now time.Time, limit int) []scored {
	if limit <= 0 || limit > MaxResults {
		limit = MaxResults
	}
	query = Bound(query)
	q := normalize(query)
	if q == "" {
		return nil
	}
	ix := load()
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

	for i, p := range ix.places {
		if r := p.rank(q); r != noMatch {
			offer(p.zone, hit{rank: r, pop: p.pop, place: i})
		}
	}
	for _, a := range ix.aliases {
		if r := rankName(a.key, q); r != noMatch {
			if r == rankExact {
				r = rankAlias
			}
			offer(a.zone, hit{rank: r, pop: zonePop(a.zone), place: byZoneName})
		}
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
			offer(zi, hit{rank: rankExact, pop: zonePop(zi), place: byZoneData})
		}
		abbrKnown = abbrKnown || byAbbr
	}
	for zi, z := range ix.zones {
		r := z.rank(q)
		if r == rankCanonical && abbrKnown {
			r = rankExact
		}
		if r != noMatch {
			offer(zi, hit{rank: r, pop: zonePop(zi), place: byZoneName})
		}
	}

	// One typo still finds a place: when no name matched better than
	// inside it, names one edit away from the query count (bounded: only
	// names within a letter of its length, from four letters).
	if !anyBetter(best, rankSubstring) && len(q) >= 4 {
		for i, p := range ix.places {
			for _, k := range p.keys {
				if withinOneEdit(k, q) {
					offer(p.zone, hit{rank: rankTypo, pop: p.pop, place: i})
				}
			}
		}
		for zi, z := range ix.zones {
			for _, c := range z.cities {
				if withinOneEdit(c, q) {
					offer(zi, hit{rank: rankTypo, pop: zonePop(zi), place: byZoneName})
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
		return cmp.Or(cmp.Compare(ha.rank, hb.rank), cmp.Compare(hb.pop, ha.pop),
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
		res := Result{Zone: loaded.Name, City: z.city, Region: z.country}
		pi := best[zi].place
		if pi == byZoneData {
			pi = z.top
		}
		if pi >= 0 {
			res.City, res.Region = ix.places[pi].name, ix.places[pi].region
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
// alignment distance <= 1), in O(len) without allocating.
func withinOneEdit(a, b string) bool {
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

func (p place) rank(q string) int {
	r := noMatch
	for _, k := range p.keys {
		r = min(r, rankName(k, q))
	}
	switch {
	case q == p.country || q == p.province:
		r = rankExact
	case q == p.acronym || q == p.state:
		r = min(r, rankPrefix)
	case len(q) >= 3 && (strings.HasPrefix(p.country, q) || strings.HasPrefix(p.province, q)):
		r = min(r, rankSubstring)
	}
	return r
}

func (z zoneEntry) rank(q string) int {
	if z.names[0] == q {
		return rankCanonical
	}
	r := noMatch
	for i := range z.names {
		r = min(r, rankName(z.names[i], q), rankName(z.cities[i], q))
	}
	return r
}

// rankName ranks a query against one normalized name; zone names count
// "/" as a word break, so "new" finds "america/new york" by a word.
func rankName(name, q string) int {
	switch {
	case name == q:
		return rankExact
	case strings.HasPrefix(name, q):
		return rankPrefix
	case startsWord(name, q):
		return rankWord
	case len(q) >= 3 && strings.Contains(name, q):
		return rankSubstring
	}
	return noMatch
}

// startsWord reports whether q begins a word of name after its first.
func startsWord(name, q string) bool {
	for i := 0; i < len(name); {
		j := strings.Index(name[i:], q)
		if j < 0 {
			return false
		}
		if j += i; j > 0 && (name[j-1] == ' ' || name[j-1] == '/') {
			return true
		}
		i = j + 1
	}
	return false
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
