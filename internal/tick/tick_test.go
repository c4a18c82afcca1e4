package tick

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/updates"
)

// TestTickAcrossDaysAndZones ticks every minute for three and a half days
// and checks that each org got exactly one briefing per local date, at the
// first tick on or after its local schedule time.
func TestTickAcrossDaysAndZones(t *testing.T) {
	f := setup(t)
	type orgCase struct {
		zone, at string
		days     []string
	}
	cases := []orgCase{
		{"America/New_York", "08:00", []string{"mon", "tue", "wed", "thu", "fri"}},
		{"Asia/Kolkata", "08:00", nil},
		{"Australia/Lord_Howe", "07:15", nil}, // +10:30 / +11
		{"Pacific/Apia", "06:00", nil},        // +13
		{"Pacific/Kiritimati", "00:00", nil},  // +14: local date ahead of UTC
		{"Pacific/Pago_Pago", "23:59", nil},   // -11: local date behind UTC
		{"Asia/Kathmandu", "09:45", nil},      // +05:45
		{"Europe/London", "00:00", []string{"sat", "sun"}},
	}
	from, to := utc("2026-03-06T00:00:00Z"), utc("2026-03-09T12:00:00Z") // Friday to Monday
	ids := make([]int64, len(cases))
	for i, c := range cases {
		ids[i] = f.Org(fmt.Sprintf("org-%d", i), config(c.zone, c.at, c.days...))
	}

	enqueued := f.tickEvery(from, to, time.Minute)

	total := 0
	for i, c := range cases {
		z, err := schedule.LoadZone(c.zone)
		require.NoError(t, err)
		loc := z.Loc
		var want []string
		// Expected, from time.Date (no DST gaps here): the schedule instant
		// of each local date, or the first tick if that day had begun already.
		for d := schedule.DateOf(from.In(loc)); !d.After(schedule.DateOf(to.In(loc))); d = d.AddDays(1) {
			if c.days != nil && !slices.Contains(c.days, lower3(d.Weekday())) {
				continue
			}
			var hh, mm int
			fmt.Sscanf(c.at, "%d:%d", &hh, &mm)
			fire := time.Date(d.Year, d.Month, d.Day, hh, mm, 0, 0, loc)
			if fire.Before(from) {
				fire = from
			}
			if fire.After(to) || schedule.DateOf(fire.In(loc)) != d {
				continue
			}
			want = append(want, row(d.String(), c.zone, fire.UTC().Format(time.RFC3339)))
		}
		require.Equal(t, want, f.Briefings(ids[i]), c.zone)
		total += len(want)
	}
	require.Equal(t, total, enqueued)
	require.Equal(t, total, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
}

func lower3(d time.Weekday) string {
	return strings.ToLower(d.String()[:3])
}

func TestTickDST(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, at string
		from, to string
		want     string
	}{
		// 02:30 does not exist on 2026-03-08 in New York: the first valid
		// minute after it is 03:00 EDT = 07:00Z, and nothing fires before.
		{"spring forward gap", "02:30", "2026-03-08T05:00:00Z", "2026-03-08T09:00:00Z", "2026-03-08T07:00:00Z"},
		// 01:30 happens twice on 2026-11-01: fire at the first (EDT, 05:30Z), once.
		{"fall back overlap", "01:30", "2026-11-01T04:00:00Z", "2026-11-01T09:00:00Z", "2026-11-01T05:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			org := f.Org("ny", config("America/New_York", tt.at))
			require.Equal(t, 1, f.tickEvery(utc(tt.from), utc(tt.to), time.Minute))
			require.Equal(t, []string{row(utc(tt.want).In(mustZone("America/New_York")).Format("2006-01-02"),
				"America/New_York", tt.want)}, f.Briefings(org))
			require.Equal(t, []string{strings.Replace(tt.want, "T", " ", 1)}, f.scheduledFor(org), "the minute FireTime chose")
		})
	}
}

// TestTickCatchUp: a worker down at the schedule minute fires later the same
// local day, and never backfills a local day it missed entirely.
func TestTickCatchUp(t *testing.T) {
	f := setup(t)
	org := f.Org("ny", config("America/New_York", "08:00")) // 12:00Z in March after the switch

	require.Zero(t, f.tickEvery(utc("2026-03-10T11:00:00Z"), utc("2026-03-10T11:59:00Z"), time.Minute))
	// Down from 11:59Z to 20:17Z.
	require.Equal(t, 1, f.tickEvery(utc("2026-03-10T20:17:00Z"), utc("2026-03-11T03:59:00Z"), time.Minute)) // to 23:59 local
	// Down for the whole of local 2026-03-11; back at 08:30 local on the 12th.
	require.Equal(t, 1, f.tickEvery(utc("2026-03-12T12:30:00Z"), utc("2026-03-12T13:00:00Z"), time.Minute))

	require.Equal(t, []string{
		row("2026-03-10", "America/New_York", "2026-03-10T20:17:00Z"),
		row("2026-03-12", "America/New_York", "2026-03-12T12:30:00Z"),
	}, f.Briefings(org))
	// Each firing records the scheduled minute it was for: the catch-up
	// run was 8 h 17 late, which decides whether it is sent
	// (docs/guarantees.md, "Late briefings").
	require.Equal(t, []string{"2026-03-10 12:00:00Z", "2026-03-12 12:00:00Z"}, f.scheduledFor(org))
}

// scheduledFor lists the scheduled minutes an org's firings were for, by date.
func (f *fixture) scheduledFor(orgID int64) []string {
	f.T.Helper()
	rows, err := f.DB.Query(f.Ctx, `SELECT to_char(scheduled_for AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS"Z"')
		FROM ff_briefings WHERE org_id = $1 ORDER BY briefing_date`, orgID)
	require.NoError(f.T, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(f.T, err)
	return out
}

// TestConcurrentTicks runs four replicas' ticks at the same instant: exactly
// one briefing and one generation task per org, with the tick lock and
// without it (the tick's work alone, as if every replica held the lock: the
// unique key alone).
func TestConcurrentTicks(t *testing.T) {
	t.Parallel()
	for _, noLock := range []bool{false, true} {
		t.Run(fmt.Sprintf("noLock=%v", noLock), func(t *testing.T) {
			f := setup(t)
			zones := []string{"Etc/UTC", "America/New_York", "Asia/Kolkata", "Pacific/Apia", "Europe/Berlin"}
			const orgs = 60
			for i := range orgs {
				f.Org(fmt.Sprintf("org-%d", i), config(zones[i%len(zones)], "00:00"))
			}
			now := utc("2026-03-10T18:00:00Z") // past 00:00 local everywhere in the list

			start := make(chan struct{})
			results := make([]Result, 4)
			errs := make([]error, len(results)) // asserted here: require may not stop the test from another goroutine
			var wg sync.WaitGroup
			for i := range results {
				wg.Go(func() {
					tk := f.ticker()
					step := tk.lockedTick
					if noLock {
						step = tk.tick
					}
					<-start
					results[i], errs[i] = tk.run(f.Ctx, now, step)
				})
			}
			close(start)
			wg.Wait()

			enqueued := 0
			for i, r := range results {
				require.NoError(t, errs[i], "replica %d", i)
				enqueued += r.Enqueued
			}
			require.Equal(t, orgs, enqueued)
			require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_briefings`))
			require.Equal(t, orgs, f.Count(`SELECT count(DISTINCT org_id) FROM ff_briefings`))
			require.Equal(t, orgs, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'`))
		})
	}
}

// TestTickSkipsInvalidConfigs: each broken config skips its own org with a
// warning; the others are enqueued.
func TestTickSkipsInvalidConfigs(t *testing.T) {
	f := setup(t)
	good := f.Org("good", config("Europe/Paris", "00:00"))
	bad := map[int64]string{
		f.Org("bad-zone", config("Mars/Olympus_Mons", "08:00")):                                                "zone",
		f.Org("local-zone", config("Local", "08:00")):                                                          "Local",
		f.Org("not-an-object", `{"briefing": "08:00"}`):                                                        "type",
		f.Org("array", `[1, 2]`):                                                                               "array",
		f.Org("missing-zone", `{"briefing": {"schedule_local_time": "08:00"}}`):                                "missing",
		f.Org("bad-time", config("Europe/Paris", "25:00")):                                                     "time",
		f.Org("unknown-field", `{"briefing": {"timezone": "UTC", "schedule_local_time": "08:00", "tz": "x"}}`): "unknown",
	}
	var logs bytes.Buffer
	tk := f.ticker()
	tk.Log = slog.New(slog.NewJSONHandler(&logs, nil))

	res, err := tk.Tick(f.Ctx, utc("2026-03-10T12:00:00Z"))
	require.NoError(t, err)
	require.Equal(t, len(bad)+1, res.Candidates)
	require.Equal(t, len(bad), res.Skipped[schedule.ReasonInvalidConfig])
	require.Equal(t, 1, res.Enqueued)
	require.Len(t, f.Briefings(good), 1)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM river_job WHERE kind = 'generate_briefing' AND (args->>'org_id')::bigint = $1`, good))

	warned := map[int64]bool{}
	tickLines := 0
	for line := range bytes.Lines(logs.Bytes()) {
		var entry struct {
			Level          string `json:"level"`
			Msg            string `json:"msg"`
			OrgID          int64  `json:"org_id"`
			Error          string `json:"error"`
			InvalidConfigs int    `json:"invalid_configs"`
			Candidates     int    `json:"candidates"`
		}
		require.NoError(t, json.Unmarshal(line, &entry))
		if entry.Level == "WARN" {
			require.NotEmpty(t, entry.Error)
			warned[entry.OrgID] = true
		}
		if entry.Msg == "briefing tick" { // the one line per tick an operator reads
			tickLines++
			require.Equal(t, len(bad), entry.InvalidConfigs)
			require.Equal(t, len(bad)+1, entry.Candidates)
		}
	}
	require.Equal(t, 1, tickLines)
	for id, name := range bad {
		require.True(t, warned[id], "no warning for %s", name)
		require.Empty(t, f.Briefings(id), name)
	}
}

// TestTickZoneChangedMidDay: a local date that has a briefing never gets a
// second one when the zone changes, and existing rows keep their date and zone.
func TestTickZoneChangedMidDay(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Asia/Kolkata", "08:00")) // 02:30Z
	require.Equal(t, 1, f.tick(utc("2026-03-09T02:30:00Z")).Enqueued)
	require.Equal(t, 1, f.tick(utc("2026-03-10T02:30:00Z")).Enqueued)

	// At 03:00Z it is 2026-03-09 20:00 in Los Angeles, then 2026-03-10 from
	// 07:00Z: both local dates already have their briefing.
	f.SetConfig(org, config("America/Los_Angeles", "08:00")) // 15:00Z
	require.Zero(t, f.tickEvery(utc("2026-03-10T03:00:00Z"), utc("2026-03-11T14:59:00Z"), 3*time.Minute))
	require.Equal(t, 1, f.tick(utc("2026-03-11T15:00:00Z")).Enqueued)

	require.Equal(t, []string{
		row("2026-03-09", "Asia/Kolkata", "2026-03-09T02:30:00Z"),
		row("2026-03-10", "Asia/Kolkata", "2026-03-10T02:30:00Z"),
		row("2026-03-11", "America/Los_Angeles", "2026-03-11T15:00:00Z"),
	}, f.Briefings(org))

	// Moving east: Kolkata's date is ahead, and 2026-03-11 is taken there too.
	f.SetConfig(org, config("Asia/Kolkata", "08:00"))
	require.Zero(t, f.tickEvery(utc("2026-03-11T15:01:00Z"), utc("2026-03-12T02:29:00Z"), 3*time.Minute))
	require.Equal(t, 1, f.tick(utc("2026-03-12T02:30:00Z")).Enqueued)
	require.Len(t, f.Briefings(org), 4)
}

// TestTickZoneChangedWestOpensPreviousDate documents a consequence of the
// rule: moving west can make it "yesterday" again, and a local date with no
// briefing whose schedule time has passed is due (catch-up), even though
// that date is earlier than one already generated.
func TestTickZoneChangedWestOpensPreviousDate(t *testing.T) {
	f := setup(t)
	org := f.Org("acme", config("Asia/Kolkata", "08:00"))
	require.Equal(t, 1, f.tick(utc("2026-03-10T02:30:00Z")).Enqueued)
	f.SetConfig(org, config("America/Los_Angeles", "08:00"))
	require.Equal(t, 1, f.tick(utc("2026-03-10T03:00:00Z")).Enqueued) // 2026-03-09 20:00 in Los Angeles
	require.Equal(t, []string{
		row("2026-03-09", "America/Los_Angeles", "2026-03-10T03:00:00Z"),
		row("2026-03-10", "Asia/Kolkata", "2026-03-10T02:30:00Z"),
	}, f.Briefings(org))
}

func TestCandidates(t *testing.T) {
	f := setup(t)
	now := utc("2026-03-10T12:00:00Z")
	inherit := f.Org("inherit", config("Etc/UTC", "08:00"))
	off := f.Org("off", config("Etc/UTC", "08:00"))
	on := f.Org("on", config("Etc/UTC", "08:00"))
	f.Org("unconfigured", "")
	other := f.Org("other-module", "")
	_, err := f.DB.Exec(f.Ctx, `INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'inventory', '{}')`, other)
	require.NoError(t, err)
	f.OrgFlag(off, false)
	f.OrgFlag(on, true)
	// Briefings on both sides of the ±1 day window and inside it; and a
	// "generate now" look, which does not consume the day's scheduled run.
	for _, d := range []string{"2026-03-08", "2026-03-09", "2026-03-10", "2026-03-11", "2026-03-12"} {
		f.Briefing(inherit, d, "Etc/UTC", true, now)
	}
	f.Briefing(on, "2026-03-10", "Etc/UTC", false, now)

	cands, err := candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	slices.SortFunc(cands, func(a, b Candidate) int { return int(a.OrgID - b.OrgID) })
	require.Len(t, cands, 2) // one row per org despite three briefings in the window
	require.Equal(t, inherit, cands[0].OrgID)
	require.Equal(t, []schedule.Date{date("2026-03-09"), date("2026-03-10"), date("2026-03-11")}, sorted(cands[0].Dates))
	require.Equal(t, `"Etc/UTC"`, string(cands[0].Config.Members.Timezone)) // the usual shape: members as columns
	require.Equal(t, `"08:00"`, string(cands[0].Config.Members.ScheduleLocalTime))
	require.Nil(t, cands[0].Config.Doc)
	require.Equal(t, on, cands[1].OrgID)
	require.Empty(t, cands[1].Dates)

	f.GlobalFlag(false) // the kill switch beats an org's "on"
	cands, err = candidates(f.Ctx, f.DB, now)
	require.NoError(t, err)
	require.Empty(t, cands)
}

func sorted(ds []schedule.Date) []schedule.Date {
	return slices.SortedFunc(slices.Values(ds), func(a, b schedule.Date) int { return a.Time().Compare(b.Time()) })
}

// TestTickLockHeldElsewhere: a replica that finds the tick lock taken logs
// and returns an empty result.
func TestTickLockHeldElsewhere(t *testing.T) {
	f := setup(t)
	f.Org("acme", config("Etc/UTC", "00:00"))
	conn, err := f.DB.Acquire(f.Ctx)
	require.NoError(t, err)
	defer conn.Release()
	err = tickLock.Lock(f.Ctx, conn)
	require.NoError(t, err)

	res := f.tick(utc("2026-03-10T12:00:00Z"))
	require.False(t, res.Ran)
	require.Zero(t, res.Candidates)

	err = tickLock.Unlock(f.Ctx, conn)
	require.NoError(t, err)
	res = f.tick(utc("2026-03-10T12:00:00Z"))
	require.True(t, res.Ran)
	require.Equal(t, 1, res.Enqueued)
}

// TestTickEnqueuesInChunks: more due orgs than one statement takes.
func TestTickEnqueuesInChunks(t *testing.T) {
	f := setup(t)
	const orgs = 2*enqueueChunk + 1
	_, err := f.DB.Exec(f.Ctx, `
		WITH o AS (INSERT INTO orgs (slug, name) SELECT 'org-' || g, 'Org' FROM generate_series(1, $1::int) g RETURNING id)
		INSERT INTO org_module_configs (org_id, module, config_json) SELECT id, 'fieldforce', $2 FROM o`,
		orgs, config("Asia/Kathmandu", "06:00"))
	require.NoError(t, err)
	now := utc("2026-03-10T00:15:00Z") // 06:00 in Kathmandu
	res := f.tick(now)
	require.Equal(t, orgs, res.Due)
	require.Equal(t, orgs, res.Enqueued)
	require.Len(t, res.BriefingIDs, orgs)
	require.Equal(t, orgs, f.Count(`SELECT count(*) FROM ff_briefings b JOIN river_job j ON (j.args->>'briefing_id')::bigint = b.id
		WHERE b.briefing_date = '2026-03-10' AND b.timezone = 'Asia/Kathmandu' AND b.fired_at = $1 AND b.scheduled_at = $1
		  AND (j.args->>'org_id')::bigint = b.org_id AND (j.args->>'revision')::int = 1 AND (j.args->>'deliver')::bool
		  AND j.kind = 'generate_briefing' AND j.state = 'available'`, now))
	require.Zero(t, f.tick(now.Add(time.Minute)).Enqueued)
}

// TestTickWaitsForAnOrgsJobWrite: a job write in progress holds its org's
// firing lock (shared), so that org's firing is recorded only once the
// write has committed (docs/worker.md, "Updates after sending");
// the other due orgs of the chunk fire meanwhile.
func TestTickWaitsForAnOrgsJobWrite(t *testing.T) {
	f := setup(t)
	busy := f.Org("busy", config("Etc/UTC", "06:00"))
	free := f.Org("free", config("Etc/UTC", "06:00"))
	write, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer write.Rollback(f.Ctx) //nolint:errcheck // committed below
	require.NoError(t, updates.HoldFirings(f.Ctx, write, busy))
	var pid int32
	require.NoError(t, write.QueryRow(f.Ctx, `SELECT pg_backend_pid()`).Scan(&pid))

	now := utc("2026-03-10T06:00:00Z")
	done := make(chan Result, 1)
	go func() {
		res, _ := f.ticker().Tick(f.Ctx, now)
		done <- res
	}()
	require.Eventually(t, func() bool {
		return f.Count(`SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, pid) > 0
	}, testutil.Settle, 10*time.Millisecond, "the tick waits for the write")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1 AND scheduled_at = $2`, free, now),
		"the other org fired without waiting")
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1`, busy))

	require.NoError(t, write.Commit(f.Ctx))
	res := <-done
	require.Equal(t, 2, res.Enqueued)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1 AND scheduled_at = $2`, busy, now))
}

// A job write that never ends (a connection left idle in its transaction)
// fails the tick after the Ticker's firingLockWait instead of holding every
// later tick back; the org stays due and fires at the next tick once the
// write ends.
func TestTickGivesUpOnAStuckJobWrite(t *testing.T) {
	f := setup(t)
	busy := f.Org("busy", config("Etc/UTC", "06:00"))
	free := f.Org("free", config("Etc/UTC", "06:00"))
	write, err := f.DB.Begin(f.Ctx)
	require.NoError(t, err)
	defer write.Rollback(f.Ctx) //nolint:errcheck // rolled back below
	require.NoError(t, updates.HoldFirings(f.Ctx, write, busy))

	now := utc("2026-03-10T06:00:00Z")
	tk := f.ticker()
	tk.firingLockWait = 200 * time.Millisecond
	_, err = tk.Tick(f.Ctx, now)
	require.Error(t, err, "the tick gives up on the stuck write")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1 AND scheduled_at = $2`, free, now))
	require.Zero(t, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1`, busy))

	require.NoError(t, write.Rollback(f.Ctx))
	next := now.Add(time.Minute)
	res, err := f.ticker().Tick(f.Ctx, next)
	require.NoError(t, err)
	require.Equal(t, 1, res.Enqueued, "the busy org fires at the next tick")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM ff_briefings WHERE org_id = $1 AND scheduled_at = $2`, busy, next))
}
