// Package apitest has the test helpers for the JSON API that the tests of
// internal/api (the API alone) and internal/web (the API mounted in the
// whole server) share: a client that calls it with one bearer token, a
// check of its error envelope, a raw request for a test's own goroutine,
// and the token and settings a test's org needs. Only tests import it.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/tokens"
)

// Response is an API answer, its body decoded.
type Response struct {
	Code   int
	Header http.Header
	Body   string
	JSON   map[string]any
}

// requestGuard ends a request that will never be answered, saying which
// one; it does not measure speed: a busy machine's race-detector build took
// over 30 s for a 12 MB briefing. It is testutil.Settle, which this package
// cannot import (only tests may name every table, migrations/owners_test.go).
const requestGuard = 5 * time.Minute

// Client calls the API with one bearer token and no cookies.
type Client struct {
	t     testing.TB
	base  string
	token string
	hc    *http.Client
}

// NewClient returns a client of the API served at base ("" token: none
// sent), with a transport of its own.
func NewClient(t testing.TB, base, token string) *Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	return &Client{t: t, base: base, token: token, hc: &http.Client{Transport: transport, Timeout: requestGuard}}
}

// Call sends body (a string or []byte as is, anything else as JSON) with
// the token and headers (name, value pairs), and requires a JSON answer.
func (a *Client) Call(method, path string, body any, headers ...string) Response {
	a.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(a.t, err)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	require.NoError(a.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := a.hc.Do(req)
	require.NoError(a.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	out := Response{Code: res.StatusCode, Header: res.Header, Body: string(raw)}
	require.Equal(a.t, "application/json", strings.Split(res.Header.Get("Content-Type"), ";")[0],
		"%s %s: every API answer is JSON; got %d %q", method, path, res.StatusCode, raw)
	require.NoError(a.t, json.Unmarshal(raw, &out.JSON), "%s %s: %s", method, path, raw)
	return out
}

// Get is Call of GET.
func (a *Client) Get(path string) Response { return a.Call(http.MethodGet, path, nil) }

// Put is Call of PUT.
func (a *Client) Put(path string, body any) Response { return a.Call(http.MethodPut, path, body) }

// RequireError checks the error envelope of docs/api.md, "Errors" and returns its fields.
func RequireError(t testing.TB, r Response, status int, code string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Code, r.Body)
	e, ok := r.JSON["error"].(map[string]any)
	require.True(t, ok, "no error object: %s", r.Body)
	require.Equal(t, code, e["code"], r.Body)
	require.NotEmpty(t, e["message"], r.Body)
	fields, ok := e["fields"].(map[string]any)
	require.True(t, ok, "no fields object: %s", r.Body)
	return fields
}

// JSONAt returns the JSON at a path of object keys, re-encoded.
func JSONAt(t testing.TB, body string, keys ...string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	for _, k := range keys {
		m, ok := v.(map[string]any)
		require.True(t, ok, "%s: no object at %q", body, k)
		v = m[k]
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// RawAnswer is the answer to Raw, or its error, and how long it took.
type RawAnswer struct {
	Code   int
	Header http.Header
	Body   string
	Err    error
	Took   time.Duration
}

// Raw sends one API request without a test's require, so that it can run
// on a goroutine of its own while the test holds what it waits for.
func Raw(base, token, method, path, contentType, body string) RawAnswer {
	start := time.Now()
	a := raw(base, token, method, path, contentType, body)
	a.Took = time.Since(start)
	return a
}

func raw(base, token, method, path, contentType, body string) RawAnswer {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return RawAnswer{Err: err}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return RawAnswer{Err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return RawAnswer{Code: res.StatusCode, Header: res.Header, Body: string(b), Err: err}
}

// NewToken creates a write token of o (as its first admin would) at now
// and returns it.
func NewToken(t testing.TB, st *tokens.Store, o tenants.Org, name string, now time.Time) string {
	t.Helper()
	_, token, err := st.Create(context.Background(), audit.Actor{Email: "admin@" + o.Slug + ".test"}, o.ID, name, tokens.ScopeWrite, now)
	require.NoError(t, err)
	return token
}

// SetZone saves o's briefing settings in zone (07:00 every day).
func SetZone(t testing.TB, st *tenants.Store, o tenants.Org, zone string) {
	t.Helper()
	_, err := st.SaveFieldforce(context.Background(), audit.System, o.ID,
		[]byte(`{"briefing":{"timezone":"`+zone+`","schedule_local_time":"07:00"}}`), tenants.AnyVersion)
	require.NoError(t, err)
}
