package freeport

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A port taken is outside the ephemeral range, bindable, locked against
// every other taker, and never taken twice.
func TestTake(t *testing.T) {
	lo, hi := candidates()
	seen := map[int]bool{}
	for range 20 {
		port, err := Take()
		require.NoError(t, err)
		require.False(t, seen[port], "port %d taken twice", port)
		seen[port] = true
		require.True(t, lo <= port && port <= hi, "%d outside %d..%d", port, lo, hi)

		f, err := os.Open(filepath.Join(os.TempDir(), "fieldbrief-ports", strconv.Itoa(port)))
		require.NoError(t, err)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close()
		require.ErrorIs(t, err, syscall.EWOULDBLOCK, "another taker finds port %d locked", port)

		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		require.NoError(t, err, "a server can bind port %d", port)
		ln.Close()
	}
}
