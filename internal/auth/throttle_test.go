package auth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWaitFor(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	last := now.Add(-3 * time.Second)
	for _, tc := range []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {4, 0}, // below the limit of 5
		{5, 0},                           // 1 s after the latest failure: over
		{6, 0},                           // 2 s: over
		{7, time.Second},                 // 4 s: one to go
		{8, 5 * time.Second},             // 8 s
		{14, 509 * time.Second},          // 512 s
		{15, maxDelay - 3*time.Second},   // 1024 s, capped at 15 min
		{1000, maxDelay - 3*time.Second}, // capped, however many
	} {
		require.Equal(t, tc.want, waitFor(tc.failures, 5, &last, now), "%d failures", tc.failures)
	}
	require.Zero(t, waitFor(9, 5, nil, now), "no failure in the window")
}
