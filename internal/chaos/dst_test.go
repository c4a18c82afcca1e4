package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/tick"
)

// simTimes are the schedule times of the simulation: midnight (missing on
// the days some zones spring forward at 00:00), two times inside the usual
// gap and overlap, and the last minute of the day.
var simTimes = []string{"00:00", "01:30", "02:30", "23:59"}

// simWindow is a stretch of minutes the replicas tick through.
type simWindow struct {
	name     string
	from, to time.Time // ticks at every minute from from to to, inclusive
}

// shortZones is the short version's selection: zones that change at 01:00
// UTC (Europe), at 02:00 local (North America), at midnight (Havana,
// Santiago, Asuncion), by 30 minutes (Lord Howe), at odd offsets
// (Chatham, Kathmandu), on the far sides of the date line, and no DST.
var shortZones = []string{
	"America/Asuncion", "America/Havana", "America/New_York", "America/Santiago", "America/St_Johns",
	"Asia/Kathmandu", "Asia/Kolkata", "Australia/Lord_Howe", "Australia/Sydney", "Europe/Berlin",
	"Europe/London", "Pacific/Auckland", "Pacific/Chatham", "Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC",
}

// simFiring is one scheduled firing: an org's local date and the tick that
// fired it.
type simFiring struct {
	org     int64
	date    string
	firedAt time.Time
	// gap: the scheduled time did not exist that day (the clock jumped
	// over it); overlap: the wall clock read the firing's minute twice.
	gap, overlap bool
}

// expectFirings computes, without the code under test, what the time
// semantics (docs/decisions/0002-dst-resolution.md, docs/guarantees.md) say the ticks of w fire for an
// org in zone at local time hhmm: walking the tick instants in order, an
// org fires at the first tick whose local date has no firing yet and whose
// local wall clock reads hhmm or later. That is the first valid minute
// after a time lost in a spring-forward gap, the first occurrence of a time
// repeated by a fall-back, and one firing per local date. The first tick
// also fires its local date's time when the wall clock read it before the
// window began (a late firing).
func expectFirings(org int64, loc *time.Location, hhmm string, w simWindow) []simFiring {
	at, err := time.Parse("15:04", hhmm)
	if err != nil {
		panic(err)
	}
	minute := at.Hour()*60 + at.Minute()
	// The window's first tick comes after no other: it also fires, late,
	// its local date's time if the wall clock read it in the day before
	// the window, though it may read an earlier time again at the first
	// tick (a fall-back right before the window: Europe/Chisinau's 02:30
	// of 2026-10-25 first came at 23:30 UTC the day before, and 00:00 UTC
	// reads 02:00 again).
	//
	// Each minute reads the local date and clock as numbers (dayAndMinute):
	// formatting them was most of the walk's time, and the walk runs for
	// every org over every minute of the window.
	first, _ := dayAndMinute(w.from.In(loc))
	late := false
	for t := w.from.Add(-24 * time.Hour); t.Before(w.from) && !late; t = t.Add(time.Minute) {
		day, m := dayAndMinute(t.In(loc))
		late = day == first && m >= minute
	}
	var out []simFiring
	fired := map[int]bool{}
	for t := w.from; !t.After(w.to); t = t.Add(time.Minute) {
		local := t.In(loc)
		day, m := dayAndMinute(local)
		if !fired[day] && (m >= minute || late && t.Equal(w.from)) {
			fired[day] = true
			d := local.Format(time.DateOnly)
			f := simFiring{org: org, date: d, firedAt: t}
			prev := t.Add(-time.Minute).In(loc)
			f.gap = prev.Format(time.DateOnly) == d && prev.Hour()*60+prev.Minute() < minute &&
				local.Hour()*60+local.Minute() > minute && local.Sub(prev) == time.Minute &&
				local.Hour()*60+local.Minute()-(prev.Hour()*60+prev.Minute()) > 1
			for k := 1; k <= 180 && !f.overlap; k++ {
				later := t.Add(time.Duration(k) * time.Minute).In(loc)
				f.overlap = later.Format("2006-01-02 15:04") == local.Format("2006-01-02 15:04")
			}
			out = append(out, f)
		}
	}
	return out
}

// dayAndMinute is local's date as yyyymmdd and its wall clock's minute of
// the day.
func dayAndMinute(local time.Time) (day, minute int) {
	y, mo, d := local.Date()
	h, mi, _ := local.Clock()
	return y*10000 + int(mo)*100 + d, h*60 + mi
}

// lockBlindPool is a pool on db's database whose sessions find the tick's
// advisory lock always free, as a replica that lost its lock connection
// mid-tick would believe: their search_path puts functions of the same name
// that always succeed before pg_catalog's. The tables are the same.
func lockBlindPool(t *testing.T, db *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	ctx := t.Context()
	_, err := db.Exec(ctx, `
		CREATE SCHEMA lock_blind;
		CREATE FUNCTION lock_blind.pg_try_advisory_lock(bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true';
		CREATE FUNCTION lock_blind.pg_advisory_lock(bigint) RETURNS void LANGUAGE sql AS '';
		CREATE FUNCTION lock_blind.pg_advisory_unlock(bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true';`)
	require.NoError(t, err)
	cfg := db.Config().Copy()
	cfg.ConnConfig.RuntimeParams["search_path"] = "lock_blind, pg_catalog, public"
	blind, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(blind.Close)
	return blind
}

// TestDSTSimulation has 5 replicas tick every minute of 8 days around DST
// changes, with a fake clock, over one org per canonical zone and schedule
// time. The briefings recorded (org, local date, tick that fired it) must
// be exactly those computed independently by expectFirings: none missing,
// none extra, none at another minute, one generation task each. One replica
// is blind to the tick lock (lockBlindPool), so the unique key alone has to
// stop duplicates.
//
// Short: 16 zones over three stretches of 12 to 18 hours. CHAOS=full: every
// canonical zone over two 8-day stretches (CHAOS_DST_WINDOWS=1: the first).
func TestDSTSimulation(t *testing.T) {
	sideBySide(t)
	zones := shortZones
	windows := []simWindow{
		// North America springs forward (Mar 8, 02:00 local; Havana at 00:00).
		{"us-spring", utcTime("2026-03-08T00:00:00Z"), utcTime("2026-03-08T12:00:00Z")},
		// Europe springs forward (Mar 29, 01:00 UTC).
		{"eu-spring", utcTime("2026-03-28T20:00:00Z"), utcTime("2026-03-29T08:00:00Z")},
		// Sydney, Lord Howe (by 30 min), Auckland, Chatham and Santiago
		// fall back (Apr 5 local).
		{"south-fall", utcTime("2026-04-04T12:00:00Z"), utcTime("2026-04-05T06:00:00Z")},
	}
	if full() {
		zones = nil
		for _, z := range schedule.Zones() {
			zones = append(zones, z.Name)
		}
		windows = []simWindow{
			// Europe springs forward (Mar 29), the south falls back (Apr 5).
			{"eu-spring+south-fall", utcTime("2026-03-28T00:00:00Z"), utcTime("2026-04-05T00:00:00Z")},
			// Europe (Oct 25) and North America (Nov 1) fall back.
			{"eu+us-fall", utcTime("2026-10-25T00:00:00Z"), utcTime("2026-11-02T00:00:00Z")},
		}
	}
	if n := envInt("CHAOS_DST_WINDOWS", len(windows)); n < len(windows) {
		windows = windows[:n]
	}
	const replicas = 5
	start := time.Now()
	// The windows run at the same time, each on a database of its own:
	// goroutines, not t.Parallel, which go test's -parallel would cap.
	var windowsRun sync.WaitGroup
	defer func() {
		windowsRun.Wait()
		figures(t, "windows at the same time: %d, in %v", len(windows), time.Since(start).Round(time.Second))
	}()
	for _, w := range windows {
		windowsRun.Go(func() {
			t.Run(w.name, func(t *testing.T) {
				ctx := context.Background()
				began := time.Now()
				db, err := pgxpool.New(ctx, testdb.URLOn(t, serverURL(t, "dst")))
				require.NoError(t, err)
				t.Cleanup(db.Close)

				// One org per zone and time, in two statements; the
				// expected firings alongside.
				setUp := time.Now()
				dbTook := setUp.Sub(began)
				var slugs, cfgs []string
				for i, zone := range zones {
					for j, at := range simTimes {
						cfg, _ := json.Marshal(map[string]any{"briefing": map[string]any{"timezone": zone, "schedule_local_time": at}})
						slugs, cfgs = append(slugs, fmt.Sprintf("sim-%d-%d", i, j)), append(cfgs, string(cfg))
					}
				}
				rows, err := db.Query(ctx, `INSERT INTO orgs (slug, name) SELECT s, s FROM unnest($1::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n RETURNING id, slug`, slugs)
				require.NoError(t, err)
				idOf := map[string]int64{}
				var id int64
				var slug string
				_, err = pgx.ForEachRow(rows, []any{&id, &slug}, func() error { idOf[slug] = id; return nil })
				require.NoError(t, err)
				require.Len(t, idOf, len(slugs))
				orgIDs := make([]int64, len(slugs))
				for k, s := range slugs {
					orgIDs[k] = idOf[s]
				}
				_, err = db.Exec(ctx, `INSERT INTO org_module_configs (org_id, module, config_json)
				                       SELECT o, 'fieldforce', c::jsonb FROM unnest($1::bigint[], $2::text[]) AS u(o, c)`, orgIDs, cfgs)
				require.NoError(t, err)
				var want []simFiring
				for i, zone := range zones {
					loc, err := time.LoadLocation(zone)
					require.NoError(t, err, zone)
					for j, at := range simTimes {
						want = append(want, expectFirings(orgIDs[i*len(simTimes)+j], loc, at, w)...)
					}
				}
				setUpTook := time.Since(setUp)

				tickers := make([]*tick.Ticker, replicas)
				for i := range tickers {
					tickers[i] = &tick.Ticker{DB: db, Log: slog.New(slog.DiscardHandler)}
				}
				tickers[0].DB = lockBlindPool(t, db)
				start := time.Now()
				var ticks, ran, enqueued int
				for now := w.from; !now.After(w.to); now = now.Add(time.Minute) {
					results := make([]tick.Result, replicas)
					errs := make([]error, replicas)
					var wg sync.WaitGroup
					for i, tk := range tickers {
						wg.Go(func() { results[i], errs[i] = tk.Tick(ctx, now) })
					}
					wg.Wait()
					for i := range results {
						require.NoError(t, errs[i], "replica %d at %v", i, now)
						ticks++
						if results[i].Ran {
							ran++
						}
						enqueued += results[i].Enqueued
					}
				}
				elapsed := time.Since(start)

				rows, err = db.Query(ctx, `SELECT org_id, briefing_date::text, fired_at FROM ff_briefings`)
				require.NoError(t, err)
				got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (simFiring, error) {
					var f simFiring
					err := r.Scan(&f.org, &f.date, &f.firedAt)
					f.firedAt = f.firedAt.UTC()
					return f, err
				})
				require.NoError(t, err)
				key := func(f simFiring) string { return fmt.Sprintf("%d %s", f.org, f.date) }
				wantBy := map[string]simFiring{}
				for _, f := range want {
					wantBy[key(f)] = f
				}
				gotBy := map[string]int{}
				var extra, wrongMinute []string
				for _, f := range got {
					gotBy[key(f)]++
					w, ok := wantBy[key(f)]
					switch {
					case !ok:
						extra = append(extra, fmt.Sprintf("%s fired %v", key(f), f.firedAt))
					case !w.firedAt.Equal(f.firedAt):
						wrongMinute = append(wrongMinute, fmt.Sprintf("%s fired %v, want %v", key(f), f.firedAt, w.firedAt))
					}
				}
				var missing []string
				dup := 0
				for k, f := range wantBy {
					if gotBy[k] == 0 {
						missing = append(missing, fmt.Sprintf("%s due %v", k, f.firedAt))
					}
				}
				for _, n := range gotBy {
					dup += max(0, n-1)
				}
				var genJobs, revisionsAsked int
				require.NoError(t, db.QueryRow(ctx, `SELECT (SELECT count(*) FROM river_job WHERE kind = 'generate_briefing'),
			                                            (SELECT coalesce(sum(requested_revision), 0) FROM ff_briefings)`).
					Scan(&genJobs, &revisionsAsked))

				// How many expected firings the DST changes moved or doubled.
				gaps, overlaps := 0, 0
				for _, f := range want {
					if f.gap {
						gaps++
					}
					if f.overlap {
						overlaps++
					}
				}

				slices.Sort(missing)
				slices.Sort(extra)
				slices.Sort(wrongMinute)
				figures(t, "%d replicas × %d minutes (%s → %s) over %d orgs (%d zones × %d times) in %v (before it: database %v, orgs and expected firings %v): ticks=%d ran=%d; "+
					"briefings=%d expected=%d (moved by a gap %d, in an overlap %d) missing=%d extra=%d wrong_minute=%d duplicates=%d generation_jobs=%d",
					replicas, int(w.to.Sub(w.from)/time.Minute)+1, w.from.Format(time.DateOnly), w.to.Format(time.DateOnly),
					len(zones)*len(simTimes), len(zones), len(simTimes), elapsed.Round(time.Millisecond),
					dbTook.Round(time.Millisecond), setUpTook.Round(time.Millisecond), ticks, ran,
					len(got), len(want), gaps, overlaps, len(missing), len(extra), len(wrongMinute), dup, genJobs)
				require.Empty(t, missing, "briefings the time semantics call for, not fired")
				require.Empty(t, extra, "briefings fired the time semantics do not call for")
				require.Empty(t, wrongMinute, "briefings fired at another minute")
				require.Zero(t, dup)
				require.Equal(t, len(want), enqueued, "scheduled firings recorded by the ticks")
				require.Equal(t, len(want), genJobs, "one generation job per briefing")
				require.Equal(t, len(want), revisionsAsked, "one requested revision per briefing")
			})
		})
	}
}

func utcTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
