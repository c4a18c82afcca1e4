// Package locale formats times, dates, numbers and zone names the way a
// locale writes them, and reads the times of day people type
// (docs/i18n.md, "Formats").
//
// Its data is Unicode CLDR 48, generated into data.go by gen (go generate
// runs scripts/locale-data.sh, which fetches the npm CLDR packages); the
// build never needs npm. The patterns are interpreted by this package's own
// small CLDR pattern formatter (format.go): Go's time.Format has no
// localised names, and golang.org/x/text carries no date formatting or zone
// names, so there is no well-kept Go library to take them from.
//
// The package is pure: no I/O except time.LoadLocation in ZoneName, no
// global state beyond the generated tables.
//
// Note: CLDR separates a time from its day period with U+202F NARROW
// NO-BREAK SPACE ("8:00\u202fAM"), and French groups digits with it
// ("1\u202f234\u202f567"); this package keeps CLDR's characters, so "8:00"
// and "AM" never break across lines. ParseClock reads any space.
package locale

//go:generate ../../scripts/locale-data.sh

import (
	"fmt"
	"strings"
	"time"
)

// Locale is one of the supported BCP 47 locales (Supported). Its zero
// value is not valid; use Parse, Nearest or Default.
type Locale struct{ d *data }

// data is one locale's generated CLDR data (data.go).
type data struct {
	tag      string
	firstDay time.Weekday

	// CLDR patterns: short time; the MMMEd, yMMMEd and MMMd skeletons;
	// the full date.
	timeShort, mmmEd, ymmmEd, mmmd, full string

	days   [4][7]string  // format context: abbreviated, wide, short, narrow; Sunday first
	months [2][12]string // format context: abbreviated, wide
	// interval: a time range's patterns by its greatest difference (day
	// period, hour, minute), each split into the start's and the end's.
	interval         [3][2]string
	intervalFallback string   // "{0} – {1}"
	hourWords        []string // words of the hour patterns ParseClock takes as 24-hour ("uhr", "h")

	am, pm  string   // the abbreviated day periods, as pattern letter a prints them
	markers []string // every spelling of AM, then "", then of PM

	decimal, group, minus        string
	minGroup, primary, secondary int

	regionFormat, fallbackFormat string
	metazones                    map[string][2]string // long generic, long standard
	cities                       map[string]string    // exemplar cities that differ from the id
	zoneLong                     map[string]string    // a zone's own long standard name (Etc/UTC)
	base                         *data                // the language's first locale, for zone names
}

// span is a period in which a CLDR zone uses a metazone (Unix seconds; 0
// is open).
type span struct {
	mz       string
	from, to int64
}

var (
	byTag    = map[string]*data{}
	byLang   = map[string]*data{}
	all      []Locale
	fallback *data
)

func init() {
	for _, d := range generated {
		lang, _, _ := strings.Cut(d.tag, "-")
		if byLang[lang] == nil {
			byLang[lang] = d
		}
		d.base = byLang[lang]
		byTag[strings.ToLower(d.tag)] = d
		all = append(all, Locale{d})
	}
	fallback = byTag["en-us"]
}

// Supported lists the locales fieldbrief formats for, grouped by language
// (English, German, Spanish, French), each language's default first.
func Supported() []Locale { return append([]Locale(nil), all...) }

// Default is en-US, the locale of an org that chose none.
func Default() Locale { return Locale{fallback} }

// Nearest is the supported locale closest to a BCP 47 tag from outside (a
// browser's language): the tag's language and region if supported
// ("en-GB", "en-Latn-GB"), else its language's default ("de-LU" → de-DE),
// else Default. Scripts, variants and extensions are skipped.
func Nearest(tag string) Locale {
	parts := strings.Split(strings.ToLower(strings.ReplaceAll(strings.TrimSpace(tag), "_", "-")), "-")
	for _, p := range parts[1:] {
		if len(p) == 1 {
			break // an extension (-u-…, -x-…) follows
		}
		if d := byTag[parts[0]+"-"+p]; d != nil && len(p) == 2 {
			return Locale{d}
		}
	}
	if d := byLang[parts[0]]; d != nil {
		return Locale{d}
	}
	return Default()
}

func (l Locale) data() *data {
	if l.d == nil {
		return fallback
	}
	return l.d
}

// Tag is the locale's BCP 47 tag: "en-US". The zero Locale reads as en-US.
func (l Locale) Tag() string { return l.data().tag }

// String is Tag.
func (l Locale) String() string { return l.Tag() }

// Language is the tag's language: "en".
func (l Locale) Language() string {
	lang, _, _ := strings.Cut(l.data().tag, "-")
	return lang
}

// Region is the tag's region: "US".
func (l Locale) Region() string {
	_, region, _ := strings.Cut(l.data().tag, "-")
	return region
}

// Time is t's time of day in its own location, in the locale's short time
// format: "8:00 AM" (en-US), "08:00" (de-DE, en-GB, fr-FR), "08 h 00"
// (fr-CA).
func (l Locale) Time(t time.Time) string { return l.format(l.data().timeShort, t) }

// Clock is a wall-clock time without a date, as Time writes it. h is 0–23
// and m 0–59; other values wrap as time.Date normalises them.
func (l Locale) Clock(h, m int) string {
	return l.Time(time.Date(2000, 1, 1, h, m, 0, 0, time.UTC))
}

// TimeRange is the span from a to b (b after a, on a's day) the way the
// locale writes one (CLDR interval formats): "2:00 – 4:00 PM" (en-US),
// "14:00–16:00 Uhr" (de-DE), "14:00 – 16:00" (fr-FR). The day period is
// written once when both ends share it. Ends on different days, or b in
// another location, are the two times joined by the locale's fallback
// ("{0} – {1}"). a and b are read in their own locations.
func (l Locale) TimeRange(a, b time.Time) string {
	d := l.data()
	ya, ma, da := a.Date()
	yb, mb, db := b.Date()
	if ya != yb || ma != mb || da != db || a.Location() != b.Location() {
		return strings.NewReplacer("{0}", l.Time(a), "{1}", l.Time(b)).Replace(d.intervalFallback)
	}
	var p [2]string
	switch {
	case a.Hour() < 12 != (b.Hour() < 12):
		p = d.interval[0]
	case a.Hour() != b.Hour():
		p = d.interval[1]
	case a.Minute() != b.Minute():
		p = d.interval[2]
	default:
		return l.Time(a)
	}
	return l.format(p[0], a) + l.format(p[1], b)
}

// Date is t's weekday, day and month (CLDR skeleton MMMEd): "Thu, Nov 26"
// (en-US), "Do., 26. Nov." (de-DE).
func (l Locale) Date(t time.Time) string { return l.format(l.data().mmmEd, t) }

// DateYear is Date with the year (CLDR yMMMEd): "Thu, Nov 26, 2026", for
// dates outside the current year.
func (l Locale) DateYear(t time.Time) string { return l.format(l.data().ymmmEd, t) }

// MonthDay is t's day and month without the weekday (CLDR MMMd): "Nov 26",
// "26. Nov.".
func (l Locale) MonthDay(t time.Time) string { return l.format(l.data().mmmd, t) }

// LongDate is t's date in the locale's full date format: "Thursday,
// November 26, 2026" (en-US), "Donnerstag, 26. November 2026" (de-DE).
func (l Locale) LongDate(t time.Time) string { return l.format(l.data().full, t) }

// Width selects a name's length: Abbreviated ("Thu", "Do."), Wide
// ("Thursday"), Short ("Th", "Do.") or Narrow ("T").
type Width string

// The widths CLDR names days in. Months have Abbreviated and Wide; a
// month asked for in another width is abbreviated.
const (
	Abbreviated Width = "abbreviated"
	Wide        Width = "wide"
	Short       Width = "short"
	Narrow      Width = "narrow"
)

// Weekday is d's name in the locale at the given width (format context);
// an unknown width is Abbreviated.
func (l Locale) Weekday(d time.Weekday, w Width) string {
	i := map[Width]int{Wide: 1, Short: 2, Narrow: 3}[w]
	return l.data().days[i][d%7]
}

// Month is m's name in the locale (format context): Abbreviated ("Nov.")
// unless w is Wide ("November").
func (l Locale) Month(m time.Month, w Width) string {
	i := 0
	if w == Wide {
		i = 1
	}
	return l.data().months[i][(m+11)%12]
}

// FirstDay is the first day of the week where the locale's region lives
// (CLDR weekData): Sunday for en-US, Monday for de-DE, en-GB, fr-FR.
func (l Locale) FirstDay() time.Weekday { return l.data().firstDay }

// Week is the seven weekdays in the locale's order, FirstDay first.
func (l Locale) Week() []time.Weekday {
	week := make([]time.Weekday, 7)
	for i := range week {
		week[i] = (l.data().firstDay + time.Weekday(i)) % 7
	}
	return week
}

// DecimalSeparator is the character the locale writes between a
// number's whole part and its fraction: "." (en-US), "," (de-DE, fr-FR).
// Spreadsheets there separate a CSV file's cells with ";" instead of ",".
func (l Locale) DecimalSeparator() string { return l.data().decimal }

// Number writes n with the locale's digit grouping: "1,234,567" (en-US),
// "1.234.567" (de-DE), "1\u202f234\u202f567" (fr-FR), "1234" but "12.345" (es-ES,
// whose minimum grouping is two digits).
func (l Locale) Number(n int) string {
	d := l.data()
	digits := fmt.Sprint(n)
	sign := ""
	if n < 0 {
		sign, digits = d.minus, digits[1:]
	}
	if len(digits) < d.primary+d.minGroup {
		return sign + digits
	}
	var groups []string
	head, tail := digits[:len(digits)-d.primary], digits[len(digits)-d.primary:]
	groups = append(groups, tail)
	for len(head) > d.secondary {
		groups = append(groups, head[len(head)-d.secondary:])
		head = head[:len(head)-d.secondary]
	}
	groups = append(groups, head)
	var b strings.Builder
	b.WriteString(sign)
	for i := len(groups) - 1; i >= 0; i-- {
		b.WriteString(groups[i])
		if i > 0 {
			b.WriteString(d.group)
		}
	}
	return b.String()
}
