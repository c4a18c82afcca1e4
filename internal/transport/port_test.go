package transport_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/transport"
)

// docs/security.md, "Deliveries to dropped addresses; webhook ports": a webhook URL's port is 1–65535, or none (the
// scheme's own). 0 and 65536 are refused on save with a clear error, and
// at send time as permanent failures (a URL stored before the rule).
func TestWebhookURLPortIsOneTo65535(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"https://hooks.example.com:1/x", "https://hooks.example.com:65535/x", "https://hooks.example.com:443/x",
		"https://hooks.example.com/x", "https://[2606:4700::1111]:8443/x"} {
		require.NoError(t, transport.CheckWebhookURL(u, false), u)
	}
	for _, u := range []string{"https://hooks.example.com:0/x", "https://hooks.example.com:65536/x", "https://hooks.example.com:00000/x",
		"https://hooks.example.com:99999999999999999999/x", "https://[2606:4700::1111]:0/x", "http://127.0.0.1:0/x", "https://hooks.example.com:/x"} {
		err := transport.CheckWebhookURL(u, true)
		require.Error(t, err, u)
		require.Equal(t, apperr.Invalid, apperr.Code(err), u)
		require.Contains(t, apperr.Message(err), "port", u)
		require.Contains(t, apperr.Message(err), "65535", u)

		_, err = (&transport.WebhookClient{AllowPrivate: true}).Post(context.Background(), testWebhook(u, transport.NewWebhookSecret()))
		require.True(t, transport.IsPermanent(err), u)
		require.ErrorContains(t, err, "port", u)
	}
}
