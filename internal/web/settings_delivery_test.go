package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
)

const pariswDoc = `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00"}}`

// deliveryForm is a valid schedule submission with the Delivery section.
func deliveryForm(to, technicians, webhook string) url.Values {
	f := scheduleForm("Europe/Paris", "08:00", "mon")
	f.Set("delivery_email_to", to)
	f.Set("delivery_webhook_url", webhook)
	if technicians != "" {
		f.Set("delivery_email_technicians", technicians)
	}
	return f
}

// jsonWithDelivery is a valid briefing with the given delivery member.
func jsonWithDelivery(delivery string) url.Values {
	return url.Values{"config_json": {`{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"]},"delivery":` + delivery + `}`}}
}

// Each bad delivery is refused through both editors: 422, the message beside
// the field it concerns, and nothing saved.
func TestSettingsDeliveryRejects(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, pariswDoc)
	admin := f.as(&f.adminA)
	many := make([]string, 21)
	for i := range many {
		many[i] = "r" + strings.Repeat("x", i) + "@acme.example"
	}
	quoted := make([]string, len(many))
	for i, a := range many {
		quoted[i] = `"` + a + `"`
	}

	for _, tc := range []struct {
		name      string
		form      url.Values
		field     string // the form field the message is beside
		json      url.Values
		path, msg string // the JSON path (markup only) and the message both show
	}{
		{"not an address",
			deliveryForm("dispatch@acme.example\nnot-an-address", "", ""), "delivery_email_to",
			jsonWithDelivery(`{"email":{"to":["dispatch@acme.example","not-an-address"]}}`),
			"delivery.email.to[1]", `"not-an-address" is not an email address`},
		{"duplicate ignoring case",
			deliveryForm("dispatch@acme.example, DISPATCH@acme.example", "", ""), "delivery_email_to",
			jsonWithDelivery(`{"email":{"to":["dispatch@acme.example","DISPATCH@acme.example"]}}`),
			"delivery.email.to[1]", "is already listed"},
		{"too many",
			deliveryForm(strings.Join(many, "\n"), "", ""), "delivery_email_to",
			jsonWithDelivery(`{"email":{"to":[` + strings.Join(quoted, ",") + `]}}`),
			"delivery.email.to", "at most 20 addresses"},
		{"technicians not a bool",
			deliveryForm("dispatch@acme.example", "perhaps", ""), "delivery_email_technicians",
			jsonWithDelivery(`{"email":{"to":["dispatch@acme.example"],"technicians":"perhaps"}}`),
			"delivery.email.technicians", "must be true or false"},
		{"webhook not https",
			deliveryForm("", "", "ftp://hooks.acme.example/x"), "delivery_webhook_url",
			jsonWithDelivery(`{"webhook":{"url":"ftp://hooks.acme.example/x"}}`),
			"delivery.webhook.url", "must start with https://"},
		{"webhook with a password",
			deliveryForm("", "", "https://user:pw@hooks.acme.example/x"), "delivery_webhook_url",
			jsonWithDelivery(`{"webhook":{"url":"https://user:pw@hooks.acme.example/x"}}`),
			"delivery.webhook.url", "must not contain a user name or password"},
		{"webhook too long",
			deliveryForm("", "", "https://hooks.acme.example/"+strings.Repeat("a", 2048)), "delivery_webhook_url",
			jsonWithDelivery(`{"webhook":{"url":"https://hooks.acme.example/` + strings.Repeat("a", 2048) + `"}}`),
			"delivery.webhook.url", "at most 2048 characters"},
		{"webhook to a private address",
			deliveryForm("", "", "https://10.0.0.1/hook"), "delivery_webhook_url",
			jsonWithDelivery(`{"webhook":{"url":"https://10.0.0.1/hook"}}`),
			"delivery.webhook.url", "10.0.0.1 is a private address; use a public address"},
		{"webhook over http",
			deliveryForm("", "", "http://hooks.acme.example/x"), "delivery_webhook_url",
			jsonWithDelivery(`{"webhook":{"url":"http://hooks.acme.example/x"}}`),
			"delivery.webhook.url", "must start with https:// so that the briefing is encrypted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := storedConfig(t, f, f.orgA.ID)

			r := admin.post(settingsPath, tc.form)
			require.Equal(t, http.StatusUnprocessableEntity, r.Code)
			require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")
			doc := parseDoc(t, r.Body)
			require.Contains(t, doc.byID(tc.field+"-error").text(), tc.msg, "the message is beside the field")
			input := doc.byID(tc.field)
			require.Equal(t, "true", input.attr("aria-invalid"))
			require.Contains(t, strings.Fields(input.attr("aria-describedby")), tc.field+"-error")
			require.Equal(t, tc.form.Get("delivery_webhook_url"), doc.byID("delivery_webhook_url").attr("value"), "the input is kept")
			require.Equal(t, strings.Join(strings.Fields(tc.form.Get("delivery_email_to")), " "), doc.byID("delivery_email_to").text())

			r = admin.post(settingsPath+"/json", tc.json)
			require.Equal(t, http.StatusUnprocessableEntity, r.Code)
			require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")
			jsonErrs := parseDoc(t, r.Body).byID("config_json-error")
			require.Contains(t, jsonErrs.text(), tc.msg)
			require.NotContains(t, jsonErrs.text(), tc.path, "plain words, no JSON path")
			require.NotNil(t, jsonErrs.find(attrIs("data-field", tc.path)), "the path is kept for the markup")
		})
	}
}

func TestSettingsDeliverySaves(t *testing.T) {
	t.Parallel()
	f := setup(t)
	admin := f.as(&f.adminA)

	// Display names dropped, commas, semicolons and lines all separate, blanks ignored.
	r := admin.post(settingsPath, deliveryForm("Dispatch Desk <dispatch@acme.example>,\n\n ops@acme.example; nights@acme.example ", "true", " https://hooks.acme.example/fieldbrief "))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	want := `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"],"enabled":true},` +
		`"delivery":{"email":{"to":["dispatch@acme.example","ops@acme.example","nights@acme.example"],"technicians":true},` +
		`"webhook":{"url":"https://hooks.acme.example/fieldbrief"}}}`
	saved := storedConfig(t, f, f.orgA.ID)
	require.JSONEq(t, want, saved.Raw)

	doc := parseDoc(t, admin.get(settingsPath).Body)
	require.Equal(t, "dispatch@acme.example ops@acme.example nights@acme.example", doc.byID("delivery_email_to").text())
	require.Equal(t, []string{"true"}, doc.checked("delivery_email_technicians"))
	require.Equal(t, "https://hooks.acme.example/fieldbrief", doc.byID("delivery_webhook_url").attr("value"))
	require.Contains(t, doc.byID("config_json").text(), `"technicians": true`)

	// A client that posts only the schedule keeps the stored delivery.
	r = admin.post(settingsPath, scheduleForm("Europe/Paris", "09:00", "mon"))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.JSONEq(t, strings.Replace(want, `"08:00"`, `"09:00"`, 1), storedConfig(t, f, f.orgA.ID).Raw)

	// Technicians alone is enough for email; an emptied section removes the key.
	r = admin.post(settingsPath, deliveryForm("", "true", ""))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.JSONEq(t, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"],"enabled":true},"delivery":{"email":{"technicians":true}}}`,
		storedConfig(t, f, f.orgA.ID).Raw)
	r = admin.post(settingsPath, deliveryForm("", "", ""))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.JSONEq(t, `{"briefing":{"timezone":"Europe/Paris","schedule_local_time":"08:00","days":["mon"],"enabled":true}}`,
		storedConfig(t, f, f.orgA.ID).Raw)

	// The JSON editor saves the canonical form too.
	r = admin.post(settingsPath+"/json", jsonWithDelivery(`{"email": {"to": ["Ops <ops@acme.example>"], "technicians": false}, "webhook": {"url": "https://hooks.acme.example/x"}}`))
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Equal(t, `{"briefing": {"days": ["mon"], "timezone": "Europe/Paris", "schedule_local_time": "08:00"}, "delivery": {"email": {"to": ["ops@acme.example"]}, "webhook": {"url": "https://hooks.acme.example/x"}}}`,
		storedConfig(t, f, f.orgA.ID).Raw)

	// Pausing keeps the delivery.
	r = admin.post(settingsPath+"/enabled", url.Values{"enabled": {"false"}})
	require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
	require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, `"webhook": {"url": "https://hooks.acme.example/x"}`)

	// Every save is audited old → new, as for the schedule.
	entries, err := f.store.Audit.ForOrg(context.Background(), f.orgA.ID, 20)
	require.NoError(t, err)
	require.Len(t, entries, 6)
	for _, e := range entries {
		require.Equal(t, "fieldforce.config.update", e.Action)
	}
}

// WEBHOOK_ALLOW_PRIVATE_NETWORKS decides whether a local receiver may be saved.
func TestSettingsWebhookPrivateNetworks(t *testing.T) {
	t.Parallel()
	const local = "http://127.0.0.1:9/x"
	for _, allow := range []bool{false, true} {
		f := setupConfig(t, func(c *config.Web) { c.AllowPrivateWebhooks = allow })
		admin := f.as(&f.adminA)
		r := admin.post(settingsPath, deliveryForm("", "", local))
		rj := admin.post(settingsPath+"/json", jsonWithDelivery(`{"webhook":{"url":"`+local+`"}}`))
		if !allow {
			require.Equal(t, http.StatusUnprocessableEntity, r.Code)
			require.Contains(t, parseDoc(t, r.Body).byID("delivery_webhook_url-error").text(), "must start with https://")
			require.Equal(t, http.StatusUnprocessableEntity, rj.Code)
			require.Empty(t, storedConfig(t, f, f.orgA.ID).Raw)
			continue
		}
		require.Equal(t, http.StatusSeeOther, r.Code, r.Body)
		require.Equal(t, http.StatusSeeOther, rj.Code, rj.Body)
		require.Contains(t, storedConfig(t, f, f.orgA.ID).Raw, local)
	}
}
