package schedule_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestNextFiringMinute(t *testing.T) {
	t.Parallel()
	weekdays := schedule.DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
	tests := []struct {
		name      string
		zone, at  string
		days      schedule.DaySet // 0: every day
		from      string
		generated []string
		minute    string // HH:MM UTC
		until     string // "": never ends
	}{
		{"New York summer time: to the first firing after it ends", "America/New_York", "08:00", 0, "2026-03-10T11:00:00Z", nil, "12:00", "2026-11-01T13:00:00Z"},
		{"a firing does not change it", "America/New_York", "08:00", 0, "2026-03-10T12:01:00Z", []string{"2026-03-10"}, "12:00", "2026-11-01T13:00:00Z"},
		{"weekdays: the same minute", "America/New_York", "08:00", weekdays, "2026-03-14T06:00:00Z", nil, "12:00", "2026-11-02T13:00:00Z"},
		{"Paris winter time: to the first firing in summer time", "Europe/Paris", "09:00", 0, "2026-03-10T11:00:00Z", []string{"2026-03-10"}, "08:00", "2026-03-29T07:00:00Z"},
		{"a run in the gap: to the gap's end", "America/New_York", "02:30", 0, "2026-03-01T12:00:00Z", []string{"2026-03-01"}, "07:30", "2026-03-08T07:00:00Z"},
		{"the gap's run itself: until the next day's", "America/New_York", "02:30", 0, "2026-03-08T05:00:00Z", nil, "07:00", "2026-03-09T06:30:00Z"},
		{"at the gap's start: the moved run shares the minute, the next does not", "America/New_York", "02:00", 0, "2026-03-07T08:00:00Z", []string{"2026-03-07"}, "07:00", "2026-03-09T06:00:00Z"},
		{"overlap: the first occurrence is in the old span", "America/New_York", "01:30", 0, "2026-10-30T12:00:00Z", []string{"2026-10-30"}, "05:30", "2026-11-02T06:30:00Z"},
		{"no DST: never ends", "Asia/Kolkata", "08:00", 0, "2026-03-10T00:00:00Z", nil, "02:30", ""},
		{"UTC", "UTC", "23:59", 0, "2026-03-10T00:00:00Z", nil, "23:59", ""},
		{"Chatham +13:45", "Pacific/Chatham", "06:00", 0, "2026-03-10T00:00:00Z", []string{"2026-03-10"}, "16:15", "2026-04-04T17:15:00Z"},
		{"Lord Howe's half hour", "Australia/Lord_Howe", "08:00", 0, "2026-03-10T00:00:00Z", []string{"2026-03-10"}, "21:00", "2026-04-04T21:30:00Z"},
		{"Havana changes at midnight", "America/Havana", "00:30", 0, "2026-03-01T12:00:00Z", []string{"2026-03-01"}, "05:30", "2026-03-08T05:00:00Z"},
		{"late (due now): from now, not a whole minute", "America/New_York", "08:00", 0, "2026-03-10T15:07:30Z", nil, "15:07", "2026-03-10T15:07:30Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := daily(t, tt.zone, tt.at)
			if tt.days != 0 {
				s.Days = tt.days
			}
			h, ok := schedule.NextFiringMinute(instant(t, tt.from), s, dates(t, tt.generated...))
			require.True(t, ok)
			require.Equal(t, tt.minute, clockOf(h.Minute))
			if tt.until == "" {
				require.True(t, h.Until.IsZero(), "until %v", h.Until)
			} else {
				require.Equal(t, instant(t, tt.until).UTC(), h.Until.UTC())
			}
		})
	}
	paused := daily(t, "Europe/Paris", "08:00")
	paused.Enabled = false
	_, ok := schedule.NextFiringMinute(instant(t, "2026-03-10T12:00:00Z"), paused, nil)
	require.False(t, ok)
}

func clockOf(minute int) string {
	return time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC).Format("15:04")
}

// TestNextFiringMinuteProperty: for random schedules, instants (crowded
// around the 2026–2027 offset changes) and generated dates, every firing
// from the hint's instant to its Until — each firing in turn, as the tick
// would record it — falls on the hint's minute at zero seconds, and Until
// is not before the first firing. The firings are NextFire's, whose own
// property test checks them against Decide.
func TestNextFiringMinuteProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 5))
	times := append(slices.Clone(scheduleTimes), "07:45", "08:00", "09:30", "18:15")
	cases := 1500
	if testing.Short() {
		cases = 300
	}
	for i := range cases {
		z := zone(t, nextFireZones[rng.IntN(len(nextFireZones))])
		s := schedule.Schedule{Zone: z, At: clock(t, times[rng.IntN(len(times))]), Days: schedule.DaySet(rng.IntN(127) + 1), Enabled: true}
		if rng.IntN(3) == 0 {
			s.Days = schedule.AllDays()
		}
		var from time.Time
		if changes := offsetChangeDays(z.Loc); len(changes) > 0 && rng.IntN(4) != 0 {
			d := changes[rng.IntN(len(changes))]
			from = d.Time().Add(time.Duration(rng.IntN(30*24*60)-15*24*60) * time.Minute)
		} else {
			from = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(730*24*60)) * time.Minute)
		}
		today := schedule.DateOf(from.In(z.Loc))
		var gen []schedule.Date
		for k := -1; k <= 1; k++ {
			if rng.IntN(2) == 0 {
				gen = append(gen, today.AddDays(k))
			}
		}
		generated := func(d schedule.Date) bool { return slices.Contains(gen, d) }
		name := func() string {
			return z.Name + " " + s.At.String() + " days " + fmtDays(s.Days) + " from " + from.Format(time.RFC3339) + " generated " + fmtDates(gen)
		}

		h, ok := schedule.NextFiringMinute(from, s, generated)
		require.True(t, ok)
		end := h.Until
		if end.IsZero() {
			end = from.AddDate(0, 3, 0) // three months of firings
		}
		// The dates fired so far, besides those generated before from. The
		// checks of this loop, run some 60,000 times, say their case only
		// when one fails (require's helpers and an eager name() were a
		// quarter of this package's CPU).
		firedDates := map[schedule.Date]bool{}
		fired := func(x schedule.Date) bool { return firedDates[x] || generated(x) }
		want := clockOf(h.Minute)
		firing := from
		for n := 0; ; n++ {
			f, ok := schedule.NextFire(firing, s, fired)
			if !ok {
				t.Fatalf("case %d: no firing after %v: %s", i, firing, name())
			}
			if n == 0 && !h.Until.IsZero() && h.Until.Before(f) {
				t.Fatalf("case %d: until %v before the first firing %v: %s", i, h.Until, f, name())
			}
			if !f.Before(end) {
				break
			}
			if got := f.UTC().Format("15:04"); got != want || f.Second() != 0 {
				t.Fatalf("case %d: firing %v off the hint's minute %s (until %v): %s", i, f, want, h.Until, name())
			}
			firedDates[schedule.DateOf(f.In(z.Loc))] = true
			firing = f
		}
	}
}
