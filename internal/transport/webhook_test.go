package transport_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"fieldbrief/internal/apperr"
	"fieldbrief/internal/testutil"
	"fieldbrief/internal/transport"
)

const testPayload = `{"type":"briefing.ready","timestamp":"2026-03-09T11:45:00Z","data":{"org":"northwind"}}`

func testWebhook(url, secret string) transport.Webhook {
	return transport.Webhook{URL: url, ID: "msg_briefing_42", Payload: []byte(testPayload), Secret: secret}
}

// receiver answers with handler after checking, for every request, what any
// receiver of ours may rely on.
func receiver(t *testing.T, secret string, handler http.HandlerFunc) *httptest.Server {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if !assertNoErr(t, err) || !assertNoErr(t, wh.Verify(body, r.Header)) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" ||
			r.Header.Get("User-Agent") != "fieldbrief-webhooks/1" {
			t.Errorf("request %s %q %q", r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"))
		}
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// assertNoErr reports err from a handler goroutine, where FailNow must not be called.
func assertNoErr(t *testing.T, err error) bool {
	if err != nil {
		t.Errorf("receiver: %v", err)
	}
	return err == nil
}

func TestWebhookSigned(t *testing.T) {
	t.Parallel()
	secret := transport.NewWebhookSecret()
	headers := make(chan http.Header, 1)
	srv := receiver(t, secret, func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		w.Write([]byte("thanks"))
	})
	client := &transport.WebhookClient{AllowPrivate: true}

	res, err := client.Post(context.Background(), testWebhook(srv.URL, secret))
	require.NoError(t, err)
	require.Equal(t, 200, res.Status)
	require.Equal(t, "thanks", res.BodySnippet)
	require.Positive(t, res.Duration)
	h := <-headers
	require.Equal(t, "msg_briefing_42", h.Get("webhook-id"))
	require.True(t, strings.HasPrefix(h.Get("webhook-signature"), "v1,"))
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), time.Unix(ts, 0), time.Minute)
}

// A receiver with another secret refuses the signature.
func TestWebhookWrongSecret(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wh, _ := standardwebhooks.NewWebhook(transport.NewWebhookSecret())
		body, _ := io.ReadAll(r.Body)
		if wh.Verify(body, r.Header) != nil {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	_, err := (&transport.WebhookClient{AllowPrivate: true}).Post(context.Background(), testWebhook(srv.URL, transport.NewWebhookSecret()))
	require.True(t, transport.IsPermanent(err), "%v", err)
}

func TestWebhookClassification(t *testing.T) {
	t.Parallel()
	secret := transport.NewWebhookSecret()
	cases := []struct {
		name       string
		handler    http.HandlerFunc
		permanent  bool
		code       string
		retryAfter time.Duration
		detail     string
	}{
		{"503", status(503, nil), false, "503", 0, "503 Service Unavailable"},
		{"500", status(500, nil), false, "500", 0, ""},
		{"408", status(408, nil), false, "408", 0, ""},
		{"429 with Retry-After", status(429, http.Header{"Retry-After": {"120"}}), false, "429", 2 * time.Minute, ""},
		{"503 with a huge Retry-After", status(503, http.Header{"Retry-After": {"86400"}}), false, "503", time.Hour, ""},
		{"410", status(410, nil), true, "410", 0, "410 Gone"},
		{"400", status(400, nil), true, "400", 0, ""},
		{"302 not followed", status(302, http.Header{"Location": {"https://elsewhere.example/hook"}}), true, "302", 0, "not followed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := receiver(t, secret, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				tc.handler(w, r)
			})
			res, err := (&transport.WebhookClient{AllowPrivate: true}).Post(context.Background(), testWebhook(srv.URL, secret))
			var de *transport.Error
			require.ErrorAs(t, err, &de)
			require.Equal(t, tc.permanent, de.Permanent)
			require.Equal(t, tc.code, de.Code)
			require.Equal(t, tc.retryAfter, de.RetryAfter)
			require.Equal(t, tc.retryAfter, transport.RetryAfter(err))
			require.Contains(t, de.Detail, tc.detail)
			require.Equal(t, tc.code, strconv.Itoa(res.Status))
			require.Equal(t, int32(1), calls.Load(), "one request, no redirect followed")
		})
	}
}

func status(code int, h http.Header) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range h {
			w.Header()[k] = v
		}
		w.WriteHeader(code)
	}
}

// The client reads at most 64 KiB of a response and then hangs up.
func TestWebhookBodyCapped(t *testing.T) {
	t.Parallel()
	secret := transport.NewWebhookSecret()
	const huge = 256 << 20
	written := make(chan int64, 1)
	srv := receiver(t, secret, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		chunk := []byte(strings.Repeat("x", 32<<10))
		var n int64
		for n < huge {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		written <- n
	})
	res, err := (&transport.WebhookClient{AllowPrivate: true}).Post(context.Background(), testWebhook(srv.URL, secret))
	require.NoError(t, err)
	require.Equal(t, 200, res.Status)
	require.LessOrEqual(t, len(res.BodySnippet), 200*3)
	select {
	case n := <-written:
		t.Logf("the receiver wrote %d bytes before the client hung up", n)
		require.Less(t, n, int64(huge), "the receiver could write the whole body: it was read past the cap")
	case <-time.After(testutil.Settle):
		t.Fatal("the receiver is still writing: the client did not hang up")
	}
}

func TestWebhookTimeoutIsTemporary(t *testing.T) {
	t.Parallel()
	secret := transport.NewWebhookSecret()
	release := make(chan struct{})
	srv := receiver(t, secret, func(w http.ResponseWriter, r *http.Request) { <-release })
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()

	_, err := (&transport.WebhookClient{AllowPrivate: true}).Post(ctx, testWebhook(srv.URL, secret))
	var de *transport.Error
	require.ErrorAs(t, err, &de)
	require.False(t, de.Permanent)
	require.Empty(t, de.Code)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestWebhookRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	secret := transport.NewWebhookSecret()
	var calls atomic.Int32
	srv := receiver(t, secret, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) })
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]

	for _, tc := range []struct{ url, detail string }{
		{"http://127.0.0.1" + port, "127.0.0.1 is a loopback address"},
		{"http://[::ffff:127.0.0.1]" + port, "loopback"},
		{"http://localhost" + port, "loopback"},
		{"http://10.0.0.1/hook", "10.0.0.1 is a private address"},
		{"http://169.254.169.254/latest/meta-data", "169.254.169.254 is a link-local address"},
		{"http://100.64.0.1/hook", "CGNAT"},
		{"http://0.0.0.0" + port, "unspecified"},
		{"http://[::1]" + port, "loopback"},
	} {
		_, err := (&transport.WebhookClient{}).Post(context.Background(), testWebhook(tc.url, secret))
		var de *transport.Error
		require.ErrorAs(t, err, &de, tc.url)
		require.True(t, de.Permanent, tc.url)
		require.Empty(t, de.Code, tc.url)
		require.Contains(t, de.Detail, "refused: ", tc.url)
		require.Contains(t, de.Detail, tc.detail, tc.url)
	}
	require.Zero(t, calls.Load())

	allowed := &transport.WebhookClient{AllowPrivate: true}
	for _, u := range []string{"http://127.0.0.1" + port, "http://localhost" + port} {
		res, err := allowed.Post(context.Background(), testWebhook(u, secret))
		require.NoError(t, err, u)
		require.Equal(t, 200, res.Status)
	}
	require.Equal(t, int32(2), calls.Load())
}

// A proxy in the environment would make the connection for us, past the
// address check: the client ignores it.
func TestWebhookIgnoresProxyEnvironment(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://203.0.113.9:3128")
	t.Setenv("http_proxy", "http://203.0.113.9:3128")
	secret := transport.NewWebhookSecret()
	srv := receiver(t, secret, status(204, nil))
	res, err := (&transport.WebhookClient{AllowPrivate: true}).Post(context.Background(), testWebhook(srv.URL, secret))
	require.NoError(t, err)
	require.Equal(t, 204, res.Status)
}

func TestWebhookBadInput(t *testing.T) {
	t.Parallel()
	secret := transport.NewWebhookSecret()
	for name, w := range map[string]transport.Webhook{
		"ftp url":    testWebhook("ftp://example.com/x", secret),
		"no id":      {URL: "https://example.com", Payload: []byte("{}"), Secret: secret},
		"bad secret": testWebhook("https://example.com", "whsec_tooshort"),
	} {
		_, err := (&transport.WebhookClient{}).Post(context.Background(), w)
		require.True(t, transport.IsPermanent(err), name)
		require.NotContains(t, err.Error(), secret, name)
	}
}

func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	a, b := transport.NewWebhookSecret(), transport.NewWebhookSecret()
	require.NotEqual(t, a, b)
	require.True(t, strings.HasPrefix(a, "whsec_"))
	require.Len(t, a, len("whsec_")+44) // base64 of 32 bytes
	require.True(t, transport.ValidWebhookSecret(a))
	for _, s := range []string{
		"", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_!!!!",
		"whsec_" + strings.Repeat("A", 28), // 21 bytes: too short
		"whsec_" + strings.Repeat("A", 88), // 66 bytes: too long
	} {
		require.False(t, transport.ValidWebhookSecret(s), s)
	}
	require.True(t, transport.ValidWebhookSecret("whsec_"+strings.Repeat("A", 32))) // 24 bytes
}

func TestCheckWebhookURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		msg          string // "" when valid
	}{
		{"https://hooks.example.com/fieldbrief", false, ""},
		{"https://hooks.example.com:8443/x?token=1", false, ""},
		{"https://93.184.216.34/hook", false, ""},
		{"https://[2606:4700::1111]/hook", false, ""},
		{"http://hooks.example.com/x", false, "https://"},
		{"http://hooks.example.com/x", true, ""},
		{"http://127.0.0.1:8080/x", true, ""},
		{"http://localhost:8080/x", true, ""},
		{"", false, "Enter"},
		{"ftp://hooks.example.com/x", false, "https://"},
		{"ftp://hooks.example.com/x", true, "https://"},
		{"hooks.example.com/x", false, "https://"},
		{"https://user:pw@hooks.example.com/x", false, "user name or password"},
		{"https://hooks.example.com/x#frag", false, "fragment"},
		{"https:///x", false, "no host"},
		{"https://" + strings.Repeat("a", 2050) + ".com/", false, "2048"},
		{"https://localhost/x", false, "this server"},
		{"https://api.localhost/x", false, "this server"},
		{"https://LOCALHOST./x", false, "this server"},
		{"https://127.0.0.1/x", false, "127.0.0.1 is a loopback address"},
		{"https://[::1]/x", false, "loopback"},
		{"https://[::ffff:127.0.0.1]/x", false, "IPv4-mapped 127.0.0.1"},
		{"https://10.1.2.3/x", false, "private"},
		{"https://192.168.1.10/x", false, "private"},
		{"https://172.16.0.5/x", false, "private"},
		{"https://169.254.169.254/x", false, "link-local"},
		{"https://100.64.3.4/x", false, "CGNAT"},
		{"https://224.0.0.1/x", false, "multicast"},
		{"https://0.0.0.0/x", false, "unspecified"},
		{"https://[fc00::1]/x", false, "private"},
		{"https://[fe80::1]/x", false, "link-local"},
		{"https://[fe80::1%25eth0]/x", false, "link-local"},
		{"https://127.1/x", false, "not an IP address in the usual form"},
		{"https://2130706433/x", false, "not an IP address in the usual form"},
		{"https://0x7f000001/x", false, "not an IP address in the usual form"},
		{"https://0X7F000001/x", false, "not an IP address in the usual form"},
		{"https://10.1/x", false, "not an IP address in the usual form"},
		{"https://127.1/x", true, ""},
		{"https://1.example/hook", false, ""},
		{"https://hooks.example.co/x", false, ""},
	} {
		err := transport.CheckWebhookURL(tc.url, tc.allowPrivate)
		if tc.msg == "" {
			require.NoError(t, err, tc.url)
			continue
		}
		require.Error(t, err, tc.url)
		require.Equal(t, apperr.Invalid, apperr.Code(err), tc.url)
		require.Contains(t, apperr.Message(err), tc.msg, tc.url)
	}
}
