package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestUpdateDelay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    string
		want time.Duration // 0: refused
	}{
		{"", 2 * time.Minute},
		{"90s", 90 * time.Second},
		{"50ms", 50 * time.Millisecond},
		{"1h", time.Hour},
		{"61m", 0},
		{"0s", 0},
		{"-1m", 0},
		{"soon", 0},
	} {
		got, err := UpdateDelay(func(k string) string { return map[string]string{"BRIEFING_UPDATE_DELAY": c.v}[k] })
		if c.want == 0 {
			require.ErrorContains(t, err, "BRIEFING_UPDATE_DELAY", c.v)
			continue
		}
		require.NoError(t, err, c.v)
		require.Equal(t, c.want, got, c.v)
	}
}
