package schedule_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestNextFire(t *testing.T) {
	t.Parallel()
	weekdays := schedule.DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
	tests := []struct {
		name      string
		zone, at  string
		days      schedule.DaySet // 0: every day
		from      string
		generated []string
		want      string // "" : never
	}{
		{"before today's run", "America/New_York", "08:00", 0, "2026-03-10T11:00:00Z", nil, "2026-03-10T12:00:00Z"},
		{"at the run", "America/New_York", "08:00", 0, "2026-03-10T12:00:00Z", nil, "2026-03-10T12:00:00Z"},
		{"after the run, not generated: due now (catch-up)", "America/New_York", "08:00", 0, "2026-03-10T15:07:00Z", nil, "2026-03-10T15:07:00Z"},
		{"after the run, generated: tomorrow", "America/New_York", "08:00", 0, "2026-03-10T15:07:00Z", []string{"2026-03-10"}, "2026-03-11T12:00:00Z"},
		{"generated before the run: tomorrow", "America/New_York", "08:00", 0, "2026-03-10T11:00:00Z", []string{"2026-03-10"}, "2026-03-11T12:00:00Z"},
		{"two dates generated", "America/New_York", "08:00", 0, "2026-03-10T11:00:00Z", []string{"2026-03-10", "2026-03-11"}, "2026-03-12T12:00:00Z"},
		{"spring-forward gap: end of the gap", "America/New_York", "02:30", 0, "2026-03-08T05:00:00Z", nil, "2026-03-08T07:00:00Z"},
		{"across the gap from the day before", "America/New_York", "02:30", 0, "2026-03-07T08:00:00Z", []string{"2026-03-07"}, "2026-03-08T07:00:00Z"},
		{"fall-back overlap: first occurrence", "America/New_York", "01:30", 0, "2026-11-01T04:00:00Z", nil, "2026-11-01T05:30:00Z"},
		{"fall-back overlap, generated: not the second occurrence", "America/New_York", "01:30", 0, "2026-11-01T05:31:00Z", []string{"2026-11-01"}, "2026-11-02T06:30:00Z"},
		{"EU spring forward", "Europe/Berlin", "02:15", 0, "2026-03-28T12:00:00Z", []string{"2026-03-28"}, "2026-03-29T01:00:00Z"},
		{"EU fall back", "Europe/Berlin", "02:15", 0, "2026-10-24T12:00:00Z", []string{"2026-10-24"}, "2026-10-25T00:15:00Z"},
		{"half-hour zone", "Asia/Kolkata", "08:00", 0, "2026-03-10T00:00:00Z", nil, "2026-03-10T02:30:00Z"},
		{"45-minute zone", "Asia/Kathmandu", "09:45", 0, "2026-03-10T00:00:00Z", nil, "2026-03-10T04:00:00Z"},
		{"Chatham +13:45", "Pacific/Chatham", "06:00", 0, "2026-03-10T00:00:00Z", []string{"2026-03-10"}, "2026-03-10T16:15:00Z"},
		{"Lord Howe half-hour DST ends", "Australia/Lord_Howe", "01:45", 0, "2026-04-04T12:00:00Z", []string{"2026-04-04"}, "2026-04-04T14:45:00Z"},
		{"Apia +13", "Pacific/Apia", "06:00", 0, "2026-03-09T12:00:00Z", nil, "2026-03-09T17:00:00Z"},
		{"midnight", "Europe/London", "00:00", 0, "2026-03-10T00:00:01Z", []string{"2026-03-10"}, "2026-03-11T00:00:00Z"},
		{"midnight, not generated: due now", "Europe/London", "00:00", 0, "2026-03-10T00:00:01Z", nil, "2026-03-10T00:00:01Z"},
		{"23:59", "Pacific/Pago_Pago", "23:59", 0, "2026-03-10T00:00:00Z", nil, "2026-03-10T10:59:00Z"},
		{"weekdays from Friday after the run", "America/New_York", "08:00", weekdays, "2026-03-13T13:00:00Z", []string{"2026-03-13"}, "2026-03-16T12:00:00Z"},
		{"weekdays from Saturday", "America/New_York", "08:00", weekdays, "2026-03-14T06:00:00Z", nil, "2026-03-16T12:00:00Z"},
		{"Mondays only, from a Tuesday", "Asia/Tokyo", "07:00", schedule.DaysOf(time.Monday), "2026-03-10T00:00:00Z", nil, "2026-03-15T22:00:00Z"},
		{"Sundays in the +14 zone", "Pacific/Kiritimati", "00:00", schedule.DaysOf(time.Sunday), "2026-03-14T09:00:00Z", nil, "2026-03-14T10:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := daily(t, tt.zone, tt.at)
			if tt.days != 0 {
				s.Days = tt.days
			}
			got, ok := schedule.NextFire(instant(t, tt.from), s, dates(t, tt.generated...))
			require.True(t, ok)
			require.Equal(t, instant(t, tt.want).UTC(), got.UTC())
			require.True(t, schedule.Decide(got, s, dates(t, tt.generated...)).Due())
		})
	}
}

func TestNextFireNever(t *testing.T) {
	t.Parallel()
	from := instant(t, "2026-03-10T12:00:00Z")
	paused := daily(t, "Europe/Paris", "08:00")
	paused.Enabled = false
	noDays := daily(t, "Europe/Paris", "08:00")
	noDays.Days = 0
	for name, s := range map[string]schedule.Schedule{"paused": paused, "no days": noDays, "no zone": {}} {
		_, ok := schedule.NextFire(from, s, nil)
		require.False(t, ok, name)
	}
	// Every date generated: the horizon's end, a lower bound the tick
	// rechecks then.
	always := func(schedule.Date) bool { return true }
	got, ok := schedule.NextFire(from, daily(t, "Europe/Paris", "08:00"), always)
	require.True(t, ok)
	require.True(t, got.After(from.Add(14*24*time.Hour)))
	require.False(t, schedule.Decide(got, daily(t, "Europe/Paris", "08:00"), always).Due())
}

// nextFireZones are the zones whose days bend: US and EU changes, the
// half-hour Lord Howe change, Chatham's +12:45/+13:45, Kathmandu's +05:45,
// Apia, zones a day ahead of or behind UTC, and ones that change at midnight.
var nextFireZones = []string{
	"America/New_York", "America/Los_Angeles", "Europe/Berlin", "Europe/London", "Australia/Lord_Howe",
	"Pacific/Chatham", "Asia/Kathmandu", "Pacific/Apia", "Pacific/Kiritimati", "Pacific/Pago_Pago",
	"America/Havana", "America/Santiago", "Asia/Beirut", "America/Asuncion", "Africa/Cairo", "UTC", "Asia/Kolkata",
}

// TestNextFireProperty: for random schedules, instants (crowded around the
// 2026–2027 offset changes) and generated dates, no instant in [from, hint)
// is due per Decide and the hint is. Decide's answer only turns to due at a
// run (FireTime), at the start of a local date or at an offset change, so
// checking those instants, plus random ones, checks every instant.
func TestNextFireProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 13))
	times := append(slices.Clone(scheduleTimes), "07:45", "08:00", "09:30", "18:15")
	cases := 3000
	if testing.Short() {
		cases = 500
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
			from = d.Time().Add(time.Duration(rng.IntN(48*60)-12*60) * time.Minute)
		} else {
			from = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(730*24*60)) * time.Minute)
		}
		if rng.IntN(4) == 0 {
			from = from.Add(time.Duration(rng.IntN(60)) * time.Second)
		}
		today := schedule.DateOf(from.In(z.Loc))
		var gen []schedule.Date
		for k := -1; k <= 2; k++ {
			if rng.IntN(2) == 0 {
				gen = append(gen, today.AddDays(k))
			}
		}
		generated := func(d schedule.Date) bool { return slices.Contains(gen, d) }

		hint, ok := schedule.NextFire(from, s, generated)
		require.True(t, ok)
		name := func() string {
			return z.Name + " " + s.At.String() + " days " + fmtDays(s.Days) + " from " + from.Format(time.RFC3339) + " generated " + fmtDates(gen)
		}
		require.False(t, hint.Before(from), name())
		require.True(t, schedule.Decide(hint, s, generated).Due(), "case %d: hint %v not due: %s", i, hint, name())
		for _, at := range turningPoints(z.Loc, s, from, hint, rng) {
			if d := schedule.Decide(at, s, generated); d.Due() {
				t.Fatalf("case %d: due at %v (%s) before the hint %v: %s", i, at, d.Date, hint, name())
			}
		}
	}
}

// turningPoints lists the instants in [from, until) at which Decide's answer
// may turn to due: from itself, every run (FireTime) and start of a local
// date, every offset change, and some random minutes.
func turningPoints(loc *time.Location, s schedule.Schedule, from, until time.Time, rng *rand.Rand) []time.Time {
	var pts []time.Time
	add := func(t time.Time) {
		if !t.Before(from) && t.Before(until) {
			pts = append(pts, t)
		}
	}
	add(from)
	for d := schedule.DateOf(from.In(loc)).AddDays(-1); !d.After(schedule.DateOf(until.In(loc)).AddDays(1)); d = d.AddDays(1) {
		fire, _ := schedule.FireTime(loc, d, s.At)
		add(fire)
		start, _ := schedule.DayBounds(loc, d)
		add(start)
	}
	for t := from; t.Before(until); {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() {
			break
		}
		add(end)
		t = end
	}
	for range 20 {
		if span := until.Sub(from); span > 0 {
			add(from.Add(time.Duration(rng.Int64N(int64(span)))))
		}
	}
	return pts
}

func dates(t testing.TB, ds ...string) func(schedule.Date) bool {
	var set []schedule.Date
	for _, d := range ds {
		set = append(set, date(t, d))
	}
	return func(d schedule.Date) bool { return slices.Contains(set, d) }
}

func fmtDays(s schedule.DaySet) string {
	out := ""
	for _, n := range s.Names() {
		out += n + ","
	}
	return out
}

func fmtDates(ds []schedule.Date) string {
	out := ""
	for _, d := range ds {
		out += d.String() + ","
	}
	return out
}
