package locale

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// ClockProblem says why ParseClock refused a time, so that a page can say
// it in the reader's language beside the field.
type ClockProblem int

const (
	// ClockEmpty: nothing was typed.
	ClockEmpty ClockProblem = iota + 1
	// ClockUnreadable: not a time of day in any form ParseClock reads.
	ClockUnreadable
	// ClockHour: the hour is past 23 (or 24:00, which is tomorrow's 00:00).
	ClockHour
	// ClockMinute: the minutes are past 59.
	ClockMinute
	// ClockTwelveHour: an AM/PM time whose hour is not 1–12 ("13 pm", "0 am").
	ClockTwelveHour
)

// ClockError is ParseClock's error.
type ClockError struct {
	Input   string
	Problem ClockProblem
}

func (e *ClockError) Error() string {
	switch e.Problem {
	case ClockEmpty:
		return "no time given"
	case ClockHour:
		return fmt.Sprintf("%q: the hour must be 0–23", e.Input)
	case ClockMinute:
		return fmt.Sprintf("%q: the minutes must be 00–59", e.Input)
	case ClockTwelveHour:
		return fmt.Sprintf("%q: with AM or PM the hour must be 1–12", e.Input)
	}
	return fmt.Sprintf("%q is not a time of day (write it like 6:30, 6:30 pm or 18:30)", e.Input)
}

// maxClockInput bounds what ParseClock reads: no time of day is longer.
const maxClockInput = 32

// ParseClock reads a time of day as people type it, in any supported
// locale: "6:30", "06:30", "6.30", "18h30", "18 h 30", "0630", "630", "18",
// "18h", each 24-hour, also followed by the word of the locale's own hour
// patterns ("18:30 Uhr" in German); and the same followed by a day period: the
// locale's own AM and PM markers in every CLDR width ("a.m.", "a. m.") and
// always English "am", "pm", "a", "p", with or without dots and spaces, in
// any case: "6:30 pm", "6:30PM", "9 a.m.", "6.30pm". CLDR's flexible day
// periods ("nachm.", "du soir") are not read: they name spans, not halves
// of the day. "12 am" is 00:00 and "12 pm" 12:00. Everything Clock writes,
// ParseClock reads back.
//
// A refusal is a *ClockError: 24:00, 25:00, 6:60, 13 pm, 0 am, text.
func (l Locale) ParseClock(s string) (hour, minute int, err error) {
	fail := func(p ClockProblem) (int, int, error) { return 0, 0, &ClockError{Input: s, Problem: p} }
	in := strings.TrimSpace(s)
	if in == "" {
		return fail(ClockEmpty)
	}
	if len(in) > maxClockInput {
		return fail(ClockUnreadable)
	}
	in = strings.ToLower(in)

	// The day period is the trailing text after the last digit.
	last := strings.LastIndexFunc(in, unicode.IsDigit)
	if last < 0 {
		return fail(ClockUnreadable)
	}
	num, suffix := in[:last+1], compact(in[last+1:])
	period := 0 // 0 none, 1 am, 2 pm
	switch {
	case suffix == "" || suffix == "h" || slices.Contains(l.data().hourWords, suffix):
	default:
		if period = l.period(suffix); period == 0 {
			return fail(ClockUnreadable)
		}
	}

	num = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, num)
	var hs, ms string
	if i := strings.IndexAny(num, ":.h"); i >= 0 {
		hs, ms = num[:i], num[i+1:]
		if len(ms) != 2 {
			return fail(ClockUnreadable)
		}
	} else {
		switch len(num) {
		case 1, 2:
			hs, ms = num, "00"
		case 3, 4:
			hs, ms = num[:len(num)-2], num[len(num)-2:]
		default:
			return fail(ClockUnreadable)
		}
	}
	if len(hs) == 0 || len(hs) > 2 || !digits(hs) || !digits(ms) {
		return fail(ClockUnreadable)
	}
	h, _ := strconv.Atoi(hs)
	m, _ := strconv.Atoi(ms)
	if m > 59 {
		return fail(ClockMinute)
	}
	switch period {
	case 0:
		if h > 23 {
			return fail(ClockHour)
		}
	default:
		if h < 1 || h > 12 {
			return fail(ClockTwelveHour)
		}
		h %= 12
		if period == 2 {
			h += 12
		}
	}
	return h, m, nil
}

// period reads a compacted day-period marker: 1 for AM, 2 for PM, 0 for
// neither.
func (l Locale) period(marker string) int {
	switch marker {
	case "am", "a":
		return 1
	case "pm", "p":
		return 2
	}
	p := 1
	for _, m := range l.data().markers {
		if m == "" {
			p = 2
			continue
		}
		if compact(strings.ToLower(m)) == marker {
			return p
		}
	}
	return 0
}

// compact drops the dots and spaces people put in day periods or leave
// out ("a. m.", "a.m.", "am").
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
