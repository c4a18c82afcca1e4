package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// docs/security.md, "Deliveries to dropped addresses; webhook ports": a webhook URL's port is 1–65535, by the form and the
// JSON editor, beside the field; nothing saved.
func TestWebhookURLPortOutOfRangeIsRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	saveConfig(t, f, f.orgA.ID, pariswDoc)
	admin := f.as(&f.adminA)
	before := storedConfig(t, f, f.orgA.ID)
	for _, hook := range []string{"https://hooks.acme.example:0/x", "https://hooks.acme.example:65536/x"} {
		r := admin.post(settingsPath, deliveryForm("", "", hook))
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, hook)
		require.Contains(t, parseDoc(t, r.Body).byID("delivery_webhook_url-error").text(), "port from 1 to 65535", hook)
		r = admin.post(settingsPath+"/json", jsonWithDelivery(`{"webhook":{"url":"`+hook+`"}}`))
		require.Equal(t, http.StatusUnprocessableEntity, r.Code, hook)
		require.Contains(t, parseDoc(t, r.Body).byID("config_json-error").text(), "port from 1 to 65535", hook)
	}
	require.Equal(t, before, storedConfig(t, f, f.orgA.ID), "nothing saved")
}
