package briefing

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
)

// fixture is a test's own migrated database plus factories for the rows the
// pipeline reads.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	db    *pgxpool.Pool
	store *Store // with an insert-only River client
}

func setup(t *testing.T) *fixture {
	t.Helper()
	t.Parallel()
	db := testdb.New(t)
	store, err := NewStore(db)
	require.NoError(t, err)
	return &fixture{t: t, ctx: t.Context(), db: db, store: store}
}

// config is a fieldforce module config document; days nil means every day.
func config(zone, at string, days ...string) string {
	b := map[string]any{"timezone": zone, "schedule_local_time": at}
	if days != nil {
		b["days"] = days
	}
	doc, _ := json.Marshal(map[string]any{"briefing": b})
	return string(doc)
}

// org creates an org and, unless cfg is "", its fieldforce config.
func (f *fixture) org(slug, cfg string) int64 {
	f.t.Helper()
	var id int64
	require.NoError(f.t, f.db.QueryRow(f.ctx, `INSERT INTO orgs (slug, name) VALUES ($1, $1) RETURNING id`, slug).Scan(&id))
	if cfg != "" {
		f.setConfig(id, cfg)
	}
	return id
}

func (f *fixture) setConfig(orgID int64, cfg string) {
	f.t.Helper()
	_, err := f.db.Exec(f.ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)
		ON CONFLICT (org_id, module) DO UPDATE SET config_json = excluded.config_json`, orgID, cfg)
	require.NoError(f.t, err)
}

func (f *fixture) globalFlag(on bool) {
	f.t.Helper()
	_, err := f.db.Exec(f.ctx, `UPDATE admin_feature_flags SET is_enabled = $1 WHERE key = 'fieldforce.briefing'`, on)
	require.NoError(f.t, err)
}

func (f *fixture) orgFlag(orgID int64, on bool) {
	f.t.Helper()
	_, err := f.db.Exec(f.ctx, `
		INSERT INTO org_feature_flags (org_id, key, is_enabled) VALUES ($1, 'fieldforce.briefing', $2)
		ON CONFLICT (org_id, key) DO UPDATE SET is_enabled = excluded.is_enabled`, orgID, on)
	require.NoError(f.t, err)
}

func (f *fixture) tech(orgID int64, name string, active bool) int64 {
	f.t.Helper()
	var id int64
	require.NoError(f.t, f.db.QueryRow(f.ctx, `INSERT INTO technicians (org_id, name, active) VALUES ($1, $2, $3) RETURNING id`,
		orgID, name, active).Scan(&id))
	return id
}

// job creates a job; techID 0 leaves it unassigned.
func (f *fixture) job(orgID, techID int64, customer string, start, end time.Time, status string) int64 {
	f.t.Helper()
	var tech *int64
	if techID != 0 {
		tech = &techID
	}
	var id int64
	require.NoError(f.t, f.db.QueryRow(f.ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, address, arrival_start, arrival_end, status)
		VALUES ($1, $2, $3, $3 || ' street', $4, $5, $6) RETURNING id`,
		orgID, tech, customer, start, end, status).Scan(&id))
	return id
}

func (f *fixture) ticker() *Ticker {
	return &Ticker{DB: f.db, Jobs: f.store.Jobs, Log: slog.New(slog.DiscardHandler)}
}

// worker is a real Worker on the test database; now is its clock (the
// generation timestamps), nil for the real one.
func (f *fixture) worker(now func() time.Time) *Worker {
	return &Worker{DB: f.db, Log: slog.New(slog.DiscardHandler), Now: now}
}

// runOnce is worker -once at now: one tick, then every job worked.
func (f *fixture) runOnce(now time.Time) OnceResult {
	f.t.Helper()
	res, err := f.worker(func() time.Time { return now }).RunOnce(f.ctx, now, time.Minute)
	require.NoError(f.t, err)
	return res
}

// briefing inserts a briefing row the way the tick (scheduled) or "generate
// now" (not scheduled) would, without its job, and returns its id.
func (f *fixture) briefing(orgID int64, d, zone string, scheduled bool, now time.Time) int64 {
	f.t.Helper()
	var scheduledAt *time.Time
	if scheduled {
		scheduledAt = &now
	}
	var id int64
	require.NoError(f.t, f.db.QueryRow(f.ctx, `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, requested_revision)
		VALUES ($1, $2, $3, $4, $5, CASE WHEN $5::timestamptz IS NULL THEN 'manual' ELSE 'schedule' END, 1)
		RETURNING id`, orgID, date(d).Time(), zone, now, scheduledAt).Scan(&id))
	return id
}

func (f *fixture) tick(now time.Time) TickResult {
	f.t.Helper()
	res, err := f.ticker().Tick(f.ctx, now)
	require.NoError(f.t, err)
	return res
}

// tickEvery ticks at every step from from to to inclusive, as cron would.
func (f *fixture) tickEvery(from, to time.Time, step time.Duration) (enqueued int) {
	f.t.Helper()
	tk := f.ticker()
	for now := from; !now.After(to); now = now.Add(step) {
		res, err := tk.Tick(f.ctx, now)
		require.NoError(f.t, err)
		enqueued += res.Enqueued
	}
	return enqueued
}

// row is what the tests check of a briefing: "date zone fired_at status".
func (f *fixture) briefings(orgID int64) []string {
	f.t.Helper()
	list, err := f.store.List(f.ctx, orgID, schedule.Date{}, schedule.Date{})
	require.NoError(f.t, err)
	var out []string
	for i := len(list) - 1; i >= 0; i-- { // oldest first reads better in assertions
		b := list[i]
		out = append(out, fmt.Sprintf("%s %s %s", b.Date, b.Timezone, b.FiredAt.UTC().Format(time.RFC3339)))
	}
	return out
}

func (f *fixture) count(sql string, args ...any) int {
	f.t.Helper()
	var n int
	require.NoError(f.t, f.db.QueryRow(f.ctx, sql, args...).Scan(&n))
	return n
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func date(s string) schedule.Date {
	d, err := schedule.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func row(d, zone, firedAt string) string {
	return strings.Join([]string{d, zone, firedAt}, " ")
}
