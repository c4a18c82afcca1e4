package web

import (
	"context"
	"html"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
)

// TestFirstSetupChecklist (docs/web.md, "First setup"): a new org's admin
// lands on the checklist, each step linked and ticked from the data as it
// is done; once all are, the org's home is its briefings again. A member
// never sees it.
func TestFirstSetupChecklist(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	admin, member := f.as(&f.adminA), f.as(&f.memberA)

	res := admin.get("/")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, "/orgs/acme", res.Header.Get("Location"))
	res = admin.get("/orgs/acme")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, "/orgs/acme/setup", res.Header.Get("Location"))
	require.Equal(t, "/orgs/acme/briefings", member.get("/orgs/acme").Header.Get("Location"))
	require.Equal(t, http.StatusForbidden, member.get("/orgs/acme/setup").Code)

	done := func() map[string]bool {
		body := admin.get("/orgs/acme/setup").Body
		out := map[string]bool{}
		for _, key := range []string{"schedule", "recipients", "technicians", "jobs", "test"} {
			i := strings.Index(body, `data-step="`+key+`"`)
			require.Positive(t, i, key)
			out[key] = strings.HasPrefix(body[i:], `data-step="`+key+`" data-done="true"`)
		}
		return out
	}
	body := admin.get("/orgs/acme/setup").Body
	for _, href := range []string{"/orgs/acme/settings/fieldforce#schedule-title", "/orgs/acme/settings/fieldforce#delivery",
		"/orgs/acme/technicians", "/orgs/acme/jobs", "/orgs/acme/import", "/orgs/acme/settings/fieldforce#test-title"} {
		require.Contains(t, body, `href="`+href+`"`)
	}
	require.Contains(t, body, "0 of 5 done")
	require.Equal(t, map[string]bool{"schedule": false, "recipients": false, "technicians": false, "jobs": false, "test": false}, done())

	_, err := f.store.Tenants.SaveFieldforce(ctx, audit.System, f.orgA.ID,
		[]byte(`{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:00"}}`), tenants.AnyVersion)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"schedule": true, "recipients": false, "technicians": false, "jobs": false, "test": false}, done())
	_, err = f.store.Tenants.SaveFieldforce(ctx, audit.System, f.orgA.ID,
		[]byte(`{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:00"},"delivery":{"email":{"technicians":true}}}`), tenants.AnyVersion)
	require.NoError(t, err)
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	f.dayJob(f.orgA.ID, ana, "Dogwood Bakery", "", "", "", "scheduled", time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC))
	require.Equal(t, map[string]bool{"schedule": true, "recipients": true, "technicians": true, "jobs": true, "test": false}, done())
	require.Equal(t, "/orgs/acme/setup", admin.get("/orgs/acme").Header.Get("Location"), "not done yet")

	var briefingID int64
	require.NoError(t, f.db.QueryRow(ctx, `INSERT INTO ff_briefings (org_id, briefing_date, timezone, fired_at, status)
		VALUES ($1, '2026-03-04', 'America/Chicago', now(), 'ready') RETURNING id`, f.orgA.ID).Scan(&briefingID))
	_, err = f.db.Exec(ctx, `INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, due_at, state)
		VALUES ($1, $2, 1, 'email', 'test', 'admin@acme.test', 'k1', now(), 'sent')`, f.orgA.ID, briefingID)
	require.NoError(t, err)
	require.Contains(t, admin.get("/orgs/acme/setup").Body, "5 of 5 done")
	require.Equal(t, "/orgs/acme/briefings", admin.get("/orgs/acme").Header.Get("Location"), "done: home is the briefings again")
}

// TestSettingsWordsLinkForAdmins: "an admin sets it in Settings" links
// Settings for an admin; a member reads the words with no link.
func TestSettingsWordsLinkForAdmins(t *testing.T) {
	t.Parallel()
	f := setup(t)
	link := `<a href="/orgs/acme/settings/fieldforce" data-settings-link>Settings</a>`
	for _, path := range []string{"/orgs/acme/briefings", "/orgs/acme/board"} {
		body := f.as(&f.adminA).get(path).Body
		require.Contains(t, body, link, path)
		body = f.as(&f.memberA).get(path).Body
		require.NotContains(t, body, "data-settings-link", path)
		require.Contains(t, body, "an admin sets it in Settings", path)
	}
}

// TestNewOrgSendsTechniciansTheirDayByDefault: a new org's settings form
// has "send each technician their own day" ticked; a saved document is
// shown as saved.
func TestNewOrgSendsTechniciansTheirDayByDefault(t *testing.T) {
	t.Parallel()
	f := setup(t)
	body := f.as(&f.adminA).get("/orgs/acme/settings/fieldforce").Body
	require.Regexp(t, `<input[^>]*id="delivery_email_technicians"[^>]*checked`, body)
	_, err := f.store.Tenants.SaveFieldforce(context.Background(), audit.System, f.orgA.ID,
		[]byte(`{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:00"},"delivery":{"email":{"to":["d@acme.test"]}}}`), tenants.AnyVersion)
	require.NoError(t, err)
	body = f.as(&f.adminA).get("/orgs/acme/settings/fieldforce").Body
	require.NotRegexp(t, `<input[^>]*id="delivery_email_technicians"[^>]*checked`, body, "an existing org's choice is kept")
}

// TestJobFormSaysWhoIsTold: a job's form says which technician a saved
// change is emailed to, and when nobody is.
func TestJobFormSaysWhoIsTold(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	_, err := f.db.Exec(ctx, `UPDATE technicians SET email = 'ana@acme.test' WHERE id = $1`, ana)
	require.NoError(t, err)
	job := f.dayJob(f.orgA.ID, ana, "Dogwood Bakery", "", "", "", "scheduled", time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC))
	nobody := f.dayJob(f.orgA.ID, 0, "Elm Clinic", "", "", "", "scheduled", time.Date(2026, 3, 4, 18, 0, 0, 0, time.UTC))
	admin := f.as(&f.adminA)
	told := func(id int64) string {
		body := admin.get("/orgs/acme/jobs/" + strconv.FormatInt(id, 10)).Body
		i := strings.Index(body, `id="told-hint" data-told>`)
		require.Positive(t, i, "the form says who is told")
		rest := body[i+len(`id="told-hint" data-told>`):]
		return html.UnescapeString(rest[:strings.Index(rest, "<")])
	}
	require.Contains(t, told(job), "Technicians are not emailed their day")
	_, err = f.store.Tenants.SaveFieldforce(ctx, audit.System, f.orgA.ID,
		[]byte(`{"briefing":{"timezone":"America/Chicago","schedule_local_time":"07:00"},"delivery":{"email":{"technicians":true}}}`), tenants.AnyVersion)
	require.NoError(t, err)
	require.Contains(t, told(job), "A saved change is emailed to Ana Ruiz once their day sheet for this date has gone out")
	require.Contains(t, told(nobody), "Unassigned: a change is emailed to nobody.")
	_, err = f.db.Exec(ctx, `UPDATE technicians SET day_sheets_stopped_at = '2026-03-04T12:00:00Z' WHERE id = $1`, ana)
	require.NoError(t, err)
	require.Contains(t, told(job), "Ana Ruiz does not receive day sheets since")
}
