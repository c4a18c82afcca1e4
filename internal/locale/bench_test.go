package locale_test

import (
	"testing"
	"time"
)

func BenchmarkFormat(b *testing.B) {
	l := mustParse(b, "de-DE")
	at := time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)
	b.Run("Time", func(b *testing.B) {
		for b.Loop() {
			_ = l.Time(at)
		}
	})
	b.Run("Date", func(b *testing.B) {
		for b.Loop() {
			_ = l.Date(at)
		}
	})
	b.Run("ZoneName", func(b *testing.B) {
		for b.Loop() {
			_ = l.ZoneName("America/Chicago", at)
		}
	})
	b.Run("ParseClock", func(b *testing.B) {
		for b.Loop() {
			_, _, _ = l.ParseClock("6:30 pm")
		}
	})
}
