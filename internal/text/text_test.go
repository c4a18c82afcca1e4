package text_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/text"
)

func TestParseAddress(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", text.MaxAddressLen-len("@x.example")) + "@x.example"
	for in, want := range map[string]string{
		"ops@acme.example":             "ops@acme.example",
		"Ops@Acme.Example":             "Ops@Acme.Example", // case is kept; lookups ignore it
		" ops@acme.example ":           "ops@acme.example",
		"Dispatch <ops@acme.example>":  "ops@acme.example", // the display name is dropped
		"ana+briefing@acme.example":    "ana+briefing@acme.example",
		long:                           long,
		"user@localhost":               "user@localhost",
		"\"Ana Lima\" <ana@acme.test>": "ana@acme.test",
	} {
		got, err := text.ParseAddress(in)
		require.NoError(t, err, "%q", in)
		require.Equal(t, want, got, "%q", in)
	}
	for in, want := range map[string]error{
		"":                         text.ErrAddressEmpty,
		"   ":                      text.ErrAddressEmpty,
		"nope":                     text.ErrNotAnAddress,
		"a@b@c":                    text.ErrNotAnAddress,
		"@acme.example":            text.ErrNotAnAddress,
		"ops@":                     text.ErrNotAnAddress,
		"two words@acme.example":   text.ErrNotAnAddress,
		"a@b.example, c@d.example": text.ErrNotAnAddress,
		"x" + long:                 text.ErrAddressTooLong,
		strings.Repeat("a", 5000):  text.ErrAddressTooLong,
		`"a b"@acme.example`:       text.ErrAddressQuoted,
	} {
		_, err := text.ParseAddress(in)
		require.ErrorIs(t, err, want, "%q", in)
	}
}

// NormalizeAddress is the stored form: bare, trimmed, nothing else.
func TestNormalizeAddress(t *testing.T) {
	t.Parallel()
	got, err := text.NormalizeAddress("  ana@acme.test\n")
	require.NoError(t, err)
	require.Equal(t, "ana@acme.test", got)
	for _, in := range []string{"Ana <ana@acme.test>", "<ana@acme.test>", "ana@acme.test (Ana)", "nope", ""} {
		_, err := text.NormalizeAddress(in)
		require.Error(t, err, "%q", in)
	}
}

func TestHasControl(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"Acme\x1b[31m", "Acme\nInc", "Acme\tInc", "Acme\x00", "Acme\u202eInc", "A\u2066b", "Acme\xff", "\u0085"} {
		require.True(t, text.HasControl(s), "%q", s)
	}
	for _, s := range []string{"Acme Plumbing", "Café Ünal", "東京 Services", "O'Brien & Sons — 24/7"} {
		require.False(t, text.HasControl(s), "%q", s)
	}
}

// docs/security.md, "Email addresses we send to": the addresses we never send to, each with its code,
// and what stays allowed.
func TestRecipientRefusesIPLiteralsDotlessAndInternalDomains(t *testing.T) {
	t.Parallel()
	for addr, code := range map[string]string{
		"root@[127.0.0.1]":             text.CodeAddressIP,
		"root@[IPv6:::1]":              text.CodeAddressInvalid, // net/mail does not read it: refused all the same
		"root@127.0.0.1":               text.CodeAddressIP,
		"root@127.1":                   text.CodeAddressIP,
		"postmaster@localhost":         text.CodeAddressDotless,
		"zoe@lonestar":                 text.CodeAddressDotless,
		"a@printer.local":              text.CodeAddressInternal,
		"a@db.internal":                text.CodeAddressInternal,
		"a@app.localhost":              text.CodeAddressInternal,
		"a@router.home.arpa":           text.CodeAddressInternal,
		"a@nas.lan":                    text.CodeAddressInternal,
		"a@Host.LOCALDOMAIN":           text.CodeAddressInternal,
		"a@x.invalid":                  text.CodeAddressInternal,
		"x@y@z":                        text.CodeAddressInvalid,
		"Admin<attacker@evil.example>": text.CodeAddressInvalid, // a display name is not a stored address
		"":                             text.CodeAddressEmpty,
		"\"a b\"@acme.example":         text.CodeAddressQuoted,
		"a@" + strings.Repeat("x", 300) + ".example": text.CodeAddressTooLong,
	} {
		_, err := text.NormalizeRecipient(addr)
		require.Error(t, err, addr)
		require.Equal(t, code, text.AddressCode(err), addr)
		require.NotEmpty(t, err.Error())
	}
	for _, addr := range []string{"ana@acme.test", "ops@hooks.acme.example", "zoë@bücher.de", "a@sub.domain.co.uk", "a@localhost.example.com"} {
		got, err := text.NormalizeRecipient(addr)
		require.NoError(t, err, addr)
		require.Equal(t, addr, got)
	}
	// ParseRecipient takes a display name and drops it, with the same rule.
	got, err := text.ParseRecipient("Dispatch <ops@acme.example>")
	require.NoError(t, err)
	require.Equal(t, "ops@acme.example", got)
	_, err = text.ParseRecipient("Ops <ops@localhost>")
	require.Equal(t, text.CodeAddressDotless, text.AddressCode(err))
	// The loose rule (sign-in) still reads them.
	_, err = text.NormalizeAddress("postmaster@localhost")
	require.NoError(t, err)
	require.Empty(t, text.AddressCode(nil))
}

func TestURLPortOK(t *testing.T) {
	t.Parallel()
	for host, ok := range map[string]bool{
		"h": true, "h:1": true, "h:443": true, "h:65535": true, "[::1]": true, "[::1]:8443": true,
		"h:0": false, "h:65536": false, "h:": false, "h:00000": false, "h:99999999999999999999": false, "[::1]:0": false, "h:-1": false,
	} {
		require.Equal(t, ok, text.URLPortOK(host), host)
	}
}

func TestSubjectPart(t *testing.T) {
	for in, want := range map[string]string{
		"Mrs Jones":                            "Mrs Jones",
		"  Mrs\r\nBcc: x@evil.test\t\x1b[31m ": "Mrs Bcc: x@evil.test [31m",
		"a\u202eb\u2066c\x00d\xffe":            "abcde",
		strings.Repeat("x", 500):               strings.Repeat("x", 59) + "…",
		strings.Repeat("é", 60):                strings.Repeat("é", 60),
		strings.Repeat("ab ", 30):              strings.Repeat("ab ", 19) + "ab…",
	} {
		got := text.SubjectPart(in)
		require.Equal(t, want, got, "%q", in)
		require.LessOrEqual(t, utf8.RuneCountInString(got), text.MaxSubjectPart)
	}
}
