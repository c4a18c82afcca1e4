package tick

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
)

// propertyZones bend their days: US and EU changes, Lord Howe's half hour,
// Chatham's +12:45/+13:45, Kathmandu's +05:45, Apia, Santiago and Havana
// (changes at midnight), and zones a day apart.
var propertyZones = []string{
	"America/New_York", "America/Los_Angeles", "Europe/Berlin", "Europe/London", "Australia/Lord_Howe",
	"Pacific/Chatham", "Asia/Kathmandu", "Pacific/Apia", "Asia/Kolkata", "America/Santiago", "America/Havana",
	"Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC",
}

var propertyTimes = []string{"00:00", "00:30", "01:30", "02:00", "02:30", "03:00", "06:45", "08:00", "09:15", "12:00", "17:30", "23:00", "23:59"}

// TestHintedTickAgreesWithFullScan is the hint's property test: over
// simulated days across DST changes, with random changes between ticks
// (config edits, zone and time changes mid-day, pause and resume, global
// flag flips, org override flips, deleted briefings, "generate now" looks,
// new orgs), the hinted tick fires exactly the orgs a full scan at the
// same instant finds due. Ticks come every 30 minutes and at every
// schedule instant (and the minute after) of every config in force, so
// every firing is a tick. The full scan's decision is computed without
// writing; the hinted tick then runs for real.
//
// HINT_PROPERTY=long runs 200 orgs over the March and October/November
// changes (several minutes); the default, 50 orgs over the March ones.
func TestHintedTickAgreesWithFullScan(t *testing.T) {
	orgs, periods := 50, [][2]string{{"2026-03-27T00:00:00Z", "2026-04-06T12:00:00Z"}}
	if os.Getenv("HINT_PROPERTY") == "long" {
		orgs = 200
		periods = append(periods, [2]string{"2026-10-23T00:00:00Z", "2026-11-02T12:00:00Z"})
	}
	for i, p := range periods {
		t.Run(p[0][:10], func(t *testing.T) {
			checkHintProperty(t, rand.New(rand.NewPCG(uint64(i), 10)), orgs, utc(p[0]), utc(p[1]))
		})
	}
}

type propOrg struct {
	id       int64
	zone, at string
	days     []string
	enabled  bool
}

func (o propOrg) doc() string {
	b := map[string]any{"timezone": o.zone, "schedule_local_time": o.at, "enabled": o.enabled}
	if o.days != nil {
		b["days"] = o.days
	}
	return mustJSON(map[string]any{"briefing": b})
}

func checkHintProperty(t *testing.T, rng *rand.Rand, n int, from, to time.Time) {
	f := setup(t)
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	randomOrg := func() propOrg {
		o := propOrg{zone: pick(propertyZones), at: pick(propertyTimes), enabled: rng.IntN(10) != 0}
		if rng.IntN(3) == 0 {
			all := []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
			for _, d := range all {
				if rng.IntN(2) == 0 {
					o.days = append(o.days, d)
				}
			}
			if o.days == nil {
				o.days = all[:5]
			}
		}
		return o
	}

	// Ticks: a heap of instants, fed with the schedule instants of each
	// config as it comes into force.
	ticks := map[time.Time]bool{}
	for at := from; !at.After(to); at = at.Add(30 * time.Minute) {
		ticks[at] = true
	}
	addFires := func(o propOrg, since time.Time) {
		z, err := schedule.LoadZone(o.zone)
		require.NoError(t, err)
		at, err := schedule.ParseLocalTime(o.at)
		require.NoError(t, err)
		for d := schedule.DateOf(since.In(z.Loc)); !d.Time().After(to.Add(24 * time.Hour)); d = d.AddDays(1) {
			fire, _ := schedule.FireTime(z.Loc, d, at)
			for _, x := range []time.Time{fire, fire.Add(time.Minute)} {
				if x.After(since) && !x.After(to) {
					ticks[x] = true
				}
			}
		}
	}
	var all []propOrg
	newOrg := func(since time.Time) {
		o := randomOrg()
		o.id = f.Org(fmt.Sprintf("org-%d", len(all)), o.doc())
		all = append(all, o)
		addFires(o, since)
	}
	for range n {
		newOrg(from)
	}

	tk := f.ticker()
	tk.FullScanEvery = 365 * 24 * time.Hour // hinted after its first tick
	globalOn := true
	var hintedCands, fullCands, fired, changes int
	for now := from; !now.After(to); {
		// The full scan's rows at now, decided one by one with
		// schedule.Decide (not the tick's memoised decider): the reference.
		cands, err := candidates(f.Ctx, f.DB, now)
		require.NoError(t, err)
		want := []int64{}
		for _, c := range cands {
			if p := parseConfig(c.Config); p.err == nil &&
				schedule.Decide(now, p.schedule, func(d schedule.Date) bool { return slices.Contains(c.Dates, d) }).Due() {
				want = append(want, c.OrgID)
			}
		}
		slices.Sort(want)
		fullCands += len(cands)

		res, err := tk.Tick(f.Ctx, now)
		require.NoError(t, err)
		require.Empty(t, res.MissedByHint)
		require.Empty(t, res.LateHints)
		got := []int64{}
		rows, err := f.DB.Query(f.Ctx, `SELECT org_id FROM ff_briefings WHERE scheduled_at = $1 ORDER BY org_id`, now)
		require.NoError(t, err)
		got, err = pgx.AppendRows(got, rows, pgx.RowTo[int64])
		require.NoError(t, err)
		require.Equal(t, want, got, "at %s (%s path, %d candidates of %d)", now.Format(time.RFC3339), res.Path, res.Candidates, len(cands))
		if now != from {
			require.Equal(t, PathHinted, res.Path)
			hintedCands += res.Candidates
		}
		fired += len(got)

		// Random changes before the next tick.
		for range rng.IntN(3) {
			if rng.IntN(3) != 0 {
				continue
			}
			changes++
			o := &all[rng.IntN(len(all))]
			switch k := rng.IntN(9); k {
			case 0, 1: // time, maybe days
				o.at = pick(propertyTimes)
				if rng.IntN(2) == 0 {
					o.days = randomOrg().days
				}
				f.SetConfig(o.id, o.doc())
			case 2: // zone, mid-day
				o.zone = pick(propertyZones)
				f.SetConfig(o.id, o.doc())
			case 3: // pause or resume
				o.enabled = !o.enabled
				f.SetConfig(o.id, o.doc())
			case 4:
				globalOn = !globalOn
				f.GlobalFlag(globalOn)
			case 5:
				switch rng.IntN(3) {
				case 0:
					f.OrgFlag(o.id, false)
				case 1:
					f.OrgFlag(o.id, true)
				default:
					_, err := f.DB.Exec(f.Ctx, `DELETE FROM org_feature_flags WHERE org_id = $1`, o.id)
					require.NoError(t, err)
				}
			case 6:
				_, err := f.DB.Exec(f.Ctx, `DELETE FROM ff_briefings WHERE id = (SELECT max(id) FROM ff_briefings WHERE org_id = $1)`, o.id)
				require.NoError(t, err)
			case 7: // "generate now": a look, which does not consume the day's run
				z, _ := schedule.LoadZone(o.zone)
				_, err := f.DB.Exec(f.Ctx, `INSERT INTO ff_briefings (org_id, briefing_date, trigger) VALUES ($1, $2, 'manual') ON CONFLICT DO NOTHING`,
					o.id, schedule.DateOf(now.In(z.Loc)).Time())
				require.NoError(t, err)
			case 8:
				newOrg(now)
			}
			addFires(*o, now)
		}

		next := to.Add(time.Minute)
		for at := range ticks {
			if at.After(now) && at.Before(next) {
				next = at
			}
		}
		now = next
	}
	t.Logf("%d orgs, %d changes, %d briefings fired; candidates read: hinted %d, full scan %d",
		len(all), changes, fired, hintedCands, fullCands)
	require.Greater(t, fired, n, "the property needs firings")
	require.Less(t, hintedCands*5, fullCands, "the hinted scan reads a fraction of the orgs")

	tk.FullScanEvery = time.Minute
	res, err := tk.Tick(f.Ctx, to.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, PathFull, res.Path)
	require.Empty(t, res.MissedByHint)
	require.Empty(t, res.LateHints)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
