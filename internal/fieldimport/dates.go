package fieldimport

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"fieldbrief/internal/locale"
	"fieldbrief/internal/schedule"
)

// Dates and times as people write them (docs/field-data.md, "CSV import"), read in the
// org's locale: ISO dates always; otherwise day, month and year separated
// by "/", "." or "-" in the locale's order (month first in en-US, day
// first everywhere else fieldbrief supports: CLDR's short date of en-GB,
// en-AU, en-NZ, en-IE, de-*, es-*, fr-* is day first; en-CA and fr-CA write
// ISO, and their slashed dates are read day first, as Canada's own
// government style and Excel's en-CA default both do). A date only one
// order can read (26/11/2026 in en-US) is read that way; one both orders
// can read differently (05/06/2026) is read in the locale's order, and the
// preview says how (DateReading). Times are read by internal/locale's
// ParseClock, the parser of the settings page: "9am", "10:30 AM", "8:00",
// "0830", "14h30". The API keeps its strict ISO formats.

// DateOrder is how a locale orders a slashed date.
type DateOrder int

const (
	DayFirst DateOrder = iota
	MonthFirst
)

// OrderOf is loc's order of a slashed date.
func OrderOf(loc locale.Locale) DateOrder {
	if loc.Tag() == "en-US" {
		return MonthFirst
	}
	return DayFirst
}

// FormatDate writes d as the template does for loc, the way the import
// reads it back: month first for en-US ("03/09/2026"), ISO for the
// Canadian locales (which write it so), "09.03.2026" in German, day first
// with slashes elsewhere ("09/03/2026").
func FormatDate(loc locale.Locale, d schedule.Date) string {
	switch {
	case loc.Region() == "CA":
		return d.String()
	case OrderOf(loc) == MonthFirst:
		return fmt.Sprintf("%02d/%02d/%04d", int(d.Month), d.Day, d.Year)
	case loc.Language() == "de":
		return fmt.Sprintf("%02d.%02d.%04d", d.Day, int(d.Month), d.Year)
	}
	return fmt.Sprintf("%02d/%02d/%04d", d.Day, int(d.Month), d.Year)
}

// DateReading is an ambiguous date of the file and how it was read.
type DateReading struct {
	Row   int
	Value string
	Date  schedule.Date
}

// maxDateReadings bounds the examples the preview lists: every ambiguous
// date of a file is read the same way, so a few show it.
const maxDateReadings = 5

// cellReader reads a file's dates and times in one org's locale and keeps
// the ambiguous dates it read, for the preview.
type cellReader struct {
	loc       locale.Locale
	order     DateOrder
	ambiguous []DateReading
	seen      map[string]bool
	// Ambiguous counts every ambiguous date read (examples are bounded).
	ambiguousCount int
}

func newCellReader(loc locale.Locale) *cellReader {
	return &cellReader{loc: loc, order: OrderOf(loc), seen: map[string]bool{}}
}

// date reads a date cell; ok is false when it is not a date.
func (cr *cellReader) date(row int, s string) (schedule.Date, bool) {
	s = strings.TrimSpace(s)
	// A spreadsheet's date cell may come with a midnight time
	// ("11/26/2026 0:00", "2026-11-26 00:00:00"): the date is what counts.
	if d, t, ok := strings.Cut(s, " "); ok && isMidnight(strings.TrimSpace(t)) {
		s = d
	}
	if d, err := schedule.ParseDate(s); err == nil {
		return d, true
	}
	parts := splitDate(s)
	if len(parts) != 3 {
		return schedule.Date{}, false
	}
	n := [3]int{}
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || p == "" || len(p) > 4 || (i < 2 && len(p) > 2 && len(parts[0]) != 4) {
			return schedule.Date{}, false
		}
		n[i] = v
	}
	if len(parts[0]) == 4 { // 2026/11/26, 2026.11.26: year first is always year, month, day
		return civil(n[0], n[1], n[2])
	}
	year := n[2]
	switch len(parts[2]) {
	case 2: // two-digit years are this century's: 26 is 2026
		year += 2000
	case 4:
	default:
		return schedule.Date{}, false
	}
	dm, okDM := civil(year, n[1], n[0])
	md, okMD := civil(year, n[0], n[1])
	switch {
	case okDM && okMD && dm != md:
		d := dm
		if cr.order == MonthFirst {
			d = md
		}
		cr.ambiguousCount++
		if !cr.seen[s] && len(cr.ambiguous) < maxDateReadings {
			cr.seen[s] = true
			cr.ambiguous = append(cr.ambiguous, DateReading{Row: row, Value: s, Date: d})
		}
		return d, true
	case okDM && cr.order == DayFirst, okDM && !okMD:
		return dm, true
	case okMD:
		return md, true
	}
	return schedule.Date{}, false
}

func splitDate(s string) []string {
	for _, sep := range []string{"/", ".", "-"} {
		if strings.Count(s, sep) == 2 {
			return strings.Split(strings.TrimSuffix(s, "."), sep)
		}
	}
	if strings.Count(s, ".") == 3 && strings.HasSuffix(s, ".") { // "26.11.2026." as some write it
		return strings.Split(strings.TrimSuffix(s, "."), ".")
	}
	return nil
}

// civil is the date y-m-d when it exists.
func civil(y, m, d int) (schedule.Date, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 || y < 1 {
		return schedule.Date{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return schedule.Date{}, false
	}
	return schedule.DateOf(t), true
}

func isMidnight(s string) bool {
	switch s {
	case "0:00", "00:00", "0:00:00", "00:00:00", "12:00 AM", "12:00:00 AM":
		return true
	}
	return false
}

// clock reads a time cell as the settings page reads a time: ISO "08:00"
// and everything locale.ParseClock takes. Seconds of a spreadsheet's time
// cell ("08:30:00") are dropped when they are zero.
func (cr *cellReader) clock(s string) (schedule.LocalTime, bool) {
	s = strings.TrimSpace(s)
	if lt, err := schedule.ParseLocalTime(s); err == nil {
		return lt, true
	}
	if rest, ok := strings.CutSuffix(s, ":00"); ok && strings.Count(rest, ":") == 1 {
		s = rest
	} else if i := strings.Index(s, ":00 "); i > 0 && strings.Count(s[:i], ":") == 1 { // "10:30:00 AM"
		s = s[:i] + s[i+3:]
	}
	h, m, err := cr.loc.ParseClock(s)
	if err != nil {
		return schedule.LocalTime{}, false
	}
	return schedule.LocalTime{Hour: h, Minute: m}, true
}
