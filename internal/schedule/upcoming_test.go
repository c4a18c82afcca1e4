package schedule_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

func TestUpcoming(t *testing.T) {
	t.Parallel()
	weekdays := schedule.DaysOf(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
	type run struct{ date, at, scheduled string }
	tests := []struct {
		name      string
		zone, at  string
		days      schedule.DaySet // 0: every day
		now       string
		generated []string
		want      []run
	}{
		{"before today's minute", "America/Chicago", "06:30", weekdays, "2026-11-25T10:00:00Z", nil, []run{
			{"2026-11-25", "2026-11-25T12:30:00Z", "2026-11-25T12:30:00Z"},
			{"2026-11-26", "2026-11-26T12:30:00Z", "2026-11-26T12:30:00Z"},
			{"2026-11-27", "2026-11-27T12:30:00Z", "2026-11-27T12:30:00Z"},
		}},
		// Saved at 21:35 with 06:30: today is due now, 15 h 05 late.
		{"saved late in the day: today's catch-up now", "America/Chicago", "06:30", weekdays, "2026-11-26T03:35:00Z", nil, []run{
			{"2026-11-25", "2026-11-26T03:35:00Z", "2026-11-25T12:30:00Z"},
			{"2026-11-26", "2026-11-26T12:30:00Z", "2026-11-26T12:30:00Z"},
		}},
		{"today's scheduled briefing made: tomorrow", "America/Chicago", "06:30", weekdays, "2026-11-26T03:35:00Z", []string{"2026-11-25"}, []run{
			{"2026-11-26", "2026-11-26T12:30:00Z", "2026-11-26T12:30:00Z"},
			{"2026-11-27", "2026-11-27T12:30:00Z", "2026-11-27T12:30:00Z"},
			{"2026-11-30", "2026-11-30T12:30:00Z", "2026-11-30T12:30:00Z"},
		}},
		{"spring-forward gap: the run is at the gap's end", "America/New_York", "02:30", 0, "2026-03-08T05:00:00Z", nil, []run{
			{"2026-03-08", "2026-03-08T07:00:00Z", "2026-03-08T07:00:00Z"},
			{"2026-03-09", "2026-03-09T06:30:00Z", "2026-03-09T06:30:00Z"},
		}},
		{"day off today, catch-up none", "Europe/Berlin", "08:00", weekdays, "2026-03-14T12:00:00Z", nil, []run{
			{"2026-03-16", "2026-03-16T07:00:00Z", "2026-03-16T07:00:00Z"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := daily(t, tt.zone, tt.at)
			if tt.days != 0 {
				s.Days = tt.days
			}
			got := schedule.Upcoming(instant(t, tt.now), s, dates(t, tt.generated...), len(tt.want))
			require.Len(t, got, len(tt.want))
			for i, w := range tt.want {
				require.Equal(t, w.date, got[i].Date.String(), "run %d", i)
				require.Equal(t, instant(t, w.at), got[i].At.UTC(), "run %d", i)
				require.Equal(t, instant(t, w.scheduled), got[i].UTC, "run %d", i)
				require.Equal(t, got[i].At.After(got[i].UTC), got[i].CatchUp())
			}
		})
	}
	// The catch-up run's lateness is what send_within is compared with.
	late := schedule.Upcoming(instant(t, "2026-11-26T03:35:00Z"), daily(t, "America/Chicago", "06:30"), nil, 1)[0]
	require.Equal(t, 15*time.Hour+5*time.Minute, late.Late())
	require.True(t, schedule.SentLate(late.Late(), schedule.DefaultSendWithin))
	require.False(t, schedule.SentLate(2*time.Hour, schedule.DefaultSendWithin))
	require.False(t, schedule.SentLate(3*time.Hour, schedule.DefaultSendWithin), "exactly send_within is still sent")
}

func TestUpcomingNone(t *testing.T) {
	t.Parallel()
	now := instant(t, "2026-03-10T12:00:00Z")
	paused := daily(t, "Europe/Paris", "08:00")
	paused.Enabled = false
	noDays := daily(t, "Europe/Paris", "08:00")
	noDays.Days = 0
	for name, s := range map[string]schedule.Schedule{"paused": paused, "no days": noDays, "no zone": {}} {
		require.Empty(t, schedule.Upcoming(now, s, nil, 3), name)
	}
	always := func(schedule.Date) bool { return true }
	require.Empty(t, schedule.Upcoming(now, daily(t, "Europe/Paris", "08:00"), always, 3), "every date generated")
	require.Empty(t, schedule.Upcoming(now, daily(t, "Europe/Paris", "08:00"), nil, 0))
}

// upcomingZones add to nextFireZones those with half-hour DST (St John's,
// Adelaide) and a zone that skipped a whole date once (Apia is there).
var upcomingZones = append(slices.Clone(nextFireZones), "America/St_Johns", "Australia/Adelaide", "Asia/Tehran")

// TestUpcomingAgreesWithTheTick is the property behind "one next run"
// (docs/scheduling.md, "The next run"): over random configs (zones with
// DST, half-hour and 45-minute offsets, random days and times, gap and
// overlap minutes), random generated dates and random instants crowded
// around offset changes, Upcoming's first run is at NextFire's instant
// (the tick's hint), Decide at that instant finds that very date due, and
// no instant from now until then is due; each later run is the next the
// tick would make once the earlier ones are generated.
func TestUpcomingAgreesWithTheTick(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 1))
	times := append(slices.Clone(scheduleTimes), "06:30", "07:45", "08:00", "09:30", "18:15")
	cases := 2000
	if testing.Short() {
		cases = 300
	}
	for i := range cases {
		z := zone(t, upcomingZones[rng.IntN(len(upcomingZones))])
		s := schedule.Schedule{Zone: z, At: clock(t, times[rng.IntN(len(times))]), Days: schedule.DaySet(rng.IntN(127) + 1), Enabled: true}
		if rng.IntN(3) == 0 {
			s.Days = schedule.AllDays()
		}
		var now time.Time
		if changes := offsetChangeDays(z.Loc); len(changes) > 0 && rng.IntN(4) != 0 {
			d := changes[rng.IntN(len(changes))]
			now = d.Time().Add(time.Duration(rng.IntN(48*60)-12*60) * time.Minute)
		} else {
			now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(730*24*60)) * time.Minute)
		}
		if rng.IntN(3) == 0 {
			now = now.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond)
		}
		today := schedule.DateOf(now.In(z.Loc))
		var gen []schedule.Date
		for k := -2; k <= 2; k++ {
			if rng.IntN(2) == 0 {
				gen = append(gen, today.AddDays(k))
			}
		}
		generated := func(d schedule.Date) bool { return slices.Contains(gen, d) }
		name := func() string {
			return z.Name + " " + s.At.String() + " days " + fmtDays(s.Days) + " now " + now.Format(time.RFC3339Nano) + " generated " + fmtDates(gen)
		}

		runs := schedule.Upcoming(now, s, generated, 3)
		require.Len(t, runs, 3, name())
		hint, ok := schedule.NextFire(now, s, generated)
		require.True(t, ok, name())
		require.True(t, runs[0].At.Equal(hint), "case %d: first run %v, hint %v: %s", i, runs[0].At, hint, name())
		require.Equal(t, schedule.Decide(now, s, generated).Due(), runs[0].At.Equal(now), "a run now is a catch-up: %s", name())

		from, counted := now, slices.Clone(gen)
		for k, r := range runs {
			seen := func(d schedule.Date) bool { return slices.Contains(counted, d) }
			d := schedule.Decide(r.At, s, seen)
			require.True(t, d.Due(), "case %d run %d at %v not due: %s", i, k, r.At, name())
			require.Equal(t, d.Date, r.Date, "case %d run %d: %s", i, k, name())
			require.True(t, d.FireAt.Equal(r.UTC), "case %d run %d: scheduled %v, Decide's %v: %s", i, k, r.UTC, d.FireAt, name())
			require.False(t, r.At.Before(r.UTC), "a run is never early: %s", name())
			require.Equal(t, r.At.After(r.UTC), r.CatchUp())
			if r.At.After(from) {
				require.False(t, schedule.Decide(r.At.Add(-time.Nanosecond), s, seen).Due(),
					"case %d run %d: due just before %v: %s", i, k, r.At, name())
				for _, at := range turningPoints(z.Loc, s, from, r.At, rng) {
					if d := schedule.Decide(at, s, seen); d.Due() {
						t.Fatalf("case %d run %d: due at %v (%s) before the run at %v: %s", i, k, at, d.Date, r.At, name())
					}
				}
			}
			if k > 0 {
				require.True(t, r.Date.After(runs[k-1].Date), "dates go up: %s", name())
				require.False(t, r.CatchUp(), "only the first run can be late: %s", name())
			}
			counted = append(counted, r.Date)
			from = r.At
		}
	}
}
