package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

// badRecipients are addresses we never send to (docs/security.md, "Email addresses we send to"), each
// with a word of the message that explains it.
var badRecipients = map[string]string{
	"x@y@z":                        "valid email address",
	"Admin<attacker@evil.example>": "valid email address",
	"root@[127.0.0.1]":             "IP address",
	"root@127.0.0.1":               "IP address",
	"postmaster@localhost":         "full domain name",
	"zoe@lonestar":                 "full domain name",
	"it@printer.local":             "internal networks",
	"ops@db.internal":              "internal networks",
	"a@app.localhost":              "internal networks",
}

// An invite to any of them is 422 with the message beside the email field;
// no invite, no email job, nothing audited.
func TestInviteRefusesAddressesWeNeverSendTo(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	for addr, word := range badRecipients {
		if word != "valid email address" {
			word = "public domain" // the page's one message for the three codes (security.email_public_domain)
		}
		res := admin.post("/orgs/acme/members/invite", url.Values{"email": {addr}, "role": {"member"}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", addr, res.Body)
		doc := parseDoc(t, res.Body)
		require.Contains(t, doc.byID("email-error").text(), word, addr)
		require.Equal(t, "true", doc.byID("invite-email").attr("aria-invalid"), addr)
	}
	require.Zero(t, f.count(`SELECT count(*) FROM invites`))
	require.Zero(t, f.count(`SELECT count(*) FROM river_job WHERE kind = 'send_account_email'`))
	require.Zero(t, f.count(`SELECT count(*) FROM audit_log WHERE action LIKE 'invite.%'`))
	// A public address is still invited.
	res := admin.post("/orgs/acme/members/invite", url.Values{"email": {"nia@acme.example"}, "role": {"member"}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
}

// A new org's first admin is invited: the same rule, beside admin_email,
// nothing created.
func TestNewOrgRefusesAnAdminAddressWeNeverSendTo(t *testing.T) {
	t.Parallel()
	f := setup(t)
	staff := f.as(&f.staff)
	before := fingerprint(t, f)
	for _, addr := range []string{"root@[127.0.0.1]", "postmaster@localhost", "it@printer.local"} {
		res := staff.post("/staff/orgs", url.Values{"slug": {"newco"}, "name": {"New Co"}, "admin_email": {addr}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, addr)
		require.Contains(t, parseDoc(t, res.Body).byID("admin_email-error").text(), "public domain", addr)
	}
	require.Equal(t, before, fingerprint(t, f), "nothing created")
}

// A technician's email, by the form and by the API: the same rule.
func TestTechnicianEmailRefusesAddressesWeNeverSendTo(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)
	api := f.api(f.newToken(f.orgA, "sync"))
	for addr, word := range badRecipients {
		if word == "valid email address" {
			word = "not an email address"
		}
		res := admin.post("/orgs/acme/technicians", url.Values{"name": {"Zoe"}, "email": {addr}, "active": {"true"}})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", addr, res.Body)
		require.Contains(t, res.Body, word, addr)
		r := api.Put("/api/v1/technicians/T-1", map[string]any{"name": "Zoe", "email": addr})
		fields := apitest.RequireError(t, r, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, fields["email"], word, addr)
	}
	require.Zero(t, f.count(`SELECT count(*) FROM technicians`))
}

// The briefing's recipients, by the form and the JSON editor.
func TestDeliveryRecipientsRefuseAddressesWeNeverSendTo(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, pariswDoc)
	admin := f.as(&f.adminA)
	before := storedConfig(t, f, f.orgA.ID)
	for _, addr := range []string{"root@[127.0.0.1]", "postmaster@localhost", "zoe@lonestar", "ops@db.internal", "Ops <ops@printer.local>"} {
		r := admin.post(settingsPath, deliveryForm("dispatch@acme.example\n"+addr, "", ""))
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, addr)
		require.Contains(t, parseDoc(t, r.Body).byID("delivery_email_to-error").text(), "after the @", addr)
		r = admin.post(settingsPath+"/json", jsonWithDelivery(`{"email":{"to":["dispatch@acme.example",`+jsonQuote(addr)+`]}}`))
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, addr)
		require.Contains(t, parseDoc(t, r.Body).byID("config_json-error").text(), "after the @", addr)
	}
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The page words the refusal in the reader's language, from its code.
func TestInviteRefusalInTheOrgsLanguage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.setLocale(f.orgA.ID, "de-DE")
	res := f.as(&f.adminA).post("/orgs/acme/members/invite", url.Values{"email": {"postmaster@localhost"}, "role": {"member"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	require.Contains(t, parseDoc(t, res.Body).byID("email-error").text(), "öffentlichen Domain")
}
