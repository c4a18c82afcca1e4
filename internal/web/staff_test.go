package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/flags"
	"fieldbrief/internal/tenants"
)

const flagKey = "fieldforce.briefing"

func (f *fixture) globalFlag() bool {
	f.t.Helper()
	flags, err := f.store.Flags.List(context.Background())
	require.NoError(f.t, err)
	for _, fl := range flags {
		if fl.Key == flagKey {
			return fl.Enabled
		}
	}
	f.t.Fatalf("no flag %s", flagKey)
	return false
}

func (f *fixture) override(o tenants.Org) (flags.Override, bool) {
	f.t.Helper()
	global, ov, err := f.store.Flags.ForOrg(context.Background(), o.ID, flagKey)
	require.NoError(f.t, err)
	return ov, flags.Effective(global, ov)
}

func (f *fixture) auditCount() int {
	f.t.Helper()
	return countRows(f.t, f, `SELECT count(*) FROM audit_log`)
}

func TestGlobalFlagNeedsAReason(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	for _, reason := range []string{"", "   "} {
		res := c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {reason}, "confirm": {flagKey}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code)
		require.Regexp(t, `<textarea id="reason-fieldforce.briefing"[^>]*aria-invalid="true"`, res.Body)
		require.Contains(t, res.Body, `<p class="field-error" id="reason-fieldforce.briefing-error">Say why you are changing a global switch.</p>`)
	}
	res := c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"sometimes"}, "reason": {"x"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, "enabled must be true or false")
	require.True(t, f.globalFlag(), "nothing saved")
	require.Zero(t, f.auditCount(), "no audit entry")
}

func TestGlobalFlagFlip(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	page := c.get("/staff/flags")
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body, "I understand this affects every org")
	require.Contains(t, page.Body, `name="enabled" value="off"`, "the form offers the opposite state")

	res := c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"off"}, "reason": {"incident 42"}, "confirm": {flagKey}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.False(t, f.globalFlag())
	require.Equal(t, 1, f.auditCount())
	var actor, action, reason, oldV, newV string
	require.NoError(t, f.db.QueryRow(context.Background(),
		`SELECT actor_email, action, reason, old_value::text, new_value::text FROM audit_log`).Scan(&actor, &action, &reason, &oldV, &newV))
	require.Equal(t, []string{f.staff.Email, "flag.global.set", "incident 42", `{"enabled": true}`, `{"enabled": false}`},
		[]string{actor, action, reason, oldV, newV})

	// Setting the state it already has records nothing.
	require.Equal(t, http.StatusSeeOther, c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"again"}, "confirm": {flagKey}}).Code)
	require.Equal(t, 1, f.auditCount())

	// Global off wins over every org's override: acme's "on" is off in
	// effect, on the page and for the eligibility rule.
	require.Equal(t, http.StatusSeeOther, c.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"on"}, "reason": {"customer asked"}}).Code)
	ov, eff := f.override(f.orgA)
	require.Equal(t, flags.On, ov)
	require.False(t, eff, "an org's override does not beat the global switch")
	page = c.get("/staff/flags")
	require.Contains(t, page.Body, `name="enabled" value="on"`)
	require.Contains(t, orgRow(t, page.Body, "acme"), `<option value="on" selected>`)
	require.Contains(t, orgRow(t, page.Body, "acme"), `<span class="badge-failed">off</span>`, "the row shows the org off in effect")
	// And on again, the override is what it was.
	require.Equal(t, http.StatusSeeOther, c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"on"}, "reason": {"incident over"}, "confirm": {flagKey}}).Code)
	_, eff = f.override(f.orgA)
	require.True(t, eff)
	require.Equal(t, http.StatusNotFound, c.post("/staff/flags/no.such.flag", url.Values{"enabled": {"true"}, "reason": {"x"}}).Code)
}

func TestOrgFlagOverride(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	set := func(state string) response {
		return c.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {state}, "reason": {"customer asked"}})
	}

	ov, eff := f.override(f.orgA)
	require.Equal(t, flags.Inherit, ov)
	require.True(t, eff)

	require.Equal(t, http.StatusSeeOther, set("off").Code)
	ov, eff = f.override(f.orgA)
	require.Equal(t, flags.Off, ov)
	require.False(t, eff)
	require.Equal(t, 1, f.auditCount())
	row := orgRow(t, c.get("/staff/flags").Body, "acme")
	require.Contains(t, row, `<span class="badge-failed">off</span></td><td><span class="badge-failed">off</span>`)
	require.Contains(t, row, `<option value="off" selected>`)

	require.Equal(t, http.StatusSeeOther, set("on").Code)
	ov, eff = f.override(f.orgA)
	require.Equal(t, flags.On, ov)
	require.True(t, eff)

	require.Equal(t, http.StatusSeeOther, set("inherit").Code)
	ov, eff = f.override(f.orgA)
	require.Equal(t, flags.Inherit, ov)
	require.True(t, eff)
	require.Zero(t, countRows(t, f, `SELECT count(*) FROM org_feature_flags`), "inherit is no row")
	require.Equal(t, 3, f.auditCount(), "one entry per change")

	// An override cannot beat the kill switch.
	require.Equal(t, http.StatusSeeOther, c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"kill"}, "confirm": {flagKey}}).Code)
	require.Equal(t, http.StatusSeeOther, set("on").Code)
	_, eff = f.override(f.orgA)
	require.False(t, eff)
	require.Contains(t, orgRow(t, c.get("/staff/flags").Body, "acme"), `<span class="badge-ready">on</span></td><td><span class="badge-failed">off</span>`)

	// htmx gets the row back.
	res := c.htmx().post("/staff/orgs/globex/flags/"+flagKey, url.Values{"state": {"off"}})
	require.Equal(t, http.StatusOK, res.Code)
	require.True(t, strings.HasPrefix(strings.TrimSpace(res.Body), `<tr id="org-globex">`), res.Body)
	require.Contains(t, res.Body, "Saved")
}

func TestOrgFlagBadInput(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)

	res := c.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"maybe"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, orgRow(t, res.Body, "acme"), `<p class="field-error" id="state-acme-error">Choose inherit, on or off.</p>`)
	res = c.htmx().post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, res.Body, `id="state-acme-error"`)

	require.Equal(t, http.StatusNotFound, c.post("/staff/orgs/nosuchorg/flags/"+flagKey, url.Values{"state": {"on"}}).Code)
	require.Equal(t, http.StatusNotFound, c.post("/staff/orgs/acme/flags/no.such.flag", url.Values{"state": {"on"}}).Code)
	require.Equal(t, http.StatusNotFound, c.post("/staff/orgs/acme/flags/no.such.flag", url.Values{"state": {"bad"}}).Code)

	require.Zero(t, countRows(t, f, `SELECT count(*) FROM org_feature_flags`))
	require.Zero(t, f.auditCount())
}

func TestStaffConsoleIsStaffOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, u := range []*accounts.User{&f.adminA, &f.memberB} {
		c := f.as(u)
		for _, path := range []string{"/staff", "/staff/flags", "/staff/audit"} {
			require.Equal(t, http.StatusForbidden, c.get(path).Code, path)
		}
		require.Equal(t, http.StatusForbidden, c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"x"}}).Code)
		require.Equal(t, http.StatusForbidden, c.post("/staff/orgs/acme/flags/"+flagKey, url.Values{"state": {"off"}}).Code)
	}
	require.True(t, f.globalFlag())
	require.Zero(t, f.auditCount())

	res := f.as(&f.staff).get("/staff")
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Equal(t, "/staff/flags", res.Header.Get("Location"))
}

func TestStaffFlagsSearch(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	all := c.get("/staff/flags").Body
	require.Contains(t, all, `id="org-acme"`)
	require.Contains(t, all, `id="org-globex"`)
	for q, want := range map[string]string{"glob": "globex", "Acme Field": "acme"} {
		body := c.get("/staff/flags?q=" + url.QueryEscape(q)).Body
		require.Contains(t, body, `id="org-`+want+`"`, q)
		require.Equal(t, 1, strings.Count(body, `<tr id="org-`), q)
	}
	require.Contains(t, c.get("/staff/flags?q=%25").Body, "No org matches.")
}

func TestAuditPageFilters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	other := f.user("ops@fieldbrief.test", true)
	staff, ops := f.as(&f.staff), f.as(&other)
	setOrg := func(c *client, slug, state string) {
		require.Equal(t, http.StatusSeeOther, c.post("/staff/orgs/"+slug+"/flags/"+flagKey, url.Values{"state": {state}, "reason": {"r-" + slug + "-" + state}}).Code)
	}
	setOrg(staff, "acme", "off")
	setOrg(staff, "globex", "off")
	setOrg(ops, "acme", "on")
	require.Equal(t, http.StatusSeeOther, ops.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"global"}, "confirm": {flagKey}}).Code)

	reasons := func(query string) []string {
		res := staff.get("/staff/audit" + query)
		require.Equal(t, http.StatusOK, res.Code)
		var out []string
		for _, m := range regexp.MustCompile(`<td>(r-[a-z]+-[a-z]+|global)</td></tr>`).FindAllStringSubmatch(res.Body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	require.Equal(t, []string{"global", "r-acme-on", "r-globex-off", "r-acme-off"}, reasons(""), "newest first")
	require.Equal(t, []string{"r-acme-on", "r-acme-off"}, reasons("?org=acme"))
	require.Equal(t, []string{"global", "r-acme-on"}, reasons("?actor=ops@"))
	require.Equal(t, []string{"r-acme-off"}, reasons("?org=acme&actor="+url.QueryEscape(f.staff.Email)))

	body := staff.get("/staff/audit?org=globex").Body
	require.Contains(t, body, `<code class="diff-field">state</code>: <span class="old">&#34;inherit&#34;</span> → <span class="new">&#34;off&#34;</span>`,
		"the entry shows what changed, old → new")
}

// orgRow cuts one org's row out of the flags page.
func orgRow(t *testing.T, body, slug string) string {
	t.Helper()
	start := strings.Index(body, `<tr id="org-`+slug+`">`)
	require.GreaterOrEqual(t, start, 0, "no row for %s", slug)
	end := strings.Index(body[start:], "</tr>")
	require.Greater(t, end, 0)
	return body[start : start+end]
}

// Turning a global switch off takes the flag key typed by hand in confirm:
// without it (or with anything else) the server answers 422 beside the
// field and nothing changes, whatever the browser did or did not check.
func TestGlobalFlagOffNeedsTheTypedKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.as(&f.staff)
	page := c.get("/staff/flags").Body
	require.Regexp(t, `<input[^>]*name="confirm"[^>]*required`, page, "the off form asks for the key in the browser too")

	for _, confirm := range []string{"", "yes", "FIELDFORCE.BRIEFING", flagKey + "x"} {
		res := c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"incident 42"}, "confirm": {confirm}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "confirm %q", confirm)
		require.Contains(t, res.Body, `id="confirm-fieldforce.briefing-error"`)
		require.Contains(t, res.Body, "Type fieldforce.briefing to confirm")
		require.Contains(t, res.Body, "incident 42", "the reason is kept")
		require.True(t, f.globalFlag(), "nothing changed")
		require.Zero(t, f.auditCount(), "nothing audited")
	}

	res := c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"false"}, "reason": {"incident 42"}, "confirm": {flagKey}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.False(t, f.globalFlag())
	// Turning it back on needs no typed key.
	res = c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"true"}, "reason": {"fixed"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	require.True(t, f.globalFlag())
}

// The kill switch says what it would do, counted from the database, before
// it is confirmed; after it, a notice says what was done.
func TestGlobalFlagShowsItsImpact(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	for i := range 3 {
		_, err := f.store.Tenants.CreateOrg(ctx, "extra-"+strconv.Itoa(i), "Extra "+strconv.Itoa(i), time.Time{})
		require.NoError(t, err)
	}
	c := f.as(&f.staff)
	// 5 orgs: acme and extra-2 on, globex off, two inherit.
	require.NoError(t, f.store.Flags.SetOrg(ctx, audit.System, f.orgA.ID, flagKey, flags.On, ""))
	extra2, err := f.store.Tenants.OrgBySlug(ctx, "extra-2")
	require.NoError(t, err)
	require.NoError(t, f.store.Flags.SetOrg(ctx, audit.System, extra2.ID, flagKey, flags.On, ""))
	require.NoError(t, f.store.Flags.SetOrg(ctx, audit.System, f.orgB.ID, flagKey, flags.Off, ""))

	impact, err := f.store.Flags.Impacts(ctx)
	require.NoError(t, err)
	require.Equal(t, flags.Impact{Orgs: 5, OverrideOn: 2, OverrideOff: 1}, impact[flagKey])
	require.Equal(t, 4, impact[flagKey].Affected())

	page := c.get("/staff/flags")
	require.Contains(t, page.Body, `<p class="impact" id="impact-fieldforce.briefing">Turns off fieldforce.briefing for 4 orgs; 2 have an override on. 1 org is off already by its own override.</p>`)
	row := orgRow(t, page.Body, "extra-0")
	require.Contains(t, row, `→ global on`, "an inherit shows what it resolves to")
	require.Contains(t, row, `<option value="inherit" selected>inherit (global on)</option>`)

	res := c.post("/staff/flags/"+flagKey, url.Values{"enabled": {"off"}, "reason": {"incident 7"}, "confirm": {flagKey}})
	require.Equal(t, http.StatusSeeOther, res.Code)
	require.Contains(t, res.Header.Get("Location"), "notice=flag-off")
	page = c.get(res.Header.Get("Location"))
	require.Contains(t, page.Body, `<p class="notice" role="status" id="flag-notice">Turned off fieldforce.briefing for every org.</p>`)
	require.Contains(t, page.Body, `Turns on fieldforce.briefing for 4 orgs. 1 org has an override off and stays off.`)
	require.Contains(t, orgRow(t, page.Body, "extra-0"), `→ global off`)
	// A notice code names no text of its own: an unknown one shows nothing.
	require.NotContains(t, c.get("/staff/flags?notice=%3Cb%3Ehi").Body, `class="notice"`)
}
