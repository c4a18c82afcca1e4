package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/testutil/freeport"
	"fieldbrief/internal/transport"
	"fieldbrief/internal/transport/transporttest"
)

func testMessage(t *testing.T) transport.Message {
	t.Helper()
	id, err := transport.MessageIDFor("briefing/7/rev/2/dana@example.com", "Fieldbrief <briefings@fieldbrief.test>")
	require.NoError(t, err)
	return transport.Message{
		From:           "Fieldbrief <briefings@fieldbrief.test>",
		To:             "dana@example.com",
		Subject:        "Northwind Heating & Air · briefing for Mon 9 Mar",
		Text:           "Good morning.\n3 jobs today.\n",
		HTML:           "<!doctype html><p>Good morning. <b>3 jobs</b> today.</p>",
		MessageID:      id,
		UnsubscribeURL: "https://app.fieldbrief.test/unsubscribe?t=abc.def",
		OrgID:          7,
	}
}

func smtpMailer(t *testing.T, rawURL string) *transport.SMTPMailer {
	t.Helper()
	c, err := transport.ParseSMTPURL(rawURL)
	require.NoError(t, err)
	return transport.NewSMTPMailer(c)
}

func TestSMTPMailerSends(t *testing.T) {
	t.Parallel()
	srv := transporttest.NewSMTPServer(t)
	msg := testMessage(t)

	require.NoError(t, smtpMailer(t, srv.URL).Send(context.Background(), msg))

	got := srv.Messages()
	require.Len(t, got, 1)
	require.Equal(t, "briefings@fieldbrief.test", got[0].From)
	require.Equal(t, []string{"dana@example.com"}, got[0].To)

	m, err := got[0].Parse()
	require.NoError(t, err)
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	require.NoError(t, err)
	require.Equal(t, msg.Subject, subject)
	require.Equal(t, "<"+msg.MessageID+">", m.Header.Get("Message-Id"))
	require.Equal(t, "<https://app.fieldbrief.test/unsubscribe?t=abc.def>", m.Header.Get("List-Unsubscribe"))
	require.Equal(t, "List-Unsubscribe=One-Click", m.Header.Get("List-Unsubscribe-Post"))
	require.Equal(t, "auto-generated", m.Header.Get("Auto-Submitted"))
	_, err = m.Header.Date()
	require.NoError(t, err, "Date header")

	// multipart/alternative: text first, then HTML (the last is preferred).
	mediaType, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mediaType)
	mr := multipart.NewReader(m.Body, params["boundary"])
	var types, bodies []string
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		ct, _, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		require.NoError(t, err)
		b, err := io.ReadAll(p)
		require.NoError(t, err)
		types, bodies = append(types, ct), append(bodies, string(b))
	}
	require.Equal(t, []string{"text/plain", "text/html"}, types)
	require.Equal(t, strings.ReplaceAll(msg.Text, "\n", "\r\n"), bodies[0])
	require.Equal(t, msg.HTML, bodies[1])

	text, html, err := got[0].Bodies()
	require.NoError(t, err)
	require.Contains(t, text, "3 jobs today.")
	require.Contains(t, html, "<b>3 jobs</b>")
}

func TestSMTPMailerRetryKeepsMessageID(t *testing.T) {
	t.Parallel()
	srv := transporttest.NewSMTPServer(t)
	srv.Script(451, 250)
	mailer, msg := smtpMailer(t, srv.URL), testMessage(t)

	err := mailer.Send(context.Background(), msg)
	var de *transport.Error
	require.ErrorAs(t, err, &de)
	require.False(t, de.Permanent)
	require.Equal(t, "451", de.Code)
	require.Contains(t, de.Detail, "451")
	require.False(t, transport.IsPermanent(err))
	require.Empty(t, srv.Messages())

	require.NoError(t, mailer.Send(context.Background(), msg))
	got := srv.Messages()
	require.Len(t, got, 1)
	require.Equal(t, 2, srv.Attempts())
	m, err := got[0].Parse()
	require.NoError(t, err)
	require.Equal(t, "<"+msg.MessageID+">", m.Header.Get("Message-Id"))
}

func TestSMTPMailerPermanentRejection(t *testing.T) {
	t.Parallel()
	srv := transporttest.NewSMTPServer(t)
	srv.Script(550)

	err := smtpMailer(t, srv.URL).Send(context.Background(), testMessage(t))
	var de *transport.Error
	require.ErrorAs(t, err, &de)
	require.True(t, de.Permanent)
	require.Equal(t, "550", de.Code)
	require.True(t, transport.IsPermanent(err))
	require.NotContains(t, de.Detail, "affected message ID")
	require.LessOrEqual(t, len([]rune(de.Detail)), 200)
}

// smtp:// means STARTTLS is mandatory: a server that does not offer it
// gets nothing, not a message in clear.
func TestSMTPMailerRequiresStartTLS(t *testing.T) {
	t.Parallel()
	srv := transporttest.NewSMTPServer(t)
	plain := strings.TrimSuffix(srv.URL, "?tls=none")

	err := smtpMailer(t, plain).Send(context.Background(), testMessage(t))
	var de *transport.Error
	require.ErrorAs(t, err, &de)
	require.Contains(t, de.Detail, "STARTTLS")
	require.Empty(t, srv.Messages())
}

func TestSMTPMailerNetworkErrorIsTemporary(t *testing.T) {
	t.Parallel()
	port, err := freeport.Take() // nothing listens there
	require.NoError(t, err)

	err = smtpMailer(t, fmt.Sprintf("smtp://127.0.0.1:%d?tls=none", port)).Send(context.Background(), testMessage(t))
	var de *transport.Error
	require.ErrorAs(t, err, &de)
	require.False(t, de.Permanent)
	require.Empty(t, de.Code)
}

// A server that greets and then says nothing: the send ends with ctx.
func TestSMTPMailerHonoursContext(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "220 localhost ESMTP\r\n") // then silence
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()

	// Without the context the send would wait on the silent server for
	// good; it ends with the context's deadline as its cause.
	err = smtpMailer(t, "smtp://"+l.Addr().String()+"?tls=none").Send(ctx, testMessage(t))
	var de *transport.Error
	require.ErrorAs(t, err, &de)
	require.False(t, de.Permanent)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestMessageValidation(t *testing.T) {
	t.Parallel()
	srv := transporttest.NewSMTPServer(t)
	mailer := smtpMailer(t, srv.URL)
	for name, change := range map[string]func(*transport.Message){
		"bad recipient":       func(m *transport.Message) { m.To = "not an address" },
		"two-line subject":    func(m *transport.Message) { m.Subject = "a\r\nBcc: x@example.com" },
		"bracketed id":        func(m *transport.Message) { m.MessageID = "<a@b>" },
		"no text":             func(m *transport.Message) { m.Text = "" },
		"header in unsub url": func(m *transport.Message) { m.UnsubscribeURL = "https://x/\r\nBcc: y" },
	} {
		msg := testMessage(t)
		change(&msg)
		err := mailer.Send(context.Background(), msg)
		require.True(t, transport.IsPermanent(err), "%s: %v", name, err)
	}
	require.Zero(t, srv.Attempts())
}

func TestMessageIDFor(t *testing.T) {
	t.Parallel()
	a, err := transport.MessageIDFor("briefing/1/rev/1/a@example.com", "briefings@mail.fieldbrief.test")
	require.NoError(t, err)
	again, err := transport.MessageIDFor("briefing/1/rev/1/a@example.com", "Other Name <briefings@mail.fieldbrief.test>")
	require.NoError(t, err)
	other, err := transport.MessageIDFor("briefing/1/rev/2/a@example.com", "briefings@mail.fieldbrief.test")
	require.NoError(t, err)
	require.Equal(t, a, again)
	require.NotEqual(t, a, other)
	require.True(t, strings.HasSuffix(a, "@mail.fieldbrief.test"), a)
	require.NotContains(t, a, "example.com")
	_, err = transport.MessageIDFor("k", "not an address")
	require.Error(t, err)
}

func TestParseSMTPURL(t *testing.T) {
	t.Parallel()
	ok := []struct {
		raw  string
		want transport.SMTPConfig
	}{
		{"smtp://user:pa%23ss@mail.example.com:587", transport.SMTPConfig{Host: "mail.example.com", Port: 587, Username: "user", Password: "pa#ss", TLS: transport.StartTLS}},
		{"smtp://u%40x.com:secret@mail.example.com", transport.SMTPConfig{Host: "mail.example.com", Port: 587, Username: "u@x.com", Password: "secret", TLS: transport.StartTLS}},
		{"smtps://user:secret@mail.example.com:465", transport.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "user", Password: "secret", TLS: transport.ImplicitTLS}},
		{"smtps://user:secret@mail.example.com", transport.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "user", Password: "secret", TLS: transport.ImplicitTLS}},
		{"smtp://127.0.0.1:2525?tls=none", transport.SMTPConfig{Host: "127.0.0.1", Port: 2525, TLS: transport.NoTLS}},
		{"smtp://[::1]:1025/?tls=none", transport.SMTPConfig{Host: "::1", Port: 1025, TLS: transport.NoTLS}},
	}
	for _, tc := range ok {
		got, err := transport.ParseSMTPURL(tc.raw)
		require.NoError(t, err, tc.raw)
		require.Equal(t, tc.want, got, tc.raw)
	}

	bad := []struct{ raw, msg string }{
		{"", "scheme"},
		{"http://user:hunter2@mail.example.com", "scheme"},
		{"mail.example.com:587", "scheme"},
		{"smtp://user:hunter2@:587", "no host"},
		{"smtp://user:hunter2@mail.example.com:99999", "port"},
		{"smtp://user:hun/ter2@mail.example.com", "valid URL"},
		{"smtp://user:12/34@mail.example.com", "path"},
		{"smtp://user:hunter2@mail.example.com:abc", "valid URL"},
		{"smtp://user@mail.example.com", "password"},
		{"smtp://user:hun#ter2@mail.example.com", "#"},
		{"smtp://user:hunter2@mail.example.com/x", "path"},
		{"smtp://user:hunter2@mail.example.com?tls=maybe", "tls"},
		{"smtp://user:hunter2@mail.example.com?debug=1", "unknown parameter"},
		{"smtp://user:hunter2@127.0.0.1:2525?tls=none", "in clear"},
		{"smtps://127.0.0.1:2525?tls=none", "contradicts"},
		{"smtp://user:hunter2@mail example.com", ""},
	}
	for _, tc := range bad {
		_, err := transport.ParseSMTPURL(tc.raw)
		require.Error(t, err, tc.raw)
		require.Contains(t, err.Error(), tc.msg, tc.raw)
		require.NotContains(t, err.Error(), "hunter2", tc.raw)
		require.NotContains(t, err.Error(), "ter2", tc.raw)
	}
}

func TestSMTPConfigHidesPassword(t *testing.T) {
	t.Parallel()
	c, err := transport.ParseSMTPURL("smtp://user:hunter2@mail.example.com:587")
	require.NoError(t, err)
	for _, s := range []string{c.String(), fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), c.LogValue().String()} {
		require.NotContains(t, s, "hunter2")
		require.Contains(t, s, "mail.example.com:587")
	}
}
