package text_test

import (
	"strings"
	"testing"

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
