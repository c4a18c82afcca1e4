package schedule

import (
	"fmt"
	"time"
)

// LocalTime is a wall-clock time of day, minute precision.
type LocalTime struct {
	Hour, Minute int
}

// ParseLocalTime parses a strict "HH:MM" between 00:00 and 23:59.
func ParseLocalTime(s string) (LocalTime, error) {
	if len(s) != 5 || s[2] != ':' || !isDigits(s[:2]) || !isDigits(s[3:]) {
		return LocalTime{}, fmt.Errorf("invalid time %q: want HH:MM, e.g. 08:00", s)
	}
	t := LocalTime{Hour: atoi2(s[:2]), Minute: atoi2(s[3:])}
	if t.Hour > 23 || t.Minute > 59 {
		return LocalTime{}, fmt.Errorf("invalid time %q: must be between 00:00 and 23:59", s)
	}
	return t, nil
}

func (t LocalTime) String() string {
	return fmt.Sprintf("%02d:%02d", t.Hour, t.Minute)
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func atoi2(s string) int {
	return int(s[0]-'0')*10 + int(s[1]-'0')
}

// DaySet is a set of weekdays, one bit per time.Weekday.
type DaySet uint8

// dayNames are the config's day names in display order, Monday first.
var dayNames = [...]struct {
	name string
	day  time.Weekday
}{
	{"mon", time.Monday}, {"tue", time.Tuesday}, {"wed", time.Wednesday}, {"thu", time.Thursday},
	{"fri", time.Friday}, {"sat", time.Saturday}, {"sun", time.Sunday},
}

// DaysOf returns the set holding days.
func DaysOf(days ...time.Weekday) DaySet {
	var s DaySet
	for _, d := range days {
		s |= 1 << d
	}
	return s
}

// AllDays returns the set of all seven days.
func AllDays() DaySet {
	return 1<<7 - 1
}

func (s DaySet) Has(d time.Weekday) bool {
	return s&(1<<d) != 0
}

// Names returns the config names of the days in s, Monday first.
func (s DaySet) Names() []string {
	names := make([]string, 0, len(dayNames))
	for _, dn := range dayNames {
		if s.Has(dn.day) {
			names = append(names, dn.name)
		}
	}
	return names
}

// ParseDayName parses a config day name: "mon" … "sun", lowercase.
func ParseDayName(s string) (time.Weekday, error) {
	for _, dn := range dayNames {
		if dn.name == s {
			return dn.day, nil
		}
	}
	return 0, fmt.Errorf("unknown day %q: use mon, tue, wed, thu, fri, sat or sun", s)
}
