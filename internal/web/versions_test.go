package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/field"
	"fieldbrief/internal/tenants"
)

// docs/versions.md, "Forms": every form that edits a
// stored thing carries the version it was read at, and a save over a newer
// one is a 409 with what differs, nothing saved, nothing audited.

// formOf is what a browser would submit for the form matching match on
// page: its inputs (checkboxes and radios when checked), selects (the
// selected option, else the first) and textareas, by name.
func formOf(t *testing.T, page string, match func(*html.Node) bool) url.Values {
	t.Helper()
	form := parseDoc(t, page).find(func(n *html.Node) bool { return n.Data == "form" && match(n) })
	require.NotNil(t, form, "no such form in:\n%s", page)
	v := url.Values{}
	for _, in := range form.findAll(func(n *html.Node) bool { return n.Data == "input" || n.Data == "select" || n.Data == "textarea" }) {
		name, ok := hasAttr(in.n, "name")
		if !ok || name == "" {
			continue
		}
		switch in.n.Data {
		case "input":
			kind := in.attr("type")
			if kind == "checkbox" || kind == "radio" {
				if _, on := hasAttr(in.n, "checked"); !on {
					continue
				}
			}
			v.Add(name, in.attr("value"))
		case "select":
			opts := in.findAll(tagIs("option"))
			chosen := ""
			for i, o := range opts {
				if _, sel := hasAttr(o.n, "selected"); sel || i == 0 {
					chosen = o.attr("value")
				}
			}
			v.Add(name, chosen)
		case "textarea":
			text := ""
			for c := in.n.FirstChild; c != nil; c = c.NextSibling {
				text += c.Data
			}
			v.Add(name, text)
		}
	}
	return v
}

// staleRow is the notice's row of field: its stored value and the one sent.
func staleRow(t *testing.T, body, field string) (theirs, yours string) {
	t.Helper()
	notice := parseDoc(t, body).byID("stale-notice")
	require.NotNil(t, notice, "no stale notice in:\n%s", body)
	row := notice.find(attrIs("data-field", field))
	require.NotNil(t, row, "the notice does not name %s: %s", field, notice.text())
	return row.find(hasClass("stale-theirs")).text(), row.find(hasClass("stale-yours")).text()
}

func (f *fixture) orgAudits(orgID int64) int {
	f.t.Helper()
	var n int
	require.NoError(f.t, f.db.QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE org_id = $1`, orgID).Scan(&n))
	return n
}

func (f *fixture) configVersion(orgID int64) int64 {
	f.t.Helper()
	var v int64
	require.NoError(f.t, f.db.QueryRow(context.Background(),
		`SELECT version FROM org_module_configs WHERE org_id = $1 AND module = 'fieldforce'`, orgID).Scan(&v))
	return v
}

// The hostile review's case: admin A opens the settings, admin B moves the
// schedule to 08:15, A saves 07:30 from the page A opened. Refused: 409, the
// schedule stays 08:15, no audit entry, and the page names the change, keeps
// A's 07:30 in the form and offers the latest. Saving that page again is a
// knowing overwrite, and works; so does any save of the current version.
func TestStaleSettingsForm(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	a := f.as(&f.adminA)
	bUser := f.member(f.orgA, "admin2@acme.test", tenants.RoleAdmin)
	b := f.as(&bUser)
	v := f.configVersion(f.orgA.ID)

	formA := formOf(t, a.get(settingsPath).Body, attrIs("id", "schedule-form"))
	require.Equal(t, fmt.Sprint(v), formA.Get("version"), "the form carries the version it was read at")

	formB := formOf(t, b.get(settingsPath).Body, attrIs("id", "schedule-form"))
	formB.Set("schedule_local_time", "08:15")
	r := b.post(settingsPath, formB)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, v+1, f.configVersion(f.orgA.ID), "a save moves the version by one")
	saved := storedConfig(t, f, f.orgA.ID)
	require.Contains(t, saved.Raw, `"08:15"`)

	formA.Set("schedule_local_time", "07:30")
	formA.Set("delivery_email_to", "ops@acme.example")
	r = a.post(settingsPath, formA)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.Equal(t, saved, storedConfig(t, f, f.orgA.ID), "nothing saved, nothing audited")
	require.Equal(t, v+1, f.configVersion(f.orgA.ID))
	theirs, yours := staleRow(t, r.Body, "schedule_local_time")
	require.Equal(t, "8:15 AM", theirs)
	require.Equal(t, "7:30 AM", yours)
	_, yours = staleRow(t, r.Body, "delivery_email_to")
	require.Equal(t, "ops@acme.example", yours)
	doc := parseDoc(t, r.Body)
	require.Nil(t, doc.byID("stale-notice").find(attrIs("data-field", "timezone")), "an unchanged field is not listed")
	require.Equal(t, settingsPath, doc.byID("stale-reload").attr("href"))
	require.Equal(t, "07:30", doc.byID("schedule_local_time").attr("value"), "what A typed is kept")

	// The refused page carries the stored version: saving it again applies
	// A's values over B's, knowingly.
	again := formOf(t, r.Body, attrIs("id", "schedule-form"))
	require.Equal(t, fmt.Sprint(v+1), again.Get("version"))
	r = a.post(settingsPath, again)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"07:30"`)
	require.Equal(t, v+2, f.configVersion(f.orgA.ID))

	// A form without a version (a script, not our page) is last write wins.
	noVersion := scheduleForm("America/New_York", "09:00", "mon")
	r = a.post(settingsPath, noVersion)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"09:00"`)
	// A version that is no number is malformed; nothing saved.
	noVersion.Set("version", "x")
	require.Equal(t, http.StatusBadRequest, a.post(settingsPath, noVersion).Code)
}

// An org that never saved settings reads version 0; a save by someone
// else first makes that form stale too.
func TestStaleSettingsFirstSave(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.as(&f.adminA)
	formA := formOf(t, a.get(settingsPath).Body, attrIs("id", "schedule-form"))
	require.Equal(t, "", formA.Get("version"), "nothing saved yet: version 0, no field")
	formA.Set("version", "0")
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"06:00"}}`)
	before := storedConfig(t, f, f.orgA.ID)
	formA.Set("timezone", "America/Chicago")
	formA.Set("schedule_local_time", "07:00")
	r := a.post(settingsPath, formA)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID))
	theirs, yours := staleRow(t, r.Body, "timezone")
	require.Equal(t, "Europe/Paris", theirs)
	require.Equal(t, "America/Chicago", yours)
}

// The JSON editor carries the version too; its 409 keeps the typed text.
func TestStaleSettingsJSONEditor(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	a := f.as(&f.adminA)
	jsonForm := func(page string) url.Values {
		return formOf(t, page, attrIs("action", settingsPath+"/json"))
	}
	formA := jsonForm(a.get(settingsPath).Body)
	v := f.configVersion(f.orgA.ID)
	require.Equal(t, fmt.Sprint(v), formA.Get("version"))

	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:15","days":["mon","tue"]}}`)
	saved := storedConfig(t, f, f.orgA.ID)
	typed := `{"briefing":{"timezone":"America/New_York","schedule_local_time":"07:30"}}`
	formA.Set("config_json", typed)
	r := a.post(settingsPath+"/json", formA)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.Equal(t, saved, storedConfig(t, f, f.orgA.ID))
	theirs, yours := staleRow(t, r.Body, "schedule_local_time")
	require.Equal(t, "8:15 AM", theirs)
	require.Equal(t, "7:30 AM", yours)
	theirs, yours = staleRow(t, r.Body, "days")
	require.Equal(t, "Mon, Tue", theirs)
	require.Equal(t, "Mon, Tue, Wed, Thu, Fri, Sat, Sun", yours)
	require.Equal(t, typed, parseDoc(t, r.Body).byID("config_json").text(), "the typed document is kept")

	// Saved at the version the 409 page carries: applied.
	r = a.post(settingsPath+"/json", jsonForm(r.Body))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"07:30"`)
	require.Equal(t, v+2, f.configVersion(f.orgA.ID))
}

// A refused form with a validation error keeps the version it was read
// at: fixing the error does not quietly skip the check.
func TestStaleSettingsAfterInvalidSave(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"06:45"}}`)
	a := f.as(&f.adminA)
	formA := formOf(t, a.get(settingsPath).Body, attrIs("id", "schedule-form"))
	v := formA.Get("version")
	saveConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:15"}}`)
	formA.Set("schedule_local_time", "25:99")
	r := a.post(settingsPath, formA)
	require.Equal(t, http.StatusUnprocessableEntity, r.Code, r.Body)
	again := formOf(t, r.Body, attrIs("id", "schedule-form"))
	require.Equal(t, v, again.Get("version"))
	again.Set("schedule_local_time", "07:30")
	require.Equal(t, http.StatusConflict, a.post(settingsPath, again).Code)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"08:15"`)
}

// The hostile review's second case: a job form opened before the board
// marked the job done puts it back to scheduled. Refused: 409, still done,
// no audit entry, the page names the status; the same form at the current
// version saves.
func TestStaleJobForm(t *testing.T) {
	ff := setupField(t)
	start := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC) // 9:00 in New York
	j := ff.job(ff.orgA.ID, "Corner Bakery", start, ff.ana.ID)
	page := fmt.Sprintf("/orgs/acme/jobs/%d", j.ID)
	form := formOf(t, ff.admin.get(page).Body, attrIs("id", "job-form"))
	require.Equal(t, fmt.Sprint(j.Version), form.Get("version"))
	require.Equal(t, "scheduled", form.Get("status"))

	// The board marks it done, from its own block's version (its Move forms).
	card := formOf(t, ff.admin.get(fmt.Sprintf("/orgs/acme/board?date=2026-03-04&move=%d", j.ID)).Body,
		attrIs("action", fmt.Sprintf("/orgs/acme/jobs/%d/status", j.ID)))
	card.Set("status", "done")
	r := ff.admin.htmx().post(fmt.Sprintf("/orgs/acme/jobs/%d/status", j.ID), card)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Equal(t, "done", ff.storedJob(ff.orgA.ID, j.ID).Status)
	audits := ff.orgAudits(ff.orgA.ID)

	form.Set("notes", "Ring twice")
	r = ff.admin.post(page, form)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	now := ff.storedJob(ff.orgA.ID, j.ID)
	require.Equal(t, "done", now.Status)
	require.Empty(t, now.Notes)
	require.Equal(t, audits, ff.orgAudits(ff.orgA.ID), "a refused save is not audited")
	theirs, yours := staleRow(t, r.Body, "status")
	require.Equal(t, "Done", theirs)
	require.Equal(t, "Scheduled", yours)
	_, yours = staleRow(t, r.Body, "notes")
	require.Equal(t, "Ring twice", yours)
	doc := parseDoc(t, r.Body)
	require.Equal(t, page, doc.byID("stale-reload").attr("href"))
	require.Equal(t, "Ring twice", doc.byID("notes").text(), "what was typed is kept")

	// The current version saves, and moves the version by one.
	fresh := formOf(t, ff.admin.get(page).Body, attrIs("id", "job-form"))
	fresh.Set("notes", "Ring twice")
	r = ff.admin.post(page, fresh)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	saved := ff.storedJob(ff.orgA.ID, j.ID)
	require.Equal(t, "Ring twice", saved.Notes)
	require.Equal(t, "done", saved.Status)
	require.Equal(t, now.Version+1, saved.Version)
}

func TestStaleTechnicianForm(t *testing.T) {
	ff := setupField(t)
	page := fmt.Sprintf("/orgs/acme/technicians/%d", ff.ana.ID)
	form := formOf(t, ff.admin.get(page).Body, attrIs("id", "technician-form"))
	require.Equal(t, fmt.Sprint(ff.ana.Version), form.Get("version"))

	// Someone else gives her an email address.
	other := formOf(t, ff.admin.get(page).Body, attrIs("id", "technician-form"))
	other.Set("email", "ana@acme.example")
	require.Equal(t, http.StatusSeeOther, ff.admin.post(page, other).Code)
	audits := ff.orgAudits(ff.orgA.ID)

	form.Set("phone", "+1 555 0199")
	r := ff.admin.post(page, form)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	now, err := ff.st.Technician(context.Background(), ff.orgA.ID, ff.ana.ID)
	require.NoError(t, err)
	require.Equal(t, "ana@acme.example", now.Email)
	require.Empty(t, now.Phone)
	require.Equal(t, audits, ff.orgAudits(ff.orgA.ID))
	theirs, yours := staleRow(t, r.Body, "email")
	require.Equal(t, "ana@acme.example", theirs)
	require.Equal(t, "—", yours)
	require.Equal(t, "+1 555 0199", parseDoc(t, r.Body).byID("phone").attr("value"))
}

// A role change from a members page older than the membership is refused;
// the chosen role stays in the row's select.
func TestStaleMemberRole(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.as(&f.adminA)
	bUser := f.member(f.orgA, "admin2@acme.test", tenants.RoleAdmin)
	b := f.as(&bUser)
	action := fmt.Sprintf("/orgs/acme/members/%d/role", f.memberA.ID)
	formA := formOf(t, a.get("/orgs/acme/members").Body, attrIs("action", action))
	require.NotEmpty(t, formA.Get("version"))

	formB := formOf(t, b.get("/orgs/acme/members").Body, attrIs("action", action))
	formB.Set("role", "admin")
	require.Equal(t, http.StatusSeeOther, b.post(action, formB).Code)
	audits := f.orgAudits(f.orgA.ID)

	formA.Set("role", "member")
	r := a.post(action, formA)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	var role string
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2`,
		f.orgA.ID, f.memberA.ID).Scan(&role))
	require.Equal(t, "admin", role)
	require.Equal(t, audits, f.orgAudits(f.orgA.ID))
	theirs, yours := staleRow(t, r.Body, "role")
	require.Equal(t, "Admin", theirs)
	require.Equal(t, "Member", yours)
	again := formOf(t, r.Body, attrIs("action", action))
	require.Equal(t, "member", again.Get("role"), "the chosen role is kept")

	// From the refused page, the change applies.
	require.Equal(t, http.StatusSeeOther, a.post(action, again).Code)
	require.NoError(t, f.db.QueryRow(context.Background(), `SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2`,
		f.orgA.ID, f.memberA.ID).Scan(&role))
	require.Equal(t, "member", role)
}

// The board's quick changes carry the card's version: an assignment made
// from a card older than the job is 409, and the answer (the fragment for
// htmx, swapped: layout.templ) shows the board as it is now with the
// notice; a current card's change works.
func TestStaleBoardQuickAssign(t *testing.T) {
	ff := setupField(t)
	bo, err := ff.st.CreateTechnician(context.Background(), audit.System, ff.orgA.ID, field.TechnicianInput{Name: "Bo Berg", Active: true})
	require.NoError(t, err)
	start := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(ff.orgA.ID, "Corner Bakery", start, 0)
	board := "/orgs/acme/board?date=2026-03-04"
	assign := fmt.Sprintf("/orgs/acme/jobs/%d/move", j.ID)
	// The block's Move form, as the board without JavaScript shows it.
	card := formOf(t, ff.admin.get(fmt.Sprintf("%s&move=%d", board, j.ID)).Body, attrIs("action", assign))
	require.Equal(t, fmt.Sprint(j.Version), card.Get("version"))

	// Someone else assigns Ana first.
	_, err = ff.st.Assign(context.Background(), audit.System, ff.clock.Now(), ff.orgA.ID, j.ID, ff.ana.ID, 0)
	require.NoError(t, err)
	audits := ff.orgAudits(ff.orgA.ID)

	card.Set("technician_id", fmt.Sprint(bo.ID))
	r := ff.admin.htmx().post(assign, card)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.True(t, strings.HasPrefix(strings.TrimSpace(r.Body), `<div id="board"`), r.Body)
	require.Equal(t, ff.ana.ID, ff.storedJob(ff.orgA.ID, j.ID).TechnicianID)
	require.Equal(t, audits, ff.orgAudits(ff.orgA.ID))
	theirs, yours := staleRow(t, r.Body, "technician_id")
	require.Equal(t, "Ana Lima", theirs)
	require.Equal(t, "Bo Berg", yours)
	// The block now shows Ana, at the current version (what a drag or
	// the Move dialog sends: static/board.js).
	blk := parseDoc(t, r.Body).find(attrIs("data-job", fmt.Sprint(j.ID)))
	require.NotNil(t, blk)
	require.Equal(t, fmt.Sprint(ff.ana.ID), blk.attr("data-tech"))
	require.Equal(t, fmt.Sprint(ff.storedJob(ff.orgA.ID, j.ID).Version), blk.attr("data-version"))
	fresh := url.Values{"technician_id": {""}, "version": {blk.attr("data-version")}, "date": {"2026-03-04"}}

	// Without JavaScript: the page, 409 too.
	r = ff.admin.post(assign, card)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.NotNil(t, parseDoc(t, r.Body).byID("stale-notice"))

	// The fresh card's change works and moves the version.
	v := ff.storedJob(ff.orgA.ID, j.ID).Version
	fresh.Set("technician_id", fmt.Sprint(bo.ID))
	r = ff.admin.htmx().post(assign, fresh)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	saved := ff.storedJob(ff.orgA.ID, j.ID)
	require.Equal(t, bo.ID, saved.TechnicianID)
	require.Equal(t, v+1, saved.Version)
}

// A stale status change from the board: 409, the status kept.
func TestStaleBoardQuickStatus(t *testing.T) {
	ff := setupField(t)
	start := time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)
	j := ff.job(ff.orgA.ID, "Corner Bakery", start, ff.ana.ID)
	status := fmt.Sprintf("/orgs/acme/jobs/%d/status", j.ID)
	card := formOf(t, ff.admin.get(fmt.Sprintf("/orgs/acme/board?date=2026-03-04&move=%d", j.ID)).Body, attrIs("action", status))
	_, err := ff.st.SetStatus(context.Background(), audit.System, ff.clock.Now(), ff.orgA.ID, j.ID, "cancelled", 0)
	require.NoError(t, err)
	card.Set("status", "in_progress")
	r := ff.admin.htmx().post(status, card)
	require.Equal(t, http.StatusConflict, r.Code, r.Body)
	require.Equal(t, "cancelled", ff.storedJob(ff.orgA.ID, j.ID).Status)
	theirs, yours := staleRow(t, r.Body, "status")
	require.Equal(t, "Cancelled", theirs)
	require.Equal(t, "In progress", yours)
}

// Pages tell htmx to swap 409 answers: a stale quick change's answer is
// the latest board, which must replace the old one.
func TestStaleHTMXSwaps409(t *testing.T) {
	ff := setupField(t)
	meta := parseDoc(t, ff.admin.get("/orgs/acme/board").Body).find(attrIs("name", "htmx-config"))
	require.NotNil(t, meta)
	require.Contains(t, meta.attr("content"), `{"code":"409","swap":true}`)
}
