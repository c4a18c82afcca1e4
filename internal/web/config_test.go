package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
)

// TestNewRefusesZeroKeys: New validates a hand-built config as LoadWeb does.
func TestNewRefusesZeroKeys(t *testing.T) {
	t.Parallel()
	_, err := New(config.Web{SessionKeys: [][]byte{make([]byte, 32)}, IdleTimeout: 1, AbsoluteTimeout: 1,
		MaxLoginFailuresPerAccount: 1, MaxLoginFailuresPerClient: 1}, nil, nil)
	require.ErrorContains(t, err, "only zero bytes")
}
