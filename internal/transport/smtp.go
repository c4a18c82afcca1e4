package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// TLSMode is how the SMTP connection is protected.
type TLSMode int

const (
	// StartTLS upgrades a plain connection and refuses to go on if the
	// server does not offer STARTTLS (smtp://, port 587 by default).
	StartTLS TLSMode = iota
	// ImplicitTLS speaks TLS from the first byte (smtps://, port 465).
	ImplicitTLS
	// NoTLS sends in clear, for a local mail catcher (smtp://…?tls=none).
	NoTLS
)

// SMTPConfig is a parsed SMTP_URL. Its String and LogValue hide the password.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	TLS      TLSMode
}

// Addr is host:port.
func (c SMTPConfig) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// String is the URL with the password masked.
func (c SMTPConfig) String() string {
	u := url.URL{Scheme: "smtp", Host: c.Addr()}
	if c.TLS == ImplicitTLS {
		u.Scheme = "smtps"
	}
	if c.Username != "" {
		u.User = url.UserPassword(c.Username, "xxxxx")
	}
	if c.TLS == NoTLS {
		u.RawQuery = "tls=none"
	}
	return u.String()
}

// GoString keeps %#v from printing the password.
func (c SMTPConfig) GoString() string { return "delivery.SMTPConfig(" + c.String() + ")" }

// LogValue logs the masked URL.
func (c SMTPConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }

// ParseSMTPURL parses SMTP_URL:
//
//	smtp://user:pass@host:587            STARTTLS, mandatory
//	smtps://user:pass@host:465           implicit TLS
//	smtp://127.0.0.1:2525?tls=none       no TLS (a local catcher), no credentials
//
// Errors never contain the password.
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	// A '#' or '/' left unescaped in the password moves the rest of it into
	// another part of the URL, so no error below quotes a part of it.
	if strings.Contains(raw, "#") {
		return SMTPConfig{}, errors.New("SMTP_URL: unexpected '#' (escape it as %23 in the password)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return SMTPConfig{}, errors.New("SMTP_URL: not a valid URL (percent-encode special characters in the user name and password)")
	}
	var c SMTPConfig
	switch u.Scheme {
	case "smtp":
		c.TLS, c.Port = StartTLS, 587
	case "smtps":
		c.TLS, c.Port = ImplicitTLS, 465
	default:
		return SMTPConfig{}, fmt.Errorf("SMTP_URL: scheme %q: want smtp:// (STARTTLS) or smtps:// (implicit TLS)", u.Scheme)
	}
	if c.Host = u.Hostname(); c.Host == "" {
		return SMTPConfig{}, errors.New("SMTP_URL: no host")
	}
	if p := u.Port(); p != "" {
		if c.Port, err = strconv.Atoi(p); err != nil || c.Port < 1 || c.Port > 65535 {
			return SMTPConfig{}, errors.New("SMTP_URL: the port must be a number from 1 to 65535")
		}
	}
	if u.Path != "" && u.Path != "/" {
		return SMTPConfig{}, errors.New("SMTP_URL: unexpected path after host:port (escape '/' as %2F in the password)")
	}
	if u.User != nil {
		c.Username = u.User.Username()
		pass, ok := u.User.Password()
		if c.Username == "" || !ok || pass == "" {
			return SMTPConfig{}, errors.New("SMTP_URL: credentials need both a user name and a password (user:pass@host)")
		}
		c.Password = pass
	}
	q := u.Query()
	for k := range q {
		if k != "tls" {
			return SMTPConfig{}, fmt.Errorf("SMTP_URL: unknown parameter %q (only tls=none is understood)", k)
		}
	}
	if q.Has("tls") {
		if q.Get("tls") != "none" || len(q["tls"]) != 1 {
			return SMTPConfig{}, fmt.Errorf("SMTP_URL: tls=%q: the only value is none (TLS is otherwise chosen by the scheme)", q.Get("tls"))
		}
		if c.TLS == ImplicitTLS {
			return SMTPConfig{}, errors.New("SMTP_URL: smtps:// with tls=none contradicts itself")
		}
		if c.Username != "" {
			return SMTPConfig{}, errors.New("SMTP_URL: tls=none would send the password in clear; use smtp:// with STARTTLS or smtps://")
		}
		c.TLS = NoTLS
	}
	return c, nil
}

// smtpTimeout bounds one send, connection to QUIT.
const smtpTimeout = 30 * time.Second

// SMTPMailer sends each message over its own SMTP connection. Briefings go
// out a few per org per day, so a pool would only add state to get wrong.
type SMTPMailer struct {
	config SMTPConfig
}

// NewSMTPMailer returns a mailer for c.
func NewSMTPMailer(c SMTPConfig) *SMTPMailer { return &SMTPMailer{config: c} }

// Send delivers m, or returns an *Error saying whether to retry. It gives up
// after 30 s or when ctx ends, whichever is first.
func (s *SMTPMailer) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	msg, err := buildMsg(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, smtpTimeout)
	defer cancel()
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	err = client.DialAndSendWithContext(ctx, msg)
	// A failure after the server accepted the data (RSET or QUIT) must not
	// cause a retry: that would deliver the message twice.
	if err == nil || msg.IsDelivered() {
		return nil
	}
	return classifySMTP(ctx, err)
}

// client configures go-mail for one send. The connection is dialled here
// rather than by go-mail so that it can be closed when ctx ends: go-mail
// only watches ctx while dialling, and a stalled DATA would otherwise hold a
// worker until the socket deadline.
func (s *SMTPMailer) client(ctx context.Context) (*gomail.Client, error) {
	c := s.config
	tlsConfig := &tls.Config{ServerName: c.Host, MinVersion: tls.VersionTLS12}
	dial := func(dctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(dctx, network, addr)
		if err != nil {
			return nil, err
		}
		if c.TLS == ImplicitTLS {
			tc := tls.Client(conn, tlsConfig)
			if err := tc.HandshakeContext(dctx); err != nil {
				conn.Close()
				return nil, err
			}
			conn = tc
		}
		context.AfterFunc(ctx, func() { conn.Close() })
		return conn, nil
	}
	opts := []gomail.Option{
		gomail.WithPort(c.Port),
		gomail.WithTimeout(smtpTimeout),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(dial),
	}
	switch c.TLS {
	case StartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case ImplicitTLS:
		// The dialler did the handshake; WithSSL tells go-mail not to look
		// for STARTTLS on top of it.
		opts = append(opts, gomail.WithSSL())
	case NoTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if c.Username != "" {
		// PLAIN and LOGIN are what providers offer; go-mail refuses both on
		// an unencrypted connection, and ParseSMTPURL refuses credentials
		// without TLS.
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(c.Username), gomail.WithPassword(c.Password))
	}
	client, err := gomail.NewClient(c.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp client for %s: %w", c, err)
	}
	return client, nil
}

// buildMsg turns m into a go-mail message: multipart/alternative when there
// is HTML, our Message-ID and headers, the current date.
func buildMsg(m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(m.From); err != nil {
		return nil, permanent("", "invalid From address", err)
	}
	if err := msg.To(m.To); err != nil {
		return nil, permanent("", "invalid recipient address", err)
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(m.MessageID)
	for k, v := range m.Headers() {
		// Preformatted: go-mail would otherwise fold or encode the value.
		msg.SetGenHeaderPreformatted(gomail.Header(k), v)
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// classifySMTP turns a failed send into an *Error: 4xx replies, network
// errors and timeouts are temporary, 5xx replies permanent.
func classifySMTP(ctx context.Context, err error) *Error {
	if ctx.Err() != nil {
		// Our own deadline or shutdown closed the connection mid-way.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return temporary("", "timed out talking to the SMTP server", fmt.Errorf("%w: %w", ctx.Err(), err))
		}
		return temporary("", "cancelled", fmt.Errorf("%w: %w", ctx.Err(), err))
	}
	code, detail := smtpReply(err)
	switch {
	case code >= 500:
		return permanent(strconv.Itoa(code), detail, err)
	case code >= 400:
		return temporary(strconv.Itoa(code), detail, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return temporary("", "timed out talking to the SMTP server", err)
	}
	return temporary("", detail, err)
}

// smtpReply finds the server's reply code in err (0 when the server never
// answered with an error) and a line describing the failure.
func smtpReply(err error) (int, string) {
	// go-mail's SendError covers MAIL, RCPT and DATA and carries the code.
	var se *gomail.SendError
	if errors.As(err, &se) {
		// Its text ends with the recipient and our Message-ID, which the
		// attempt log records already.
		detail, _, _ := strings.Cut(se.Error(), ", affected ")
		return se.ErrorCode(), detail
	}
	// Failures before MAIL (greeting, EHLO, STARTTLS, AUTH) are textproto
	// errors, possibly wrapped.
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code, fmt.Sprintf("%d %s", te.Code, te.Msg)
	}
	return 0, err.Error()
}

// Size is m's size as the SMTP server receives it: headers and every part,
// encoded (quoted-printable text and HTML), as go-mail writes it.
func Size(m Message) (int64, error) {
	msg, err := buildMsg(m)
	if err != nil {
		return 0, err
	}
	n, err := msg.WriteTo(io.Discard)
	if err != nil {
		return 0, fmt.Errorf("size of message %s: %w", m.MessageID, err)
	}
	return n, nil
}
