// Package demo seeds a database with three orgs in different time zones,
// their people and a few days of field work, so a fresh `make run` shows a
// living app. Seeding is idempotent: orgs are keyed by slug, users by email,
// and an org gets technicians and jobs only while it has none, so running it
// again changes nothing (and never undoes what someone did in the UI). Data
// added by later releases (technicians' emails, the delivery config) is
// filled in for orgs seeded before, where nobody has set it.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/apperr"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/database"
	"fieldbrief/internal/field"
	"fieldbrief/internal/schedule"
	"fieldbrief/internal/tenants"
)

// Summary says what the demo database holds after seeding.
type Summary struct {
	Orgs     []OrgSummary
	Users    []UserSummary
	Password string // every demo user's password
}

// OrgSummary is one demo org as it stands after seeding.
type OrgSummary struct {
	Slug, Name  string
	Timezone    string
	Schedule    string // e.g. "07:30 mon,tue,wed,thu,fri" or "07:00 every day"
	Technicians int    // in the database, seeded or not
	Jobs        int
	Created     bool // this run created the org
	JobsSeeded  bool // this run added its technicians and jobs
}

// UserSummary is one demo sign-in.
type UserSummary struct {
	Email   string
	Staff   bool
	Roles   []string // "admin of northwind"
	Created bool
}

// Seed creates whatever part of the demo data is missing, in users.DB; new
// people's passwords are hashed at users' cost. now anchors the jobs:
// yesterday, today and tomorrow are each org's local days around now.
func Seed(ctx context.Context, users *accounts.Store, now time.Time) (Summary, error) {
	store := &tenants.Store{DB: users.DB}
	sum := Summary{Password: Password}
	// The global switch is left alone: the migration ships it on, and a
	// re-seed (every `make run`) must not undo staff switching it off.
	ids := map[string]int64{}
	for _, spec := range demoOrgs {
		so, err := seedOrg(ctx, store, spec, now)
		if err != nil {
			return sum, fmt.Errorf("seed org %s: %w", spec.slug, err)
		}
		sum.Orgs = append(sum.Orgs, so.OrgSummary)
		ids[spec.slug] = so.id
	}
	for _, p := range people() {
		us, err := seedPerson(ctx, store, users, p, ids)
		if err != nil {
			return sum, fmt.Errorf("seed user %s: %w", p.email, err)
		}
		sum.Users = append(sum.Users, us)
	}
	return sum, nil
}

type seededOrg struct {
	OrgSummary
	id int64
}

func seedOrg(ctx context.Context, store *tenants.Store, spec orgSpec, now time.Time) (seededOrg, error) {
	zone, err := schedule.LoadZone(spec.zone) // the rules the worker decides with
	if err != nil {
		return seededOrg{}, fmt.Errorf("zone: %w", err)
	}
	loc := zone.Loc
	org, created, err := ensureOrg(ctx, store, spec.slug, spec.name)
	if err != nil {
		return seededOrg{}, err
	}
	s := seededOrg{id: org.ID, OrgSummary: OrgSummary{Slug: org.Slug, Name: org.Name, Timezone: spec.zone,
		Created: created}}

	// The config is written once, so an admin's later edits survive a
	// re-seed; an org seeded before delivery existed gets it added, as long
	// as only the seeder has written its config.
	cfg, err := store.Fieldforce(ctx, org.ID)
	if err != nil {
		return s, err
	}
	addDelivery := false
	if cfg.Found && cfg.Err == nil && cfg.Config.Delivery == nil {
		if addDelivery, err = onlySeeded(ctx, store, org.ID); err != nil {
			return s, err
		}
	}
	if !cfg.Found || addDelivery {
		if _, err := store.SaveFieldforce(ctx, audit.System, org.ID, configJSON(spec), tenants.AnyVersion); err != nil {
			return s, err
		}
		if cfg, err = store.Fieldforce(ctx, org.ID); err != nil {
			return s, err
		}
	}
	if created && spec.locale != "" {
		// Only a new org: a re-seed keeps an admin's choice.
		if _, err := store.SetLocale(ctx, audit.System, org.ID, spec.locale); err != nil {
			return s, err
		}
	}
	if created {
		if cfg.Err != nil {
			return s, fmt.Errorf("demo history: %w", cfg.Err)
		}
		if err := seedHistory(ctx, store.DB, org.ID, cfg.Schedule, now); err != nil {
			return s, err
		}
	}
	s.Timezone = cfg.Config.Briefing.Timezone
	days := strings.Join(cfg.Config.Briefing.Days, ",")
	if d := cfg.Config.Briefing.Days; d == nil || len(d) == 7 { // absent means every day
		days = "every day"
	}
	s.Schedule = cfg.Config.Briefing.ScheduleLocalTime + " " + days

	err = database.BeginFunc(ctx, store.DB, func(tx pgx.Tx) error {
		// Lock the org row: two seeders at once must not both find "no jobs".
		if _, err := tx.Exec(ctx, `SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE`, org.ID); err != nil {
			return fmt.Errorf("lock org: %w", err)
		}
		_, jobs, err := field.Counts(ctx, tx, org.ID)
		if err != nil {
			return err
		}
		if jobs > 0 {
			return nil
		}
		techs, err := ensureTechnicians(ctx, tx, org.ID, spec.techs)
		if err != nil {
			return err
		}
		s.JobsSeeded = true
		return insertJobs(ctx, tx, org.ID, techs, plan(spec, loc, now))
	})
	if err != nil {
		return s, err
	}
	if err := fillTechnicianEmails(ctx, store, org.ID, spec.techs); err != nil {
		return s, err
	}
	s.Technicians, s.Jobs, err = field.Counts(ctx, store.DB, org.ID)
	return s, err
}

// ensureOrg finds the org by slug or creates it; a concurrent creator wins
// the race harmlessly.
func ensureOrg(ctx context.Context, store *tenants.Store, slug, name string) (tenants.Org, bool, error) {
	org, err := store.OrgBySlug(ctx, slug)
	if apperr.Code(err) != apperr.NotFound {
		return org, false, err
	}
	org, err = store.CreateOrg(ctx, slug, name, time.Time{})
	if apperr.Code(err) == apperr.Conflict {
		org, err = store.OrgBySlug(ctx, slug)
		return org, false, err
	}
	return org, err == nil, err
}

// configJSON is the demo org's config: its schedule, and the briefing
// mailed to its dispatcher and to each technician.
func configJSON(spec orgSpec) []byte {
	enabled := true
	raw, err := json.Marshal(schedule.Config{
		Briefing: schedule.BriefingConfig{Timezone: spec.zone, ScheduleLocalTime: spec.at, Days: spec.days, Enabled: &enabled},
		Delivery: &schedule.DeliveryConfig{Email: &schedule.EmailDelivery{To: []string{spec.dispatch}, Technicians: true}},
	})
	if err != nil {
		panic(err) // unreachable: strings, string slices and bools always encode
	}
	return raw
}

// onlySeeded reports whether every write of the org's config was the
// seeder's (the system actor), so no admin's choice would be overwritten.
func onlySeeded(ctx context.Context, store *tenants.Store, orgID int64) (bool, error) {
	var byOthers bool
	err := store.DB.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM audit_log
		               WHERE org_id = $1 AND action = 'fieldforce.config.update'
		                 AND (actor_id IS NOT NULL OR actor_email <> $2))`, orgID, audit.System.Email).Scan(&byOthers)
	if err != nil {
		return false, fmt.Errorf("who wrote the config: %w", err)
	}
	return !byOthers, nil
}

// fillTechnicianEmails gives the demo technicians their addresses, also
// those seeded before technicians had one; an address someone set is kept.
// updated_at moves with it, so the API's feed lists the change (docs/api.md,
// "Reading what changed").
func fillTechnicianEmails(ctx context.Context, store *tenants.Store, orgID int64, crew []technician) error {
	for _, t := range crew {
		if err := field.FillEmail(ctx, store.DB, orgID, t.name, t.email); err != nil {
			return err
		}
	}
	return nil
}

// ensureTechnicians returns the ids of the org's active technicians, adding
// the demo crew first when it has none.
func ensureTechnicians(ctx context.Context, tx pgx.Tx, orgID int64, crew []technician) ([]int64, error) {
	ids, err := activeTechnicians(ctx, tx, orgID, crew)
	if err != nil || len(ids) > 0 {
		return ids, err
	}
	in := make([]field.TechnicianInput, len(crew))
	for i, t := range crew {
		in[i] = field.TechnicianInput{Name: t.name, Phone: t.phone, Email: t.email, Language: t.language}
	}
	if err := field.SeedTechnicians(ctx, tx, orgID, in); err != nil {
		return nil, err
	}
	return activeTechnicians(ctx, tx, orgID, crew)
}

// activeTechnicians lists the org's active technicians in the crew's order
// (others after them, oldest first), so the demo's jobs go to the same
// people on every seed: ids carry no order (docs/security.md, "Ids and
// ETags").
func activeTechnicians(ctx context.Context, tx pgx.Tx, orgID int64, crew []technician) ([]int64, error) {
	names := make([]string, len(crew))
	for i, t := range crew {
		names[i] = t.name
	}
	return field.ActiveTechnicianIDs(ctx, tx, orgID, names)
}

func insertJobs(ctx context.Context, tx pgx.Tx, orgID int64, techs []int64, jobs []job) error {
	out := make([]field.Job, len(jobs))
	for i, j := range jobs {
		out[i] = field.Job{Customer: j.customer.name, Address: j.customer.address, ArrivalStart: j.start, ArrivalEnd: j.end,
			Status: j.status, Notes: j.notes, CompletedAt: j.completedAt, JobType: j.kind, CustomerPhone: j.phone, Emergency: j.emergency}
		if j.tech >= 0 {
			out[i].TechnicianID = techs[j.tech%len(techs)]
		}
	}
	return field.SeedJobs(ctx, tx, orgID, out)
}

// seedPerson creates the user when missing (an existing user keeps their
// password) and adds the memberships they lack (existing roles are kept).
func seedPerson(ctx context.Context, store *tenants.Store, users *accounts.Store, p person, orgIDs map[string]int64) (UserSummary, error) {
	us := UserSummary{Email: p.email, Staff: p.staff}
	u, err := users.UserByEmail(ctx, p.email)
	switch {
	case err == nil:
		us.Staff = u.IsStaff
	case apperr.Code(err) == apperr.NotFound:
		if u, err = users.UpsertUser(ctx, p.email, Password, p.staff); err != nil {
			return us, err
		}
		us.Created = true
	default:
		return us, err
	}
	id := u.ID
	have, err := store.Memberships(ctx, id)
	if err != nil {
		return us, err
	}
	roles := map[string]tenants.Role{}
	for _, m := range have {
		roles[m.Org.Slug] = m.Role
	}
	for _, m := range p.roles {
		if _, ok := roles[m.slug]; !ok {
			if err := store.AddMember(ctx, orgIDs[m.slug], id, tenants.Role(m.role)); err != nil {
				return us, err
			}
			roles[m.slug] = tenants.Role(m.role)
		}
		us.Roles = append(us.Roles, fmt.Sprintf("%s of %s", roles[m.slug], m.slug))
	}
	return us, nil
}
