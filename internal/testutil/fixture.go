// Package testutil holds what the tests of several packages share: a
// migrated database per test with factories for the rows the briefing
// pipeline reads (tick, snapshot, dispatch, briefing, worker), and the
// worker binary built once per test process.
package testutil

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/database"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/testdb"
)

// Fixture is a test's own migrated database plus factories for the rows the
// pipeline reads.
type Fixture struct {
	T   *testing.T
	Ctx context.Context
	DB  *pgxpool.Pool
}

// Setup marks the test parallel and gives it its own database.
func Setup(t *testing.T) *Fixture {
	t.Helper()
	t.Parallel()
	return &Fixture{T: t, Ctx: t.Context(), DB: testdb.New(t)}
}

// Config is a fieldforce module config document; days nil means every day.
func Config(zone, at string, days ...string) string {
	b := map[string]any{"timezone": zone, "schedule_local_time": at}
	if days != nil {
		b["days"] = days
	}
	doc, _ := json.Marshal(map[string]any{"briefing": b})
	return string(doc)
}

// Org creates an org and, unless cfg is "", its fieldforce config.
func (f *Fixture) Org(slug, cfg string) int64 {
	f.T.Helper()
	var id int64
	require.NoError(f.T, f.DB.QueryRow(f.Ctx, `INSERT INTO orgs (slug, name) VALUES ($1, $1) RETURNING id`, slug).Scan(&id))
	if cfg != "" {
		f.SetConfig(id, cfg)
	}
	return id
}

// SetConfig stores the org's fieldforce config.
func (f *Fixture) SetConfig(orgID int64, cfg string) {
	f.T.Helper()
	_, err := f.DB.Exec(f.Ctx, `
		INSERT INTO org_module_configs (org_id, module, config_json) VALUES ($1, 'fieldforce', $2)
		ON CONFLICT (org_id, module) DO UPDATE SET config_json = excluded.config_json`, orgID, cfg)
	require.NoError(f.T, err)
}

// GlobalFlag switches the briefing flag for every org.
func (f *Fixture) GlobalFlag(on bool) {
	f.T.Helper()
	_, err := f.DB.Exec(f.Ctx, `UPDATE admin_feature_flags SET is_enabled = $1 WHERE key = 'fieldforce.briefing'`, on)
	require.NoError(f.T, err)
}

// OrgFlag overrides the briefing flag for one org.
func (f *Fixture) OrgFlag(orgID int64, on bool) {
	f.T.Helper()
	_, err := f.DB.Exec(f.Ctx, `
		INSERT INTO org_feature_flags (org_id, key, is_enabled) VALUES ($1, 'fieldforce.briefing', $2)
		ON CONFLICT (org_id, key) DO UPDATE SET is_enabled = excluded.is_enabled`, orgID, on)
	require.NoError(f.T, err)
}

// Tech creates a technician.
func (f *Fixture) Tech(orgID int64, name string, active bool) int64 {
	f.T.Helper()
	var id int64
	require.NoError(f.T, f.DB.QueryRow(f.Ctx, `INSERT INTO technicians (org_id, name, active) VALUES ($1, $2, $3) RETURNING id`,
		orgID, name, active).Scan(&id))
	return id
}

// Job creates a job; techID 0 leaves it unassigned.
func (f *Fixture) Job(orgID, techID int64, customer string, start, end time.Time, status string) int64 {
	f.T.Helper()
	var tech *int64
	if techID != 0 {
		tech = &techID
	}
	var id int64
	require.NoError(f.T, f.DB.QueryRow(f.Ctx, `
		INSERT INTO jobs (org_id, technician_id, customer, address, arrival_start, arrival_end, status)
		VALUES ($1, $2, $3, $3 || ' street', $4, $5, $6) RETURNING id`,
		orgID, tech, customer, start, end, status).Scan(&id))
	return id
}

// Briefing inserts a briefing row the way the tick (scheduled) or "generate
// now" (not scheduled) would, without its task, and returns its id.
func (f *Fixture) Briefing(orgID int64, d, zone string, scheduled bool, now time.Time) int64 {
	f.T.Helper()
	var scheduledAt *time.Time
	if scheduled {
		scheduledAt = &now
	}
	var id int64
	require.NoError(f.T, f.DB.QueryRow(f.Ctx, `
		INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, scheduled_at, trigger, requested_revision)
		VALUES ($1, $2, $3, $4, $5, CASE WHEN $5::timestamptz IS NULL THEN 'manual' ELSE 'schedule' END, 1)
		RETURNING id`, orgID, Date(d).Time(), zone, now, scheduledAt).Scan(&id))
	return id
}

// Briefings lists the org's briefings, oldest first, as "date zone
// fired_at", which reads well in assertions.
func (f *Fixture) Briefings(orgID int64) []string {
	f.T.Helper()
	rows, err := f.DB.Query(f.Ctx, `SELECT briefing_date, timezone, fired_at FROM ff_briefings WHERE org_id = $1 ORDER BY briefing_date`, orgID)
	require.NoError(f.T, err)
	var out []string
	var d, firedAt time.Time
	var zone string
	_, err = pgx.ForEachRow(rows, []any{&d, &zone, &firedAt}, func() error {
		out = append(out, Row(schedule.DateOf(d).String(), zone, firedAt.UTC().Format(time.RFC3339)))
		return nil
	})
	require.NoError(f.T, err)
	return out
}

// Strings runs a query of one text column and returns its rows.
func (f *Fixture) Strings(sql string, args ...any) []string {
	f.T.Helper()
	rows, err := f.DB.Query(f.Ctx, sql, args...)
	require.NoError(f.T, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(f.T, err)
	return out
}

// Count runs a count query.
func (f *Fixture) Count(sql string, args ...any) int {
	f.T.Helper()
	return Count(f.T, f.DB, sql, args...)
}

// Count runs a count query on q.
func Count(t testing.TB, q database.Querier, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, q.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// UTC parses an RFC 3339 instant.
func UTC(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Date parses a YYYY-MM-DD date.
func Date(s string) schedule.Date {
	d, err := schedule.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Row is a line of Briefings.
func Row(d, zone, firedAt string) string {
	return strings.Join([]string{d, zone, firedAt}, " ")
}

// MustZone loads a zone with the zone rules in use.
func MustZone(name string) *time.Location {
	z, err := schedule.LoadZone(name)
	if err != nil {
		panic(err)
	}
	return z.Loc
}
