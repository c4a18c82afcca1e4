package schedule

import (
	"fmt"
	"time"
)

// Date is a civil date with no zone: the org-local day a briefing belongs to.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

const dateLayout = "2006-01-02"

// DateOf returns the date of t's wall clock in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate parses a strict "2006-01-02" date.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil || len(s) != len(dateLayout) {
		return Date{}, fmt.Errorf("invalid date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// AddDays returns the date n days later (earlier for negative n).
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 0, 0, 0, 0, time.UTC))
}

func (d Date) Weekday() time.Weekday {
	return d.Time().Weekday()
}

// Time returns midnight UTC of d, the form pgx reads and writes for
// PostgreSQL date columns.
func (d Date) Time() time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

func (d Date) Before(o Date) bool { return d.compare(o) < 0 }
func (d Date) After(o Date) bool  { return d.compare(o) > 0 }
func (d Date) IsZero() bool       { return d == Date{} }

func (d Date) compare(o Date) int {
	switch {
	case d.Year != o.Year:
		return d.Year - o.Year
	case d.Month != o.Month:
		return int(d.Month - o.Month)
	}
	return d.Day - o.Day
}
