// Package transporttest has test helpers for code that sends mail: an SMTP
// server on loopback that records what it accepts and can be told to
// reject, the way a real one does with 451 (try later) or 550 (no such
// mailbox), or to stall.
package transporttest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// SMTPServer is a real SMTP server on 127.0.0.1 without TLS or
// authentication. Point a mailer at URL.
type SMTPServer struct {
	// URL is the SMTP_URL for this server: smtp://127.0.0.1:PORT?tls=none.
	URL string

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever a message arrives
	script   []int
	fallback int
	attempts int
	held     chan struct{} // non-nil while Hold is in force
	messages []Received
}

// Received is an accepted message.
type Received struct {
	From string   // MAIL FROM
	To   []string // RCPT TO
	Raw  []byte   // the message as sent, headers and body
}

// NewSMTPServer starts a server that accepts everything until told
// otherwise. It stops when the test ends.
func NewSMTPServer(t testing.TB) *SMTPServer {
	t.Helper()
	s := &SMTPServer{changed: make(chan struct{}), fallback: 250}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &session{server: s}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 10 << 20
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("transporttest: listen: %v", err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	t.Cleanup(s.Release) // runs first: no session stays blocked
	s.URL = "smtp://" + l.Addr().String() + "?tls=none"
	return s
}

// Script sets the replies to the next recipients, one code per RCPT TO in
// order: 250 accepts, a 4xx or 5xx code rejects the recipient with that
// code. When the script is used up, the server answers with the fallback
// (250 unless SetFallback changed it).
func (s *SMTPServer) Script(codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, codes...)
}

// SetFallback sets the reply once the script is used up, e.g. 451 for a
// server that never recovers.
func (s *SMTPServer) SetFallback(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = code
}

// Hold makes the server stall: each RCPT TO is counted in Attempts, then
// waits for Release before its reply. A sender's messages stay in flight;
// one whose client is gone by the release is never accepted, as its DATA
// never comes.
func (s *SMTPServer) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = make(chan struct{})
	}
}

// Release ends Hold: the recipients held get their replies.
func (s *SMTPServer) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != nil {
		close(s.held)
		s.held = nil
	}
}

// Attempts counts the recipients offered so far, accepted or not.
func (s *SMTPServer) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Messages returns the messages accepted so far.
func (s *SMTPServer) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.messages...)
}

// WaitMessages waits until at least n messages have been accepted and
// returns them all; the test fails if that takes longer than timeout.
func (s *SMTPServer) WaitMessages(t testing.TB, n int, timeout time.Duration) []Received {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		got, changed := len(s.messages), s.changed
		s.mu.Unlock()
		if got >= n {
			return s.Messages()
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("transporttest: %d messages accepted after %v, want %d", got, timeout, n)
		}
	}
}

// RequireOneEach fails the test unless the server accepted exactly one
// message for each of n recipient lists: nothing lost, nothing twice.
func (s *SMTPServer) RequireOneEach(t testing.TB, n int) {
	t.Helper()
	received := map[string]int{}
	for _, m := range s.Messages() {
		received[strings.Join(m.To, ",")]++
	}
	if len(received) != n {
		t.Fatalf("transporttest: messages for %d recipients, want %d: %v", len(received), n, received)
	}
	for to, c := range received {
		if c != 1 {
			t.Fatalf("transporttest: %d messages for %s, want 1", c, to)
		}
	}
}

// nextReply pops the reply for one RCPT TO, and the channel to wait on
// before replying while Hold is in force.
func (s *SMTPServer) nextReply() (code int, held <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if len(s.script) == 0 {
		return s.fallback, s.held
	}
	code = s.script[0]
	s.script = s.script[1:]
	return code, s.held
}

func (s *SMTPServer) accept(r Received) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, r)
	close(s.changed)
	s.changed = make(chan struct{})
}

type session struct {
	server *SMTPServer
	msg    Received
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	se.msg = Received{From: from}
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	code, held := se.server.nextReply()
	if held != nil {
		<-held
	}
	if code != 250 {
		return &smtp.SMTPError{
			Code:         code,
			EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0},
			Message:      fmt.Sprintf("scripted rejection of %s", to),
		}
	}
	se.msg.To = append(se.msg.To, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	se.msg.Raw = raw
	se.server.accept(se.msg)
	return nil
}

func (se *session) Reset()        { se.msg = Received{} }
func (se *session) Logout() error { return nil }

// Parse parses the message's header.
func (r Received) Parse() (*mail.Message, error) {
	return mail.ReadMessage(bytes.NewReader(r.Raw))
}

// Bodies returns the decoded text/plain and text/html parts of a
// multipart/alternative message (html is "" for a text-only message).
func (r Received) Bodies() (text, html string, err error) {
	m, err := r.Parse()
	if err != nil {
		return "", "", err
	}
	mediaType, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		return "", "", fmt.Errorf("content type: %w", err)
	}
	if mediaType == "text/plain" {
		text, err = decode(m.Header.Get("Content-Transfer-Encoding"), m.Body)
		return text, "", err
	}
	if mediaType != "multipart/alternative" {
		return "", "", fmt.Errorf("content type %s, want multipart/alternative or text/plain", mediaType)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return text, html, nil
		}
		if err != nil {
			return "", "", err
		}
		// multipart.Part decodes quoted-printable itself and drops the header.
		body, err := decode(p.Header.Get("Content-Transfer-Encoding"), p)
		if err != nil {
			return "", "", err
		}
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			text = body
		case "text/html":
			html = body
		}
	}
}

func decode(encoding string, r io.Reader) (string, error) {
	if strings.EqualFold(encoding, "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	b, err := io.ReadAll(r)
	return string(b), err
}
