package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"fieldbrief/internal/text"
)

const (
	secretPrefix = "whsec_"
	// secretBytes is what NewWebhookSecret draws; ValidWebhookSecret accepts
	// 24–64 bytes so that a secret made elsewhere can be kept.
	secretBytes    = 32
	minSecretBytes = 24
	maxSecretBytes = 64
)

// NewWebhookSecret returns a new signing secret: whsec_ and the standard
// base64 of 32 random bytes, the form Standard Webhooks libraries read.
func NewWebhookSecret() string {
	b := make([]byte, secretBytes)
	// crypto/rand.Read never fails on supported platforms (it panics rather
	// than return weak bytes), so there is no error to handle.
	rand.Read(b)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ValidWebhookSecret reports whether s is whsec_ and the standard base64 of
// 24 to 64 bytes.
func ValidWebhookSecret(s string) bool {
	enc, ok := strings.CutPrefix(s, secretPrefix)
	if !ok {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	return err == nil && len(key) >= minSecretBytes && len(key) <= maxSecretBytes
}

// Webhook is one signed POST.
type Webhook struct {
	URL string
	// ID is the webhook-id header: the same on every retry of one event, so
	// the receiver can drop duplicates.
	ID string
	// Timestamp is signed with the payload (webhook-timestamp). Receivers
	// refuse signatures more than a few minutes old, so it is the time of
	// this attempt, not of the event; zero means now.
	Timestamp time.Time
	Payload   []byte // JSON
	Secret    string // whsec_…
}

// Result is what the receiver answered.
type Result struct {
	Status      int
	Duration    time.Duration
	BodySnippet string // the start of the response body, one line
}

const (
	webhookTimeout = 10 * time.Second
	// maxResponseBody is read from a response at most: we only show a
	// snippet, and a receiver must not be able to make us read forever.
	maxResponseBody = 64 << 10
	snippetLen      = 200
	// maxRetryAfter bounds a receiver's Retry-After: River's backoff takes
	// over beyond that.
	maxRetryAfter = time.Hour
	userAgent     = "fieldbrief-webhooks/1"
)

// WebhookClient posts webhooks. Without AllowPrivate it refuses, at connect
// time, addresses outside the public internet. Use it through a pointer: its
// HTTP client is built on first use and then shared.
type WebhookClient struct {
	AllowPrivate bool

	once sync.Once
	http *http.Client
}

func (c *WebhookClient) httpClient() *http.Client {
	c.once.Do(func() {
		dialer := &net.Dialer{Timeout: webhookTimeout, KeepAlive: 30 * time.Second}
		if !c.AllowPrivate {
			dialer.Control = guardControl
		}
		c.http = &http.Client{
			Transport: &http.Transport{
				// No proxy from the environment: the proxy would make the
				// connection and our address check would see only the proxy.
				Proxy:                 nil,
				DialContext:           dialer.DialContext,
				ForceAttemptHTTP2:     true,
				TLSHandshakeTimeout:   webhookTimeout,
				MaxIdleConns:          100,
				MaxIdleConnsPerHost:   4,
				IdleConnTimeout:       90 * time.Second,
				ResponseHeaderTimeout: webhookTimeout,
			},
			// A redirect could lead anywhere, and the receiver's URL is
			// what the admin saved: report it rather than follow it.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return c.http
}

// Post signs and sends w. A 2xx answer is success; anything else is an
// *Error saying whether to retry, with the Result of the answer if one came.
func (c *WebhookClient) Post(ctx context.Context, w Webhook) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := c.request(ctx, w)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return Result{Duration: time.Since(start)}, classifyHTTPError(ctx, err)
	}
	defer resp.Body.Close()
	// Read at most the cap; closing the body then drops the connection
	// instead of draining the rest. A failure to read the body is ignored:
	// the status is the answer, the body only a snippet for the log.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	res := Result{Status: resp.StatusCode, Duration: time.Since(start), BodySnippet: clip(string(body), snippetLen)}
	return res, classifyStatus(resp, time.Now())
}

// request builds the signed request; its errors are permanent, since the
// same webhook would fail the same way again.
func (c *WebhookClient) request(ctx context.Context, w Webhook) (*http.Request, error) {
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, permanent("", "the webhook URL is not an http(s) URL with a host", nil)
	}
	if !text.URLPortOK(u.Host) {
		return nil, permanent("", "the webhook URL's port is not one from 1 to 65535", nil)
	}
	if w.ID == "" || strings.ContainsAny(w.ID, "\r\n") {
		return nil, permanent("", "the webhook id is missing or not one line", nil)
	}
	if !ValidWebhookSecret(w.Secret) {
		// Never quote the secret.
		return nil, permanent("", "the webhook secret is not a valid whsec_ secret", nil)
	}
	signer, err := standardwebhooks.NewWebhook(w.Secret)
	if err != nil {
		return nil, permanent("", "the webhook secret cannot be used", nil)
	}
	ts := w.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	sig, err := signer.Sign(w.ID, ts, w.Payload)
	if err != nil {
		return nil, fmt.Errorf("sign webhook %s: %w", w.ID, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(w.Payload))
	if err != nil {
		return nil, permanent("", "the webhook request cannot be built", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(standardwebhooks.HeaderWebhookID, w.ID)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
	return req, nil
}

// classifyStatus maps an answer to nil (2xx) or an *Error: 408, 429 and
// 5xx are temporary, every other status permanent.
func classifyStatus(resp *http.Response, now time.Time) error {
	code := resp.StatusCode
	status := strconv.Itoa(code)
	text := status + " " + http.StatusText(code)
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		e := temporary(status, text, nil)
		e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
		return e
	case code >= 300 && code < 400:
		detail := text + ": redirects are not followed"
		if loc := resp.Header.Get("Location"); loc != "" {
			detail += "; save the final URL instead of " + loc
		}
		return permanent(status, detail, nil)
	default:
		return permanent(status, text, nil)
	}
}

// retryAfter reads a Retry-After value, seconds or an HTTP date, clamped to
// [0, maxRetryAfter]; 0 when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// classifyHTTPError maps a failure to get an answer: a refused address is
// permanent, everything else (DNS, connection, TLS, timeout) temporary.
func classifyHTTPError(ctx context.Context, err error) *Error {
	var refused *refusedError
	if errors.As(err, &refused) {
		return permanent("", refused.Error(), err)
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return temporary("", "no answer within the time limit", fmt.Errorf("%w: %w", ctx.Err(), err))
		}
		return temporary("", "cancelled", fmt.Errorf("%w: %w", ctx.Err(), err))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return temporary("", "no answer within the time limit", err)
	}
	// url.Error's text repeats the method and URL, which the attempt log
	// has; its cause is the informative part.
	var ue *url.Error
	if errors.As(err, &ue) {
		return temporary("", ue.Err.Error(), err)
	}
	return temporary("", err.Error(), err)
}
