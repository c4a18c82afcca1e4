package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/api/apitest"
	"fieldbrief/internal/tenants"
)

// Access ends when its reason ends (docs/security.md, "Access ends with
// its reason"): through the real pages and API, another org's people tried
// where they could reach.

// TestDayLinksEndWithTheirReason: a technician's day links stop opening
// when their email changes (form, API, CSV import), when they are
// deactivated or deleted, and when an admin revokes them; reactivation
// does not bring one back, and links made after the change open.
func TestDayLinksEndWithTheirReason(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	admin, anon := f.as(&f.adminA), f.anon()
	opens := func(tok string) bool {
		t.Helper()
		r := anon.get("/t/" + tok)
		require.Contains(t, []int{http.StatusOK, http.StatusNotFound}, r.Code, r.Body)
		requireDayLinkHeaders(t, r)
		return r.Code == http.StatusOK
	}
	ana := f.dayTech(f.orgA.ID, "Ana Ruiz", "")
	anaPath := "/orgs/acme/technicians/" + strconv.FormatInt(ana, 10)
	_, err := f.db.Exec(ctx, `UPDATE technicians SET email = 'ana@acme.test' WHERE id = $1`, ana)
	require.NoError(t, err)
	f.dayJob(f.orgA.ID, ana, "Dogwood Bakery", "", "", "", "scheduled", time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC))

	// The email changes on the edit form: the old address's links end.
	before := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	require.True(t, opens(before))
	edit := func(email string) {
		t.Helper()
		r := admin.post(anaPath, url.Values{"name": {"Ana Ruiz"}, "email": {email}, "active": {"true"}})
		require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	}
	edit("ana@acme.test") // the same address: nothing ends
	require.True(t, opens(before), "a save that keeps the address revoked the links")
	edit("ana.ruiz@acme.test")
	require.False(t, opens(before), "a link sent to the old address still opens")

	// Deactivated: the links end, and reactivation does not bring them back.
	live := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	require.True(t, opens(live))
	require.Equal(t, http.StatusSeeOther, admin.post(anaPath+"/active", url.Values{"active": {"false"}}).Code)
	require.False(t, opens(live))
	require.Equal(t, http.StatusSeeOther, admin.post(anaPath+"/active", url.Values{"active": {"true"}}).Code)
	require.False(t, opens(live), "reactivation brought a revoked link back")
	require.True(t, opens(f.dayToken(f.orgA.ID, ana, "2026-03-04")), "a link made after reactivation does not open")

	// An admin's "revoke links": every link of Ana's ends, Ben's stay; audited.
	ben := f.dayTech(f.orgA.ID, "Ben Ode", "")
	anaTok, benTok := f.dayToken(f.orgA.ID, ana, "2026-03-04"), f.dayToken(f.orgA.ID, ana, "2026-03-05")
	benOwn := f.dayToken(f.orgA.ID, ben, "2026-03-04")
	page := admin.get(anaPath)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body, `action="`+anaPath+`/revoke-links"`)
	// Not without the CSRF token; not by a member, a dispatcher or another org's admin.
	require.Equal(t, http.StatusForbidden, admin.postNoCSRF(anaPath+"/revoke-links", url.Values{}).Code)
	dispatcher := f.member(f.orgA, "dispatcher@acme.test", tenants.RoleDispatcher)
	require.Equal(t, http.StatusForbidden, f.as(&f.memberA).post(anaPath+"/revoke-links", nil).Code)
	require.Equal(t, http.StatusForbidden, f.as(&dispatcher).post(anaPath+"/revoke-links", nil).Code)
	otherAdmin := f.as(&f.adminB)
	require.Equal(t, http.StatusNotFound, otherAdmin.post(anaPath+"/revoke-links", nil).Code)
	require.Equal(t, http.StatusNotFound, otherAdmin.post("/orgs/globex/technicians/"+strconv.FormatInt(ana, 10)+"/revoke-links", nil).Code)
	require.True(t, opens(anaTok) && opens(benTok) && opens(benOwn), "a refused revoke revoked")
	audits := f.count(`SELECT count(*) FROM audit_log WHERE action = 'field.technician.revoke_links'`)

	r := admin.htmx().post(anaPath+"/revoke-links", nil)
	require.Equal(t, http.StatusOK, r.Code, r.Body)
	require.Contains(t, r.Body, "every link sent to this technician so far no longer opens")
	require.False(t, opens(anaTok))
	require.False(t, opens(benTok))
	require.True(t, opens(benOwn), "another technician's link was revoked")
	require.Equal(t, audits+1, f.count(`SELECT count(*) FROM audit_log WHERE action = 'field.technician.revoke_links' AND org_id = $1`, f.orgA.ID))
	// Without JavaScript: the form posts, the page comes back with the notice.
	again := f.dayToken(f.orgA.ID, ana, "2026-03-04")
	r = admin.post(anaPath+"/revoke-links", nil)
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, admin.get(r.Header.Get("Location")).Body, "every link sent to this technician so far no longer opens")
	require.False(t, opens(again))

	// The API: a PUT that changes the address ends the links; a DELETE too.
	api := f.api(f.newToken(f.orgA, "sync"))
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/cara", map[string]any{"name": "Cara", "email": "cara@acme.test"}).Code)
	var cara int64
	require.NoError(t, f.db.QueryRow(ctx, `SELECT id FROM technicians WHERE external_ref = 'cara'`).Scan(&cara))
	caraTok := f.dayToken(f.orgA.ID, cara, "2026-03-04")
	require.Equal(t, http.StatusOK, api.Put("/api/v1/technicians/cara", map[string]any{"name": "Cara Lee", "email": "cara@acme.test"}).Code)
	require.True(t, opens(caraTok), "a PUT that keeps the address revoked the links")
	require.Equal(t, http.StatusOK, api.Put("/api/v1/technicians/cara", map[string]any{"name": "Cara Lee", "email": "cara@elsewhere.example"}).Code)
	require.False(t, opens(caraTok))
	caraTok = f.dayToken(f.orgA.ID, cara, "2026-03-04")
	require.True(t, opens(caraTok))
	require.Equal(t, http.StatusOK, api.Call(http.MethodDelete, "/api/v1/technicians/cara", nil).Code)
	require.False(t, opens(caraTok))

	// The CSV import: a row that changes the address ends the links.
	require.Equal(t, http.StatusCreated, api.Put("/api/v1/technicians/dev", map[string]any{"name": "Dev", "email": "dev@acme.test"}).Code)
	var dev int64
	require.NoError(t, f.db.QueryRow(ctx, `SELECT id FROM technicians WHERE external_ref = 'dev'`).Scan(&dev))
	devTok := f.dayToken(f.orgA.ID, dev, "2026-03-04")
	f.importFile(f.orgA, "technicians", "external_ref,name,email\ndev,Dev,dev@new.example\n")
	require.False(t, opens(devTok), "an imported new address left the links open")
}

// TestAPITokensEndWithTheirCreatorsAdminRole: a token stops working when
// the admin who made it stops being an admin (demoted) or leaves the org,
// in the same change, audited, shown revoked with the reason; being made
// an admin again does not bring it back. A token made by an operator
// (web create-token) belongs to the org and says so. The same person's
// token in another org is that org's business.
func TestAPITokensEndWithTheirCreatorsAdminRole(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	owner := f.as(&f.adminA)
	const tokensPath = "/orgs/acme/settings/api-tokens"
	createAs := func(c *client, path, name string) *apitest.Client {
		t.Helper()
		res := c.post(path, url.Values{"name": {name}})
		require.Equal(t, http.StatusOK, res.Code, res.Body)
		api := f.api(between(t, res.Body, `id="api-token-value">`, "<"))
		require.Equal(t, http.StatusOK, api.Get("/api/v1/technicians").Code)
		return api
	}
	works := func(api *apitest.Client) bool {
		t.Helper()
		r := api.Get("/api/v1/technicians")
		require.Contains(t, []int{http.StatusOK, http.StatusUnauthorized}, r.Code, r.Body)
		return r.Code == http.StatusOK
	}
	rowOf := func(name string) string {
		t.Helper()
		page := owner.get(tokensPath)
		require.Equal(t, http.StatusOK, page.Code)
		var id int64
		require.NoError(t, f.db.QueryRow(ctx, `SELECT id FROM api_tokens WHERE org_id = $1 AND name = $2`, f.orgA.ID, name).Scan(&id))
		row := parseDoc(t, page.Body).find(attrIs("data-token-id", strconv.FormatInt(id, 10)))
		require.NotNil(t, row, page.Body)
		return row.text()
	}
	revokes := func() int {
		return f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'api_token.revoke'`, f.orgA.ID)
	}

	// Dana, an admin of both orgs, makes a token in each.
	dana := f.member(f.orgA, "dana@acme.test", tenants.RoleAdmin)
	require.NoError(t, f.store.Tenants.AddMember(ctx, f.orgB.ID, dana.ID, tenants.RoleAdmin))
	danaC := f.as(&dana)
	danaAcme := createAs(danaC, tokensPath, "Dana sync")
	danaGlobex := createAs(danaC, "/orgs/globex/settings/api-tokens", "Dana sync")
	ownerAPI := createAs(owner, tokensPath, "Owner sync")
	orgAPI := f.api(f.newToken(f.orgA, "Nightly export")) // as web create-token makes them: no person
	require.Contains(t, rowOf("Owner sync"), f.adminA.Email)
	require.Contains(t, rowOf("Nightly export"), "Belongs to the org")

	// Another org's admin cannot touch Dana's acme membership.
	danaPath := "/orgs/acme/members/" + strconv.FormatInt(dana.ID, 10)
	require.Equal(t, http.StatusNotFound, f.as(&f.adminB).post(danaPath+"/role", url.Values{"role": {"member"}}).Code)
	require.True(t, works(danaAcme))

	// Demoted to dispatcher: acme's token ends with the change; globex's does not.
	before := revokes()
	r := owner.post(danaPath+"/role", url.Values{"role": {"dispatcher"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.False(t, works(danaAcme), "a demoted admin's token still works")
	require.True(t, works(danaGlobex), "another org's token of the same person ended")
	require.True(t, works(ownerAPI) && works(orgAPI), "tokens of others ended")
	require.Equal(t, before+1, revokes())
	require.Equal(t, 1, f.count(`SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'api_token.revoke' AND reason <> ''`, f.orgA.ID))
	row := rowOf("Dana sync")
	require.Contains(t, row, "Revoked")
	require.Contains(t, row, "its creator is no longer an admin")
	// An admin again: the token stays revoked.
	require.Equal(t, http.StatusSeeOther, owner.post(danaPath+"/role", url.Values{"role": {"admin"}}).Code)
	require.False(t, works(danaAcme), "promotion brought a revoked token back")

	// Removed from the org: the token made since ends too.
	danaAcme = createAs(danaC, tokensPath, "Dana sync 2")
	require.Equal(t, http.StatusSeeOther, owner.post(danaPath+"/remove", nil).Code)
	require.False(t, works(danaAcme), "a removed admin's token still works")
	require.True(t, works(danaGlobex))
	require.Contains(t, rowOf("Dana sync 2"), "its creator left the org")

	// An operator's demotion (web create-user -role) ends them as well.
	eve := f.member(f.orgA, "eve@acme.test", tenants.RoleAdmin)
	eveAPI := createAs(f.as(&eve), tokensPath, "Eve sync")
	require.NoError(t, f.store.Tenants.AddMember(ctx, f.orgA.ID, eve.ID, tenants.RoleMember))
	require.False(t, works(eveAPI), "a token outlived its creator's demotion by an operator")
	require.True(t, works(ownerAPI) && works(orgAPI))

	// A membership or a user ended some other way (here: the user row
	// deleted, which sets the token's creator to NULL): the token is not the
	// org's for that, and stops (migration 00044).
	fay := f.member(f.orgA, "fay@acme.test", tenants.RoleAdmin)
	fayAPI := createAs(f.as(&fay), tokensPath, "Fay sync")
	_, err := f.db.Exec(ctx, `DELETE FROM users WHERE id = $1`, fay.ID)
	require.NoError(t, err)
	require.False(t, works(fayAPI), "a deleted user's token works as the org's")
	require.NotContains(t, rowOf("Fay sync"), "Belongs to the org")
	require.True(t, works(ownerAPI) && works(orgAPI))
}

// TestDispatchersSeeAWebhooksOriginOnly: the webhook URL's path and query
// may carry a credential; a dispatcher sees what a member sees of it, the
// origin, on the briefing page's deliveries, attempt details included.
func TestDispatchersSeeAWebhooksOriginOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	const hook = "https://hooks.acme.example:8443/fieldbrief/T0K3N-SECRET?sig=Q5ECRET"
	b := readyBriefing(t, f, f.orgA.ID)
	var id int64
	require.NoError(t, f.db.QueryRow(ctx, `
		INSERT INTO ff_deliveries (org_id, briefing_id, revision, channel, audience, recipient, key, state, attempts,
		                           last_code, last_detail, due_at)
		VALUES ($1, $2, 1, 'webhook', 'webhook', $3, 'msg_hook', 'failed', 1, '404', $4, '2026-03-03 13:00Z') RETURNING id`,
		f.orgA.ID, b, hook, `Post "`+hook+`": 404 Not Found`).Scan(&id))
	_, err := f.db.Exec(ctx, `
		INSERT INTO ff_delivery_attempts (org_id, delivery_id, attempted_at, outcome, code, detail, duration_ms, worker)
		VALUES ($1, $2, '2026-03-03 13:00:05Z', 'failed', '404', $3, 120, 'worker-7')`, f.orgA.ID, id, `Post "`+hook+`": 404 Not Found`)
	require.NoError(t, err)
	dispatcher := f.member(f.orgA, "dispatcher@acme.test", tenants.RoleDispatcher)
	path := briefingsPath + "/2026-03-03"

	admin := f.as(&f.adminA).get(path)
	require.Equal(t, http.StatusOK, admin.Code)
	require.Contains(t, admin.Body, "T0K3N-SECRET", "the admin sees the whole URL")
	for who, u := range map[string]*accounts.User{"dispatcher": &dispatcher, "member": &f.memberA} {
		r := f.as(u).get(path)
		require.Equal(t, http.StatusOK, r.Code, who)
		row := parseDoc(t, r.Body).find(attrIs("data-delivery-id", strconv.FormatInt(id, 10)))
		require.NotNil(t, row, "%s: %s", who, r.Body)
		require.Contains(t, row.text(), "https://hooks.acme.example:8443", who)
		for _, secret := range []string{"T0K3N-SECRET", "Q5ECRET", "/fieldbrief"} {
			require.NotContains(t, r.Body, secret, "%s sees the webhook's %q", who, secret)
		}
	}
	// Another org's dispatcher sees nothing of it.
	other := f.member(f.orgB, "dispatcher@globex.test", tenants.RoleDispatcher)
	require.Equal(t, http.StatusNotFound, f.as(&other).get(path).Code)
}
