package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/demo"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/testdb"
	"fieldbrief/internal/testutil"
)

// counts are the rows seeding touches, for comparing two runs.
type counts struct {
	Orgs, Users, Memberships, Technicians, Jobs, Configs, Audit int
}

func countRows(t *testing.T, ctx context.Context, store *testutil.Stores) counts {
	t.Helper()
	var c counts
	err := store.DB.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM orgs), (SELECT count(*) FROM users), (SELECT count(*) FROM memberships),
		(SELECT count(*) FROM technicians), (SELECT count(*) FROM jobs),
		(SELECT count(*) FROM org_module_configs), (SELECT count(*) FROM audit_log)`).
		Scan(&c.Orgs, &c.Users, &c.Memberships, &c.Technicians, &c.Jobs, &c.Configs, &c.Audit)
	require.NoError(t, err)
	return c
}

func TestSeedIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

	first, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	require.Len(t, first.Orgs, 3)
	for _, o := range first.Orgs {
		require.True(t, o.Created, o.Slug)
		require.True(t, o.JobsSeeded, o.Slug)
		require.GreaterOrEqual(t, o.Technicians, 3, o.Slug)
		require.LessOrEqual(t, o.Technicians, 5, o.Slug)
	}
	before := countRows(t, ctx, store)
	require.Equal(t, 3, before.Orgs)
	require.Equal(t, 3, before.Configs)

	// A day later: nothing is added, nothing fails.
	second, err := demo.Seed(ctx, store.Accounts, now.Add(24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, before, countRows(t, ctx, store))
	for i, o := range second.Orgs {
		require.False(t, o.Created, o.Slug)
		require.False(t, o.JobsSeeded, o.Slug)
		require.Equal(t, first.Orgs[i].Jobs, o.Jobs, o.Slug)
		require.Equal(t, first.Orgs[i].Schedule, o.Schedule, o.Slug)
	}
	for _, u := range second.Users {
		require.False(t, u.Created, u.Email)
	}
}

func TestSeedPeopleAndFlag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	_, err := demo.Seed(ctx, store.Accounts, time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)

	staff, err := store.Accounts.Authenticate(ctx, demo.StaffEmail, demo.Password)
	require.NoError(t, err)
	require.True(t, staff.IsStaff)

	roles := func(email string) map[string]tenants.Role {
		u, err := store.Accounts.Authenticate(ctx, email, demo.Password)
		require.NoError(t, err, email)
		require.False(t, u.IsStaff, email)
		ms, err := store.Tenants.Memberships(ctx, u.ID)
		require.NoError(t, err)
		out := map[string]tenants.Role{}
		for _, m := range ms {
			out[m.Org.Slug] = m.Role
		}
		return out
	}
	for _, slug := range []string{"northwind", "bergmann", "kiwi-pipes"} {
		require.Equal(t, map[string]tenants.Role{slug: tenants.RoleAdmin}, roles("admin@"+slug+".test"))
	}
	require.Equal(t, map[string]tenants.Role{"northwind": tenants.RoleMember}, roles("member@northwind.test"))
	require.Len(t, roles("consultant@fieldbrief.test"), 2)

	flags, err := store.Flags.List(ctx)
	require.NoError(t, err)
	for _, f := range flags {
		if f.Key == schedule.FlagKey {
			require.True(t, f.Enabled)
		}
	}

	org, err := store.Tenants.OrgBySlug(ctx, "bergmann")
	require.NoError(t, err)
	cfg, err := store.Tenants.Fieldforce(ctx, org.ID)
	require.NoError(t, err)
	require.True(t, cfg.Found)
	require.NoError(t, cfg.Err)
	require.Equal(t, "Europe/Berlin", cfg.Config.Briefing.Timezone)
	require.Equal(t, "06:45", cfg.Config.Briefing.ScheduleLocalTime)
	require.Equal(t, []string{"mon", "tue", "wed", "thu", "fri", "sat"}, cfg.Config.Briefing.Days)

	// Each org reads its own language and clock; Maria, in New York, Spanish.
	for slug, locale := range map[string]string{"northwind": "en-US", "bergmann": "de-DE", "kiwi-pipes": "en-NZ"} {
		o, err := store.Tenants.OrgBySlug(ctx, slug)
		require.NoError(t, err)
		require.Equal(t, locale, o.Locale, slug)
	}
	var maria, jonas *string
	require.NoError(t, store.DB.QueryRow(ctx, `
		SELECT (SELECT language FROM technicians WHERE name = 'Maria Lopez'), (SELECT language FROM technicians WHERE name = 'Jonas Weber')`).
		Scan(&maria, &jonas))
	require.Equal(t, "es", *maria)
	require.Nil(t, jonas, "the org's language")

	// The orgs' own data reads as their offices write it: Bergmann's job
	// types and notes in German, Northwind's in English.
	var deKinds, enKinds []string
	require.NoError(t, store.DB.QueryRow(ctx, `
		SELECT (SELECT array_agg(DISTINCT j.job_type) FROM jobs j JOIN orgs o ON o.id = j.org_id WHERE o.slug = 'bergmann'),
		       (SELECT array_agg(DISTINCT j.job_type) FROM jobs j JOIN orgs o ON o.id = j.org_id WHERE o.slug = 'northwind')`).
		Scan(&deKinds, &enKinds))
	require.Contains(t, deKinds, "Wartung")
	require.NotContains(t, deKinds, "Maintenance")
	require.Contains(t, enKinds, "Maintenance")
	var englishNotes int
	require.NoError(t, store.DB.QueryRow(ctx, `
		SELECT count(*) FROM jobs j JOIN orgs o ON o.id = j.org_id
		WHERE o.slug = 'bergmann' AND (j.notes LIKE '%Waiting%' OR j.notes LIKE '%Customer%' OR j.notes LIKE '% the %')`).Scan(&englishNotes))
	require.Zero(t, englishNotes, "every Bergmann note is German")
}

// The jobs sit in each org's own local days, whatever the UTC date is; the
// instant chosen is late on 8 March UTC, when Auckland is already on 9 March
// and New York has just sprung forward.
func TestSeedJobsFollowLocalDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	now := time.Date(2026, 3, 8, 20, 0, 0, 0, time.UTC)
	_, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)

	for slug, zone := range map[string]string{"northwind": "America/New_York", "bergmann": "Europe/Berlin", "kiwi-pipes": "Pacific/Auckland"} {
		z, err := schedule.LoadZone(zone)
		require.NoError(t, err)
		loc := z.Loc
		org, err := store.Tenants.OrgBySlug(ctx, slug)
		require.NoError(t, err)
		rows, err := store.DB.Query(ctx, `SELECT arrival_start, arrival_end, status, technician_id IS NULL FROM jobs WHERE org_id = $1`, org.ID)
		require.NoError(t, err)
		perDay := map[string]int{}
		statuses := map[string]int{}
		var unassigned, overdue int
		today := now.In(loc).Format(time.DateOnly)
		for rows.Next() {
			var start, end time.Time
			var status string
			var noTech bool
			require.NoError(t, rows.Scan(&start, &end, &status, &noTech))
			local := start.In(loc)
			perDay[local.Format(time.DateOnly)]++
			statuses[status]++
			require.GreaterOrEqual(t, local.Hour(), 8, slug)
			require.LessOrEqual(t, end.In(loc).Hour(), 17, slug)
			if noTech {
				unassigned++
			}
			if end.In(loc).Format(time.DateOnly) < today && status != "done" && status != "cancelled" {
				overdue++
			}
		}
		require.NoError(t, rows.Err())
		for _, d := range []int{-1, 0, 1} {
			day := now.In(loc).AddDate(0, 0, d).Format(time.DateOnly)
			require.GreaterOrEqual(t, perDay[day], 6, "%s %s", slug, day)
		}
		for _, s := range []string{"scheduled", "on_hold", "done", "cancelled"} {
			require.Positive(t, statuses[s], "%s has no %s job", slug, s)
		}
		require.GreaterOrEqual(t, unassigned, 2, slug)
		require.GreaterOrEqual(t, overdue, 2, slug)
	}
}

func TestSeedGivesNewOrgsYesterdaysBriefing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	// Monday 15:00 UTC: Sunday was yesterday in New York and Berlin (their
	// schedules skip Sundays) and Monday in Auckland (every day).
	now := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	_, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)

	got := map[string]string{}
	rows, err := store.DB.Query(ctx, `
		SELECT o.slug, b.briefing_date::text || ' ' || b.status, b.fired_at
		FROM ff_briefings b JOIN orgs o ON o.id = b.org_id`)
	require.NoError(t, err)
	for rows.Next() {
		var slug, row string
		var firedAt time.Time
		require.NoError(t, rows.Scan(&slug, &row, &firedAt))
		got[slug] = row + " " + firedAt.UTC().Format("15:04")
	}
	require.NoError(t, rows.Err())
	// kiwi-pipes runs at 07:00 in Auckland (UTC+13 in March): 2026-03-09 07:00 local is 2026-03-08 18:00 UTC.
	require.Equal(t, map[string]string{"kiwi-pipes": "2026-03-09 pending 18:00"}, got)

	// Each org dates from the start of its local yesterday, so the calendar
	// shows no "missed" days before the demo began.
	var created time.Time
	require.NoError(t, store.DB.QueryRow(ctx, `SELECT created_at FROM orgs WHERE slug = 'northwind'`).Scan(&created))
	require.Equal(t, time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC), created.UTC(), "midnight of 2026-03-08 in New York (EST)")

	// Seeding again a day later adds no history to existing orgs.
	_, err = demo.Seed(ctx, store.Accounts, now.Add(24*time.Hour))
	require.NoError(t, err)
	var n int
	require.NoError(t, store.DB.QueryRow(ctx, `SELECT count(*) FROM ff_briefings`).Scan(&n))
	require.Equal(t, 1, n)
}

// The global kill switch belongs to staff: seeding (every `make run`) never
// turns it back on, and records nothing about it.
func TestSeedLeavesTheKillSwitchAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	enabled := func(store *testutil.Stores) bool {
		t.Helper()
		var on bool
		require.NoError(t, store.DB.QueryRow(ctx,
			`SELECT is_enabled FROM admin_feature_flags WHERE key = $1`, schedule.FlagKey).Scan(&on))
		return on
	}
	require.True(t, enabled(store), "the migration ships the switch on")

	_, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	require.True(t, enabled(store))

	require.NoError(t, store.Flags.SetGlobal(ctx, audit.Actor{Email: "staff@example.test"}, schedule.FlagKey, false, "incident"))
	before := countRows(t, ctx, store)
	_, err = demo.Seed(ctx, store.Accounts, now.Add(time.Hour))
	require.NoError(t, err)
	require.False(t, enabled(store), "a re-seed must not switch briefings back on")
	require.Equal(t, before, countRows(t, ctx, store), "nor write an audit entry")

	// Off before the very first seed: stays off too.
	fresh := testutil.NewStores(testdb.New(t))
	require.NoError(t, fresh.Flags.SetGlobal(ctx, audit.System, schedule.FlagKey, false, "not yet"))
	sum, err := demo.Seed(ctx, fresh.Accounts, now)
	require.NoError(t, err, "new orgs are seeded without a briefing history")
	require.Len(t, sum.Orgs, 3)
	require.False(t, enabled(fresh))
	var briefings int
	require.NoError(t, fresh.DB.QueryRow(ctx, `SELECT count(*) FROM ff_briefings`).Scan(&briefings))
	require.Zero(t, briefings)
}

// Every demo org mails its briefing to its dispatcher and each technician,
// and every demo technician has an address.
func TestSeedDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	_, err := demo.Seed(ctx, store.Accounts, time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	require.NoError(t, err)

	org, err := store.Tenants.OrgBySlug(ctx, "northwind")
	require.NoError(t, err)
	cfg, err := store.Tenants.Fieldforce(ctx, org.ID)
	require.NoError(t, err)
	require.NoError(t, cfg.Err)
	require.Equal(t, &schedule.DeliveryConfig{Email: &schedule.EmailDelivery{To: []string{"dispatch@northwind.test"}, Technicians: true}},
		cfg.Config.Delivery)
	require.Equal(t, []string{"aisha.khan@northwind.test", "james.carter@northwind.test", "maria.lopez@northwind.test", "tom.becker@northwind.test"},
		technicianEmails(t, ctx, store, org.ID))

	var missing int
	require.NoError(t, store.DB.QueryRow(ctx, `SELECT count(*) FROM technicians WHERE email = ''`).Scan(&missing))
	require.Zero(t, missing)
}

// A database seeded before delivery existed gets the emails and the
// delivery config on the next seed, except where an admin set them.
func TestSeedFillsDeliveryForOlderSeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	_, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	ids := map[string]int64{}
	for _, slug := range []string{"northwind", "bergmann", "kiwi-pipes"} {
		o, err := store.Tenants.OrgBySlug(ctx, slug)
		require.NoError(t, err)
		ids[slug] = o.ID
	}

	// As an older seed left it: no emails, configs without delivery, written by the seeder.
	_, err = store.DB.Exec(ctx, `UPDATE technicians SET email = ''`)
	require.NoError(t, err)
	_, err = store.DB.Exec(ctx, `UPDATE technicians SET email = 'maria@home.test' WHERE org_id = $1 AND name = 'Maria Lopez'`, ids["northwind"])
	require.NoError(t, err)
	for slug, id := range ids {
		cfg, err := store.Tenants.Fieldforce(ctx, id)
		require.NoError(t, err)
		cfg.Config.Delivery = nil
		_, err = store.Tenants.SaveFieldforce(ctx, audit.System, id, cfg.Config.JSON(), tenants.AnyVersion)
		require.NoError(t, err, slug)
	}
	// An admin has since edited bergmann's config (still without delivery).
	admin, err := store.Accounts.Authenticate(ctx, "admin@bergmann.test", demo.Password)
	require.NoError(t, err)
	_, err = store.Tenants.SaveFieldforce(ctx, audit.Actor{UserID: admin.ID, Email: admin.Email}, ids["bergmann"], []byte(`{"briefing":{"timezone":"Europe/Berlin","schedule_local_time":"07:15"}}`), tenants.AnyVersion)

	require.NoError(t, err)

	_, err = demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	delivery := func(slug string) *schedule.DeliveryConfig {
		cfg, err := store.Tenants.Fieldforce(ctx, ids[slug])
		require.NoError(t, err)
		return cfg.Config.Delivery
	}
	require.NotNil(t, delivery("northwind"))
	require.NotNil(t, delivery("kiwi-pipes"))
	require.Nil(t, delivery("bergmann"), "the admin's config is kept")
	require.Contains(t, technicianEmails(t, ctx, store, ids["northwind"]), "maria@home.test", "an address someone set is kept")
	require.Contains(t, technicianEmails(t, ctx, store, ids["northwind"]), "tom.becker@northwind.test")
	require.Contains(t, technicianEmails(t, ctx, store, ids["bergmann"]), "mehmet.yilmaz@bergmann.test")

	// And seeding again changes nothing more.
	before := countRows(t, ctx, store)
	_, err = demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	require.Equal(t, before, countRows(t, ctx, store))
}

func technicianEmails(t *testing.T, ctx context.Context, store *testutil.Stores, orgID int64) []string {
	t.Helper()
	rows, err := store.DB.Query(ctx, `SELECT email FROM technicians WHERE org_id = $1 ORDER BY email`, orgID)
	require.NoError(t, err)
	emails, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return emails
}

// The demo day reads like a real one: every job has a type and a customer
// phone, and today has an emergency on a technician's route and one nobody
// has taken yet.
func TestSeedHasJobTypesPhonesAndEmergencies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	_, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	for _, slug := range []string{"northwind", "bergmann", "kiwi-pipes"} {
		org, err := store.Tenants.OrgBySlug(ctx, slug)
		require.NoError(t, err)
		var untyped, noPhone, assigned, unassigned int
		require.NoError(t, store.DB.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE job_type = ''), count(*) FILTER (WHERE customer_phone = ''),
			       count(*) FILTER (WHERE emergency AND technician_id IS NOT NULL),
			       count(*) FILTER (WHERE emergency AND technician_id IS NULL)
			  FROM jobs WHERE org_id = $1`, org.ID).Scan(&untyped, &noPhone, &assigned, &unassigned))
		require.Zero(t, untyped, slug)
		require.Zero(t, noPhone, slug)
		require.Equal(t, 1, assigned, slug)
		require.Equal(t, 1, unassigned, slug)
	}
}

// The address a seed fills in is a change like any other: the technician's
// updated_at moves with it, so the API's feed (docs/api.md, "Reading what
// changed"), which lists records by updated_at, lists it. The version went
// up (the trigger's) but updated_at stayed, and a sync never saw the
// address.
func TestSeedFillingAnEmailIsAChangeTheFeedSees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testutil.NewStores(testdb.New(t))
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	_, err := demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	o, err := store.Tenants.OrgBySlug(ctx, "northwind")
	require.NoError(t, err)
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err = store.DB.Exec(ctx, `UPDATE technicians SET email = '', updated_at = $2 WHERE org_id = $1 AND name = 'Tom Becker'`, o.ID, stamp)
	require.NoError(t, err)

	_, err = demo.Seed(ctx, store.Accounts, now)
	require.NoError(t, err)
	var email string
	var updated time.Time
	require.NoError(t, store.DB.QueryRow(ctx, `SELECT email, updated_at FROM technicians WHERE org_id = $1 AND name = 'Tom Becker'`, o.ID).
		Scan(&email, &updated))
	require.Equal(t, "tom.becker@northwind.test", email)
	require.True(t, updated.After(stamp), "updated_at moved with the address: %s", updated)
}
