package transport

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The dialer calls Control with tcp4 or tcp6; public addresses must pass,
// which the loopback-only tests elsewhere cannot show.
func TestGuardControlAllowsPublicAddresses(t *testing.T) {
	t.Parallel()
	require.NoError(t, guardControl("tcp4", "93.184.216.34:443", nil))
	require.NoError(t, guardControl("tcp4", "1.1.1.1:8443", nil))
	require.NoError(t, guardControl("tcp6", "[2606:4700::1111]:443", nil))

	err := guardControl("tcp4", "192.168.0.10:443", nil)
	require.EqualError(t, err, "refused: 192.168.0.10 is a private address")
	err = guardControl("tcp6", "[::ffff:10.0.0.1]:443", nil)
	require.EqualError(t, err, "refused: ::ffff:10.0.0.1 (IPv4-mapped 10.0.0.1) is a private address")
	require.Error(t, guardControl("udp4", "93.184.216.34:443", nil))
}
